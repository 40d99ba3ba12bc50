--- Model text made safe to show, and the checks that keep what is shown equal to what
--- runs: control characters, invisible characters (the native core's one definition)
--- and length.
---
--- Used by the executor before a step runs and by every message that quotes a plan;
--- the plan window's rows are written by the core's presenter with the same definition.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Text with every invisible character written out: `^[` for ESC, `^J` for a newline,
--- `<U+202E>` for a bidi override, `<U+061C>`, `<U+E0041>`, `<U+00A0>`… for the other
--- characters the core counts as invisible (format and bidi characters, tag characters,
--- default-ignorable code points, non-ASCII spaces, unassigned code points; the native
--- module's `visible`, one definition for the plan window, progress, notifications and
--- the policy). What remains can be shown as is and reads the same as what runs.
--- Without the native module every character outside ASCII is shown as `<U+XXXX>`
--- (fail closed: the strictest reading).
---@param s any
---@return string
function M.visible(s)
  if s == nil or s == vim.NIL then return '' end
  s = tostring(s)
  local native = require('leash.native').load()
  if native and type(native.visible) == 'function' then
    local ok, out = pcall(native.visible, s)
    if ok and type(out) == 'string' then return out end
  end
  return H.visible_ascii(s)
end

--- A message for |vim.notify()| that may carry model text: each line made |M.visible()|,
--- the line breaks between them kept.
---@param s any
---@return string
function M.visible_lines(s)
  if s == nil or s == vim.NIL then return '' end
  local lines = vim.split(tostring(s), '\n', { plain = true })
  for i, line in ipairs(lines) do
    lines[i] = M.visible(line)
  end
  return table.concat(lines, '\n')
end

--- Why `s` cannot be shown exactly as it runs (" contains …", " is longer than …"), or nil.
---@param s string
---@return string?
function M.check(s)
  local lists, err = require('leash.policy').lists()
  if not lists then return ' cannot be checked (' .. tostring(err) .. ')' end
  if #s > lists.max_text_bytes then return (' is longer than %d bytes'):format(lists.max_text_bytes) end
  if s:find('[%z\1-\31\127]') or s:find('\194[\128-\159]') then return ' contains a control character' end
  if M.visible(s) ~= s then return ' contains an invisible character' end
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

--- The fallback without the native module: C0 controls and DEL as `^X`, every
--- character outside ASCII as `<U+XXXX>`. Invalid UTF-8 bytes are left alone: Neovim
--- draws them as `<xx>`.
function H.visible_ascii(s)
  s = s:gsub('[%z\1-\31\127]', function(c)
    local b = c:byte()
    return b == 127 and '^?' or ('^' .. string.char(b + 64))
  end)
  return (
    s:gsub('[\192-\247][\128-\191]+', function(run)
      -- One lead byte and the continuation bytes after it: the sequence, then any extra
      -- (stray) continuation bytes, which are shown as they are.
      local seq, rest = H.split(run)
      if not seq then return run end
      return ('<U+%04X>'):format(H.codepoint(seq)) .. rest
    end)
  )
end

return M
