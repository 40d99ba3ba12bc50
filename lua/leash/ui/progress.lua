--- What the user sees while a plan is made: one message that says who is asked, for how
--- long, and what it waits for (`looking up laststatus`, `rate-limited (429): asking
--- again in 2 s`), updated in place each second, and replaced by the outcome when the
--- plan arrives, so none stays up beside the plan window.
---
--- Neovim 0.12 shows it as a progress message (|nvim_echo()| `kind = 'progress'`);
--- before that it is a notification with an id (snacks, fidget) or `replace` (nvim-notify),
--- so notifiers update it instead of stacking copies. Neovim's own |vim.notify()| has no
--- way to replace a message: there it is said once, with no ticking, so the message
--- history does not fill with copies.
local M = {}
local H = {}

-- Module definition ==========================================================

--- How often the elapsed time is updated, in milliseconds.
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
  s.message = line
  -- Shown now unless a message drawn now would get in the way; the next tick shows it.
  if H.may_tick() or (s.no_echo and not H.builtin_notify()) then H.show(s, true) end
end

--- Replace the progress with the outcome (`planned with anthropic in 812 ms`).
---@param text string
---@param status 'done'|'cancelled'|'error'
function M.finish(text, status)
  local s = H.state
  M.stop()
  if not s then return end
  if s.echo_id then
    local kind = ({ done = 'success', cancelled = 'cancel' })[status] or 'failed'
    pcall(
      vim.api.nvim_echo,
      { { text } },
      false,
      { id = s.echo_id, kind = 'progress', title = 'leash', status = kind, percent = 100 }
    )
  elseif s.record ~= nil then
    return H.note(s, 'leash: ' .. text, true)
  end
  -- A progress message ends quietly; a cancellation is said where it stays readable.
  if status == 'cancelled' then require('leash.ui.notify').notify('leash: ' .. text, vim.log.levels.INFO) end
end

--- Stop updating (the timer); what is shown stays until replaced.
function M.stop()
  local s = H.state
  H.state = nil
  if s and s.timer and not s.timer:is_closing() then s.timer:close() end
end

-- Helper data ================================================================

---@type { provider: string, started: integer, frame: integer, message?: string, timer?: uv.uv_timer_t, echo_id?: integer, record?: any, no_echo?: boolean }?
H.state = nil

H.frames = { '⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏' }

-- Helper functionality =======================================================

--- `⠙ planning with anthropic · 3 s · looking up laststatus… (<C-c> or :Leash cancel to stop)`
function H.text(s)
  -- Rounded: the ticks come a hair before each whole second.
  local secs = math.floor((vim.uv.hrtime() - s.started) / 1e9 + 0.5)
  local tail = {}
  if secs > 0 then tail[#tail + 1] = ('%d s'):format(secs) end
  if s.message then tail[#tail + 1] = s.message end
  local who = ('%s planning with %s'):format(H.frames[s.frame], s.provider)
  local text = table.concat(vim.list_extend({ who }, tail), ' · ') .. '…'
  local stop = ' (<C-c> or :Leash cancel to stop)'
  -- A notifier's window has room for it all.
  if s.no_echo and not H.builtin_notify() then return text .. stop end
  -- In the message area a second line would stop at a hit-enter prompt: the how-to-stop
  -- goes first, then who is asked (the stage matters most), then the text is cut.
  -- (Before it: the notification's `leash: `, or the progress message's title and
  -- percentage.)
  local prefix = s.no_echo and 'leash: ' or 'leash: 50% '
  local fit = require('leash.ui.notify').fit
  local short = table.concat(vim.list_extend({ H.frames[s.frame] }, tail), ' · ')
  for _, t in ipairs({ text .. stop, text, short .. '…' }) do
    if fit(prefix .. t, '') == prefix .. t then return t end
  end
  return fit(prefix .. short, ''):sub(#prefix + 1)
end

--- Draw `s` in place: a progress message where Neovim has them, else a notification
--- that replaces the last one. `news`: a new stage (kept in the message history).
function H.show(s, news)
  if not s.no_echo then
    local opts = { kind = 'progress', title = 'leash', status = 'running', id = s.echo_id }
    local ok, id = pcall(vim.api.nvim_echo, { { H.text(s) } }, news, opts)
    if ok and type(id) == 'number' and id > 0 then
      s.echo_id = id
      return
    end
    s.no_echo = true
  end
  -- Neovim's own vim.notify cannot replace: the first message and each new stage only.
  if news or not H.builtin_notify() then H.note(s, 'leash: ' .. H.text(s)) end
end

--- A notification that replaces the previous one where the notifier can: snacks and
--- fidget take `id`, nvim-notify `replace` (the record it returned). The last one
--- (`final`) goes away on its own after a moment.
function H.note(s, msg, final)
  local opts = { title = 'leash', id = 'leash.progress', replace = s.record }
  if final then opts.timeout = 1500 end
  local ok, record = pcall(vim.notify, msg, vim.log.levels.INFO, opts)
  s.record = (ok and not final) and (record or false) or nil
end

function H.builtin_notify() return require('leash.ui.notify').builtin() end

function H.may_tick()
  local mode = vim.api.nvim_get_mode()
  if mode.blocking then return false end
  local m = mode.mode:sub(1, 1)
  -- In Insert mode an echoed message would cover "-- INSERT --"; a notifier's window does not.
  return m == 'n' or (m == 'i' and H.state ~= nil and H.state.no_echo == true and not H.builtin_notify())
end

return M
