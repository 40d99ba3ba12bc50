--- Pins a project's script definition files: the runners read them again when a script
--- starts (`npm run x` reads package.json, `make x` the Makefile), so a script step must
--- run what those files said when the plan was shown. The catalog pins each script entry
--- (|leash.sources.shared.core_sources|); the scripts source refuses to run an entry
--- whose files changed since (|leash.sources.scripts|). The list of files comes from the
--- core, which discovers the scripts.
local M = {}
local H = {}

-- Module definition ==========================================================

--- What the project's script files hold now: the SHA-256 of each definition file
--- present, read again only when its time stamp or size changed, unless `fresh`.
---@param root string project root
---@param fresh? boolean read the files again whatever their time stamps say
---@return string? pin nil when the native library (which knows the files) is missing
function M.fingerprint(root, fresh)
  local files = H.files()
  if not files then return nil end
  local parts = {}
  for _, name in ipairs(files) do
    local hash = H.file_hash(root .. '/' .. name, fresh)
    if hash then parts[#parts + 1] = name .. '\0' .. hash end
  end
  return table.concat(parts, '\1')
end

--- Forget every hash (tests).
function M.reset() H.hashes = {} end

-- Helper data ================================================================

---@type table<string, { mtime: integer, nsec: integer, size: integer, hash: string }>
H.hashes = {}

-- Helper functionality =======================================================

function H.files()
  if H.list then return H.list end
  local native = require('leash.native').load()
  if not native or not native.script_files then return nil end
  H.list = native.script_files()
  return H.list
end

--- The SHA-256 of a file's content, cached by time stamp and size unless `fresh`; nil
--- when it is not a readable file.
function H.file_hash(path, fresh)
  local st = vim.uv.fs_stat(path)
  if not st or st.type ~= 'file' then
    H.hashes[path] = nil
    return nil
  end
  local c = H.hashes[path]
  if not fresh and c and c.mtime == st.mtime.sec and c.nsec == st.mtime.nsec and c.size == st.size then
    return c.hash
  end
  local text = require('leash.file').read(path)
  if not text then return nil end
  local hash = vim.fn.sha256(text)
  H.hashes[path] = { mtime = st.mtime.sec, nsec = st.mtime.nsec, size = st.size, hash = hash }
  return hash
end

return M
