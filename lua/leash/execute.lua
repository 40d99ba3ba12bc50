--- Runs the steps of a validated plan, one by one, exactly as the plan window showed them.
---
--- The validated plan returned by the core is the only input trusted here, and even it is
--- checked again (defence in depth): an item must name an entry of the catalog snapshot
--- the plan was made and shown from, and each item runs through the source its id prefix
--- names (|leash.sources|), which applies the core's argument filter again
--- (|leash.policy|). Every step whose reach is not `shell` or `plugin` runs inside the
--- process guard (|leash.guard|): if it tries to start a program, it is stopped and the
--- plan stops.
---
--- What `:Leash undo` needs to take a plan back (settings' old values, each buffer's undo
--- state before the plan) is recorded by |leash.undo| as the steps run. Before a plan
--- window's `y` runs anything, the dry run it showed (|leash.preview|) is checked to
--- still hold.
local M = {}
local H = {}

-- Module definition ==========================================================

---@alias leash.StepHandler fun(step: table, entry: table, ctx: leash.ExecContext): boolean?, string?

---@class leash.ExecContext
---@field record leash.UndoRecord what undo needs; handlers that change state add to it
---@field range? leash.LineRange the user's lines (|leash.context.range()|), if `:Do` got any
---@field settings table<string, any> option values the plan's steps have set so far
---@field number integer the running step's number among the steps that run (1…n), as the window shows it
---@field text_only boolean the running step changes nothing but text (the core dry-runs such steps)
---@field shown_edit? leash.ServerEdit the language server's edit the plan window showed for the running step

---@class leash.RunOpts
---@field entries? table[] the catalog snapshot the plan was made from (default: the live catalog)
---@field range? leash.LineRange the user's lines: a step the core gave them runs on them
---@field preview? leash.Preview what the plan window showed: a format or rename step applies the language server's edit shown there

--- Handlers for items, by the prefix of their id (`cmd`, `user`, `map`, `term`, …). A
--- handler gets the step, its catalog entry and the context and returns `true` or
--- `nil, message`. An item no handler here takes runs through its source's `run`
--- (|leash.sources|); a handler registered here comes first.
---@type table<string, leash.StepHandler>
M.handlers = {}

