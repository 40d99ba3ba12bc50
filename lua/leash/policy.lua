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
--- It is also the one Lua home of the reach rules: their order (`rank`), which reaches
--- the plan window marks (`marked`), which run without the process guard (`unguarded`),
--- and which steps always run a shell (`is_terminal`).
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

--- Every reach, weakest first, by its rank (the core's order: `src/reach.rs` `Reach`).
--- The one Lua place that knows the order; an unknown reach has no rank and counts as
--- `shell` wherever a rank is compared.
---@type table<string, integer>
M.rank = { safe = 1, edit = 2, write = 3, code = 4, plugin = 5, shell = 6 }

--- Whether a step of `reach` runs without the process guard: it was confirmed as running
--- a program (`shell`) or code leash cannot see (`plugin`). A reach this side does not
--- know is confirmed like `shell` but still runs guarded.
---@param reach any
---@return boolean
function M.unguarded(reach) return reach == 'shell' or reach == 'plugin' end

--- Whether a step of `reach` is marked in the plan window and needs confirmation: all
--- but `safe` and `edit` (unknown reaches too).
---@param reach any
---@return boolean
function M.marked(reach) return not M.rank[reach] or M.rank[reach] > M.rank.edit end

--- Whether `step` is a terminal step or a `term:` item: it runs a shell (or opens one)
--- whatever its `reach` says, so it is marked and confirmed like `shell`.
---@param step any a validated plan step
---@return boolean
function M.is_terminal(step)
  return type(step) == 'table'
    and (
      step.type == 'terminal'
      or (step.type == 'item' and type(step.id) == 'string' and vim.startswith(step.id, 'term:'))
    )
end

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
