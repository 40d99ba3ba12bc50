--- The plan window's size and place, and its text laid out in them.
---
--- The text is laid out here, one buffer line per screen row, for the part of the editor
--- a person can see (|leash.ui.rows|): every row fits the window, so what is drawn never
--- depends on 'wrap' or the options around it, and a plan taller than the window says at
--- its top that it must be scrolled through. When the editor is too small to show it,
--- the window says so instead and nothing runs.
local M = {}
local H = {}
local decision = require('leash.ui.confirm.decision')
local shared = require('leash.ui.confirm.state')
local text_rows = require('leash.ui.rows')

-- Module definition ==========================================================

--- Border settings: pass a border only when the user has not set 'winborder'.
---@return { border?: string|string[], has_border: boolean }
function M.border()
  local ok, wb = pcall(function() return vim.o.winborder end)
  local user = ok and type(wb) == 'string' and wb ~= ''
  if user and wb == 'none' then return { has_border = false } end
  -- With 'ambiwidth' "double" box-drawing characters take two cells, which Neovim
  -- refuses in a border.
  if vim.fn.strdisplaywidth('─') ~= 1 then return { border = H.ascii_border, has_border = true } end
  if user then return { border = nil, has_border = true } end
  return { border = 'rounded', has_border = true }
end

--- Lay the plan out for the editor's current size and show it: window size and place,
--- buffer text, footer. Rows already drawn stay counted when the text did not change.
---@param win integer
---@param buf integer
---@param state leash.PlanWindowState
function M.show(win, buf, state)
  local layout = H.layout(state.plan_rows, state.border, state)
  local lines, marks = {}, {}
  for i, r in ipairs(layout.rows) do
    lines[i] = r.text
    for _, m in ipairs(r.marks) do
      marks[#marks + 1] = { i - 1, m[1], m[2], m[3] }
    end
  end
  if not vim.deep_equal(lines, state.lines) then
    state.seen, state.nseen = {}, 0
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    vim.api.nvim_buf_clear_namespace(buf, shared.ns_text, 0, -1)
    for _, m in ipairs(marks) do
      vim.api.nvim_buf_set_extmark(buf, shared.ns_text, m[1], m[2], { end_col = m[3], hl_group = m[4] })
    end
    pcall(vim.api.nvim_win_set_cursor, win, { 1, 0 })
  end
  state.lines, state.too_small, state.layout = lines, layout.too_small, layout
  vim.api.nvim_win_set_config(win, {
    relative = 'editor',
    width = layout.width,
    height = layout.height,
    row = layout.row,
    col = layout.col,
  })
  decision.set_footer(win, state)
  if layout.too_small and not state.told_small then
    state.told_small = true
    -- The window holds the whole text; the message says what to do first, and where
    -- the rule is when it is cut to fit.
    require('leash.ui.notify').notify(layout.note, vim.log.levels.WARN, { more = ':help leash-plan-small' })
  end
end

--- The part of the editor a person can see, from the top left: rows above the command
--- line, and columns. 'lines' and 'columns' are safe settings and may be larger than the
--- terminal (the rest of Neovim's screen is then drawn where nobody sees it): each
--- attached UI's own size caps them.
---@return { rows: integer, cols: integer }
function M.screen()
  local rows, cols = vim.o.lines - vim.o.cmdheight, vim.o.columns
  for _, ui in ipairs(vim.api.nvim_list_uis()) do
    if type(ui.height) == 'number' and ui.height > 0 then rows = math.min(rows, ui.height) end
    if type(ui.width) == 'number' and ui.width > 0 then cols = math.min(cols, ui.width) end
  end
  return { rows = rows, cols = cols }
end

-- Helper data ================================================================

H.ascii_border = { '+', '-', '+', '|', '+', '-', '+', '|' }

-- The smallest text area the plan is shown in: columns, and rows when it must scroll.
H.min_rows, H.min_cols = 5, 30

-- Helper functionality =======================================================

--- Rows, size and place of the window for the editor's current size. The text area is
--- `width` columns; every row fits in it, so what is drawn never depends on 'wrap',
--- 'linebreak', 'showbreak', 'breakindent' or 'display'. Too small: fewer than
--- `H.min_cols` columns, or a plan that does not fit in fewer than `H.min_rows` rows.
function H.layout(plan_rows, border, state)
  local marked, texts = state.marked, decision.key_texts(state)
  local extra = border.has_border and 2 or 0
  local screen = M.screen()
  local free_rows = screen.rows - extra
  local free_cols = screen.cols - extra
  -- Leave a margin around the window where the editor has room for it.
  local max_rows = free_rows >= 12 and free_rows - 2 or free_rows
  local max_cols = free_cols >= 44 and free_cols - 4 or free_cols
  local out = {}
  local cache = {}

  local function lay(rows)
    local width = math.min(40, max_cols)
    for _, text in pairs(decision.footers) do
      if type(text) == 'string' then width = math.max(width, vim.fn.strdisplaywidth(text) + 2) end
    end
    for _, text in pairs(texts) do
      width = math.max(width, vim.fn.strdisplaywidth(text) + 2)
    end
    for _, chunks in ipairs(rows) do
      local w = 2
      for _, c in ipairs(chunks) do
        w = w + text_rows.width(c[1])
      end
      width = math.max(width, w)
    end
    width = math.max(2, math.min(width, max_cols))
    local all = {}
    for _, chunks in ipairs(rows) do
      vim.list_extend(all, text_rows.wrap(chunks, width - 1, cache))
    end
    return all, width
  end

  local keys = border.has_border and {} or { {}, { { texts.inline, 'LeashConfirmKeys' } } }
  local rows, width = lay(vim.list_extend(vim.list_slice(plan_rows), keys))
  if #rows > max_rows then
    -- Say so at the top (also where there is no footer to say it).
    local with_note = vim.list_slice(plan_rows)
    table.insert(with_note, 2, {
      {
        state.plan_only and 'It does not fit: scroll to read it all (j, <C-d>).'
          or ('It does not fit: scroll to the end (j, <C-d>) before %s can run it.'):format(marked and 'y' or '<CR>'),
        'LeashConfirmKeys',
      },
    })
    rows, width = lay(vim.list_extend(with_note, keys))
  end
  out.too_small = max_cols < H.min_cols or (#rows > max_rows and max_rows < H.min_rows)
  if out.too_small then
    out.message = (
      'leash: the editor is too small to show the plan (%d×%d free, at least %d×%d needed); '
      .. "make it larger or lower 'cmdheight' (%d). Nothing runs until the plan can be read."
    ):format(math.max(max_rows, 0), math.max(max_cols, 0), H.min_rows, H.min_cols, vim.o.cmdheight)
    -- What to do, short enough for the message area of an 80-column editor; the window
    -- gives the sizes.
    out.note = "leash: no room for the plan: enlarge it or lower 'cmdheight'"
    rows, width = lay({ { { out.message, 'LeashConfirmShell' } } })
  end
  out.rows, out.width = rows, width
  out.fits = #rows <= max_rows
  out.height = math.max(1, math.min(#rows, max_rows))
  out.row = math.max(0, math.floor((free_rows - out.height) / 2))
  out.col = math.max(0, math.floor((free_cols - width) / 2))
  return out
end

return M
