--- leash: let a language model operate Neovim without letting it run whatever it wants.
---
--- Public API: |leash.setup()|, |leash.run()|, |leash.plan()|, |leash.rank()|, and the
--- `:Leash` subcommand table |leash.commands| that other modules extend.
local M = {}
local H = {}

-- Module definition ==========================================================

--- The Lua side's version; the native library must report the same.
M.version = require('leash.native').version

--- Configure leash. Optional: everything works with the defaults. Never raises: a
--- config with errors applies nothing and is said in one notification naming every
--- error (|:checkhealth| lists them too), and the rest of the user's init.lua runs;
--- until a valid config is set, nothing is planned.
---@param opts? leash.Config
function M.setup(opts)
  local ok, err = pcall(require('leash.config').setup, opts)
  if ok then return end
  err = tostring(err)
  if not vim.startswith(err, 'leash: ') then err = 'leash: setup() failed: ' .. err end
  require('leash.ui.notify').notify(err, vim.log.levels.ERROR, { more = ':checkhealth leash' })
end

--- Rank the catalog against `request`.
---@param request string
---@param opts? { limit?: integer, mode?: 'any'|'all' }
---@return leash.RankHit[]? hits
---@return string? err
function M.rank(request, opts)
  local native, err = require('leash.native').load()
  if not native then return nil, err end
  local state, cerr = require('leash.catalog').get()
  if not state then return nil, cerr end
  opts = vim.tbl_extend('keep', opts or {}, { limit = require('leash.config').get().shortlist_limit, mode = 'any' })
  local ok, hits = pcall(native.rank, state.handle, request, opts)
  if not ok then return nil, 'leash: ' .. tostring(hits) end
  return hits
end

--- Plan `request`: rank, ask the configured model (or the offline planner) on the
--- core's runtime thread, and validate. Returns at once; `on_done` runs on the main
--- thread. Fails closed: without the native library nothing is planned.
---@param request string
---@param on_done fun(plan?: table, err?: string, status?: 'done'|'error'|'cancelled', entries?: table[]) `entries`: the catalog snapshot the plan was made from
---@param opts? leash.DoOpts the range (passed on to |leash.context|) and `previous`, the plan it refines
function M.plan(request, on_done, opts)
  local started, err = require('leash.planner').start(request, function(result)
    if result.status == 'done' then return on_done(result.plan, nil, 'done', result.entries) end
    on_done(nil, result.error, result.status)
  end, opts)
  if not started then on_done(nil, err, 'error') end
end

