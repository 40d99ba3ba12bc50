--- `:Leash log` as a person reads it: one entry per request, newest first, saying when,
--- the request, the provider and model, how long it took, each step with what became of
--- it, what the checker refused, and the outcome. `<CR>` on an entry shows its raw
--- exchange (each answer of the model as it came, and the whole record).
---
--- The log holds model text: every line shown is made visible (|leash.text.visible()|)
--- and goes into a scratch buffer with 'modeline' off (|leash.ui.scratch|).
local M = {}
local H = {}

-- Module definition ==========================================================

--- How many entries the view shows (the newest).
M.max_entries = 200

---@class leash.LogEntry
---@field record? table the core's line for the request (absent when planning never started)
---@field outcome? table what became of it last (`status`, `steps`, `error`)
---@field outcomes table[] every outcome, oldest first (a plan shown, then run from `:Leash last`)
---@field guard table[] the programs its steps started or were refused
---@field time_ms? integer
---@field request? string

--- The log's lines grouped into entries, oldest first: each of the core's records, with
--- the outcome and guard lines that follow it for the same request (a plan only shown,
--- then run from `:Leash last`, has two outcomes); an outcome with no record of its
--- request before it (a request refused before planning) is an entry of its own.
---@param lines string[]
---@return leash.LogEntry[] entries
---@return integer unreadable lines that are not JSON objects
function M.parse(lines)
  local entries, bad, current = {}, 0, nil
  for _, line in ipairs(lines) do
    local ok, t = pcall(vim.json.decode, line)
    if not ok or type(t) ~= 'table' then
      if line ~= '' then bad = bad + 1 end
    elseif type(t.outcome) == 'table' then
      local o = t.outcome
      if not (current and current.request == o.request) then
        current = { outcomes = {}, guard = {}, time_ms = o.time_ms, request = o.request }
        entries[#entries + 1] = current
      end
      current.outcomes[#current.outcomes + 1] = o
      current.outcome = o
    elseif type(t.guard) == 'table' then
      if current then current.guard[#current.guard + 1] = t.guard end
    elseif t.request ~= nil then
      current = { record = t, outcomes = {}, guard = {}, time_ms = t.time_ms, request = t.request }
      entries[#entries + 1] = current
    else
      bad = bad + 1
    end
  end
  return entries, bad
end

--- The view's lines for `entries` (newest first), and for each line the entry it belongs to.
---@param entries leash.LogEntry[]
---@param bad integer
---@param path string
---@return string[] lines
---@return table<integer, leash.LogEntry> owner by line number
---@return integer[] heads the line numbers of the entries' first lines
function M.render(entries, bad, path)
  local lines, owner, heads = {}, {}, {}
  local shown = math.min(#entries, M.max_entries)
  lines[1] = ('leash log: %d request%s, newest first · <CR> on one: its raw exchange · q: close'):format(
    #entries,
    #entries == 1 and '' or 's'
  )
  lines[2] = path .. (shown < #entries and (' (the newest %d shown)'):format(shown) or '')
  if bad > 0 then
    lines[#lines + 1] = ('%d line%s of the file could not be read'):format(bad, bad == 1 and '' or 's')
  end
  for i = #entries, #entries - shown + 1, -1 do
    local e = entries[i]
    lines[#lines + 1] = ''
    heads[#heads + 1] = #lines + 1
    for _, l in ipairs(H.entry_lines(e)) do
      lines[#lines + 1] = l
      owner[#lines] = e
    end
  end
  if #entries == 0 then lines[#lines + 1] = '(no request yet)' end
  return lines, owner, heads
end

--- The raw exchange of `entry`: each answer as the model sent it, then the whole record.
---@param entry leash.LogEntry
---@return string[]
function M.raw_lines(entry)
  local text = require('leash.text')
  local out = { ('raw exchange of: %s'):format(text.visible(entry.request or '?')), 'q: back to the log', '' }
  local r = entry.record
  if not r then
    out[#out + 1] = '(planning never started: no exchange with a model)'
  else
    for _, x in ipairs(type(r.exchanges) == 'table' and r.exchanges or {}) do
      out[#out + 1] = ('--- answer %s (structured output: %s, %s attempt%s, %s)'):format(
        tostring(x.round or '?'),
        tostring(x.structured or '?'),
        tostring(x.attempts or 0),
        x.attempts == 1 and '' or 's',
        H.seconds(x.model_ms)
      )
      for _, l in ipairs(vim.split(tostring(x.raw or ''), '\n', { plain = true })) do
        out[#out + 1] = text.visible(l)
      end
      out[#out + 1] = ''
    end
    out[#out + 1] = '--- the record'
    local ok, json = pcall(vim.json.encode, r)
    out[#out + 1] = text.visible(ok and json or '?')
  end
  for _, o in ipairs(entry.outcomes) do
    local ok, json = pcall(vim.json.encode, { outcome = o })
    out[#out + 1] = text.visible(ok and json or '?')
  end
  for _, g in ipairs(entry.guard) do
    local ok, json = pcall(vim.json.encode, { guard = g })
    out[#out + 1] = text.visible(ok and json or '?')
  end
  return out
end

--- Open the view of the log at `path` (|leash.log.path()|).
---@param path string
function M.open(path)
  local notify = require('leash.ui.notify')
  if vim.fn.filereadable(path) == 0 then return notify.notify('leash: no log yet (' .. path .. ')') end
  local ok, file_lines = pcall(vim.fn.readfile, path)
  if not ok then return notify.notify('leash: cannot read the log (' .. path .. '): ' .. tostring(file_lines)) end
  local entries, bad = M.parse(file_lines)
  local lines, owner, heads = M.render(entries, bad, path)
  local scratch = require('leash.ui.scratch')
  local buf = scratch.show('leash://log', lines, {
    keys = {
      ['<CR>'] = function()
        local entry = owner[vim.api.nvim_win_get_cursor(0)[1]]
        if not entry then return notify.notify('leash: put the cursor on an entry to see its raw exchange') end
        scratch.show('leash://log-raw', M.raw_lines(entry), {
          filetype = 'leash-log-raw',
          keys = { q = function() M.open(path) end },
        })
      end,
    },
  })
  H.highlight(buf, heads)
  vim.api.nvim_win_set_cursor(0, { heads[1] or 1, 0 })
end

-- Helper data ================================================================

H.ns = vim.api.nvim_create_namespace('leash.log_view')

-- Helper functionality =======================================================

function H.seconds(ms)
  if type(ms) ~= 'number' then return '?' end
  return require('leash.ui.progress').duration(ms)
end

--- What the outcome says, in words: `ran 2 steps`, `failed at step 2: …`.
function H.outcome_text(o)
  local n = tonumber(o.steps) or 0
  local words = {
    ran = ('ran %d step%s'):format(n, n == 1 and '' or 's'),
    cancelled = 'cancelled in the plan window, nothing ran',
    ['nothing to run'] = 'nothing to run',
    shown = 'only shown (:Do!), nothing ran',
    edited = 'edited (e) and asked again, nothing ran',
    ['cancelled while planning'] = 'cancelled while planning',
    changed = 'not run again from :Leash last, it changed',
    undone = 'undone with :Leash undo',
  }
  local s = words[o.status]
  if o.status == 'failed' then s = n > 0 and ('failed at step %d after %d ran'):format(n + 1, n) or 'failed' end
  s = s or tostring(o.status)
  if o.error and o.error ~= '' then s = s .. ': ' .. tostring(o.error) end
  return s
end

--- What became of step `i` (1-based) under `outcome`: the executor logs how many steps
--- ran, and a step that failed is named in its error (`leash: step 2 (…): …`).
function H.step_mark(i, o)
  if not o then return '       ' end
  local n = tonumber(o.steps) or 0
  if o.status == 'ran' or (o.status == 'failed' and i <= n) then return 'ran    ' end
  local failed = o.status == 'failed' and tonumber(tostring(o.error or ''):match('^leash: step (%d+)'))
  if failed == i then return 'FAILED ' end
  return 'not run'
end

---@param e leash.LogEntry
---@return string[]
function H.entry_lines(e)
  local text = require('leash.text')
  local out = {}
  local when = e.time_ms and os.date('%Y-%m-%d %H:%M:%S', math.floor(e.time_ms / 1000)) or '????-??-?? ??:??:??'
  out[1] = ('%s  %s'):format(when, text.visible(e.request or '?'))
  local r = e.record
  if r then
    local who = tostring(r.provider or '?')
    if type(r.model) == 'string' and r.model ~= '' then who = who .. ' (' .. r.model .. ')' end
    local total = type(r.timings) == 'table' and r.timings.total_ms or nil
    local parts = { who, H.seconds(total) }
    if #(r.exchanges or {}) > 1 then parts[#parts + 1] = 'a second look' end
    out[#out + 1] = '  ' .. text.visible(table.concat(parts, ' · '))
    local plan = type(r.plan) == 'table' and r.plan or nil
    if plan then
      if type(plan.reply) == 'string' and plan.reply ~= '' then
        out[#out + 1] = '  reply: ' .. text.visible(plan.reply)
      end
      for i, s in ipairs(type(plan.steps) == 'table' and plan.steps or {}) do
        out[#out + 1] = ('  %s %d. %s'):format(
          H.step_mark(i, e.outcome),
          i,
          text.visible(s.label or s.id or s.key or '?')
        )
      end
      for _, d in ipairs(type(plan.dropped) == 'table' and plan.dropped or {}) do
        out[#out + 1] = '  refused  ' .. text.visible(d.reason or d.code or '?')
      end
    end
    if type(r.error) == 'table' then
      out[#out + 1] = '  error: ' .. text.visible(r.error.message or r.error.code or '?')
    end
  end
  for _, g in ipairs(e.guard) do
    for _, s in ipairs(type(g.starts) == 'table' and g.starts or {}) do
      if type(s) == 'table' then
        local what = type(s.what) == 'table' and table.concat(vim.tbl_map(tostring, s.what), ' ') or tostring(s.what)
        out[#out + 1] = ('  step %s %s (%s): %s'):format(
          tostring(g.step or '?'),
          s.refused and 'was refused a start' or 'started',
          tostring(s.via or '?'),
          text.visible(what)
        )
      end
    end
  end
  if #e.outcomes == 0 then out[#out + 1] = '  outcome: not recorded' end
  for i, o in ipairs(e.outcomes) do
    -- A later outcome (the plan run again from :Leash last) says when.
    local at = (i > 1 and o.time_ms) and (' (%s)'):format(os.date('%H:%M:%S', math.floor(o.time_ms / 1000))) or ''
    out[#out + 1] = ('  outcome%s: %s'):format(at, text.visible(H.outcome_text(o)))
  end
  return out
end

function H.highlight(buf, heads)
  vim.api.nvim_buf_clear_namespace(buf, H.ns, 0, -1)
  pcall(vim.api.nvim_buf_set_extmark, buf, H.ns, 0, 0, { line_hl_group = 'Comment' })
  for _, l in ipairs(heads) do
    pcall(vim.api.nvim_buf_set_extmark, buf, H.ns, l - 1, 0, { end_col = 19, hl_group = 'Title' })
  end
end

return M
