--- What the plan window says: its rows in plain words, before they are laid out.
---
--- The core's presenter writes them (the same one that writes Helix's dialog): every
--- step of a validated plan a numbered row marked by its reach, a setting with its value
--- before and after, a first row that counts what the steps reach and what changes
--- nothing, the refused steps with their reasons. Everything the model wrote is made
--- visible there (|leash.text|) and goes into rows only, never a title or footer; a
--- row's highlight comes from the step's fields, never from its text. This module reads
--- what only the editor knows (current option values, the current file) and maps the
--- presenter's styles to the window's highlight groups. Without the native module the
--- window cannot say what a plan does, so it does not open and nothing runs.
local M = {}
local H = {}

-- Module definition ==========================================================

--- The window's rows before layout: each row a list of `{ text, hl_group? }` chunks.
--- The first row says how many steps there are and what they reach. Reads no option
--- values beyond `current` and `globals` (a `file:` step's file is shown relative to
--- the working folder), so specs can read exactly what would be shown.
---@param plan table validated plan
---@param current? table<integer, any> value per setting step `index` before the plan runs (in the step's scope)
---@param globals? table<integer, any> global value per setting step `index` (default: `current`)
---@param effects? table<integer, table> what the dry run found, by step position (|leash.preview.effects()|)
---@return { [1]: string, [2]: string? }[][]
function M.render(plan, current, globals, effects)
  local rows = {}
  for _, row in ipairs(H.present(plan, current, globals, effects).rows) do
    local chunks = {}
    for _, chunk in ipairs(row) do
      chunks[#chunks + 1] = { chunk[1], H.groups[chunk[2]] }
    end
    rows[#rows + 1] = chunks
  end
  return rows
end

--- The first line of the window: how many steps, how many of them run a shell command,
--- run code or write files, and how many change nothing. Static words and numbers only,
--- decided from the validated plan's `type`, `id` and `reach` fields.
---@param plan table validated plan
---@param current? table<integer, any> as for |M.render()|
---@param globals? table<integer, any> as for |M.render()|
---@return string
function M.summary(plan, current, globals) return H.present(plan, current, globals).summary end

--- The setting steps of `plan` that change nothing: the option already has the value the
--- step sets, in every scope the step writes, once the plan's earlier settings are
--- counted. Items and terminal steps always change something.
---@param plan table validated plan
---@return table<integer, true> unchanged by step `index`
---@return integer count
---@return boolean all every step of a non-empty plan changes nothing
function M.unchanged(plan)
  local shown = H.present(plan, M.current_values(plan))
  local out = {}
  for _, index in ipairs(shown.unchanged) do
    out[index] = true
  end
  return out, #shown.unchanged, shown.nothing ~= nil
end

--- What to tell the user when every step of `plan` is a setting that changes nothing
--- (see |leash.confirm.unchanged()|): `leash: nothing to change: wrap is already true`.
---@param plan table validated plan
---@return string? message nil when some step changes something, or the plan is empty
function M.nothing_to_change(plan) return H.present(plan, M.current_values(plan)).nothing end

--- Text with every control and invisible formatting character made visible (|leash.text|).
---@param s any
---@return string
function M.visible(s) return require('leash.text').visible(s) end

--- Current values of the plan's settings, read from the current window and buffer with
--- the scope each step will use, and their global values.
---@param plan table validated plan
---@return table<integer, any> now
---@return table<integer, any> globals
function M.current_values(plan)
  local now, globals = {}, {}
  for _, step in ipairs(H.steps(plan)) do
    if type(step) == 'table' and step.type == 'setting' and type(step.key) == 'string' then
      local ok, v = pcall(vim.api.nvim_get_option_value, step.key, { scope = step.scope == 'local' and 'local' or nil })
      if ok then now[step.index] = v end
      local gok, g = pcall(vim.api.nvim_get_option_value, step.key, { scope = 'global' })
      if gok then globals[step.index] = g end
    end
  end
  return now, globals
end

-- Helper data ================================================================

--- The highlight group of each of the presenter's styles (`plain`: none).
H.groups = {
  heading = 'LeashConfirmHeading',
  reply = 'LeashConfirmReply',
  command = 'LeashConfirmCommand',
  why = 'LeashConfirmWhy',
  note = 'LeashConfirmWhy',
  dropped = 'LeashConfirmDropped',
  unchanged = 'LeashConfirmUnchanged',
  keys = 'LeashConfirmKeys',
  error = 'LeashConfirmShell',
  added = 'LeashConfirmAdded',
  removed = 'LeashConfirmRemoved',
  write = 'LeashConfirmWrite',
  code = 'LeashConfirmCode',
  plugin = 'LeashConfirmPlugin',
  shell = 'LeashConfirmShell',
}

-- Helper functionality =======================================================

function H.steps(plan) return type(plan) == 'table' and type(plan.steps) == 'table' and plan.steps or {} end

--- The core presenter's answer for `plan`, given what the editor knows of each step by
--- position: its option's value now and globally (by step `index` in `current` and
--- `globals`; `globals` defaults to `current`), the file a `file:` step acts on and what
--- the dry run found it does (`effects`, by position).
--- Raises when the native module cannot present it: a plan that cannot be shown does
--- not run.
---@return { rows: { [1]: string, [2]: string }[][], summary: string, unchanged: integer[], nothing?: string }
function H.present(plan, current, globals, effects)
  globals = globals or current or {}
  current = current or {}
  local known = {}
  for pos, step in ipairs(H.steps(plan)) do
    local k = {}
    if type(step) == 'table' then
      if step.index ~= nil then
        k.now, k.global = current[step.index], globals[step.index]
      end
      if type(step.current_file) == 'string' then
        -- A name that is not UTF-8 is shown with its other bytes as `<ff>`.
        k.file = step.current_file ~= '' and vim.fn.fnamemodify(step.current_file, ':~:.') or ''
      end
    end
    k.effect = effects and effects[pos] or nil
    known[pos] = k
  end
  local ok, shown = require('leash.native').call('present_plan', 'show a plan', plan, known)
  if not ok then error('leash: cannot show the plan, so nothing runs: ' .. tostring(shown), 0) end
  return shown
end

return M
