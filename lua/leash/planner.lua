--- The planner's Neovim side: starts a model request on the core's runtime thread, shows
--- progress, learns of completion through the core's completion pipe (no polling), takes
--- the validated plan on the main thread, hands the exchange to the log (|leash.log|), and
--- cancels on request.
---
--- The editor never waits on the network: `native.plan_start` returns a job at once, and
--- the only work on the main loop is reading one byte and converting the finished result.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved
-- (scripts/bench-do).
if jit then jit.off(true, true) end

-- The Lua registry key of the completion pipe (or 'poll' where there is none).
local PIPE_KEY = 'leash.planner.pipe'

-- Module definition ==========================================================

---@class leash.Plan the validated plan the core returns (|leash-dropped|)
---@field reply string
---@field confirm 'default'|'required'
---@field steps table[] the steps that passed the checker, each with its reach
---@field dropped leash.Dropped[] the steps it refused

---@class leash.Dropped a step the checker refused
---@field index integer its position in the model's plan, from 0
---@field code string stable snake_case name of the rule (`unknown_key`, `unsafe_argument`…); match on this
---@field reason string the sentence the plan window shows (its wording may change)

---@class leash.PlanResult
---@field status 'done'|'error'|'cancelled'
---@field plan? leash.Plan the validated plan (doc/design.md, "Contracts")
---@field error? string a message the user can act on
---@field code? string a stable word for the error kind
---@field entries? table[] the catalog snapshot the plan was made from (run exactly these)
---@field left_at? integer when the request left, or the offline plan was made (`vim.uv.hrtime()`)

