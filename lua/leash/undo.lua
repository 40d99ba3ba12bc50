--- `:Leash undo`: take back everything the last plan did, in one go.
---
--- While a plan runs, the executor (|leash.execute|) records here what taking it back
--- needs: the old value of every setting it set, and, before its first step that is not
--- a setting, the undo state (|changenr()|) of every loaded buffer, after closing the
--- buffer's current undo block so the plan's changes start a block of their own. When
--- the plan ends, each buffer whose undo state moved is one the plan changed (a buffer
--- it loaded counts from its first state).
---
--- Undoing restores the settings and moves each such buffer back to its state before the
--- plan (`:undo N`), and says what it restored. A buffer the user edited after the plan
--- is not undone over those edits unasked: the user is asked first, and the edits stay
--- in the buffer's undo tree (the message says which `:undo` brings them back). Plans are
--- undone newest first, up to |M.depth| of them.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.UndoRecord
---@field settings leash.SettingRecord[]
---@field not_undoable string[] labels of steps that ran and cannot be undone
---@field edits string[] labels of steps of reach `edit` that ran
---@field buffers? table<integer, leash.BufferState> every loaded buffer before the plan's first step that is not a setting
---@field changed leash.BufferState[] the buffers whose text the plan changed (|M.finish()|)
---@field request? string the request of the plan, for the log line of its undo

---@class leash.BufferState
---@field buf integer
---@field name string as messages show it
---@field seq integer its undo state before the plan (|changenr()|); 0 for one the plan loaded
---@field after? integer its undo state when the plan ended

--- How many plans `:Leash undo` can go back.
M.depth = 20

--- Asks whether to undo over the user's own edits (`true`: undo). Specs replace it.
---@param question string
---@return boolean
function M.ask(question) return vim.fn.confirm(question, '&Undo them too\n&Keep everything', 2) == 1 end

--- A new record for a plan that is about to run, kept for undo (an empty plan keeps
--- none: the previous undo stays the last).
---@param nsteps integer
---@return leash.UndoRecord
function M.begin(nsteps)
  local record = { settings = {}, not_undoable = {}, edits = {}, changed = {} }
  if nsteps > 0 then
    table.insert(H.stack, record)
    while #H.stack > M.depth do
      table.remove(H.stack, 1)
    end
  end
  return record
end

--- Before a step that is not a setting: remember every loaded buffer's undo state, once
--- per plan.
---@param record leash.UndoRecord
function M.before_step(record)
  if record.buffers then return end
  record.buffers = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      local ok, seq = pcall(H.close_block, b)
      if ok then record.buffers[b] = { buf = b, name = H.name(b), seq = seq } end
    end
  end
end

