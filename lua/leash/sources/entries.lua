--- Source: entries the user declares in `setup({ entries = { … } })`, id
--- `entry:<name>`: their catalog entries and how a step of one runs.
---
--- An entry either calls a Lua function (`run`) or starts a program (`cmd`, an argv
--- list that runs in a terminal split). The user declares its reach; a `cmd` entry runs
--- a program and is therefore always `shell`, and an undeclared reach is `shell`. The
--- core may raise a reach further, never lower it. The function itself never goes to
--- the core: it stays in the configuration and is looked up by id when the step runs.
---
--- A step of one calls the entry's Lua function with the step's arguments, or runs its
--- argv list in a terminal split with the arguments appended as argv elements (never
--- through a shell).
local M = {}

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'entries', 'entry'

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

--- Run a step of an `entry:` item.
---@param entry table catalog entry
---@param step? table validated step
---@param opts? leash.TermOpts
---@return boolean ok
---@return any err_or_result
function M.run(entry, step, opts)
  local u = M.find(entry.id)
  if not u then return false, ('leash: %s is no longer configured'):format(entry.id) end
  if entry.pin ~= nil and M.pin(u) ~= entry.pin then
    return false, ('leash: %s changed after the plan was shown; run the request again'):format(entry.id)
  end
  local args = step and step.args
  if type(args) == 'string' then args = { args } end
  if args == vim.NIL then args = nil end
  args = args or {}
  -- Whatever reach the entry declares, the model's arguments are filtered (a `safe`
  -- entry that passes its argument to :edit must not receive `term://…`).
  local why = require('leash.policy').check_item_args(args, step and step.reach or 'safe')
  if why then return false, 'leash: ' .. why end
  if type(u.run) == 'function' then
    local ok, res = pcall(u.run, args, step)
    if not ok then return false, ('leash: %s failed: %s'):format(entry.id, res) end
    return true, res
  end
  local argv = vim.deepcopy(u.cmd)
  for _, a in ipairs(args) do
    argv[#argv + 1] = a
  end
  local job, err = require('leash.sources.shared.term').open(
    argv,
    vim.tbl_extend('force', opts or {}, { cwd = u.cwd and vim.fs.normalize(u.cwd) })
  )
  if not job then return false, err end
  return true, job
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
--- |M.run()| refuses to run an entry whose pin changed after the plan was shown.
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
