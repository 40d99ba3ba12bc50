--- What the user sees while a plan is made: one message that says who is asked, for how
--- long, and what it waits for (`looking up laststatus`, `rate-limited (429): asking
--- again in 2 s`, counted down), its spinner and seconds moving each second, and gone
--- when the plan arrives, so none stays up beside the plan window.
---
--- Neovim 0.12 shows it as a progress message (|nvim_echo()| `kind = 'progress'`). Before
--- that, with Neovim's own |vim.notify()|, leash echoes it in the message area itself,
--- in place: each second replaces the line without adding to |:messages|, which keeps
--- the first line and each new stage. A notifier (snacks, fidget, nvim-notify) gets a
--- notification with an id (snacks, fidget) or `replace` (nvim-notify), updated in place.
--- Every echo goes through |leash.ui.notify|: one line, never a |hit-enter| prompt.
local M = {}
local H = {}

-- Module definition ==========================================================

--- How often the spinner and the seconds move, in milliseconds.
M.tick_ms = 1000

--- Start showing progress for a request to `provider`.
---@param provider string
function M.start(provider)
  M.stop()
  local s = { provider = provider, started = vim.uv.hrtime(), frame = 1 }
  H.state = s
  H.show(s, true)
  s.timer = vim.uv.new_timer()
  s.timer:start(
    M.tick_ms,
    M.tick_ms,
    vim.schedule_wrap(function()
      if H.state ~= s then return end
      s.frame = s.frame % #H.frames + 1
      -- Typing a command line or answering a prompt: a message drawn now would get in the way.
      if H.may_tick() then H.show(s, false) end
    end)
  )
end

--- The core's latest line (what the request waits for), shown at once.
---@param line string made visible already (|leash.text.visible()|)
function M.news(line)
  local s = H.state
  if not s then return end
  s.message, s.message_at = line, vim.uv.hrtime()
  -- Shown now unless a message drawn now would get in the way; the next tick shows it.
  if H.may_tick() or H.way(s) == 'notifier' then H.show(s, true) end
end

--- End the progress with its outcome (`planned with anthropic in 0.8 s`), kept in
--- |:messages|. A plan that arrived (`done`) or a failure (whose error is said next)
--- leaves the message area empty; a cancellation stays readable there.
---@param text string
---@param status 'done'|'cancelled'|'error'
function M.finish(text, status)
  local s = H.state
  M.stop()
  if not s then return end
  local notify = require('leash.ui.notify')
  local way = H.way(s)
  if way == 'progress' then
    local kind = ({ done = 'success', cancelled = 'cancel' })[status] or 'failed'
    notify.echo({
      chunks = { { text } },
      history = true,
      opts = { id = s.echo_id, kind = 'progress', title = 'leash', status = kind, percent = 100 },
      on_echo = function(ok)
        -- The first progress message was still queued and this Neovim has none.
        if not ok then notify.echo({ chunks = { { 'leash: ' .. text } }, history = true }) end
      end,
    })
  elseif way == 'notifier' then
    return H.note(s, 'leash: ' .. text, true)
  else
    notify.echo({ chunks = { { 'leash: ' .. text } }, history = true })
  end
  if status ~= 'cancelled' then notify.clear() end
end

--- Stop updating (the timer); what is shown stays until replaced.
function M.stop()
  local s = H.state
  H.state = nil
  if s and s.timer and not s.timer:is_closing() then s.timer:close() end
end

--- A duration as people read it: `0.8 s`, `8.1 s`, `42 s`, `2 min 5 s`.
---@param ms number
---@return string
function M.duration(ms)
  local secs = ms / 1000
  if secs < 10 then return ('%.1f s'):format(math.floor(secs * 10 + 0.5) / 10) end
  secs = math.floor(secs + 0.5)
  if secs < 60 then return ('%d s'):format(secs) end
  return ('%d min %d s'):format(math.floor(secs / 60), secs % 60)
end

-- Helper data ================================================================

---@class leash.ProgressState
---@field provider string
---@field started integer
---@field frame integer
---@field message? string the latest stage
---@field message_at? integer when it came (a retry's wait counts down from there)
---@field timer? uv.uv_timer_t
---@field echo_id? integer the progress message's id (Neovim 0.12)
---@field no_progress? boolean progress messages did not work here
---@field echoing? boolean an echo is queued; what comes meanwhile waits for it
---@field again? boolean show again once the queued echo is done (true: a new stage)
---@field record? any the notifier's record (nvim-notify's `replace`)

---@type leash.ProgressState?
H.state = nil

