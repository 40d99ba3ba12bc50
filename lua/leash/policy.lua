--- The Neovim profile's lists, as the native core holds them: withheld commands, the
--- argument flags and reaches of every builtin command, number caps, invisible-character
--- ranges and the text length limit.
---
--- The executor checks each step again just before it runs (defence in depth: the
--- validator applied the same rules when the plan was made). Those checks are the core's
--- own functions (|M.check_command_args()|, |M.check_item_args()|, |M.check_file_name()|),
--- never a copy in Lua, and the lists the Lua side needs are read once from the native
--- module (`policy_lists()`). Without the native module there are no lists and every
--- check refuses (nothing a model proposed can run then anyway).
---
--- It is also the one Lua home of the reach rules the executor needs: their order
--- (|M.at_least()|, read from the core) and which reaches run without the process guard
--- (|M.unguarded()|). Which steps are marked and whether a plan needs the window are the
--- core's answers (|leash.ui.confirm.decision|).
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.PolicyLists
---@field withheld table<string, string> command name → why it is never offered
---@field no_args string[] commands offered without arguments
---@field number_arg_caps table<string, integer> command → largest number its arguments may hold
---@field invisible integer[][] inclusive code point ranges of invisible formatting characters
---@field max_text_bytes integer longest argument, value or command accepted
---@field max_plan_sleep_ms integer longest a whole plan may sleep
---@field reaches string[] every reach, weakest first
---@field default_key_envs string[] the variables a provider's key is read from when none is named
---@field commands table<string, { raw: string, reach: string, xfile?: true, cmdarg?: true, argopt?: true, backticks?: true, loads_files?: true, name_arg?: true }>

--- The lists, read from the native module on first use.
---@return leash.PolicyLists? lists
---@return string? err why they are not available
function M.lists()
  if H.lists then return H.lists end
  local ok, lists = require('leash.native').call('policy_lists', 'serve the policy lists')
  if not ok then return nil, lists end
  H.lists = lists
  return lists
end

--- The rank of `reach` in the core's order, weakest 1 (`Reach` in the core's `reach.rs`,
--- served with the lists), or nil for a reach the core does not know or when the lists
--- are unavailable. Callers decide what an unknown reach means where they compare.
---@param reach any
---@return integer?
function M.rank_of(reach)
  local lists = M.lists()
  if not lists then return nil end
  if not H.ranks then
    H.ranks = {}
    for i, name in ipairs(lists.reaches) do
      H.ranks[name] = i
    end
  end
  return H.ranks[reach]
end

--- Whether `reach` is at least `floor` in the core's order: a reach the core does not
--- know counts as `shell`, the strongest. Nil and why when the lists are unavailable
--- (every check refuses then).
---@param reach any
---@param floor string a reach the core knows
---@return boolean? at_least
---@return string? err
function M.at_least(reach, floor)
  local lists, err = M.lists()
  if not lists then return nil, err end
  return (M.rank_of(reach) or #lists.reaches) >= assert(M.rank_of(floor), floor)
end

--- Whether a step of `reach` runs without the process guard: it was confirmed as running
--- a program (`shell`) or code leash cannot see (`plugin`). A reach this side does not
--- know is confirmed like `shell` but still runs guarded.
---@param reach any
---@return boolean
function M.unguarded(reach) return reach == 'shell' or reach == 'plugin' end

--- Why `:name` is never offered, or nil (nil too when the lists are unavailable).
---@param name string
---@return string?
function M.withheld(name)
  local lists = M.lists()
  return lists and lists.withheld[name] or nil
end

--- Why `:name args` must not run in a step of `reach`, or nil: the core's argument filter
--- for the command, and below `shell` no file name that one of `handlers` reads or
--- writes in Neovim's place (|leash.name_handlers|; the validator raised such a step to
--- `shell`, so one that arrives lower was not shown as running a program).
---@param name string the command's full name
---@param reach string the step's reach
---@param args string[]
---@param handlers? leash.NameHandler[] default: none checked
---@return string? why
function M.check_command_args(name, reach, args, handlers)
  if type(reach) ~= 'string' then return H.no_reach end
  return H.native_check(
    'check_command_args',
    name,
    reach,
    args,
    handlers and require('leash.name_handlers').json(handlers)
  )
end

--- Why the arguments of a user command or a user entry must not be passed on in a step of
--- `reach`, or nil: plain text always, and below `shell` the file-argument rules (a
--- declared `safe` entry must not receive `term://…`, `+cmd` or `|`).
---@param args string[]
---@param reach string
---@return string? why
function M.check_item_args(args, reach)
  if type(reach) ~= 'string' then return H.no_reach end
  return H.native_check('check_item_args', args, reach)
end

--- Why the arguments of an item step must not run, or nil: as many as the entry takes
--- (`takes`: its `args` field) and each within the core's text rule, as the validator
--- checked them.
---@param id string
---@param takes any the entry's `args` ('none' | 'optional' | 'required')
---@param args string[]
---@return string? why
function M.check_step_args(id, takes, args)
  if type(takes) ~= 'string' then return ('“%s” says no argument kind'):format(id) end
  return H.native_check('check_step_args', id, takes, args)
end

--- Why leash must not open the file `name` that came from elsewhere (a language server's
--- jump target), or nil.
---@param name string
---@return string? why
function M.check_file_name(name) return H.native_check('check_file_name', name) end

-- Helper data ================================================================

---@type leash.PolicyLists?
H.lists = nil

-- A step without a reach did not come from the validator.
H.no_reach = 'the step has no reach, so it is not from a validated plan'

-- Helper functionality =======================================================

--- One of the native module's checks: its reason, or nil when the step may run. Fails
--- closed: without the module, or when the check itself fails, that is the reason.
function H.native_check(name, ...)
  local _, why = require('leash.native').call(name, 'check steps before they run', ...)
  return why
end

return M
