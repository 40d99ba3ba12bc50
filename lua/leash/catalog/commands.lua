--- Catalog source: every builtin Ex command, id `cmd:<fullname>`.
---
--- Titles and abbreviations come from `$VIMRUNTIME/doc/index.txt` (the ex-cmd-index
--- lines `|:vsplit|	:vs[plit]	split current window vertically`), `args` from the
--- command's definition (`nvim_parse_cmd` on the bare name reports `nargs`).
---
--- Every builtin is declared `reach = 'safe'` here on purpose: the Rust Neovim profile
--- raises each command to the class its tables give it (`:!` to shell, `:lua` to code,
--- `:write` to write, …), and a declared reach can only be raised, never lowered. The
--- core's tables decide; this file only describes.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Commands left out of the catalog. The Neovim profile refuses them at validation
--- time as well; leaving them out keeps them off the shortlist. They either change how
--- another command runs (modifiers), run arbitrary command text (`:execute`,
--- `:normal`, `:@`, `:*`, `:debug`), or change options/state outside the typed
--- setting path (`:set` family: settings are steps of their own), or touch the
--- process and its trust store (`:restart`, `:connect`, `:trust`).
M.withheld = {
  -- command modifiers
  'silent', 'vertical', 'tab', 'keepjumps', 'keepmarks', 'keepalt', 'keeppatterns', 'lockmarks',
  'noautocmd', 'noswapfile', 'sandbox', 'unsilent', 'verbose', 'topleft', 'botright', 'aboveleft',
  'belowright', 'leftabove', 'rightbelow', 'browse', 'confirm', 'filter', 'horizontal',
  -- options go through typed setting steps
  'set', 'setlocal', 'setglobal',
  -- run arbitrary command text or keys
  'execute', 'normal', '@', '*', 'debug',
  -- process and trust
  'restart', 'connect', 'trust',
}

--- Entries for every builtin Ex command except |M.withheld|.
---@param static table parsed runtime data from |M.static()|
---@return table[]
function M.entries(static) return static.commands end

--- The parts that depend only on the Neovim build and its runtime files (cacheable).
---@return { commands: table[] }
function M.static()
  local index = M.parse_index(vim.env.VIMRUNTIME .. '/doc/index.txt')
  local user = {}
  for name in pairs(vim.api.nvim_get_commands({ builtin = false })) do
    user[name] = true
  end
  for name in pairs(vim.api.nvim_buf_get_commands(0, { builtin = false })) do
    user[name] = true
  end
  local withheld = {}
  for _, name in ipairs(M.withheld) do
    withheld[name] = true
  end

  local out = {}
  for _, name in ipairs(vim.fn.getcompletion('', 'command')) do
    if not user[name] and not withheld[name] then
      local doc = index[name]
      local aliases = {}
      if doc and doc.abbr and doc.abbr ~= name then aliases[1] = doc.abbr end
      out[#out + 1] = {
        id = 'cmd:' .. name,
        kind = 'command',
        title = doc and doc.title or (':' .. name),
        aliases = aliases,
        args = H.args(name),
        reach = 'safe', -- raised by the core's Neovim profile; see the file header
      }
    end
  end
  return { commands = out }
end

--- Parse the ex-cmd-index of `doc/index.txt` into `{ [fullname] = { title, abbr } }`.
--- Only the first line of a title is kept (a handful continue on the next line).
---@param path string
---@return table<string, { title: string, abbr?: string }>
function M.parse_index(path)
  local out = {}
  local text = H.read(path)
  if not text then return out end
  -- Reading the whole file and matching only `|:` lines is ~5x faster than f:lines().
  for spec, title in text:gmatch('\n|:[^|\n]*|[ \t]+:(%S+)[ \t]+([^\n]*)') do
    local full = spec:gsub('[%[%]]', '')
    -- The first line for a name wins (a few names appear twice, e.g. with a range).
    if not out[full] then out[full] = { title = vim.trim(title), abbr = spec:match('^([^%[]+)%[') } end
  end
  return out
end

-- Helper functionality =======================================================

function H.read(path)
  local f = io.open(path, 'rb')
  if not f then return nil end
  local text = f:read('*a')
  f:close()
  return text
end

H.nargs = { ['0'] = 'none', ['?'] = 'optional', ['*'] = 'optional', ['1'] = 'required', ['+'] = 'required' }

---@param name string
---@return 'none'|'optional'|'required'
function H.args(name)
  local ok, parsed = pcall(vim.api.nvim_parse_cmd, name, {})
  if ok then return H.nargs[parsed.nargs] or 'optional' end
  -- Parsing fails for modifiers (withheld) and a few odd names: assume it may take one.
  return 'optional'
end

return M
