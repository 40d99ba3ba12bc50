--- The agents' door: what `leash mcp` (the MCP server an agent such as Claude Code starts)
--- calls in the person's Neovim, over Neovim's RPC channel.
---
--- The program calls |M.call()| through `nvim_exec_lua` with a fixed chunk of code; what
--- the agent sent (its request, its plan, its name) arrives only as arguments of that
--- call, as JSON text, and is read as data. A plan goes the way a model's plan goes after
--- `:Do` asked for it: the core's validator, against the live catalog and the user's
--- raise rules, then the plan window (|leash.execute.confirm_and_run()|), titled `plan
--- from NAME`, which waits while the person types as `:Do`'s plans do. Nothing the agent
--- sends changes what must be confirmed: only the validated plan's `confirm` and `reach`
--- decide that.
---
--- Neovim never waits for the person's decision on the agent's behalf: `propose` returns
--- at once with an id, and the program asks for the outcome (`outcome`) until the person
--- decided; it may withdraw the plan (`withdraw`) when the agent stops waiting. One
--- proposal is undecided at a time; another is refused with the reason. Every proposal
--- and its outcome goes to the log with the agent's name.
local M = {}
local H = {}

-- Module definition ==========================================================

--- The version of the calls below. `leash mcp` refuses a Neovim whose leash speaks
--- another one, saying which side is older.
M.protocol = 1

--- One call from `leash mcp`: `method` with its arguments as a JSON object text. Answers
--- a JSON object text: the result, or `{"error": {"code", "message"}}`. Never raises.
---@param method string `hello`, `search`, `state`, `propose`, `outcome` or `withdraw`
---@param args string JSON object
---@return string
function M.call(method, args)
  local handler = type(method) == 'string' and H.methods[method]
  if not handler then
    return H.encode(H.error('unknown_method', ('leash: no agent call named %s'):format(vim.inspect(method))))
  end
  local ok, decoded = pcall(vim.json.decode, type(args) == 'string' and args or '', { luanil = { object = true } })
  if not ok or type(decoded) ~= 'table' then
    return H.encode(H.error('bad_arguments', 'leash: the arguments of an agent call must be a JSON object'))
  end
  local done, result = pcall(handler, decoded)
  if not done then
    return H.encode(H.error('internal', 'leash: internal error (please report it): ' .. tostring(result)))
  end
  return H.encode(result)
end

--- The proposals of this session by id: the agent's name, the validated plan, and the
--- outcome once the person decided.
---@type table<integer, leash.AgentProposal>
M.proposals = {}

---@class leash.AgentProposal
---@field id integer
---@field client string the agent's name, as the plan window shows it
---@field plan table the validated plan (steps kept, steps dropped)
---@field outcome? table what became of it (see |H.outcome_of()|)
---@field withdraw? fun(): boolean ends it while the person has not decided

-- Helper data ================================================================

-- The most entries a search returns, and how many when the agent does not say.
H.search_max, H.search_default = 100, 20

H.next_id = 0

-- Helper functionality =======================================================

function H.error(code, message) return { error = { code = code, message = message } } end

function H.encode(v)
  local ok, text = pcall(vim.json.encode, v)
  if ok then return text end
  return vim.json.encode(H.error('internal', 'leash: cannot encode the answer: ' .. tostring(text)))
end

--- The core, its catalog and the configuration, or the error an agent and the person
--- can act on (no library: nothing can be validated, so nothing is offered).
function H.ready()
  local native, err = require('leash.native').load()
  if not native then return nil, H.error('no_library', err) end
  local failed = require('leash.config').failed()
  if failed then return nil, H.error('config', failed) end
  local state, cerr = require('leash.catalog').get()
  if not state then return nil, H.error('catalog', cerr) end
  return { native = native, state = state, config = require('leash.config').get() }
end

--- The agent's name as leash shows it: plain characters, at most 40 (the plan window's
--- title keeps fewer still).
function H.client(name)
  local plain = (type(name) == 'string' and name or ''):gsub('[^A-Za-z0-9%.%-_@/+ ]', ''):gsub('%s+', ' ')
  plain = vim.trim(plain):sub(1, 40)
  return plain ~= '' and plain or 'an agent'
end

--- Append one line to the log (|leash-log|) with the agent's name.
function H.log(entry) pcall(require('leash.log').append, vim.json.encode({ agent = entry })) end

H.methods = {}