--- Start planning `request`. Cancels a plan still in flight first. `on_done` runs on the
--- main thread with the result.
---@param request string
---@param on_done fun(result: leash.PlanResult)
---@param opts? leash.DoOpts the range, and `previous`: the plan this request refines
---@return boolean started
---@return string? err
function M.start(request, on_done, opts)
  local native, err = require('leash.native').load()
  if not native then return false, err end
  -- A config checked only once the library loaded, and found wrong: nothing is planned.
  local failed = require('leash.config').failed()
  if failed then return false, failed end
  local state, cerr = require('leash.catalog').get()
  if not state then return false, cerr end
  local ok, perr = H.ensure_pipe(native)
  if not ok then return false, perr end
  if H.pending then M.cancel({ quiet = true }) end

  local cfg = require('leash.config').get()
  local provider, provider_text, perr = H.provider(cfg)
  if perr then return false, perr end
  local context = require('leash.context').get(opts)
  local prompt_context = H.prompt_context(context)
  prompt_context.previous = opts and opts.previous or nil
  -- The current values go with the request (read here, on the main thread, in well under
  -- a millisecond): the shortlist is only known on the planner's thread, and a second
  -- look may add any setting to it. Offline they say what "toggle" means and what a
  -- choice changes; the installed color schemes tell a name the planner may run.
  -- As JSON text: it crosses to the core in a fraction of the table's time.
  prompt_context.current = vim.json.encode(M.current_values(state.settings))
  -- Listing the color schemes searches every 'runtimepath' folder: done only for a
  -- request the offline planner may read as naming one.
  if not provider and native.wants_colorschemes(request) then prompt_context.colorschemes = M.colorschemes() end
  local started, job = pcall(native.plan_start, state.handle, request, {
    limit = cfg.shortlist_limit,
    context = prompt_context,
    provider = provider_text or provider,
    profile = 'neovim',
    raise = (cfg.raise and #cfg.raise > 0) and cfg.raise or nil,
  })
  if not started then return false, require('leash.native').message(job) end

  local name = provider and (provider.name or provider.kind) or 'offline'
  H.pending = {
    job = job,
    on_done = on_done,
    request = request,
    provider = name,
    started = vim.uv.hrtime(),
    catalog = state, -- its entries are made after the request left
  }
  if debug.getregistry()[PIPE_KEY] == 'poll' then H.poll(H.pending) end
  require('leash.ui.progress').start(name)
  H.map_cancel_key()
  H.fire('LeashPlanStart', { request = request, provider = name })
  return true
end

--- Cancel the plan in flight, if any: the request is dropped at once.
---@param opts? { quiet?: boolean }
---@return boolean cancelled whether a plan was in flight
function M.cancel(opts)
  local p = H.pending
  if not p then
    if not (opts and opts.quiet) then H.notify('leash: nothing to cancel') end
    return false
  end
  H.pending = nil
  pcall(function() p.job:cancel() end)
  H.finish(p, { status = 'cancelled' })
  return true
end

--- Whether a plan is in flight.
---@return boolean
function M.busy() return H.pending ~= nil end

---@class leash.PlanningStatus
---@field provider string the provider's name, or `offline`
---@field seconds integer whole seconds since the request left
---@field message? string the latest stage ("looking up laststatus"), control and invisible characters made visible

--- What is being planned now, or nil (cheap: for a statusline).
---@return leash.PlanningStatus?
function M.status()
  local p = H.pending
  if not p then return nil end
  return {
    provider = p.provider,
    seconds = math.floor((vim.uv.hrtime() - p.started) / 1e9),
    message = p.message and require('leash.text').visible(p.message) or nil,
  }
end

--- The provider table handed to the core for the configured provider, or nil (offline):
--- the core's rule, which fills in the top-level `timeout_ms` when the provider's table
--- sets none (a deadline message then names that one).
---@param cfg leash.Config
---@return table? provider
---@return string? err why there is none (no native library, a config that is not valid)
function M.provider_config(cfg)
  if cfg.provider == nil or cfg.provider == 'offline' then return nil end
  local native, err = require('leash.native').load()
  if not native then return nil, err end
  local ok, p =
    pcall(native.provider_config, { provider = cfg.provider, providers = cfg.providers, timeout_ms = cfg.timeout_ms })
  if not ok then return nil, require('leash.native').message(p) end
  return p
end

--- The current value of every setting among `entries`, as the current window and buffer
--- see it. Options that cannot be read are left out.
---@param entries table[] catalog entries
---@return table<string, boolean|number|string>
function M.current_values(entries)
  local values, get, opts = {}, vim.api.nvim_get_option_value, {}
  for _, e in ipairs(entries) do
    if e.key and e.kind == 'setting' then
      local ok, v = pcall(get, e.key, opts)
      if ok and type(v) ~= 'table' then values[e.key] = v end
    end
  end
  -- An empty table would reach the core as a list.
  return next(values) and values or vim.empty_dict()
end

--- The color schemes installed (what `:colorscheme <Tab>` offers).
---@return string[]
function M.colorschemes()
  local ok, names = pcall(vim.fn.getcompletion, '', 'color')
  return ok and type(names) == 'table' and names or {}
end

-- Helper functionality =======================================================

--- |M.provider_config()| for `cfg`, and its JSON text (what `plan_start` reads fastest),
--- made once per configuration: kept under the JSON text of the keys it is made from, so
--- a configuration changed in place is read again. A configuration that has no JSON text
--- is converted on every request, as before.
---@param cfg leash.Config
---@return table? provider
---@return string? text
---@return string? err
function H.provider(cfg)
  if cfg.provider == nil or cfg.provider == 'offline' then return nil end
  local input = { provider = cfg.provider, providers = cfg.providers, timeout_ms = cfg.timeout_ms }
  local encoded, key = pcall(vim.json.encode, input)
  if encoded and H.provider_made and H.provider_made.key == key then
    return H.provider_made.provider, H.provider_made.text
  end
  local native, err = require('leash.native').load()
  if not native then return nil, nil, err end
  local ok, p, text = pcall(native.provider_config, input)
  if not ok then return nil, nil, require('leash.native').message(p) end
  H.provider_made = encoded and text and { key = key, provider = p, text = text } or nil
  return p, text
end

--- The completion pipe is opened once per Neovim process: the core writes one byte per
--- finished job; the read callback schedules the take on the main loop. The handle lives
--- in the Lua registry, not in this module, so reloading the module (plugin managers,
--- tests) does not lose it; the callback looks the module up anew each time.
function H.ensure_pipe(native)
  local registry = debug.getregistry()
  if registry[PIPE_KEY] then return true end
  local ok, fd = pcall(native.notify_fd)
  if not ok then
    -- No completion pipe on this platform (Windows): ask the job on a short timer.
    registry[PIPE_KEY] = 'poll'
    return true
  end
  local pipe = vim.uv.new_pipe(false)
  local opened, oerr = pipe:open(fd)
  if not opened then
    pipe:close()
    return false, 'leash: cannot watch the planner pipe: ' .. tostring(oerr)
  end
  pipe:read_start(function(rerr, data)
    if rerr or data == nil then return end
    vim.schedule(function() require('leash.planner')._drain() end)
  end)
  registry[PIPE_KEY] = pipe
  return true
end

--- Take the finished result of the pending job, if it finished (the pipe's callback).
---@private
function M._drain() H.drain() end

--- The context table handed to the core for a |leash.context.get()| result (specs read it).
---@private
function M._prompt_context(ctx) return H.prompt_context(ctx) end

function H.drain()
  local p = H.pending
  if not p then return end
  local ok, result = pcall(function() return p.job:take() end)
  if not ok then result = { status = 'error', error = require('leash.native').message(result), code = 'internal' } end
  if result == nil then return H.news(p) end -- progress, or a cancelled job's byte
  H.pending = nil
  H.finish(p, result)
end

--- Where the completion pipe is missing: check the job every 20 ms until it is taken.
function H.poll(p)
  local timer = vim.uv.new_timer()
  timer:start(
    20,
    20,
    vim.schedule_wrap(function()
      if H.pending ~= p then
        if not timer:is_closing() then timer:close() end
        return
      end
      if p.job:is_finished() then
        H.drain()
      else
        H.news(p)
      end
    end)
  )
end

--- A running job's news: its progress line, and once the request left, the catalog's
--- entries made now, while the model answers: before, they would compete with the
--- planner's own work for the CPU. (A runtime cache that no longer reads is reported
--- when the result is taken, which needs the entries.)
function H.news(p)
  if H.left_at(p) then pcall(function() return p.catalog.entries end) end
  H.progress_news(p)
end

--- When the request of `p` left (`vim.uv.hrtime()`), or nil while it has not.
function H.left_at(p)
  if not p.left_at then
    local ok, ms = pcall(function() return p.job:left_ms() end)
    if ok and ms then p.left_at = p.started + math.floor(ms * 1e6) end
  end
  return p.left_at
end

function H.finish(p, result)
  H.unmap_cancel_key()
  result.left_at = H.left_at(p)
  local ms = math.floor((vim.uv.hrtime() - p.started) / 1e6)
  if result.log then require('leash.log').append(result.log) end
  if result.status == 'error' then result.error = H.error_text(result.error, result.code) end
  H.progress_end(p.provider, result, ms)
  local event = ({ done = 'LeashPlanDone', cancelled = 'LeashPlanCancel' })[result.status] or 'LeashPlanError'
  H.fire(event, { request = p.request, provider = p.provider, status = result.status, error = result.error, ms = ms })
  result.entries = p.catalog.entries
  p.on_done(result)
end

-- Failures whose answer arrived: the log holds it, and it tells what went wrong.
H.answer_in_log = { not_a_plan = true, malformed = true, truncated = true, empty = true, refused = true }

--- A planning failure as the user sees it: `leash: ` first, and where the model's answer
--- can be read when one came.
function H.error_text(err, code)
  err = tostring(err or 'planning failed')
  if not vim.startswith(err, 'leash: ') then err = 'leash: ' .. err end
  if H.answer_in_log[code] then err = err .. ' (its answer is in :Leash log)' end
  return err
end

function H.prompt_context(ctx)
  ctx = ctx or {}
  local selection = ''
  if type(ctx.selection) == 'table' then
    local n = ctx.selection.lines
    selection = n and (n == 1 and '1 line' or (n .. ' lines')) or 'yes'
  elseif type(ctx.selection) == 'string' then
    selection = ctx.selection
  end
  if ctx.range then
    -- Tell the model the range is taken care of, so it does not try to write one.
    selection = ('%s (lines %d-%d; commands that take a range run on them)'):format(
      selection ~= '' and selection or ((ctx.range[2] - ctx.range[1] + 1) .. ' lines'),
      ctx.range[1],
      ctx.range[2]
    )
  end
  local project = ctx.project
  if type(project) == 'table' then project = table.concat(project, ', ') end
  return {
    editor = 'Neovim',
    os = ctx.os or '',
    filetype = ctx.filetype or '',
    selection = selection,
    project = project or '',
    range = ctx.range and { ctx.range[1], ctx.range[2] } or nil,
  }
end

function H.fire(pattern, data)
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = pattern, modeline = false, data = data })
end