---@class leash.DoOpts the command's range and how the plan is shown
---@field range? integer `:Do`'s range count (`:'<,'>Do …`), with `line1` and `line2`
---@field line1? integer
---@field line2? integer
---@field plan_only? boolean show the plan without a run key (`:Do!`)
---@field previous? { request: string, steps: table[] } the plan this request refines (the window's `e`)

--- `:Do {request}`: plan, confirm where the rules require it, and run. Refuses (with the
--- loader's message) when the native library is missing. The plan is kept for
--- `:Leash last`, whatever becomes of it.
---@param request string
---@param opts? leash.DoOpts
function M.run(request, opts)
  opts = opts or {}
  request = vim.trim(request or '')
  if request == '' then return H.notify('leash: empty request', vim.log.levels.WARN) end
  local native, err = require('leash.native').load()
  if not native then return H.notify(err, vim.log.levels.ERROR) end
  -- The user's lines, taken now (the planner's context takes the same): the steps the
  -- core gave them run on them, in this buffer only.
  local range = require('leash.context').range(opts)
  require('leash.history').add(request)
  require('leash.ui.arrival').request_sent()
  -- A plan that could not start fails before M.plan returns (the library, the config:
  -- :checkhealth says all of it); once the request left, the log holds the whole error.
  local sent = false
  M.plan(request, function(plan, perr, status, entries)
    local log = require('leash.log')
    if status == 'cancelled' then
      -- The planner said so already; the log keeps the request.
      return log.outcome(request, 'cancelled while planning', 0)
    end
    if not plan then
      perr = perr or 'leash: no plan'
      log.outcome(request, 'failed', 0, perr)
      return H.notify(perr, vim.log.levels.ERROR, { more = sent and ':Leash log' or ':checkhealth leash' })
    end
    -- Run from the catalog the plan was made and shown from, never a newer one.
    H.keep({
      request = request,
      plan = require('leash.native').copy(plan),
      entries = entries,
      range = range,
      opts = opts,
    })
    H.show(H.last, {})
  end, opts)
  sent = true
end

--- `:Do` without a request: ask for it with |vim.ui.input()| (a picker's input where one
--- replaced it), `<Tab>` completing from the history of requests (|leash-history|).
---@param opts? leash.DoOpts
function M.ask(opts)
  -- The lines it will run on, said in the prompt (`:.Do`, `:'<,'>Do`).
  local range = require('leash.context').range(opts)
  local on = ''
  if range then
    on = range[1] == range[2] and (' on line %d'):format(range[1]) or (' on lines %d–%d'):format(range[1], range[2])
  end
  local prompt = ('leash: what should Neovim do%s? '):format(on)
  vim.ui.input({ prompt = prompt, completion = H.input_completion }, function(input)
    if input and vim.trim(input) ~= '' then M.run(input, opts) end
  end)
end

--- `:Leash last`: open the last plan of this session again without asking the model, with
--- its run key: a plan that was dismissed, cancelled or only shown (`:Do!`) is not lost,
--- and one that ran can be run again. It is checked again first, against the catalog as
--- it is now (|leash.recheck|): when anything it names changed, that is said and nothing
--- opens or runs.
function M.last()
  local last = H.last or H.kept()
  if not last then return end
  local ok, entries, changes = require('leash.recheck').check(last)
  if not ok then
    local what = table.concat(changes, '; ')
    require('leash.log').outcome(last.request, 'changed', 0, what)
    return H.notify(
      ('leash: nothing runs, the last plan changed: %s (:Do it again to plan it anew)'):format(what),
      vim.log.levels.WARN,
      { more = ':Leash log' }
    )
  end
  -- Asked for now: the keys of `:Leash last` do not make it wait (|leash.ui.arrival|).
  require('leash.ui.arrival').request_sent()
  -- The plan as it was shown (its reply, what was refused): its steps read the same now.
  -- It runs from the catalog of now, whose entries for them are the same.
  local again = vim.tbl_extend('force', last, { entries = entries })
  again.opts = vim.tbl_extend('force', last.opts, { plan_only = false })
  H.show(again, { window = true })
end

--- `:Leash again`: run the last plan of this session again without asking the model,
--- for "do that to this buffer too". Its steps are checked again by the core against
--- the catalog of now (a step that no longer passes is refused, as in any plan), run on
--- the lines `:Leash again` was given (none: each command's own default), and shown and
--- run like any plan: its window, with the effect of each step on the current buffer.
---@param opts? { range?: integer, line1?: integer, line2?: integer } the command's range
function M.again(opts)
  local last = H.last
  if not last then return H.notify('leash: no plan yet in this session (:Do {request} makes one)') end
  local native, err = require('leash.native').load()
  if not native then return H.notify(err, vim.log.levels.ERROR) end
  local state, cerr = require('leash.catalog').get()
  if not state then return H.notify(cerr, vim.log.levels.ERROR) end
  local range = require('leash.context').range(opts)
  local cfg = require('leash.config').get()
  local model = vim.json.encode({ reply = '', steps = H.plain_steps(last.plan.steps) })
  local ok, plan = pcall(native.validate, state.handle, model, {
    profile = 'neovim',
    raise = (cfg.raise and #cfg.raise > 0) and cfg.raise or nil,
    context = { range = range and { range[1], range[2] } or nil },
  })
  if not ok then return H.notify(require('leash.native').message(plan), vim.log.levels.ERROR) end
  require('leash.ui.arrival').request_sent()
  local request = last.request
  H.keep({
    request = request,
    plan = require('leash.native').copy(plan),
    entries = state.entries,
    range = range,
    opts = last.opts,
  })
  H.show(H.last, {})
end

---@class leash.Subcommand
---@field run fun(args: string[], opts?: table) the handler; `args` are the words after the subcommand
---@field complete? fun(arglead: string, cmdline: string): string[]
---@field desc string one line for the docs and completion

--- `:Leash` subcommands. Other modules replace or add entries (log, undo, cancel).
---@type table<string, leash.Subcommand>
M.commands = {
  catalog = {
    desc = 'export the catalog as JSON to [path], or show counts per source',
    run = function(args) H.catalog(args[1]) end,
    complete = function(arglead) return vim.fn.getcompletion(arglead, 'file') end,
  },
  rank = {
    desc = 'show the ranked shortlist for {request} in a scratch buffer',
    run = function(args) H.show_rank(table.concat(args, ' ')) end,
  },
  build = {
    desc = 'put the native library in place: the prebuilt one of this release, or cargo build',
    run = function() H.build() end,
  },
  log = {
    desc = 'open the log of requests and plans',
    run = function() require('leash.log').open() end,
  },
  last = {
    desc = 'open the last plan again, checked against the catalog of now (without asking the model)',
    run = function() M.last() end,
  },
  undo = {
    desc = 'take back the last plan, its settings and text (again: the one before, up to 20)',
    run = function() require('leash.execute').undo({ notify = true }) end,
  },
  again = {
    desc = "run the last plan again (checked again, on this buffer or the lines given: :'<,'>Leash again)",
    run = function(_, opts) M.again(opts) end,
  },
  show = {
    desc = 'open the plan that arrived while you were typing',
    run = function() require('leash.ui.arrival').show() end,
  },
  cancel = {
    desc = 'cancel the request in flight',
    run = function() require('leash.planner').cancel() end,
  },
}

--- Dispatch `:Leash {sub} {args}` (called by plugin/leash.lua).
---@param fargs string[]
---@param opts? { range?: integer, line1?: integer, line2?: integer } the command's range, for the subcommands that take one
function M.command(fargs, opts)
  local name = fargs[1]
  if not name then
    -- A notifier's window is narrow and short: the listing, wrapped there, is cut off.
    if not require('leash.ui.notify').builtin() then return H.notify(M.usage({ short = true })) end
    return H.notify(M.usage(), nil, { listing = true })
  end
  local sub = M.commands[name]
  if not sub then
    local names = vim.tbl_keys(M.commands)
    table.sort(names)
    local msg = name and ('leash: unknown subcommand %q'):format(name) or 'leash: missing subcommand'
    -- Where to look first: a message area of 80 columns cuts the list.
    return H.notify(('%s; :Leash lists them: %s'):format(msg, table.concat(names, ', ')), vim.log.levels.ERROR)
  end
  sub.run(vim.list_slice(fargs, 2), opts)
end

--- A short text for a statusline while a request is being planned, '' otherwise:
--- `leash: planning with claude 12s`. For lualine: `lualine_x = { require('leash').status }`.
---@return string
function M.status()
  local st = package.loaded['leash.planner'] and require('leash.planner').status()
  if not st then return '' end
  return ('leash: planning with %s %ds'):format(st.provider, st.seconds)
end

--- What `:Leash` alone says: every subcommand with its one line (`short`: the names,
--- and where each is described).
---@param opts? { short?: boolean }
---@return string
function M.usage(opts)
  local names = vim.tbl_keys(M.commands)
  table.sort(names)
  if opts and opts.short then
    return ('leash: :Leash {subcommand}, one of: %s (:help :Leash says what each does)'):format(
      table.concat(names, ', ')
    )
  end
  local lines = { 'leash: :Leash {subcommand}, one of:' }
  for _, n in ipairs(names) do
    lines[#lines + 1] = ('  %-8s %s'):format(n, M.commands[n].desc or '')
  end
  return table.concat(lines, '\n')
end

--- Completion for `:Do`: earlier requests (|leash-history|, kept across restarts) that
--- start with what was typed, newest first, each completing the word under the cursor
--- to the end of the request. Where none does, a word of two letters or more completes
--- to the names in the catalog that start with it (options, commands, user commands:
--- `:Do set wr<Tab>`).
---@param arglead string
---@param cmdline string
---@return string[]
function M.complete_request(arglead, cmdline)
  local typed = cmdline:gsub('^%s*%S+%s?', '', 1)
  local out = require('leash.history').complete(typed, arglead)
  if #out == 0 and #arglead >= 2 then return H.catalog_names(arglead) end
  return out
end

--- Completion for the prompt of |M.ask()|: `typed` is all that was typed; the earlier
--- requests that start with it, whole, newest first.
---@param typed string
---@return string[]
function M.complete_input(typed)
  typed = typed or ''
  return require('leash.history').complete(typed, typed)
end

--- Completion for `:Leash`.
---@param arglead string
---@param cmdline string
---@return string[]
function M.complete(arglead, cmdline)
  local words = vim.split(vim.trim(cmdline:gsub('^%S+', '', 1)), '%s+', { trimempty = true })
  local first = #words == 0 or (#words == 1 and arglead ~= '')
  if first then
    local names = vim.tbl_filter(function(n) return vim.startswith(n, arglead) end, vim.tbl_keys(M.commands))
    table.sort(names)
    return names
  end
  local sub = M.commands[words[1]]
  if sub and sub.complete then return sub.complete(arglead, cmdline) end
  return {}
end

-- Helper data ================================================================

-- The prompt's completion (|input()|'s `customlist`): this module's function.
H.input_completion = "customlist,v:lua.require'leash'.complete_input"

--- The last plan of this session: `{ request, plan, entries, range, opts }`.
H.last = nil

-- Helper functionality =======================================================

--- Make `last` the last plan, and keep it for `:Leash last` after a restart.
function H.keep(last)
  H.last = last
  local ok, err = pcall(require('leash.history').keep_plan, last)
  if not ok then
    H.notify('leash: could not keep the plan for :Leash last after a restart: ' .. tostring(err), vim.log.levels.WARN)
  end
end

--- The last plan of an earlier session (|leash.history.kept_plan()|), or nil after
--- saying why there is none. Plan for lines runs only in the file they were in.
function H.kept()
  local last = require('leash.history').kept_plan()
  if not last then return H.notify('leash: no plan yet (:Do {request} makes one)') end
  if last.range then
    local file = last.range.file
    if vim.api.nvim_buf_get_name(0) ~= file then
      local lines = last.range[1] == last.range[2] and ('line %d'):format(last.range[1])
        or ('lines %d–%d'):format(last.range[1], last.range[2])
      return H.notify(
        ('leash: the last plan was for %s of %s: open it, then :Leash last'):format(
          lines,
          vim.fn.fnamemodify(file, ':~:.')
        )
      )
    end
    last.range.buf, last.range.file = vim.api.nvim_get_current_buf(), nil
  end
  H.last = last
  return last
end

--- Show (and run, where the rules allow) a kept plan; `e` in its window refines it.
---@param last table |H.last|
---@param how { window?: boolean } always open the window (`:Leash last`)
function H.show(last, how)
  -- The progress's end (and the message area cleared after it) waits in the queue for the
  -- next turn. A plan that needs no window runs now and says its outcome: through a
  -- vim.notify that echoes at once (a wrapper of Neovim's own), the queued clear would
  -- then wipe it. Echo what is queued first, as the plan window does before it opens.
  require('leash.ui.notify').flush()
  -- The offline planner was not sure: the chosen candidate becomes the plan.
  local pick = require('leash.ui.pick')
  if pick.wanted(last.plan) then
    return pick.pick(last.plan, function(chosen)
      if not chosen then return require('leash.log').outcome(last.request, 'nothing chosen', 0) end
      -- The keys that chose (`1<CR>` in Neovim's own list, a picker's) answered leash's own
      -- question: they are not typing that should hold the chosen plan's window.
      require('leash.ui.arrival').request_sent()
      local picked = vim.tbl_extend('force', last, { plan = require('leash.native').copy(chosen) })
      if H.last == last then H.keep(picked) end
      H.show(picked, how)
    end)
  end
  require('leash.execute').confirm_and_run(require('leash.native').copy(last.plan), {
    config = require('leash.config').get(),
    entries = last.entries,
    range = last.range,
    request = last.request,
    plan_only = last.opts.plan_only,
    window = how.window,
    on_refine = function() H.refine(last) end,
  })
end

--- The window's `e`: edit the request (prefilled) and plan again, with the plan being
--- changed as context, on the same lines and shown the same way.
function H.refine(last)
  vim.ui.input({ prompt = 'leash: change the request: ', default = last.request }, function(input)
    if not input or vim.trim(input) == '' then
      -- The window closed for the edit: without a word, the plan would seem lost.
      return H.notify('leash: edit cancelled, nothing ran (:Leash last reopens it)')
    end
    local opts = vim.tbl_extend('force', last.opts, {
      previous = { request = last.request, steps = H.plain_steps(last.plan.steps) },
    })
    if last.range then
      -- The lines the first plan was for, also when they came from a Visual selection
      -- (a `<Cmd>Do …<CR>` mapping), which is gone by now: in their own buffer only.
      if last.range.buf and last.range.buf ~= vim.api.nvim_get_current_buf() then
        local name = vim.api.nvim_buf_is_valid(last.range.buf) and vim.api.nvim_buf_get_name(last.range.buf) or ''
        return H.notify(
          ('leash: that plan was for lines %d–%d of %s; go back to that buffer to change it'):format(
            last.range[1],
            last.range[2],
            name ~= '' and vim.fn.fnamemodify(name, ':~:.') or ('buffer ' .. last.range.buf)
          ),
          vim.log.levels.WARN
        )
      end
      opts.range, opts.line1, opts.line2 = 2, last.range[1], last.range[2]
    end
    M.run(input, opts)
  end)
end

--- Steps as the model would write them: the prompt shows only a step's own fields.
function H.plain_steps(steps)
  local out = {}
  for _, s in ipairs(steps) do
    out[#out + 1] = {
      type = s.type,
      id = s.id,
      args = s.args and #s.args > 0 and s.args or nil,
      key = s.key,
      value = s.value,
      scope = s.scope,
      command = s.command,
    }
  end
  return out
end

--- The names of catalog entries that start with `prefix`, sorted: a setting's key, a
--- command's or user command's name. Nothing without the native library.
function H.catalog_names(prefix)
  local ok, entries = pcall(function() return require('leash.catalog').entries() end)
  if not ok or type(entries) ~= 'table' then return {} end
  local names, seen = {}, {}
  for _, e in ipairs(entries) do
    local id = type(e.id) == 'string' and e.id or ''
    local name = e.kind == 'setting' and e.key or id:match('^cmd:(.+)$') or id:match('^user:(.+)$')
    if type(name) == 'string' and vim.startswith(name, prefix) and not seen[name] then
      seen[name] = true
      names[#names + 1] = name
    end
  end
  table.sort(names)
  return names
end

--- Notify from any context (|leash.ui.notify|: never an error message, which inside
--- `vim.cmd` would become an exception: lazy.nvim's stand-in `:Do` runs the real one that
--- way).
---@param msg string
---@param level? integer
---@param opts? leash.NotifyOpts
function H.notify(msg, level, opts) require('leash.ui.notify').notify(msg, level, opts) end

function H.catalog(path)
  local catalog = require('leash.catalog')
  if path and path ~= '' then
    local ok, msg = catalog.export(path)
    if not ok then return H.notify(msg, vim.log.levels.ERROR) end
    return H.notify('leash: catalog written to ' .. msg)
  end
  local _, counts = catalog.entries()
  local lines, total = {}, 0
  for _, name in ipairs(require('leash.sources').names) do
    lines[#lines + 1] = ('%-14s %5d'):format(name, counts[name] or 0)
    total = total + (counts[name] or 0)
  end
  lines[#lines + 1] = ('%-14s %5d'):format('total', total)
  H.notify('leash: catalog entries by source\n' .. table.concat(lines, '\n'), nil, { listing = true })
end

function H.show_rank(request)
  request = vim.trim(request)
  if request == '' then return H.notify('leash: usage: :Leash rank {request}', vim.log.levels.WARN) end
  local hits, err = M.rank(request)
  if not hits then return H.notify(err, vim.log.levels.ERROR) end
  local state = require('leash.catalog').get()
  local by_name = {}
  for _, e in ipairs(state and state.entries or {}) do
    by_name[e.id or e.key] = e
  end
  local lines = { ('# %s'):format(request), ('# %d entries, best first'):format(#hits), '' }
  for _, h in ipairs(hits) do
    local e = by_name[h.id] or {}
    local extra = e.key and (' [' .. e.type .. (e.values and (': ' .. table.concat(e.values, '|')) or '') .. ']') or ''
    if #extra > 60 then extra = extra:sub(1, 57) .. '...]' end
    local score = h.score or 0
    score = score % 1 == 0 and ('%7d'):format(score) or ('%7.2f'):format(score)
    lines[#lines + 1] = ('%s  %-28s %-12s %s%s'):format(score, h.id, h.kind or '', h.title or '', extra)
  end
  require('leash.ui.scratch').show('leash://rank', lines)
  return lines
end

function H.build()
  require('leash.build').start({
    on_progress = function(msg, level)
      if level and level >= vim.log.levels.INFO then return H.notify('leash: ' .. msg) end
      -- In place, kept to one line (|leash.ui.notify|), not in :messages.
      local notify = require('leash.ui.notify')
      notify.echo({ chunks = { { notify.one_line('leash: ' .. msg) } }, history = false })
    end,
    on_done = function(ok, msg) H.notify(msg, ok and vim.log.levels.INFO or vim.log.levels.ERROR) end,
  })
end

return M
