--- What a plugin's own help says of its user commands, for the ranker: a lazy.nvim
--- stand-in (`:Telescope` before telescope.nvim is loaded) has no description, and a
--- plugin's real command often has none either (its definition is a Lua callback).
---
--- The command's help block (`*:Git*` in vim-fugitive's `doc/fugitive.txt`) when the
--- plugin documents it, else what the plugin's help says it is: the title of its first
--- help file and the first paragraph of prose ("Telescope.nvim is a plugin for fuzzy
--- finding…"). The files are read once per plugin folder, every tagged command in one
--- pass, and what they say is kept on disk (`stdpath('cache')/leash/plugin-help.json`)
--- keyed by each help file's time stamp and size: a new session reads the files again
--- only when a plugin was installed or updated. Within a session the folders are looked
--- at again after a plugin manager loaded, installed, updated or removed a plugin
--- (|leash.sources.shared.origin|'s plugin generation).
local M = {}
local H = {}

-- Module definition ==========================================================

--- The help text for user command `name` of one of `plugins` (names as lazy.nvim or
--- |leash.sources.shared.origin| gives them), or nil when none of their folders has help.
---@param name string
---@param plugins string[]
---@return string?
function M.describe(name, plugins)
  local generation = require('leash.sources.shared.origin').plugin_generation()
  if generation ~= H.plugins then
    H.docs, H.plugins = {}, generation
  end
  for _, plugin in ipairs(plugins) do
    local dir = M.plugin_dir(plugin)
    local doc = dir and H.doc(dir .. '/doc', plugin)
    if doc then
      local text = doc.commands[name] or doc.summary
      if text then return text end
    end
  end
  return nil
end

--- A number that changes when what |M.describe()| answers may have changed without any
--- plugin event (|M.reset()|).
---@return integer
function M.generation() return H.generation end

--- The folder of plugin `name`: lazy.nvim's record of it when lazy.nvim is in use (the
--- plugin need not be loaded), else the 'runtimepath' folder of that name.
---@param name string
---@return string?
function M.plugin_dir(name)
  local spec = require('leash.lazy').plugins()[name]
  if type(spec) == 'table' and type(spec.dir) == 'string' then return spec.dir end
  for _, dir in ipairs(vim.api.nvim_list_runtime_paths()) do
    if vim.fs.basename(dir) == name then return dir end
  end
  return nil
end

--- Forget what was read (specs, benchmarks); `disk = false` also ignores the disk cache
--- (reads every help file again) until the next reset.
---@param opts? { disk?: boolean }
function M.reset(opts)
  H.docs, H.disk, H.generation = {}, nil, H.generation + 1
  H.use_disk = not (opts and opts.disk == false)
end

-- Helper data ================================================================

--- Per doc folder: `false` (no help), or the summary and the help of each command it tags.
---@type table<string, false|{ summary?: string, commands: table<string, string> }>
H.docs = {}

--- The plugin generation |H.docs| was read in, and |M.generation()|.
H.plugins, H.generation = nil, 0

--- The disk cache, read once per session: by doc folder and plugin name, the files'
--- stamp and what they say. `nil` until read.
---@type table<string, { stamp: string, summary?: string, commands: table<string, string> }>?
H.disk = nil
H.use_disk = true

-- Bump when what is parsed, or how, changes.
H.cache_version = 1

-- Helper functionality =======================================================

--- The help of a plugin's doc folder; its summary comes from the file named after the
--- plugin (`telescope.txt` of telescope.nvim, not `secret.txt`), else the first file.
function H.doc(dir, plugin)
  if H.docs[dir] == nil then
    local stem = plugin:lower():gsub('%.n?vim$', ''):gsub('^n?vim%-', '')
    local files, stamp = {}, {}
    for file, kind in vim.fs.dir(dir) do
      if kind == 'file' and file:sub(-4) == '.txt' then files[#files + 1] = file end
    end
    table.sort(files, function(a, b)
      local ma, mb = H.names_plugin(a, stem), H.names_plugin(b, stem)
      if ma ~= mb then return ma end
      return a < b
    end)
    if #files == 0 then
      H.docs[dir] = false
      return nil
    end
    for i, file in ipairs(files) do
      local st = vim.uv.fs_stat(dir .. '/' .. file)
      stamp[i] = ('%s:%s.%s:%s'):format(file, st and st.mtime.sec, st and st.mtime.nsec, st and st.size)
    end
    stamp = table.concat(stamp, '/')
    local key = dir .. '\0' .. plugin
    local cached = H.read_disk()[key]
    if cached and cached.stamp == stamp then
      H.docs[dir] = { summary = cached.summary, commands = cached.commands }
      return H.docs[dir]
    end
    -- Each file read once: every command the help tags (`*:Git*`), parsed in one pass.
    local texts, names, seen = {}, {}, {}
    for _, file in ipairs(files) do
      local f = io.open(dir .. '/' .. file, 'r')
      texts[#texts + 1] = f and f:read('*a') or ''
      if f then f:close() end
      for tag in texts[#texts]:gmatch('%*:(%u[%w_]*)!?%*') do
        if not seen[tag] then
          seen[tag] = true
          names[#names + 1] = tag
        end
      end
    end
    local commands = #names > 0 and require('leash.sources.commands').parse_help_texts(texts, names, {}) or {}
    H.docs[dir] = { summary = H.summary(texts[1]), commands = commands }
    H.read_disk()[key] = { stamp = stamp, summary = H.docs[dir].summary, commands = commands }
    H.write_disk()
  end
  return H.docs[dir] or nil
end

--- The disk cache (an empty one when there is none, it does not parse, or it is off).
function H.read_disk()
  if H.disk then return H.disk end
  H.disk = {}
  local file = H.use_disk and H.disk_file()
  local text = file and require('leash.file').read(file)
  local ok, data = pcall(vim.json.decode, text or '', { luanil = { object = true, array = true } })
  if ok and type(data) == 'table' and data.version == H.cache_version and type(data.plugins) == 'table' then
    for key, v in pairs(data.plugins) do
      if type(v) == 'table' and type(v.stamp) == 'string' and type(v.commands) == 'table' then H.disk[key] = v end
    end
  end
  return H.disk
end

--- Write the disk cache once the request has left (one write for every folder read now).
function H.write_disk()
  if H.write_pending or not H.use_disk then return end
  H.write_pending = true
  local disk = H.disk
  vim.schedule(function()
    H.write_pending = false
    local file = H.disk_file()
    if not (file and disk) then return end
    vim.fn.mkdir(vim.fs.dirname(file), 'p')
    local tmp = ('%s.%d.tmp'):format(file, vim.uv.os_getpid())
    local f = io.open(tmp, 'w')
    if not f then return end
    -- An empty table would be written as a list.
    f:write(vim.json.encode({ version = H.cache_version, plugins = next(disk) and disk or vim.empty_dict() }))
    f:close()
    vim.uv.fs_rename(tmp, file)
  end)
end

function H.disk_file() return vim.fs.joinpath(vim.fn.stdpath('cache'), 'leash', 'plugin-help.json') end

--- `trouble.nvim.txt` and `fugitive.txt` name their plugin (`trouble`, `fugitive`).
function H.names_plugin(file, stem)
  local base = file:sub(1, -5):lower()
  return base == stem or base:gsub('%.n?vim$', '') == stem
end

--- `*telescope.txt*  Find, Filter, Preview, Pick.` and the first paragraph of prose:
--- lines of words that start in the first column, past headings, rules and lists.
function H.summary(text)
  text = text:sub(1, 16384)
  local title = text:match('^%*[^*]+%*%s+([^\n]+)')
  -- Generated help (panvimdoc) has `For Neovim >= 0.8  Last change: …` there.
  if title and (title:find('Last change') or title:find('^For N?[Vv]im')) then title = nil end
  local para = {}
  for line in (text:gsub('^[^\n]*', '') .. '\n'):gmatch('([^\n]*)\n') do
    local prose = line:find('^%u%l*[%s%p]') and not line:find('%*%S+%*%s*$') and not line:find('^%u[%u%s%-]+$')
    if prose or (#para > 0 and line:find('%S')) then
      para[#para + 1] = line
    elseif #para > 0 then
      break
    end
  end
  local out = vim.trim(((title or '') .. ' ' .. table.concat(para, ' ')):gsub('[|`*]', ''):gsub('%s+', ' '))
  local max = require('leash.sources.commands').description_max
  if #out > max then out = out:sub(1, max):gsub('%s+%S*$', '') end
  return out ~= '' and out or nil
end

return M