--- Shows the job's latest progress line (a second look: "looking up laststatus, …"; a
--- retry: "rate-limited (429): asking again in 2 s").
function H.progress_news(p)
  local ok, line = pcall(function() return p.job:progress() end)
  if not ok or type(line) ~= 'string' then return end
  -- The line names what the model asked for: shown (and handed to autocmds) escaped.
  line = require('leash.text').visible(line)
  p.message = line
  require('leash.ui.progress').news(line)
  H.fire('LeashPlanProgress', { request = p.request, provider = p.provider, message = line })
end

function H.progress_end(provider, result, ms)
  local progress = require('leash.ui.progress')
  local took = progress.duration(ms)
  local text = ({
    done = ('planned with %s in %s'):format(provider, took),
    cancelled = 'planning cancelled',
  })[result.status] or ('planning failed after %s'):format(took)
  progress.finish(text, result.status)
end

-- <C-c> cancels while planning. The user's own mapping, if any, is put back afterwards.
function H.map_cancel_key()
  if H.saved_map ~= nil then return end
  local existing = vim.fn.maparg('<C-c>', 'n', false, true)
  H.saved_map = (existing and existing.lhs) and existing or false
  -- The API itself, not vim.keymap.set(): this runs on every request, before it leaves.
  vim.api.nvim_set_keymap('n', '<C-c>', '', { callback = H.cancel_key, desc = 'leash: cancel planning' })
end

function H.cancel_key() M.cancel() end

function H.unmap_cancel_key()
  if H.saved_map == nil then return end
  pcall(vim.api.nvim_del_keymap, 'n', '<C-c>')
  if H.saved_map then pcall(vim.fn.mapset, 'n', false, H.saved_map) end
  H.saved_map = nil
end

-- Messages can carry model text (a step's argument, a refusal, a provider's error).
function H.notify(msg, level) require('leash.ui.notify').notify(msg, level) end

return M