H.frames = { '⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏' }

-- Helper functionality =======================================================

--- How `s` is shown: a progress message, a notifier's notification, or leash's own echo.
---@return 'progress'|'notifier'|'echo'
function H.way(s)
  if not s.no_progress then return 'progress' end
  if not require('leash.ui.notify').builtin() then return 'notifier' end
  return 'echo'
end

--- The stage, a retry's wait counted down: `rate-limited (429): asking again in 2 s`.
function H.stage(s)
  local m = s.message
  if not m then return nil end
  local head, n = m:match('^(.*asking again in )(%d+%.?%d*) s$')
  if not head then return m end
  local waited = (vim.uv.hrtime() - (s.message_at or s.started)) / 1e9
  if waited < 0.5 then return m end -- as the core said it, until the first tick
  local left = tonumber(n) - waited
  if left <= 0 then return (head:gsub(' in $', '')) end
  return ('%s%d s'):format(head, math.ceil(left - 0.05))
end

--- `⠙ planning with anthropic · 3 s · looking up laststatus… (<C-c> or :Leash cancel to stop)`
function H.text(s)
  -- Rounded: the ticks come a hair before each whole second.
  local secs = math.floor((vim.uv.hrtime() - s.started) / 1e9 + 0.5)
  local tail = {}
  if secs > 0 then tail[#tail + 1] = ('%d s'):format(secs) end
  local stage = H.stage(s)
  if stage then tail[#tail + 1] = stage end
  local who = ('%s planning with %s'):format(H.frames[s.frame], s.provider)
  local text = table.concat(vim.list_extend({ who }, tail), ' · ') .. '…'
  local stop = ' (<C-c> or :Leash cancel to stop)'
  -- A notifier's window has room for it all.
  if H.way(s) == 'notifier' then return text .. stop end
  -- In the message area a second line would stop at a hit-enter prompt: the how-to-stop
  -- goes first, then who is asked (the stage matters most), then the text is cut.
  -- (Before it: the echo's `leash: `, or the progress message's title and percentage.)
  local prefix = H.way(s) == 'echo' and 'leash: ' or 'leash: 50% '
  local fit = require('leash.ui.notify').fit
  local short = table.concat(vim.list_extend({ H.frames[s.frame] }, tail), ' · ')
  for _, t in ipairs({ text .. stop, text, short .. '…' }) do
    if fit(prefix .. t, '') == prefix .. t then return t end
  end
  return fit(prefix .. short, ''):sub(#prefix + 1)
end

--- Draw `s` in place. `news`: the first line or a new stage (kept in |:messages|).
function H.show(s, news)
  if s.echoing then
    -- The echo before this one has not happened yet (it is queued): this one follows it.
    s.again = s.again or news
    return
  end
  local way = H.way(s)
  if way == 'notifier' then return H.note(s, 'leash: ' .. H.text(s)) end
  local notify = require('leash.ui.notify')
  local item = { chunks = { { H.text(s) } }, history = news }
  if way == 'progress' then
    item.opts = { kind = 'progress', title = 'leash', status = 'running', id = s.echo_id }
  else
    item.chunks[1][1] = 'leash: ' .. item.chunks[1][1]
  end
  s.echoing = true
  item.on_echo = function(ok, id)
    s.echoing = false
    if way == 'progress' then
      if ok and type(id) == 'number' and id > 0 then
        s.echo_id = id
      else
        -- No progress messages in this Neovim: the next way, at once.
        s.no_progress, s.again = true, true
      end
    end
    local again = s.again
    s.again = nil
    if again ~= nil and H.state == s then H.show(s, again) end
  end
  notify.echo(item)
end

--- A notification that replaces the previous one where the notifier can: snacks and
--- fidget take `id`, nvim-notify `replace` (the record it returned). The last one
--- (`final`) goes away on its own after a moment.
function H.note(s, msg, final)
  local opts = { title = 'leash', id = 'leash.progress', replace = s.record }
  if final then opts.timeout = 1500 end
  local notify = require('leash.ui.notify')
  local ok, record = pcall(vim.notify, notify.for_notifier(msg), vim.log.levels.INFO, opts)
  s.record = (ok and not final) and (record or false) or nil
end

function H.may_tick()
  local mode = vim.api.nvim_get_mode()
  if mode.blocking then return false end
  local m = mode.mode:sub(1, 1)
  -- In Insert mode an echoed message would cover "-- INSERT --"; a notifier's window does not.
  return m == 'n' or (m == 'i' and H.state ~= nil and H.way(H.state) == 'notifier')
end

return M
