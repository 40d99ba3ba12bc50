--- The Neovim profile's lists, as the native core holds them: withheld commands, the
--- argument flags and reaches of every builtin command, number caps, invisible-character
--- ranges and the text length limit.
---
--- The Lua side checks steps again before they run (|leash.filter|, |leash.text|) and must
--- use the same lists as the core's validator; they are read once from the native module
--- (`policy_lists()`), never copied into Lua. Without the native module there are no lists,
--- and the checks that need them refuse (nothing a model proposed can run then anyway).
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
  local native, err = require('leash.native').load()
  if not native then return nil, err end
  if type(native.policy_lists) ~= 'function' then
    return nil, 'leash: the native library is too old to serve the policy lists (run :Leash build)'
  end
  local ok, lists = pcall(native.policy_lists)
  if not ok then return nil, require('leash.native').message(lists) end
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

--- Why `:name` is never offered, or nil (nil too when the lists are unavailable).
---@param name string
---@return string?
function M.withheld(name)
  local lists = M.lists()
  return lists and lists.withheld[name] or nil
end

-- Helper data ================================================================

---@type leash.PolicyLists?
H.lists = nil

return M
