--- Catalog source: entries the user declares in `setup({ entries = { … } })`, id
--- `entry:<name>`.
---
--- An entry either calls a Lua function (`run`) or starts a program (`cmd`, an argv
--- list that runs in a terminal split). The user declares its reach; a `cmd` entry runs
--- a program and is therefore always `shell`, and an undeclared reach is `shell`. The
--- core may raise a reach further, never lower it. The function itself never goes to
--- the core: it stays in the configuration and is looked up by id when the step runs.
local M = {}

-- Module definition ==========================================================

--- Items for the configured entries.
---@return table[]
function M.entries()
  local out = {}
  for _, u in ipairs(require('leash.config').get().entries or {}) do
    out[#out + 1] = {
      id = M.id(u.id),
      kind = 'entry',
      title = u.title,
      aliases = u.aliases or {},
      args = u.args or 'none',
      reach = M.reach(u),
      description = u.description or '',
      cmd = u.cmd,
      cwd = u.cwd,
      pin = M.pin(u),
    }
  end
  return out
end

--- The catalog id of a configured entry (`deploy` and `entry:deploy` are the same).
---@param id string
---@return string
function M.id(id) return vim.startswith(id, 'entry:') and id or ('entry:' .. id) end

--- The declared reach, raised to `shell` for programs and for no declaration.
---@param u leash.UserEntry
---@return string
function M.reach(u)
  if u.cmd ~= nil or u.reach == nil then return 'shell' end
  return u.reach
end

--- What identifies a configured entry's behaviour (its function, program and folder):
--- the action refuses to run an entry whose pin changed after the plan was shown.
---@param u leash.UserEntry
---@return string
function M.pin(u)
  local run = type(u.run) == 'function' and tostring(u.run) or ''
  local cmd = type(u.cmd) == 'table' and table.concat(vim.tbl_map(tostring, u.cmd), '\0') or ''
  return table.concat({ run, cmd, tostring(u.cwd or '') }, '\31')
end

--- The configured entry behind a catalog id.
---@param id string
---@return leash.UserEntry?
function M.find(id)
  for _, u in ipairs(require('leash.config').get().entries or {}) do
    if M.id(u.id) == id then return u end
  end
end

return M
