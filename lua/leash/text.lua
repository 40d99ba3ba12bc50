--- Model text made safe to show, and the checks that keep what is shown equal to what
--- runs: control characters, invisible formatting characters (the native core's ranges,
--- |leash.policy|) and length.
---
--- Used by the executor before a step runs and by the plan window to draw it; neither
--- needs the other for it.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Text with every control and invisible formatting character made visible: `^[` for
--- ESC, `^J` for a newline, `<U+202E>` for a bidi override. What remains can be shown as
--- is and reads the same as what runs. Without the native module's ranges, every
--- character outside ASCII is shown as `<U+XXXX>` (the strictest reading).
---@param s any
---@return string
function M.visible(s)
  if s == nil or s == vim.NIL then return '' end
  s = tostring(s)
  -- C0 controls and DEL as ^X.
  s = s:gsub('[%z\1-\31\127]', function(c)
    local b = c:byte()
    return b == 127 and '^?' or ('^' .. string.char(b + 64))
  end)
  -- C1 controls (U+0080..U+009F) and invisible formatting characters as <U+XXXX>.
  -- Invalid UTF-8 bytes are left alone: Neovim draws them as <xx>.
  s = s:gsub('[\192-\247][\128-\191]+', function(run)
    -- One lead byte and the continuation bytes after it: the sequence, then any extra
    -- (stray) continuation bytes, which are shown as they are.
    local seq, rest = H.split(run)
    local cp = seq and H.codepoint(seq)
    if cp and (cp <= 0x9F or H.invisible(cp)) then return ('<U+%04X>'):format(cp) .. rest end
    return run
  end)
  return s
end

--- Why `s` cannot be shown exactly as it runs (" contains …", " is longer than …"), or nil.
---@param s string
---@return string?
function M.check(s)
  local lists = require('leash.policy').lists()
  local max = lists and lists.max_text_bytes or 4096
  if #s > max then return (' is longer than %d bytes'):format(max) end
  if s:find('[%z\1-\31\127]') or s:find('\194[\128-\159]') then return ' contains a control character' end
  if M.visible(s) ~= s then return ' contains an invisible formatting character' end
end

-- Helper functionality =======================================================

--- The first UTF-8 sequence of `run` (a lead byte and continuation bytes) and what
--- follows it; nil when the run is too short for its lead byte.
function H.split(run)
  local b1 = run:byte(1)
  local want = (b1 >= 0xF0 and 4) or (b1 >= 0xE0 and 3) or 2
  if #run < want then return nil, run end
  return run:sub(1, want), run:sub(want + 1)
end

--- The code point of one well-formed UTF-8 sequence.
function H.codepoint(seq)
  local n = #seq
  local cp = seq:byte(1) % (n == 2 and 0x20 or n == 3 and 0x10 or 0x08)
  for i = 2, n do
    cp = cp * 64 + (seq:byte(i) % 64)
  end
  return cp
end

--- Whether `cp` is in one of the core's invisible ranges (any non-ASCII character when
--- the ranges are unavailable).
function H.invisible(cp)
  local lists = require('leash.policy').lists()
  if not lists then return true end
  for _, r in ipairs(lists.invisible) do
    if cp >= r[1] and cp <= r[2] then return true end
  end
  return false
end

return M
