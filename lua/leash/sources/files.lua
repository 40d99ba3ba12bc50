--- Source: the file items, id `file:<action>`: their catalog entries and how a step of
--- one runs. The core discovers new, rename, copy_path, delete and open_folder with the
--- scripts and Git items (|leash.sources.shared.core_sources|, src/sources/files.rs);
--- the Neovim-only `file:reveal` is made here. It drives the file explorer plugin the
--- user installed and is `safe`.
---
--- A step runs without Ex command strings: buffers through the API, the
--- disk through libuv, the explorer through its Lua API (or `nvim_cmd` with magic off
--- and a path that comes from the buffer, not from the model).
---
--- Paths from the model go through |M.check_path()| first. Rename never overwrites an
--- existing file; delete removes one regular file, the current one. Both are `write`
--- items, so the plan window has shown them before they get here.
local M = {}
local H = {}

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'files', 'file'

--- The core's file items, and `file:reveal` when a known file explorer is installed.
---@param ctx? leash.SourceContext
---@return table[]
function M.entries(ctx)
  local core, explorer = require('leash.sources.shared.core_sources').list(ctx, 'files'), M.explorer()
  -- The same list as last time when the core's list and the explorer are the same
  -- (|leash.catalog| then compares nothing more).
  if not (rawequal(core, H.last.core) and explorer == H.last.explorer) then
    H.last = { core = core, explorer = explorer, list = vim.list_extend(vim.list_slice(core), H.reveal(explorer)) }
  end
  return H.last.list
end

--- Run a step of a `file:` item.
---@param entry table catalog entry
---@param step? table validated step
---@return boolean ok
---@return any err_or_result
function M.run(entry, step)
  local action = entry.id:match('^file:(.+)$')
  local fn = H.actions[action]
  if not fn then return false, ('leash: unknown file action %s'):format(tostring(action)) end
  local args = step and step.args
  if type(args) == 'string' then args = { args } end
  if args == nil or args == vim.NIL then args = {} end
  local ok, res, err = pcall(fn, args, step or {})
  if not ok then return false, 'leash: ' .. tostring(res) end
  if res == nil then return false, err end
  return true, res
end

--- The installed file explorer, preferring the one the user most likely chose.
---@return 'oil'|'nvim-tree'|'neo-tree'|'netrw'|nil
function M.explorer()
  if package.loaded['oil'] or vim.fn.exists(':Oil') == 2 then return 'oil' end
  if package.loaded['nvim-tree'] or vim.fn.exists(':NvimTreeFindFile') == 2 then return 'nvim-tree' end
  if package.loaded['neo-tree'] or vim.fn.exists(':Neotree') == 2 then return 'neo-tree' end
  if vim.fn.exists(':Explore') == 2 then return 'netrw' end
  return nil
end

