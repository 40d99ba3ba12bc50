--- What the plan window says: its rows in plain words, before they are laid out.
---
--- Every step of a validated plan becomes a numbered row, marked by its reach; a setting
--- says its value before and after; the first row counts what the steps reach and what
--- changes nothing. Everything the model wrote is made visible (|leash.text|) and goes
--- into rows only, never a title or footer, and the highlight of a row comes from the
--- step's fields, never from its text. Pure apart from reading the current option
--- values, so specs can read exactly what would be shown.
local M = {}
local H = {}
local policy = require('leash.policy')

-- Module definition ==========================================================

--- The window's rows before layout: each row a list of `{ text, hl_group? }` chunks.
--- The first row says how many steps there are and what they reach. Pure (no editor
--- state beyond `current` and `globals`), so specs can read exactly what would be shown.
---@param plan table validated plan
---@param current? table<integer, any> value per setting step `index` before the plan runs (in the step's scope)
---@param globals? table<integer, any> global value per setting step `index` (default: `current`)
---@return { [1]: string, [2]: string? }[][]
function M.render(plan, current, globals)
  local rows = {}
  local function row(...)
    local chunks = {}
    for i = 1, select('#', ...) do
      local c = select(i, ...)
      if c then chunks[#chunks + 1] = c end
    end
    rows[#rows + 1] = chunks
  end

  local steps = type(plan.steps) == 'table' and plan.steps or {}
  local before = H.before(steps, current or {}, globals)
  row({ M.summary(plan, before), 'LeashConfirmHeading' })
  row()

  local reply = M.visible(plan.reply)
  if reply ~= '' then
    row({ reply, 'LeashConfirmReply' })
    row()
  end

  if #steps == 0 then row({ 'Nothing to run.', 'LeashConfirmDropped' }) end
  for pos, step in ipairs(steps) do
    -- The steps that run are numbered 1…n as they run (the model's own numbering,
    -- with refused steps in it, is not the user's business).
    local num = ('%d. '):format(pos)
    local indent = (' '):rep(#num)
    local mark, mark_hl = nil, nil
    if not policy.rank[step.reach] then
      mark, mark_hl = '[unknown reach] ', 'LeashConfirmShell'
    elseif policy.marked(step.reach) then
      mark = '[' .. step.reach .. '] '
      mark_hl = 'LeashConfirm' .. step.reach:sub(1, 1):upper() .. step.reach:sub(2)
    end

    if step.type == 'setting' then
      local scope = step.scope == 'local' and ' (this window/buffer only)' or ''
      local b = before[pos]
      local change, hl = H.value(step.value), nil
      if b and b.same then
        change, hl = 'already ' .. H.value(step.value), 'LeashConfirmUnchanged'
      elseif b and b.here then
        change = ('%s → %s here, global value %s → %s'):format(
          H.value(b.now),
          H.value(step.value),
          H.value(b.global),
          H.value(step.value)
        )
      elseif b and b.now ~= step.value then
        change = H.value(b.now) .. ' → ' .. H.value(step.value)
      end
      row({ num }, mark and { mark, mark_hl } or nil, { ('Set %s%s: '):format(M.visible(step.key), scope) }, {
        change,
        hl,
      })
    elseif step.type == 'terminal' or (step.type == 'item' and step.id == 'term:run') then
      -- Only term:run's argument is a command line; term:below/term:tab open a shell.
      local command = step.type == 'terminal' and step.command or table.concat(step.args or {}, ' ')
      row({ num }, { mark or '[shell] ', mark_hl or 'LeashConfirmShell' }, { 'Run in a terminal:' })
      row({ indent }, { M.visible(command), 'LeashConfirmCommand' })
    else
      row({ num }, mark and { mark, mark_hl } or nil, { H.item_text(step) })
      -- The file `file:delete`/`file:rename` act on, as the executor will check it.
      if type(step.current_file) == 'string' then
        local file = step.current_file ~= '' and vim.fn.fnamemodify(step.current_file, ':~:.') or '(no file)'
        local tail = step.current_file_may_change and '; if an earlier step makes another file current, it does not run'
          or ''
        row({ indent }, { ('on %s, the current file%s'):format(M.visible(file), tail), 'LeashConfirmCommand' })
      end
    end
    -- What the checker found that the label alone does not say (why a step reaches
    -- further, the folder a script runs in).
    local note = M.visible(step.note)
    if note ~= '' then row({ indent }, { note, mark_hl or 'LeashConfirmWhy' }) end
    local why = M.visible(step.why)
    if why ~= '' then row({ indent }, { '(' .. why .. ')', 'LeashConfirmWhy' }) end
  end

  local dropped = type(plan.dropped) == 'table' and plan.dropped or {}
  if #dropped > 0 then
    row()
    row({ 'Not run (refused by the checker):', 'LeashConfirmHeading' })
    for _, d in ipairs(dropped) do
      row({ '- ', 'LeashConfirmDropped' }, { M.visible(d.reason), 'LeashConfirmDropped' })
    end
  end
  return rows
end

--- The first line of the window: how many steps, how many of them run a shell command,
--- run code or write files, and how many change nothing. Static words and numbers only,
--- decided from the validated plan's `type`, `id` and `reach` fields.
---@param plan table validated plan
---@param before? table[] per step position, `{ same = true }` for a setting that changes nothing
---@return string
function M.summary(plan, before)
  local steps = type(plan.steps) == 'table' and plan.steps or {}
  before = before or {}
  local n = { shell = 0, plugin = 0, code = 0, write = 0, unknown = 0, same = 0 }
  for pos, step in ipairs(steps) do
    if policy.is_terminal(step) or step.reach == 'shell' then
      n.shell = n.shell + 1
    elseif step.reach == 'plugin' or step.reach == 'code' or step.reach == 'write' then
      n[step.reach] = n[step.reach] + 1
    elseif not policy.rank[step.reach] then
      n.unknown = n.unknown + 1
    end
    if before[pos] and before[pos].same then n.same = n.same + 1 end
  end
  local function verb(count, one, many) return ('%d %s'):format(count, count == 1 and one or many) end
  local parts = {}
  if n.shell > 0 then parts[#parts + 1] = verb(n.shell, 'runs a shell command', 'run shell commands') end
  if n.plugin > 0 then parts[#parts + 1] = verb(n.plugin, 'runs plugin code', 'run plugin code') end
  if n.code > 0 then parts[#parts + 1] = verb(n.code, 'runs code', 'run code') end
  if n.write > 0 then parts[#parts + 1] = verb(n.write, 'writes files', 'write files') end
  if n.unknown > 0 then parts[#parts + 1] = verb(n.unknown, 'has an unknown reach', 'have an unknown reach') end
  if #parts == 0 then parts[1] = 'no shell command, no code, no file writes' end
  local text = ('%d step%s: %s'):format(#steps, #steps == 1 and '' or 's', table.concat(parts, ', '))
  if #steps > 0 and n.same == #steps then
    text = text .. '; nothing changes, every setting already has its value'
  elseif n.same > 0 then
    text = text .. '; ' .. verb(n.same, 'changes nothing', 'change nothing')
  end
  return text .. '.'
end

--- The setting steps of `plan` that change nothing: the option already has the value the
--- step sets, in every scope the step writes, once the plan's earlier settings are
--- counted. Items and terminal steps always change something.
---@param plan table validated plan
---@return table<integer, true> unchanged by step `index`
---@return integer count
---@return boolean all every step of a non-empty plan changes nothing
function M.unchanged(plan)
  local steps = type(plan) == 'table' and type(plan.steps) == 'table' and plan.steps or {}
  local now, globals = M.current_values({ steps = steps })
  local out, count = {}, 0
  for pos, b in pairs(H.before(steps, now, globals)) do
    if b.same then
      out[tonumber(steps[pos].index) or (pos - 1)] = true
      count = count + 1
    end
  end
  return out, count, #steps > 0 and count == #steps
end

--- What to tell the user when every step of `plan` is a setting that changes nothing
--- (see |leash.confirm.unchanged()|): `leash: nothing to change: wrap is already true`.
---@param plan table validated plan
---@return string? message nil when some step changes something, or the plan is empty
function M.nothing_to_change(plan)
  local _, _, all = M.unchanged(plan)
  if not all then return nil end
  local parts = {}
  for _, step in ipairs(plan.steps) do
    parts[#parts + 1] = ('%s is already %s'):format(M.visible(step.key), H.value(step.value))
  end
  return 'leash: nothing to change: ' .. table.concat(parts, ', ')
end

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
  for _, step in ipairs(type(plan.steps) == 'table' and plan.steps or {}) do
    if type(step) == 'table' and step.type == 'setting' and type(step.key) == 'string' then
      local ok, v = pcall(vim.api.nvim_get_option_value, step.key, { scope = step.scope == 'local' and 'local' or nil })
      if ok then now[step.index] = v end
      local gok, g = pcall(vim.api.nvim_get_option_value, step.key, { scope = 'global' })
      if gok then globals[step.index] = g end
    end
  end
  return now, globals
end

-- Helper functionality =======================================================

--- For each setting step (by position): its option's value just before it runs, counting
--- the plan's earlier settings of the same option, and whether it changes nothing. A
--- step without `:setlocal` writes the global value too, so it changes nothing only when
--- both already match; `here` marks a step whose local value matches and global does not.
--- Once an item or terminal step came first nothing is known: it may switch buffer or
--- window, or change options itself.
---@return table<integer, { now: any, global: any, same?: boolean, here?: boolean }>
function H.before(steps, current, globals)
  globals = globals or current
  local out, set, blind = {}, {}, false
  for pos, step in ipairs(steps) do
    if type(step) ~= 'table' or step.type ~= 'setting' then
      blind = true
    else
      local key = step.key
      local known = set[key] or {}
      local now = known.now
      if now == nil then now = current[step.index] end
      local global = known.global
      if global == nil then global = globals[step.index] end
      if now ~= nil and now ~= vim.NIL then
        local b = { now = now, global = global }
        if not blind and now == step.value then
          if step.scope == 'local' or global == nil or global == step.value then
            b.same = true
          else
            b.here = true
          end
        end
        out[pos] = b
      end
      if type(key) == 'string' then
        set[key] = {
          now = step.value,
          global = step.scope == 'local' and global or step.value,
        }
      end
    end
  end
  return out
end

--- An item step in words: `Run :cmd args` for a command, else the core's label.
function H.item_text(step)
  local id = type(step.id) == 'string' and step.id or ''
  local args = {}
  for _, a in ipairs(type(step.args) == 'table' and step.args or {}) do
    args[#args + 1] = M.visible(a)
  end
  local tail = #args > 0 and (' ' .. table.concat(args, ' ')) or ''
  local cmd = id:match('^cmd:(.+)$')
  if cmd then return 'Run :' .. M.visible(cmd) .. tail .. H.range_text(step.range) end
  -- A user command's label is the core's: its plugin, `Run :Name args`, the lines it
  -- runs on, what it loads.
  local user = id:match('^user:(.+)$')
  if user then
    local label = M.visible(step.label)
    return label ~= '' and label or ('Run :' .. M.visible(user) .. tail .. H.range_text(step.range))
  end
  local label = M.visible(step.label)
  return label ~= '' and label or (M.visible(id) .. tail)
end

--- ` on lines 2–4` for a step the core gave the user's range (the executor runs it there).
function H.range_text(range)
  if type(range) ~= 'table' or type(range[1]) ~= 'number' or type(range[2]) ~= 'number' then return '' end
  if range[1] == range[2] then return (' on line %d'):format(range[1]) end
  return (' on lines %d–%d'):format(range[1], range[2])
end

--- A value as shown: a string quoted, none as `(none)`, all made visible.
function H.value(v)
  if type(v) == 'string' then return '"' .. M.visible(v) .. '"' end
  if v == nil or v == vim.NIL then return '(none)' end
  return M.visible(tostring(v))
end

return M