--- When the plan ended (ran or stopped): note which buffers it changed. A plan that
--- changed nothing is dropped, so `:Leash undo` goes straight to the one before.
---@param record leash.UndoRecord
function M.finish(record)
  if record.buffers then
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        local before = record.buffers[b] or { buf = b, name = H.name(b), seq = 0 }
        local ok, now = pcall(vim.api.nvim_buf_call, b, vim.fn.changenr)
        if ok and now ~= before.seq then
          before.after = now
          before.name = H.name(b)
          record.changed[#record.changed + 1] = before
        end
      end
    end
  end
  -- Steps that changed text but left every buffer as it was (a sort of sorted lines)
  -- leave nothing to take back.
  if #record.settings + #record.not_undoable + #record.changed > 0 then return end
  if H.stack[#H.stack] == record then table.remove(H.stack) end
end

--- What the last plan not undone yet recorded (specs read it).
---@return leash.UndoRecord?
function M.last() return H.stack[#H.stack] end

--- Take back the last plan not undone yet: its settings and the text of every buffer it
--- changed. When the user edited such a buffer after the plan, asks first (|M.ask()|,
--- or `opts.force`); "no" undoes nothing and keeps the plan on the stack.
---@param opts? { force?: boolean }
---@return boolean ok
---@return string msg
---@return leash.UndoRecord? record the plan undone (none when nothing was)
function M.undo(opts)
  opts = opts or {}
  local record = H.stack[#H.stack]
  if not record then return false, 'leash: nothing to undo' end
  local edited = {}
  for _, b in ipairs(record.changed) do
    local now = H.seq(b.buf)
    if now and now ~= b.after then edited[#edited + 1] = b end
  end
  if #edited > 0 and not opts.force then
    local names = H.names(edited)
    local question =
      'leash: you edited %s after the plan. Undo the plan over your edits? (they stay in the undo history)'
    question = question:format(names)
    if not M.ask(question) then return false, ('leash: nothing undone: you edited %s after the plan'):format(names) end
  end
  table.remove(H.stack)
  local parts, failed = {}, {}
  local texts, back = H.restore_texts(record, failed)
  -- What the user must act on comes first: a message that does not fit is cut at its end.
  if #back > 0 then parts[#parts + 1] = 'your later edits: ' .. table.concat(back, ', ') end
  if #texts > 0 then parts[#parts + 1] = 'restored the text of ' .. table.concat(texts, ', ') end
  local settings = H.restore_settings(record, failed)
  if #settings > 0 then parts[#parts + 1] = 'restored ' .. table.concat(settings, ', ') end
  if #parts == 0 then parts[1] = 'nothing to restore' end
  if #failed > 0 then parts[#parts + 1] = 'could not restore ' .. table.concat(failed, ', ') end
  if #record.not_undoable > 0 then
    parts[#parts + 1] = 'cannot be undone: ' .. table.concat(record.not_undoable, '; ')
  end
  local left = #H.stack
  if left > 0 then
    parts[#parts + 1] = ('%d earlier plan%s: :Leash undo again'):format(left, left == 1 and '' or 's')
  end
  return #failed == 0, 'leash: ' .. table.concat(parts, '; '), record
end

-- Helper data ================================================================

--- What each plan that ran recorded, oldest first.
---@type leash.UndoRecord[]
H.stack = {}

-- Helper functionality =======================================================

--- Close buffer `b`'s current undo block (the plan's changes must not join the user's
--- last one) and return its undo state.
function H.close_block(b)
  return vim.api.nvim_buf_call(b, function()
    local ei = vim.o.eventignore
    vim.o.eventignore = 'all' -- no OptionSet: the value does not change
    vim.bo.undolevels = vim.bo.undolevels
    vim.o.eventignore = ei
    return vim.fn.changenr()
  end)
end

--- Buffer `b`'s undo state now, or nil when it is gone or not loaded.
function H.seq(b)
  if not (vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_is_loaded(b)) then return nil end
  local ok, seq = pcall(vim.api.nvim_buf_call, b, vim.fn.changenr)
  return ok and seq or nil
end

--- How a message names buffer `b`: its file's name alone (`fruit.txt`), so the message
--- fits on one line, unless another buffer's file has the same name; then its path from
--- the working folder (or home).
function H.name(b)
  local name = vim.api.nvim_buf_get_name(b)
  if name == '' then return ('[No Name] (buffer %d)'):format(b) end
  local tail = vim.fn.fnamemodify(name, ':t')
  for _, other in ipairs(vim.api.nvim_list_bufs()) do
    local o = other ~= b and vim.api.nvim_buf_get_name(other) or ''
    if o ~= '' and vim.fn.fnamemodify(o, ':t') == tail then return vim.fn.fnamemodify(name, ':~:.') end
  end
  return tail
end

function H.names(list)
  local out = {}
  for _, b in ipairs(list) do
    out[#out + 1] = require('leash.text').visible(b.name)
  end
  return table.concat(out, ', ')
end

--- Move each changed buffer back to its state before the plan. Returns the names
--- restored and, for a buffer the user had edited since, how to get those edits back.
function H.restore_texts(record, failed)
  local texts, back = {}, {}
  local text = require('leash.text')
  for _, b in ipairs(record.changed) do
    local name = text.visible(b.name)
    local now = H.seq(b.buf)
    if not now then
      failed[#failed + 1] = ('the text of %s (no longer loaded)'):format(name)
    else
      local ok, err = pcall(vim.api.nvim_buf_call, b.buf, function()
        vim.api.nvim_cmd({ cmd = 'undo', count = b.seq }, { output = true })
        return vim.fn.changenr()
      end)
      if ok and err == b.seq then
        texts[#texts + 1] = name
        if now ~= b.after then back[#back + 1] = (':undo %d in %s'):format(now, name) end
      else
        local why = ok and "its undo history does not reach back that far ('undolevels')" or tostring(err)
        failed[#failed + 1] = ('the text of %s (%s)'):format(name, why)
      end
    end
  end
  return texts, back
end

--- Restore the settings, newest first; returns the keys restored.
function H.restore_settings(record, failed)
  local restored = {}
  local settings = require('leash.sources.options')
  for i = #record.settings, 1, -1 do
    local s = record.settings[i]
    local ok, err = pcall(settings.restore, s)
    if ok then
      table.insert(restored, 1, s.key)
    else
      failed[#failed + 1] = ('%s (%s)'):format(s.key, tostring(err))
    end
  end
  return vim.fn.uniq(vim.fn.sort(restored))
end

return M
