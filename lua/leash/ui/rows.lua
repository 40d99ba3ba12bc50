--- Rows of text that fit a width, as Neovim will draw them.
---
--- The plan window lays its own text out: one buffer line per screen row, so what a
--- person sees does not depend on 'wrap', 'linebreak', 'showbreak', 'breakindent' or
--- 'display', and no row is ever cut off by the window's edge. Widths are Neovim's own
--- (|strdisplaywidth()|: 'ambiwidth', 'emoji' and 'isprint' included).
local M = {}
local H = {}

-- Module definition ==========================================================

--- Display width of `s` as Neovim draws it ('ambiwidth', 'emoji', 'isprint' included).
---@param s string
---@return integer
function M.width(s)
  if not s:find('[\128-\255]') then return #s end
  return vim.fn.strdisplaywidth(s)
end

--- Lay one row of chunks out in rows of at most `width` display cells: a space of margin
--- first, continuation rows indented by the row's own indent plus two, broken after a
--- space where that leaves the row at least half full, else inside a word. `cache`
--- holds display widths by character for this layout. Returns `{ text, marks }` per
--- screen row, marks as `{ start_byte, end_byte, hl_group }`.
---@param chunks { [1]: string?, [2]: string? }[] text and highlight group
---@param width integer
---@param cache table<string, integer> display width by character, for one layout
---@return { text: string, marks: { [1]: integer, [2]: integer, [3]: string }[] }[]
function M.wrap(chunks, width, cache)
  local ascii = true
  for _, c in ipairs(chunks) do
    if c[1] and c[1]:find('[\128-\255]') then ascii = false end
  end
  if ascii then return H.wrap_ascii(chunks, width) end
  -- One cell per character, as parallel lists: character, display width, group.
  local ch, w, hl = { ' ' }, { 1 }, { false }
  for _, c in ipairs(chunks) do
    local text, group = c[1], c[2] or false
    if text and text ~= '' then
      local ascii = not text:find('[\128-\255]')
      for piece in H.chars(text) do
        local cw = ascii and 1 or cache[piece]
        if not cw then
          cw = #piece == 1 and piece:byte() < 128 and 1 or vim.fn.strdisplaywidth(piece)
          cache[piece] = cw
        end
        ch[#ch + 1], w[#w + 1], hl[#hl + 1] = piece, cw, group
      end
    end
  end
  local n = #ch
  local lead = 0
  while lead < n and ch[lead + 1] == ' ' do
    lead = lead + 1
  end
  local indent = math.min(lead + 2, math.floor(width / 2))

  local rows = {} -- { first cell, last cell, indent }
  local from, pad, used, brk, brk_used = 1, 0, 0, nil, 0
  local i = 1
  while i <= n do
    local cw = w[i]
    if used + cw > width and cw > 0 and i > from then
      local cut = i - 1
      if brk and brk < i - 1 and brk_used >= width / 2 then cut = brk end
      rows[#rows + 1] = { from, cut, pad }
      from, pad, used, brk = cut + 1, indent, indent, nil
      for k = from, i - 1 do
        used = used + w[k]
      end
    else
      used = used + cw
      if ch[i] == ' ' and i > lead then
        brk, brk_used = i, used
      end
      i = i + 1
    end
  end
  rows[#rows + 1] = { from, n, pad }

  local out = {}
  for _, r in ipairs(rows) do
    H.finish_row(out, ch, hl, r[1], r[2], r[3], indent, width)
  end
  return out
end

-- Helper functionality =======================================================

--- Iterate the characters of `s` as Neovim splits them (invalid bytes one at a time).
function H.chars(s)
  if not s:find('[\128-\255]') then return s:gmatch('.') end
  local starts = vim.str_utf_pos(s)
  local i = 0
  return function()
    i = i + 1
    local b = starts[i]
    if not b then return nil end
    local e = (starts[i + 1] or (#s + 1)) - 1
    return s:sub(b, e)
  end
end

--- |M.wrap()| for text that is all ASCII (one byte, one cell): the same rows, found by
--- position in the joined text instead of cell by cell (a long command stays cheap).
function H.wrap_ascii(chunks, width)
  local parts, ranges, at = { ' ' }, {}, 2
  for _, c in ipairs(chunks) do
    if c[1] and c[1] ~= '' then
      parts[#parts + 1] = c[1]
      if c[2] then ranges[#ranges + 1] = { at, at + #c[1] - 1, c[2] } end
      at = at + #c[1]
    end
  end
  local text = table.concat(parts)
  local n = #text
  local lead = #text:match('^ *')
  local indent = math.min(lead + 2, math.floor(width / 2))
  local out = {}
  local from, pad = 1, 0
  while from <= n do
    local to = math.min(n, from + math.max(width - pad, 1) - 1)
    if to < n then
      -- Break after the last space that leaves the row at least half full.
      for k = to, from, -1 do
        if pad + (k - from + 1) < width / 2 then break end
        if k > lead and text:byte(k) == 32 then
          to = k
          break
        end
      end
    end
    local marks = {}
    for _, r in ipairs(ranges) do
      local a, b = math.max(r[1], from), math.min(r[2], to)
      if a <= b then marks[#marks + 1] = { pad + a - from, pad + b - from + 1, r[3] } end
    end
    out[#out + 1] = { text = (' '):rep(pad) .. text:sub(from, to), marks = marks }
    from, pad = to + 1, indent
  end
  return out
end

--- Append the row of cells `from`..`to` after `pad` spaces to `out` as text and
--- highlight ranges. If Neovim measures the joined text wider than the cells said (a
--- character whose width depends on its neighbours), the row is split where Neovim's
--- own measure says it is full: no row is ever cut off.
function H.finish_row(out, ch, hl, from, to, pad, indent, width)
  local text = (' '):rep(pad) .. table.concat(ch, '', from, to)
  if to > from and M.width(text) > width then
    local last = to - 1
    while last > from and M.width((' '):rep(pad) .. table.concat(ch, '', from, last)) > width do
      last = last - 1
    end
    H.finish_row(out, ch, hl, from, last, pad, indent, width)
    return H.finish_row(out, ch, hl, last + 1, to, indent, indent, width)
  end
  local marks, col = {}, pad
  for k = from, to do
    local len = #ch[k]
    if hl[k] then
      local m = marks[#marks]
      if m and m[2] == col and m[3] == hl[k] then
        m[2] = col + len
      else
        marks[#marks + 1] = { col, col + len, hl[k] }
      end
    end
    col = col + len
  end
  out[#out + 1] = { text = text, marks = marks }
end

return M