--- Check a path from the model and make it absolute.
---@param p any the path as the model wrote it
---@param base string directory a relative path is relative to
---@param root? string the path must stay inside this directory (default: the project root)
---@return string? abs normalized absolute path
---@return string? err why the path is refused
function M.check_path(p, base, root)
  if type(p) ~= 'string' or vim.trim(p) == '' then return nil, 'leash: a path is needed' end
  local shown = p:gsub('%c', '?')
  local function refuse(why) return nil, ('leash: refusing path “%s”: %s'):format(shown, why) end
  local lists, lerr = require('leash.policy').lists()
  if not lists then return refuse(tostring(lerr)) end
  if #p > lists.max_text_bytes then return refuse('too long') end
  if p:find('%c') then return refuse('it contains a control character') end
  if p ~= vim.trim(p) then return refuse('it starts or ends with white space') end
  if p:find('^[-+!]') then
    return refuse('it starts with “-”, “+” or “!”, which programs read as an option or a command')
  end
  if p:find('[/\\]%-') then
    return refuse('a part of it begins with “-”, which a program the name is handed to reads as an option')
  end
  if p:find('`', 1, true) then return refuse('it contains a backtick') end
  if p:find('^~') then return refuse('“~” is not expanded; write the path from the project root') end
  local windows_drive = jit.os == 'Windows' and p:find('^%a:[\\/]')
  if not windows_drive and p:find('^%a[%w+.-]*:') then
    return refuse('it starts with a URL scheme (term:// runs a shell, scp:// and https:// run programs)')
  end
  local abs = H.absolute(p, base)
  root = root or M.project_root()
  if not H.inside(abs, root) then return refuse(('it is outside the project (%s)'):format(root)) end
  -- gzip.vim runs gzip/xz/lz4… for *.gz/*.xz/*.lz4, the tar and zip plugins tar and
  -- unzip: whatever autocommands this Neovim has for reading or writing such a name.
  local nh = require('leash.name_handlers')
  local handlers = nh.list()
  local handler, herr = nh.match(p, handlers)
  if not handler and not herr then
    handler, herr = nh.match(abs, handlers)
  end
  if herr then return refuse(herr) end
  if handler then
    return refuse(('%s reads or writes that name, which can run a program'):format(nh.describe(handler)))
  end
  return abs
end

--- The project root paths must stay in: the Git work tree or project marker above the
--- current directory, else the current directory.
---@return string
function M.project_root()
  local cwd = vim.uv.cwd() or '.'
  return vim.fs.root(cwd, { '.git', 'package.json', 'Cargo.toml', 'pyproject.toml', 'go.mod', 'Makefile' }) or cwd
end

-- Helper functionality =======================================================

--- The last list made, from the core's list and the explorer.
H.last = { core = nil, explorer = nil, list = {} }

--- `file:reveal`, only when a known file explorer is installed.
---@param explorer? string
---@return table[]
function H.reveal(explorer)
  if not explorer then return {} end
  return {
    {
      id = 'file:reveal',
      kind = 'file',
      title = ('reveal the current file in the file explorer (%s)'):format(explorer),
      aliases = { 'show file in tree', 'locate file in explorer', 'find file in sidebar' },
      args = 'none',
      reach = 'safe',
      description = 'Opens the file explorer with the current file selected.',
    },
  }
end

--- The current buffer's file, or nil and why not.
--- The current buffer and its file. With `step.current_file` (the file the plan window
--- named for this step), only that file: an earlier step of the plan may have made
--- another one current.
function H.current_file(step)
  local buf = vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or vim.bo[buf].buftype ~= '' then return nil, nil, 'leash: the current buffer is not a file' end
  local shown = step and step.current_file
  if type(shown) == 'string' and shown ~= name then
    local text = require('leash.text')
    return nil,
      nil,
      ('leash: the current file is now %s, not %s as the plan window showed; this step did not run'):format(
        text.visible(vim.fn.fnamemodify(name, ':~:.')),
        text.visible(vim.fn.fnamemodify(shown, ':~:.'))
      )
  end
  return buf, vim.fs.normalize(vim.fn.fnamemodify(name, ':p'))
end

function H.absolute(p, base)
  if not (p:sub(1, 1) == '/' or (jit.os == 'Windows' and p:find('^%a:[\\/]'))) then p = base .. '/' .. p end
  return vim.fs.normalize(vim.fn.simplify(p))
end

--- Whether `path` is `root` or below it, following symbolic links of what exists.
function H.inside(path, root)
  local real_root = vim.uv.fs_realpath(root) or root
  local dir, rest = path, {}
  while not vim.uv.fs_lstat(dir) do
    local parent = vim.fs.dirname(dir)
    if parent == dir then break end
    table.insert(rest, 1, vim.fs.basename(dir))
    dir = parent
  end
  local real = vim.uv.fs_realpath(dir) or dir
  if #rest > 0 then real = real .. '/' .. table.concat(rest, '/') end
  real = vim.fs.normalize(real)
  real_root = vim.fs.normalize(real_root)
  return real == real_root or vim.startswith(real, real_root == '/' and '/' or (real_root .. '/'))
end

function H.exists(path) return vim.uv.fs_lstat(path) ~= nil end

function H.write_buffer(buf)
  vim.api.nvim_buf_call(
    buf,
    function()
      vim.api.nvim_cmd(
        { cmd = 'write', bang = true, mods = { silent = true }, magic = { file = false, bar = false } },
        {}
      )
    end
  )
end

H.actions = {}

--- `file:new PATH`: a buffer for PATH (relative to the current directory).
function H.actions.new(args)
  if #args ~= 1 then return nil, 'leash: file:new needs exactly one path' end
  local path, err = M.check_path(args[1], vim.uv.cwd() or '.')
  if not path then return nil, err end
  local st = vim.uv.fs_stat(path)
  if st and st.type ~= 'file' then return nil, ('leash: %s exists and is not a file'):format(path) end
  local buf = vim.fn.bufadd(path)
  vim.bo[buf].buflisted = true
  vim.api.nvim_win_set_buf(0, buf)
  if not st then
    -- Writing a new file into a folder that does not exist yet would fail; the user's
    -- own :write creates it.
    vim.api.nvim_create_autocmd('BufWritePre', {
      buffer = buf,
      once = true,
      desc = 'leash: create the folder of a new file',
      callback = function() vim.fn.mkdir(vim.fs.dirname(path), 'p') end,
    })
  end
  return buf
end

--- `file:rename NEWPATH`: move the current file on disk and point its buffer at it. A
--- bare name keeps the file's folder; a path with a separator is relative to the
--- current directory.
function H.actions.rename(args, step)
  if #args ~= 1 then return nil, 'leash: file:rename needs exactly one new path' end
  local buf, old, ferr = H.current_file(step)
  if not buf then return nil, ferr end
  local target = args[1]
  local base = target:find('[/\\]') and (vim.uv.cwd() or '.') or vim.fs.dirname(old)
  local new, err = M.check_path(target, base)
  if not new then return nil, err end
  if new == old then return nil, 'leash: the new path is the current one' end
  if H.exists(new) then return nil, ('leash: %s already exists; rename does not overwrite'):format(new) end
  vim.fn.mkdir(vim.fs.dirname(new), 'p')
  if H.exists(old) then
    local ok, rerr = vim.uv.fs_rename(old, new)
    if not ok then
      -- Across file systems a rename fails; copy, then remove the original.
      local cok, cerr = vim.uv.fs_copyfile(old, new, { excl = true })
      if not cok then return nil, ('leash: could not move %s: %s'):format(old, rerr or cerr) end
      vim.uv.fs_unlink(old)
    end
  end
  vim.api.nvim_buf_set_name(buf, new)
  -- Renaming the buffer leaves it "not edited" (a plain :write would refuse with E13);
  -- writing it under the new name makes the buffer and the file one again.
  H.write_buffer(buf)
  -- nvim_buf_set_name leaves an unlisted buffer with the old name behind.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if b ~= buf and vim.api.nvim_buf_get_name(b) == old and not vim.api.nvim_buf_is_loaded(b) then
      pcall(vim.api.nvim_buf_delete, b, {})
    end
  end
  local ft = vim.filetype.match({ buf = buf, filename = new })
  if ft and ft ~= vim.bo[buf].filetype then vim.bo[buf].filetype = ft end
  return new
end

--- `file:copy_path [absolute|relative|name]`.
function H.actions.copy_path(args)
  local _, path, err = H.current_file()
  if not path then return nil, err end
  local how = (args[1] or 'absolute'):lower()
  local text
  if how == 'absolute' or how == 'full' or how == 'path' then
    text = path
  elseif how == 'relative' then
    text = vim.fn.fnamemodify(path, ':.')
  elseif how == 'name' then
    text = vim.fs.basename(path)
  else
    return nil, 'leash: file:copy_path takes absolute, relative or name'
  end
  vim.fn.setreg('"', text)
  if vim.fn.has('clipboard') == 1 then pcall(vim.fn.setreg, '+', text) end
  return text
end

--- `file:delete`: remove the current file and its buffer.
function H.actions.delete(_, step)
  local buf, path, err = H.current_file(step)
  if not buf then return nil, err end
  local st = vim.uv.fs_lstat(path)
  if st and st.type ~= 'file' and st.type ~= 'link' then
    return nil, ('leash: %s is not a regular file'):format(path)
  end
  if st then
    local ok, uerr = vim.uv.fs_unlink(path)
    if not ok then return nil, ('leash: could not delete %s: %s'):format(path, uerr) end
  end
  pcall(vim.api.nvim_buf_delete, buf, { force = true })
  return path
end

--- `file:open_folder`: the OS opener on the file's folder.
function H.actions.open_folder()
  local _, path, err = H.current_file()
  if not path then return nil, err end
  local dir = vim.fs.dirname(path)
  local obj, oerr = vim.ui.open(dir)
  if not obj then return nil, 'leash: ' .. tostring(oerr) end
  return dir
end

--- `file:reveal`: the installed explorer, on the current file.
function H.actions.reveal()
  local _, path, err = H.current_file()
  if not path then return nil, err end
  local explorer = M.explorer()
  local dir, name = vim.fs.dirname(path), vim.fs.basename(path)
  if explorer == 'oil' then
    require('oil').open(dir)
  elseif explorer == 'nvim-tree' then
    require('nvim-tree.api').tree.find_file({ buf = path, open = true, focus = true })
  elseif explorer == 'neo-tree' then
    require('neo-tree.command').execute({
      action = 'focus',
      source = 'filesystem',
      reveal_file = path,
      reveal_force_cwd = true,
    })
  elseif explorer == 'netrw' then
    vim.api.nvim_cmd({ cmd = 'Explore', args = { dir }, magic = { file = false, bar = false } }, {})
    local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    for i, l in ipairs(lines) do
      if l == name or l == name .. '*' or l == name .. '@' then
        vim.api.nvim_win_set_cursor(0, { i, 0 })
        break
      end
    end
  else
    return nil, 'leash: no file explorer is installed'
  end
  return explorer
end

return M