--- `{version, protocol, client}` → who answers: this side's protocol and version, and
--- whether the native library loaded (its loader's message if not).
function H.methods.hello(args)
  -- A plan the agent proposes waits while the person types: note their keys from now.
  require('leash.ui.arrival').watch_keys()
  local native, err = require('leash.native').load()
  local v = vim.version()
  return {
    protocol = M.protocol,
    version = require('leash.native').version,
    library = native and native.version() or vim.NIL,
    library_error = err or vim.NIL,
    nvim = ('%d.%d.%d'):format(v.major, v.minor, v.patch),
    client = H.client(args.client),
  }
end

--- `{request, limit?}` → `{results}`: the ranked shortlist of the live catalog, each entry
--- with what a step naming it needs: its id (item) or key (setting), kind, title, its
--- arguments (item) or type, allowed values and current value (setting), and its reach.
function H.methods.search(args)
  if type(args.request) ~= 'string' or vim.trim(args.request) == '' then
    return H.error('bad_arguments', 'leash: “request” must be a non-empty string')
  end
  local limit = args.limit == nil and H.search_default or args.limit
  if type(limit) ~= 'number' or limit % 1 ~= 0 or limit < 1 or limit > H.search_max then
    return H.error('bad_arguments', ('leash: “limit” must be a whole number from 1 to %d'):format(H.search_max))
  end
  local core, err = H.ready()
  if not core then return err end
  local hits = core.native.rank(core.state.handle, args.request, { limit = limit })
  local names = vim.tbl_map(function(h) return h.id end, hits)
  local details = core.native.entry_details(core.state.handle, names, { profile = 'neovim', raise = H.raise(core) })
  local results = {}
  for i, hit in ipairs(hits) do
    local d = details[i]
    if d then results[#results + 1] = H.describe(d.entry, d.reach) end
  end
  return { results = results }
end

function H.raise(core)
  local raise = core.config.raise
  return (raise and #raise > 0) and raise or nil
end

--- One search result. No description: the title says what it is, and the agent's
--- context is small.
function H.describe(e, reach)
  if e.kind == 'setting' then
    local ok, now = pcall(vim.api.nvim_get_option_value, e.key, {})
    if not ok or type(now) == 'table' then now = nil end
    return {
      key = e.key,
      kind = 'setting',
      title = e.title,
      type = e.type,
      values = e.values,
      list = e.list,
      min = e.min,
      max = e.max,
      scope = e.scope,
      current = now,
      reach = reach,
    }
  end
  return { id = e.id, kind = e.kind, title = e.title, args = e.args, reach = reach }
end

--- `{}` → where the person is: mode, current file and filetype, cursor, the Visual
--- selection, the windows of the current tab page. Never any buffer text.
function H.methods.state()
  local win = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_win_get_buf(win)
  local cursor = vim.api.nvim_win_get_cursor(win)
  local mode = vim.api.nvim_get_mode()
  local windows = {}
  for i, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(w)
    local pos = vim.api.nvim_win_get_position(w)
    local float = vim.api.nvim_win_get_config(w).relative ~= ''
    windows[#windows + 1] = {
      number = i,
      current = w == win,
      file = H.file(b),
      filetype = vim.bo[b].filetype,
      buftype = vim.bo[b].buftype,
      modified = vim.bo[b].modified,
      row = pos[1] + 1,
      col = pos[2] + 1,
      width = vim.api.nvim_win_get_width(w),
      height = vim.api.nvim_win_get_height(w),
      floating = float,
    }
  end
  return {
    mode = mode.mode,
    cwd = vim.fn.getcwd(),
    file = H.file(buf),
    filetype = vim.bo[buf].filetype,
    buftype = vim.bo[buf].buftype,
    modified = vim.bo[buf].modified,
    cursor = { line = cursor[1], column = cursor[2] + 1 },
    selection = H.selection(),
    windows = windows,
    tabpages = #vim.api.nvim_list_tabpages(),
  }
end

function H.file(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  return name ~= '' and name or vim.NIL
end

--- The Visual selection while Visual mode is active: its mode and first and last
--- positions (1-based lines and columns), or nil.
function H.selection()
  local mode = vim.fn.mode()
  if not (mode == 'v' or mode == 'V' or mode == '\22') then return vim.NIL end
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then
    a, b = b, a
  end
  local names = { v = 'characterwise', V = 'linewise', ['\22'] = 'blockwise' }
  return { mode = names[mode], from = { line = a[2], column = a[3] }, to = { line = b[2], column = b[3] } }
end

--- `{plan, client}` → `{id}` and, when the plan needs no decision (nothing to run), its
--- `outcome` at once; or an error. An agent's plan is always shown and waits for the
--- person, whatever `confirm_before_run` says: that option trusts the person's own
--- request, and an agent reads each outcome back, so plans run unseen would let it
--- learn what the editor holds step by step (a search that succeeds or fails).
--- `plan` is the agent's plan as JSON text: read by the core's parser, checked by its
--- validator; everything else the agent sent is ignored.
function H.methods.propose(args)
  if type(args.plan) ~= 'string' then
    return H.error('bad_arguments', 'leash: “plan” must be the plan as JSON text')
  end
  local client = H.client(args.client)
  local busy = H.busy()
  if busy then return H.error('busy', busy) end
  local core, err = H.ready()
  if not core then return err end
  local checked, plan = pcall(core.native.validate, core.state.handle, args.plan, {
    profile = 'neovim',
    raise = H.raise(core),
  })
  if not checked then
    local why = require('leash.native').message(plan)
    H.log({ name = client, event = 'not a plan', error = why })
    return H.error('not_a_plan', 'leash: ' .. why)
  end
  plan = require('leash.native').copy(plan)
  H.next_id = H.next_id + 1
  ---@type leash.AgentProposal
  local p = { id = H.next_id, client = client, plan = plan, started = vim.uv.hrtime() }
  M.proposals[p.id] = p
  H.current = p
  H.log({ name = client, id = p.id, event = 'proposed', plan = args.plan, validated = plan })
  p.withdraw = require('leash.execute').confirm_and_run(require('leash.native').copy(plan), {
    config = vim.tbl_extend('force', core.config, { confirm_before_run = true }),
    entries = core.state.entries,
    request = 'plan from ' .. client,
    from = client,
    on_done = function(_, run_err, status, steps) H.decided(p, status, steps, run_err) end,
  })
  return { id = p.id, outcome = p.outcome }
end

--- Why a proposal cannot be shown now, or nil: one plan at a time, and never over the
--- person's own.
function H.busy()
  local p = H.current
  if p and not p.outcome then
    return ('leash: the person has not decided on plan %d from %s yet; wait for its outcome'):format(p.id, p.client)
  end
  if require('leash.ui.confirm.state').current then
    return 'leash: the person has a plan window open; propose again once it is closed'
  end
  if require('leash.ui.arrival').holding() then
    return 'leash: a plan is waiting for the person (:Leash show); propose again once they decided on it'
  end
  if package.loaded['leash.planner'] and require('leash.planner').busy() then
    return 'leash: the person is waiting for a plan of their own (:Do); propose again once it is shown'
  end
end

--- The outcome of `p`, once: what the program turns into per-step results.
function H.decided(p, status, steps, err)
  p.outcome = {
    status = status,
    ran = steps or 0,
    -- The step that failed (1-based, among the steps that passed the checker), when one did.
    failed_step = (status == 'failed' and steps) and steps + 1 or vim.NIL,
    error = err and require('leash.text').visible(err) or vim.NIL,
    steps = p.plan.steps,
    dropped = p.plan.dropped,
  }
  p.withdraw = nil
  H.log({ name = p.client, id = p.id, event = 'outcome', status = status, ran = steps or 0, error = p.outcome.error })
end

--- `{id}` → `{outcome}` once the person decided, else `{waiting}`: `shown` (the window is
--- open) or `held` (it waits until the person stops typing, or for :Leash show).
function H.methods.outcome(args)
  local p = M.proposals[args.id]
  if not p then
    return H.error('unknown_proposal', ('leash: no proposal %s in this Neovim'):format(vim.inspect(args.id)))
  end
  if p.outcome then return { id = p.id, outcome = p.outcome } end
  return { id = p.id, waiting = require('leash.ui.arrival').holding() and 'held' or 'shown' }
end

--- `{id}` → `{withdrawn}`: the agent stopped waiting; a plan the person has not decided on
--- is taken away (nothing runs). One already decided stays as it was.
function H.methods.withdraw(args)
  local p = M.proposals[args.id]
  if not p then
    return H.error('unknown_proposal', ('leash: no proposal %s in this Neovim'):format(vim.inspect(args.id)))
  end
  local withdrawn = p.withdraw ~= nil and p.withdraw()
  return { id = p.id, withdrawn = withdrawn, outcome = p.outcome }
end

return M
