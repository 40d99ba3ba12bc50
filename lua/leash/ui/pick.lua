--- The offline planner's choice: when it is not sure what a request means, its plan
--- has no steps and up to five `choices` (|leash-offline|), each a validated plan of its
--- own with a label that says what it changes ("wrap: off → on (long lines wrap…)").
--- They are offered with |vim.ui.select()|, so a picker plugin (telescope, fzf-lua,
--- snacks, dressing) shows them; the one chosen is shown and run as an ordinary plan.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.Choice one of the offline planner's candidates
---@field label string what choosing it does, with the current value
---@field plan leash.Plan a validated plan

--- Whether `plan` asks the user to choose: no steps, and choices.
---@param plan? leash.Plan
---@return boolean
function M.wanted(plan)
  return type(plan) == 'table'
    and type(plan.steps) == 'table'
    and #plan.steps == 0
    and type(plan.choices) == 'table'
    and #plan.choices > 0
end

--- Offer `plan.choices`. `on_choice` gets the chosen plan, or nil when the picker was
--- dismissed. Like a plan window, the picker waits while the user is typing
--- (|leash.ui.arrival|).
---@param plan leash.Plan with `choices`
---@param on_choice fun(chosen?: leash.Plan)
function M.pick(plan, on_choice)
  local choices = plan.choices
  require('leash.ui.arrival').arrive(function()
    vim.ui.select(choices, {
      prompt = H.prompt(plan.reply),
      kind = 'leash.choice',
      format_item = function(choice) return H.label(choice) end,
    }, function(choice)
      -- A picker may answer from a callback of its own: back on the main loop first.
      vim.schedule(function() on_choice(type(choice) == 'table' and choice.plan or nil) end)
    end)
  end, ('%d choices'):format(#choices))
end

-- Helper functionality =======================================================

--- The core says what it is not sure about; the prompt is that line.
function H.prompt(reply)
  local text = type(reply) == 'string' and reply ~= '' and reply or 'Not sure which one you mean; pick one:'
  return 'leash: ' .. require('leash.text').visible(text)
end

--- A choice's label, control characters written out (the core made it visible already;
--- a picker draws it in a buffer line).
function H.label(choice)
  local label = type(choice) == 'table' and choice.label or ''
  return require('leash.text').visible(tostring(label))
end

return M
