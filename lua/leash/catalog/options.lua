--- Catalog source: every option, keyed by its full name, as a typed setting.
---
--- From `nvim_get_all_options_info()`: type, scope, short name. From the runtime files:
--- allowed values (`--- @type 'yes'|'no'|…` in `lua/vim/_meta/options.lua`, only when
--- the set is closed), a one-line title (`doc/quickref.txt`, falling back to the first
--- sentence of the option's documentation) and a longer description (the doc comment
--- before `vim.o.<name>` in `_meta/options.lua`, trimmed).
---
--- No reach is declared: the core's Neovim profile knows which options name a program,
--- an expression or a file and raises them (doc/design.md, "The one rule", rule 3).
local M = {}
local H = {}

-- Module definition ==========================================================

--- Longest description kept per option, in bytes.
M.description_max = 2000

--- Entries for every option.
---@param static table parsed runtime data from |M.static()|
---@return table[]
function M.entries(static) return static.options end

--- The parts that depend only on the Neovim build and its runtime files (cacheable).
---@return { options: table[] }
function M.static()
  local rt = vim.env.VIMRUNTIME
  local meta = M.parse_meta(rt .. '/lua/vim/_meta/options.lua')
  local quick = M.parse_quickref(rt .. '/doc/quickref.txt')
  local out = {}
  local infos = vim.api.nvim_get_all_options_info()
  local names = vim.tbl_keys(infos)
  table.sort(names)
  for _, name in ipairs(names) do
    local info = infos[name]
    local doc = meta[name] or {}
    local aliases = {}
    if info.shortname and info.shortname ~= '' and info.shortname ~= name then aliases[1] = info.shortname end
    local flat = doc.text and vim.trim((doc.text:gsub('%s+', ' '))) or nil
    local entry = {
      key = name,
      kind = 'setting',
      title = quick[name] or H.first_sentence(flat) or ("'" .. name .. "'"),
      type = info.type,
      scope = H.scope(info),
      aliases = aliases,
      description = H.trim(flat),
    }
    if info.type == 'string' and doc.values then entry.values = doc.values end
    out[#out + 1] = entry
  end
  return { options = out }
end

--- Parse `_meta/options.lua` into `{ [name] = { text, values? } }`.
---
--- The file is a sequence of blank-line separated blocks: a `---` doc comment, a
--- `--- @type …` line, then `vim.o.<name> = …` assignments.
---@param path string
---@return table<string, { text: string, values?: string[] }>
function M.parse_meta(path)
  local out = {}
  local text = H.read(path)
  if not text then return out end
  -- Walking the blank-line separated blocks with plain finds is ~10x faster than a
  -- loop over the 8,000 lines.
  local pos = 1
  while true do
    local stop = text:find('\n\n', pos, true)
    local block = text:sub(pos, (stop or 0) - 1)
    if block:sub(1, 4) == '--- ' then
      local at = block:find('\n--- @type ', 1, true)
      if at then
        local ty, name = block:match('^([^\n]*)\nvim%.o%.([%w_]+) =', at + 11)
        if name and not out[name] then
          -- Keep a little more than `description_max`: it is trimmed later.
          local doc = block:sub(1, math.min(at - 1, M.description_max + 200))
          out[name] = { text = doc:gsub('\n%-%-%- ?', '\n'):sub(5), values = H.values(ty) }
        end
      end
    end
    if not stop then break end
    pos = stop + 2
  end
  return out
end

--- Parse the option lines of `doc/quickref.txt` into `{ [name] = title }`.
---@param path string
---@return table<string, string>
function M.parse_quickref(path)
  local out = {}
  local text = H.read(path)
  if not text then return out end
  for name, rest in text:gmatch("\n'([%w_]+)'[ \t]+([^\n]*)") do
    rest = vim.trim((rest:gsub("^'[%w_]+'%s+", '')))
    if rest ~= '' and not out[name] then out[name] = rest end
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

H.scopes = { global = 'global', win = 'window', buf = 'buffer' }

function H.scope(info)
  if info.global_local then return 'global-local' end
  return H.scopes[info.scope] or info.scope
end

--- `'a'|'b'|'c'` → { 'a', 'b', 'c' }; nil unless every alternative is a literal.
---@param ty? string
---@return string[]?
function H.values(ty)
  if not ty or ty:sub(1, 1) ~= "'" then return nil end
  local values = {}
  for alt in vim.gsplit(ty, '|', { plain = true }) do
    local v = alt:match("^'([^']*)'$")
    if not v then return nil end
    values[#values + 1] = v
  end
  return values
end

---@param flat? string whitespace already collapsed
function H.first_sentence(flat)
  if not flat or flat == '' then return nil end
  local s = flat:match('^(.-[%.:])%s') or flat
  if #s > 100 then s = s:sub(1, 97) .. '...' end
  return s
end

---@param flat? string whitespace already collapsed
function H.trim(flat)
  if not flat then return nil end
  if #flat > M.description_max then flat = flat:sub(1, M.description_max):gsub('%s+%S*$', '') .. ' ...' end
  return flat
end

return M
