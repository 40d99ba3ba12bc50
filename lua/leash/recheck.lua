--- A kept plan checked again before it runs from `:Leash last`: its steps go through the
--- core's validator once more, against the catalog as it is now, with the rules of now
--- (the `raise` of the config), on the lines the plan was made for. It runs only when
--- nothing it names changed: every step passes again with the same reach and the same
--- label, and every item's catalog entry is the one the plan was made from (a user
--- command or a project script redefined since is a change). Otherwise the changes are
--- said and nothing runs: a plan reviewed earlier is not a plan for what is there now.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.KeptPlan
---@field request string
---@field plan leash.Plan the validated plan as it was shown
---@field entries table[] the catalog it was made from
---@field range? leash.LineRange

--- Check `kept` against the current catalog.
---@param kept leash.KeptPlan
---@return leash.Plan? plan the plan validated now (nil when anything changed)
---@return table[]? entries the current catalog, which it runs from
---@return string[] changes what changed, in words (empty: nothing)
function M.check(kept)
  local native, nerr = require('leash.native').load()
  if not native then return nil, nil, { tostring(nerr) } end
  local catalog = require('leash.catalog')
  local state, cerr = catalog.get()
  if not state then return nil, nil, { tostring(cerr) } end
  local steps = type(kept.plan) == 'table' and type(kept.plan.steps) == 'table' and kept.plan.steps or {}
  local range = kept.range and { kept.range[1], kept.range[2] } or nil
  local cfg = require('leash.config').get()
  local ok, now = pcall(native.validate, state.handle, vim.json.encode(H.proposed(kept.plan, steps)), {
    profile = 'neovim',
    context = { range = range },
    raise = (cfg.raise and #cfg.raise > 0) and cfg.raise or nil,
  })
  if not ok then return nil, nil, { require('leash.native').message(now) } end
  local changes = H.changes(steps, now, catalog.by_id(kept.entries), catalog.by_id(state.entries))
  if #changes > 0 then return nil, nil, changes end
  return now, state.entries, {}
end

--- `v` as JSON holds it: functions (an entry's callback) left out, so a plan kept on
--- disk and the catalog of now compare alike.
---@param v any
---@return any
function M.plain(v)
  if type(v) == 'table' then
    local out = {}
    for k, x in pairs(v) do
      if type(k) == 'string' or type(k) == 'number' then out[k] = M.plain(x) end
    end
    return out
  end
  if type(v) == 'function' or type(v) == 'userdata' and v ~= vim.NIL or type(v) == 'thread' then return nil end
  return v
end

-- Helper functionality =======================================================

--- The plan as the model would have written it: each step's own fields, nothing the
--- validator added (reach, label, note).
function H.proposed(plan, steps)
  local out = {}
  for _, s in ipairs(steps) do
    out[#out + 1] = {
      type = s.type,
      id = s.id,
      args = (type(s.args) == 'table' and #s.args > 0) and s.args or nil,
      key = s.key,
      value = s.value,
      scope = s.scope,
      command = s.command,
      why = s.why,
    }
  end
  return { reply = type(plan.reply) == 'string' and plan.reply or '', steps = out }
end

--- Whether two catalog entries are the same, as JSON holds them (a plan kept across a
--- restart has its entries from the file).
function H.same_entry(a, b)
  local function norm(e)
    local ok, text = pcall(vim.json.encode, M.plain(e))
    return ok and vim.json.decode(text) or e
  end
  return vim.deep_equal(norm(a), norm(b))
end

function H.label(step)
  return require('leash.text').visible(type(step) == 'table' and (step.label or step.id or step.key) or '?')
end

--- What differs between the steps as shown (`before`) and as validated now (`now`).
function H.changes(before, now, old_entries, new_entries)
  local changes = {}
  local now_steps = type(now) == 'table' and type(now.steps) == 'table' and now.steps or {}
  local by_index = {}
  for _, s in ipairs(now_steps) do
    by_index[s.index] = s
  end
  for _, d in ipairs(type(now) == 'table' and type(now.dropped) == 'table' and now.dropped or {}) do
    local step = before[(tonumber(d.index) or -1) + 1]
    changes[#changes + 1] = ('%s: %s'):format(H.label(step), require('leash.text').visible(d.reason or d.code))
  end
  for i, s in ipairs(before) do
    local n = by_index[i - 1]
    if n then
      if n.reach ~= s.reach then
        changes[#changes + 1] = ('%s: was [%s], is now [%s]'):format(H.label(s), tostring(s.reach), tostring(n.reach))
      elseif n.label ~= s.label then
        changes[#changes + 1] = ('%s: now reads “%s”'):format(H.label(s), H.label(n))
      end
      if s.type == 'item' and type(s.id) == 'string' and not H.same_entry(old_entries[s.id], new_entries[s.id]) then
        changes[#changes + 1] = ('%s: “%s” changed since the plan was made'):format(
          H.label(s),
          require('leash.text').visible(s.id)
        )
      end
    end
  end
  return changes
end

return M
