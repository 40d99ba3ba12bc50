--- The folders Neovim loads code from, for the core's write check.
---
--- A file written into a `plugin/` folder on 'runtimepath' runs at the next start; one
--- written into a folder on $PATH runs when a plugin starts that program. So a step that
--- writes there is `code`, not `write`: the core decides it from the target's path
--- (`src/code_dirs.rs`), twice. When the plan is checked, with the folders and the
--- current directory the catalog was built with, so the window says `[code]` and why. And
--- just before each step below `code` runs (|M.check()|), with the current directory,
--- file and changed buffers of that moment and the path options the plan set before, so
--- an earlier step (`:cd`, `:saveas`, 'backupdir') cannot move a write into such a folder
--- after the window showed it. The same check says when a step opens, writes or changes
--- into a file or folder of another project (`profile/neovim/projects.rs`): that is
--- `code` too, and an earlier `:cd` can make a relative name one.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved (the
-- first :Do of a session spent milliseconds on it, scripts/bench-do).
if jit then jit.off(true, true) end

-- Module definition ==========================================================

--- The folders a write into which can run code later: every 'runtimepath' and
--- 'packpath' entry, the config and data folders, leash's own state, and every absolute
--- $PATH entry.
---@return string[]
function M.list()
  -- Asked on every request: the list is made again only when what it is made from
  -- changed, and is then a new table. Callers must not change it.
  local config, data, state = vim.fn.stdpath('config'), vim.fn.stdpath('data'), vim.fn.stdpath('state')
  local key = table.concat({ vim.o.runtimepath, vim.o.packpath, vim.env.PATH or '', config, data, state }, '\0')
  if H.made and H.made.key == key then return H.made.dirs end
  local dirs, seen = {}, {}
  local function add(d)
    if type(d) == 'string' and d ~= '' and not seen[d] then
      seen[d] = true
      dirs[#dirs + 1] = d
    end
  end
  for _, d in ipairs(vim.api.nvim_list_runtime_paths()) do
    add(d)
  end
  for _, d in ipairs(vim.split(vim.o.packpath, ',', { plain = true, trimempty = true })) do
    add(d)
  end
  add(config)
  add(data)
  add(vim.fs.joinpath(state, 'leash'))
  local sep = jit.os == 'Windows' and ';' or ':'
  for _, d in ipairs(vim.split(vim.env.PATH or '', sep, { plain = true })) do
    -- A relative entry ("." or empty) follows the current directory: not a fixed folder.
    if d:find('^/') or d:find('^%a:[\\/]') then add(d) end
  end
  H.made = { key = key, dirs = dirs }
  return dirs
end

--- Why `step`, about to run, writes where Neovim loads code from, or nil. `settings` are
--- the values the plan's earlier steps gave options (checked again: a relative
--- 'backupdir' follows a later `:cd`).
---@param step table validated step
---@param settings? table<string, any> option values the plan set before this step
---@return string? why
---@return string? err the check could not run (then the step must not run either)
function M.check(step, settings)
  local native, err = require('leash.native').load()
  if not native then return nil, err end
  local ok, why = pcall(native.write_landing, step, {
    code_dirs = M.list(),
    cwd = vim.uv.cwd(),
    file = H.current_file(),
    modified = H.modified_files(),
    settings = settings or {},
  })
  if not ok then return nil, 'leash: the write check failed: ' .. require('leash.native').message(why) end
  return why
end

--- Why writing, creating or moving to the file `path` (a name leash was handed, such as a
--- language server's workspace edit) reaches further than a `[write]` step shows, or nil:
--- it lands in a folder Neovim loads code from, or in another project. With
--- `{ code_folders = false }` (editing or deleting a file) only the project is asked.
---@param path string absolute
---@param opts? { code_folders?: boolean }
---@return string? why
---@return string? err the check could not run (then nothing may be applied either)
function M.check_path(path, opts)
  local native, err = require('leash.native').load()
  if not native then return nil, err end
  local ok, why = pcall(native.path_landing, path, {
    code_dirs = M.list(),
    cwd = vim.uv.cwd(),
    code_folders = not (opts and opts.code_folders == false),
  })
  if not ok then return nil, 'leash: the write check failed: ' .. require('leash.native').message(why) end
  return why
end

-- Helper functionality =======================================================

function H.current_file()
  if vim.bo.buftype ~= '' then return nil end
  local name = vim.api.nvim_buf_get_name(0)
  return name ~= '' and name or nil
end

--- The files `:wall` would write: changed normal buffers with a name.
function H.modified_files()
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.bo[b].modified and vim.bo[b].buftype == '' then
      local name = vim.api.nvim_buf_get_name(b)
      if name ~= '' then out[#out + 1] = name end
    end
  end
  return out
end

return M