--- Run `plan`'s steps in order, stopping at the first failure.
---@param plan table validated plan
---@param opts? leash.RunOpts
---@return boolean ok
---@return string? err names the step: `step 2 (Run :vsplit x): E…`
---@return integer? ran how many steps ran (when it stopped: before the one that failed)
---@return leash.UndoRecord? record what `:Leash undo` takes back of it
function M.run(plan, opts)
  opts = opts or {}
  if type(plan) ~= 'table' or type(plan.steps) ~= 'table' then return false, 'leash: not a validated plan' end
  local undo = require('leash.undo')
  local record = undo.begin(#plan.steps)
  local ctx = { record = record, range = opts.range, plan_text = H.plan_text(plan), settings = {} }
  -- The steps that change nothing but text (what the plan window dry-runs): undo takes
  -- all they did back, whatever their reach (a :global is code).
  local text_only = H.text_only(plan)
  local entries
  for pos, step in ipairs(plan.steps) do
    local ok, err
    if type(step) ~= 'table' then
      ok, err = false, 'not a step'
    else
      if step.type == 'item' then entries = entries or H.entry_map(opts.entries) end
      -- Every buffer's undo state before the first step that may change text.
      if step.type ~= 'setting' then undo.before_step(record) end
      ctx.number, ctx.text_only = pos, text_only[pos] == true
      -- The language server's edit the window showed for this step, if any.
      ctx.shown_edit = opts.preview and opts.preview.server and opts.preview.server[pos] or nil
      ok, err = H.run_step(step, entries, ctx)
    end
    if not ok then
      undo.finish(record)
      -- Numbered as the window numbers it: among the steps that run.
      local msg = ('leash: step %d (%s): %s'):format(pos, H.label(step), H.clean(err or 'failed'))
      return false, msg, pos - 1, record
    end
  end
  undo.finish(record)
  return true, nil, #plan.steps, record
end

--- Take back the last plan not undone yet (|leash.undo|): its settings (old values, same
--- scope, same window or buffer) and the text of every buffer it changed, saying what it
--- restored and which steps cannot be undone. Plans are undone newest first, up to
--- |M.undo_depth| of them: calling it again goes back one plan further. `:Leash undo`
--- calls it with `{ notify = true }`.
---@param opts? { notify?: boolean, force?: boolean } report the outcome with |vim.notify()|; `force`: undo over the user's later edits without asking
---@return boolean ok
---@return string msg
function M.undo(opts)
  local ok, msg, record = require('leash.undo').undo(opts)
  -- What was restored can be long (every setting and file): the log keeps it whole,
  -- under the plan's request, and a message cut to fit points there.
  if record then pcall(require('leash.log').outcome, record.request, 'undone', 0, (msg:gsub('^leash: ', '', 1))) end
  if opts and opts.notify then
    H.notify(msg, ok and vim.log.levels.INFO or vim.log.levels.WARN, { more = record and ':Leash log' or nil })
  end
  return ok, msg
end

--- What the last plan not undone yet recorded for undo (specs read it).
---@return leash.UndoRecord?
function M.last() return require('leash.undo').last() end

--- How many plans `:Leash undo` can go back.
M.undo_depth = require('leash.undo').depth

--- Show the plan window when the rules require it (|leash.confirm.needs_window()|), then
--- run the plan. Reports the outcome with |vim.notify()| and writes it to the log: ran
--- (and how many steps), cancelled, failed (with the message), nothing to run, or only
--- shown (`plan_only`).
---
--- `entries` is the catalog snapshot the plan was made from: the window shows it and the
--- steps run from it, so a project script or task that changes while the window is open
--- runs as shown or not at all. Script steps show the folder they run in.
---
--- Returns a function that withdraws the plan while the person has not decided yet (it
--- is waiting for `:Leash show`, or its window is open): nothing runs, the outcome is
--- `withdrawn`, and the function returns true. Once the plan ran or was cancelled it
--- does nothing and returns false.
---@param plan table validated plan
---@param opts? leash.ConfirmRunOpts
---@return fun(): boolean withdraw
function M.confirm_and_run(plan, opts)
  opts = opts or {}
  local confirm = require('leash.ui.confirm')
  -- Each plan has one outcome, reported once (a window that failed part way may have
  -- been cancelled first).
  local reported = false
  local function done(ran, err, status, steps)
    if reported then return end
    reported = true
    status = status or (ran and 'ran' or 'failed')
    pcall(require('leash.log').outcome, opts.request, status, steps, err)
    if opts.on_done then opts.on_done(ran, err, status, steps) end
  end
  -- Set once the window is open, or while the plan waits for :Leash show.
  local window, held
  local function withdraw()
    if reported then return false end
    if held and require('leash.ui.arrival').drop(held) then
      H.notify(('leash: %s withdrew the plan that was waiting, nothing ran'):format(opts.from or 'its sender'))
      done(false, nil, 'withdrawn', 0)
      return true
    end
    if window and window.status() ~= 'closed' then
      -- Its cancel reports the outcome as withdrawn.
      window.withdrawn = true
      window.cancel()
      return true
    end
    return false
  end
  if type(plan) ~= 'table' or type(plan.steps) ~= 'table' then
    H.notify('leash: not a validated plan', vim.log.levels.ERROR)
    done(false, 'not a validated plan')
    return withdraw
  end
  local entries = opts.entries or require('leash.catalog').entries()
  local preview = require('leash.preview')
  local show
  local function go(pv)
    -- What runs is what was previewed: a buffer that changed since is shown again.
    local stale = preview.changed(pv)
    if stale then
      H.notify(('leash: %s, so nothing ran; here is the plan again with its effect now'):format(stale))
      return show(true)
    end
    -- `failure` is the unchanged steps when the count worked, else why it did not.
    local counted, failure, same = pcall(confirm.unchanged, plan)
    if not counted then
      -- The presenter showed this plan a moment ago; if it cannot count it now, nothing runs.
      H.notify(failure, vim.log.levels.ERROR)
      return done(false, failure)
    end
    local ok, err, count, record = M.run(plan, { entries = entries, range = opts.range, preview = pv })
    if record then record.request = opts.request end
    if ok then
      H.notify(H.ran_line(plan, failure, same, record), nil, { more = ':Leash log' })
      local differs = preview.differs(pv)
      if differs then H.notify('leash: ' .. differs, vim.log.levels.WARN) end
    else
      H.notify(err, vim.log.levels.ERROR, { more = ':Leash log' })
    end
    done(ok, err, nil, ok and #plan.steps or count)
  end
  -- The core's presenter says what the plan changes; a plan it cannot present is not
  -- shown, so it does not run.
  local shown, nothing = pcall(
    function() return #plan.steps == 0 and 'leash: nothing to run' or confirm.nothing_to_change(plan) end
  )
  if not shown then
    H.notify(nothing, vim.log.levels.ERROR)
    done(false, nothing)
    return withdraw
  end
  if nothing and not opts.window then
    H.say_nothing(plan, nothing, opts.from)
    done(false, nil, 'nothing to run', 0)
    return withdraw
  end
  H.annotate(plan, H.entry_map(entries))
  if opts.plan_only or opts.window or confirm.needs_window(plan, opts.config) then
    -- While the user is typing the plan waits for :Leash show (|leash.ui.arrival|).
    local n = #plan.steps
    local open
    -- `again`: the plan is shown anew after the buffer changed under its preview. A
    -- language server's format or rename is asked for its edit first.
    show = function(again)
      held = nil
      if not again then H.at_window(plan) end
      if preview.asks_servers(plan) then
        return preview.ask(plan, function(answers) open(answers) end)
      end
      open(nil)
    end
    open = function(servers)
      -- The effect of each step that changes text, on a copy of the buffer.
      local pv = preview.compute(plan, { range = opts.range, entries = entries, servers = servers })
      -- A window that failed to open runs nothing.
      local failed = false
      local opened, err = pcall(confirm.open, plan, {
        plan_only = opts.plan_only,
        from = opts.from,
        nothing = nothing ~= nil, -- `:Leash last` on a plan with nothing to run: shown, no run key
        preview = pv,
        on_run = function()
          if not failed then go(pv) end
        end,
        on_cancel = function()
          if failed then return end
          -- A plan with nothing to run was only looked at again: closing it says nothing.
          if nothing then return done(false, nil, 'nothing to run', 0) end
          if window and window.withdrawn then
            H.notify(('leash: %s withdrew its plan, nothing ran'):format(opts.from or 'its sender'))
            return done(false, nil, 'withdrawn', 0)
          end
          H.notify(opts.plan_only and 'leash: plan only (:Do!), nothing ran' or 'leash: cancelled, nothing ran')
          done(false, nil, opts.plan_only and 'shown' or 'cancelled', 0)
        end,
        on_refine = opts.on_refine and function()
          if failed then return end
          done(false, nil, 'edited', 0)
          opts.on_refine()
        end,
      })
      if not opened then
        -- confirm.open took down what it made; a cancel it had scheduled says nothing.
        failed = true
        H.notify(err, vim.log.levels.ERROR)
        return done(false, err)
      end
      window = err
    end
    held = function() show(false) end
    -- A newer plan that replaces this one while it waits ends it: nothing ran.
    require('leash.ui.arrival').arrive(
      held,
      ('%d step%s'):format(n, n == 1 and '' or 's'),
      function() done(false, nil, 'replaced', 0) end
    )
    return withdraw
  end
  go()
  return withdraw
end

---@class leash.ConfirmRunOpts
---@field config? leash.Config
---@field on_done? fun(ran: boolean, err?: string, status: string, steps: integer) `status` as |leash.log.outcome()| writes it, or `replaced` (a newer plan replaced it while it waited) or `withdrawn` (see the returned function); `steps`: how many ran, nil when it failed before a step could run (a window that did not open)
---@field from? string who sent the plan, when it is not the person's own request (an agent's name): the window's title says so
---@field entries? table[] the catalog snapshot the plan was made from
---@field range? leash.LineRange
---@field request? string the request, for the log line of the outcome
---@field plan_only? boolean show the plan with no run key (`:Do!`)
---@field on_refine? fun() the window's `e`: called after it closed, nothing ran
---@field window? boolean open the window even where the rules would run the plan at once (`:Leash last`)

-- Helper functionality =======================================================

-- Messages can carry model text (a step's argument, a refusal, a provider's error).
function H.notify(msg, level, opts) require('leash.ui.notify').notify(msg, level, opts) end

--- A plan that runs nothing, said in one line where a longer text would stop the user
--- at a hit-enter prompt (`:Leash last` shows it whole): why nothing runs first, then
--- what the checker refused. The model's reply is shown only when it is all there is
--- (an explanation, "… needs a model"): beside refused or unchanged steps it would read
--- as if the plan had happened.
function H.say_nothing(plan, nothing, from)
  local dropped = type(plan.dropped) == 'table' and plan.dropped or {}
  local reply = type(plan.reply) == 'string' and vim.trim(plan.reply) or ''
  local empty = #plan.steps == 0
  local lines = {}
  if empty and #dropped == 1 then
    -- One refused step: its reason is the whole message.
    lines[1] = 'leash: nothing ran, refused: ' .. tostring(dropped[1].reason)
  else
    if empty and #dropped > 0 then
      lines[1] = ('leash: nothing ran: the checker refused all %d steps'):format(#dropped)
    elseif empty and reply ~= '' then
      lines[1] = 'leash: ' .. reply
    else
      lines[1] = nothing
    end
    for _, d in ipairs(dropped) do
      lines[#lines + 1] = 'refused: ' .. tostring(d.reason)
    end
  end
  -- A plan the person did not ask for says whose it was; `:Leash last` holds only theirs.
  if from then lines[1] = lines[1]:gsub('^leash: ', ('leash: plan from %s: '):format(from), 1) end
  H.outcome(lines, #dropped > 0 and vim.log.levels.WARN or vim.log.levels.INFO, from and ':Leash log' or ':Leash last')
end

--- The outcome line of a plan that ran: what it changed, useful part first (`leash: ran
--- 2 steps: wrap on, tabstop=8`, `leash: ran 1 step: :sort on lines 2–4, changed
--- a.txt`), the settings that already had their value (`; unchanged: wrap on`), and
--- `:Leash undo` only when
--- there is something for it to take back (a setting or a buffer's text).
---@param plan table
---@param unchanged table<integer, true> setting steps that changed nothing, by `index`
---@param same integer how many
---@param record? leash.UndoRecord
function H.ran_line(plan, unchanged, same, record)
  local text = require('leash.text')
  local did, already = {}, {}
  for _, step in ipairs(plan.steps) do
    if type(step) ~= 'table' then
      did[#did + 1] = '?'
    elseif step.type == 'setting' then
      local now = H.setting_text(step)
      if unchanged[step.index] then
        already[#already + 1] = now
      else
        did[#did + 1] = now
      end
    else
      did[#did + 1] = (H.label(step):gsub('^Run ', '', 1))
    end
  end
  local files = {}
  for _, b in ipairs(record and record.changed or {}) do
    files[#files + 1] = b.name
  end
  if #files > 0 then did[#did + 1] = 'changed ' .. table.concat(files, ', ') end
  local n = #plan.steps
  local line = ('leash: ran %d step%s'):format(n, n == 1 and '' or 's')
  if #did > 0 then line = line .. ': ' .. table.concat(did, ', ') end
  if #already > 0 then
    line = line .. '; unchanged: ' .. table.concat(already, ', ')
  elseif same > 0 then
    line = line .. ('; %d changed nothing'):format(same)
  end
  local settings = record and #record.settings or 0
  if #files > 0 or settings > same then line = line .. ' (:Leash undo takes it back)' end
  return text.visible(line)
end

--- A setting as it now reads: `wrap on`, `list off`, `tabstop=8`, `spelllang=de`.
function H.setting_text(step)
  local key, value = tostring(step.key), step.value
  if value == true then return key .. ' on' end
  if value == false then return key .. ' off' end
  if value == nil or value == vim.NIL then return key .. '=' end
  if type(value) == 'number' and value == math.floor(value) then return ('%s=%d'):format(key, value) end
  if value == '' then return key .. '=""' end
  return key .. '=' .. tostring(value)
end

function H.outcome(lines, level, more) require('leash.ui.notify').outcome(lines, level, more) end

--- The step's label for messages, with control characters made visible.
function H.label(step)
  if type(step) ~= 'table' then return '?' end
  return require('leash.text').visible(step.label or step.id or step.key or step.type)
end

--- Neovim's message without a `file:line:` in front.
function H.clean(err)
  err = tostring(err)
  return (err:gsub('^[^\n]-:%d+: ', ''))
end

--- Run one step; every step whose reach is not `shell` or `plugin` (confirmed as running
--- what leash cannot see) runs inside the process guard.
function H.run_step(step, entries, ctx)
  local function run()
    if step.type == 'setting' then
      local rec, err = require('leash.sources.options').set(step)
      if not rec then return nil, err end
      table.insert(ctx.record.settings, rec)
      ctx.settings[step.key] = step.value
      return true
    elseif step.type == 'terminal' then
      return require('leash.sources.terminal').run_line(step.command)
    elseif step.type == 'item' then
      return H.run_item(step, entries, ctx)
    end
    return nil, ('unknown step type %s'):format(vim.inspect(step.type))
  end
  local policy = require('leash.policy')
  local may_run_code, rerr = policy.at_least(step.reach, 'code')
  if may_run_code == nil then return false, rerr end
  if not may_run_code then
    -- Checked now, not only when the plan was: an earlier step may have changed the
    -- current directory or file (|leash.code_dirs|).
    local why, cerr = require('leash.code_dirs').check(step, ctx.settings)
    if cerr then return false, cerr end
    -- The reason says what: a write into a folder Neovim loads code from, or a file of
    -- another project (|leash.code_dirs|).
    if why then return false, ('it reaches further than shown, so it needs [code]: %s'):format(why) end
  end
  local ok, err
  local terminal = require('leash.ui.terminal')
  local isprint, raw_before = vim.o.isprint, terminal.raw_controls()
  if policy.unguarded(step.reach) then
    ok, err = H.pcall(run)
  else
    ok, err = require('leash.guard').run(run, {
      plan_text = ctx.plan_text,
      label = ('step %d (%s)'):format(ctx.number or 0, H.label(step)),
      on_starts = function(starts) H.log_starts(step, ctx.number, starts) end,
      -- A step shown below [code] was not shown as reading another project's settings.
      projects = not may_run_code,
    })
  end
  -- Raw control bytes could move what the terminal shows (a later plan window among
  -- it): only a step confirmed as code or more may let them through, a modeline neither.
  if ok and not raw_before and not may_run_code and terminal.raw_controls() then
    vim.o.isprint = isprint
    ok, err =
      false, "it let control characters be drawn raw ('isprint', perhaps from a modeline); leash put 'isprint' back"
  end
  if ok and step.type ~= 'setting' then
    -- A change of text is taken back with its buffer's undo state (|leash.undo|);
    -- what else a step did may not be.
    local list = (step.reach == 'edit' or ctx.text_only) and ctx.record.edits or ctx.record.not_undoable
    list[#list + 1] = H.label(step)
  end
  return ok, err
end

--- The positions of the steps the core dry-runs in the plan window: text changes only.
---@return table<integer, true>
function H.text_only(plan)
  local out = {}
  local ok, answer = require('leash.native').call('preview_steps', 'read the plan', plan)
  for pos, k in ipairs(ok and type(answer) == 'table' and answer.steps or {}) do
    if k.kind == 'run' then out[pos] = true end
  end
  return out
end

--- Everything the model wrote in the plan that a program could receive: arguments,
--- string values, terminal commands (the process guard refuses a start that takes its
--- program, or an option beginning with `-`, from this text).
---@return string[]
function H.plan_text(plan)
  local out = {}
  for _, step in ipairs(plan.steps) do
    if type(step) == 'table' then
      for _, a in ipairs(type(step.args) == 'table' and step.args or {}) do
        if type(a) == 'string' then out[#out + 1] = a end
      end
      if type(step.value) == 'string' then out[#out + 1] = step.value end
      if type(step.command) == 'string' then out[#out + 1] = step.command end
    end
  end
  return out
end

--- Write the programs a step started (and the ones refused) to the log, the step
--- numbered as the plan window and the error message number it (among the steps that run).
function H.log_starts(step, number, starts)
  local line = vim.json.encode({ guard = { step = number, label = H.label(step), starts = starts } })
  pcall(require('leash.log').append, line)
end

--- pcall that returns `ok, err` with Neovim's message.
function H.pcall(fn, ...)
  local ok, res, msg = pcall(fn, ...)
  if not ok then return false, H.clean(res) end
  if res == false or (res == nil and msg) then return false, msg end
  return true
end

--- `{ [id] = entry }` from the given entries or the live catalog.
function H.entry_map(entries)
  local catalog = require('leash.catalog')
  return catalog.by_id(entries or catalog.entries())
end

--- What the window should show beside a step that the core's label cannot say: the
--- folder a script runs in, and what a source says the item may do besides its label.
function H.annotate(plan, entries)
  for _, step in ipairs(plan.steps) do
    local entry = type(step) == 'table' and step.type == 'item' and entries[step.id]
    if entry and type(entry.cwd) == 'string' and entry.cwd ~= '' and step.note == nil then
      step.note = 'runs in ' .. vim.fn.fnamemodify(entry.cwd, ':~')
    end
    -- What a source knows the step may do besides what its label says (a language
    -- server's rename may also move files).
    if entry and type(entry.window_note) == 'string' and entry.window_note ~= '' then
      local note = type(step.note) == 'string' and step.note ~= '' and step.note or nil
      step.note = note and (note .. '; ' .. entry.window_note) or entry.window_note
    end
  end
end

--- What only the editor knows when the window opens, put on the steps it shows: the file
--- `file:delete` and `file:rename` act on (they refuse to run on another), and `[code]`
--- with the reason for a step that would write where Neovim loads code from (`:write`
--- while the current file is in the config folder). Reach is only ever raised here.
function H.at_window(plan)
  local policy, code_dirs = require('leash.policy'), require('leash.code_dirs')
  local settings, earlier_item = {}, false
  for _, step in ipairs(plan.steps) do
    if type(step) == 'table' then
      if step.type == 'item' and H.current_file_items[step.id] then
        step.current_file = vim.api.nvim_buf_get_name(0)
        step.current_file_may_change = earlier_item
      end
      if policy.at_least(step.reach, 'code') == false then
        -- A check that cannot run here fails again, for good, before the step runs.
        local why = code_dirs.check(step, settings)
        if why then
          step.reach = 'code'
          step.note = (type(step.note) == 'string' and step.note ~= '') and (step.note .. '; ' .. why) or why
        end
      end
      if step.type == 'setting' and type(step.key) == 'string' then
        settings[step.key] = step.value
      else
        earlier_item = true
      end
    end
  end
end

--- The notes the window shows beside steps that only the editor knows (specs).
---@private
function M._annotate(plan, entries) H.annotate(plan, H.entry_map(entries)) end

-- Items that act on the current file: the window names it, and they run only on it.
H.current_file_items = { ['file:delete'] = true, ['file:rename'] = true }

function H.run_item(step, entries, ctx)
  local id = step.id
  if type(id) ~= 'string' then return false, 'the step names no item' end
  local entry = entries[id]
  local text = require('leash.text')
  if not entry then return false, ('“%s” is not in the catalog'):format(text.visible(id)) end
  local args = step.args
  if args == nil or args == vim.NIL then args = {} end
  if type(args) == 'string' then args = { args } end
  if type(args) ~= 'table' or not vim.islist(args) then return false, 'the arguments are not a list' end
  for _, a in ipairs(args) do
    if type(a) ~= 'string' then return false, 'an argument is not a string' end
  end
  local why = require('leash.policy').check_step_args(id, entry.args, args)
  if why then return false, why end
  local prefix = id:match('^(%a+):')
  local handler = prefix and H.handler(prefix)
  if not handler then return false, ('no handler runs “%s:” items yet'):format(prefix or '?') end
  -- A shallow copy: the core's plan tables carry a protected metatable (mlua's array
  -- marker), which vim.deepcopy() cannot copy (setmetatable(t, false) raises).
  local clean = {}
  for k, v in pairs(step) do
    clean[k] = v
  end
  clean.args = args
  return H.pcall(handler, clean, entry, ctx)
end

--- The handler for an id prefix: a registered one, else its source's `run`. The sources
--- are required on first use so loading this module stays cheap.
function H.handler(prefix)
  if M.handlers[prefix] then return M.handlers[prefix] end
  local source = require('leash.sources').by_prefix(prefix)
  if not (source and source.run) then return nil end
  return function(step, entry, ctx) return source.run(entry, step, ctx) end
end

return M
