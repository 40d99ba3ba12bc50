--- Catalog source: files, id `file:<action>`.
---
--- Reach: `file:new` only opens a buffer for a path (nothing is written until the user
--- writes), so it is `safe`, like `:edit` with a checked argument. Renaming and deleting
--- change the disk, so they are `write`: a plan holding one is always shown, whatever
--- `confirm_before_run` says. `file:copy_path` sets registers (the clipboard provider
--- the user configured receives a path) and is `safe`. `file:reveal` drives the file
--- explorer plugin the user installed and is `safe`. `file:open_folder` hands the
--- directory to the operating system's opener (xdg-open, open, start): that runs a
--- program, so it is `shell`.
---
--- Paths from the model are checked before anything runs (lua/leash/actions/files.lua):
--- no control characters, no leading `-`, `+` or `!`, no URL schemes (`term://` runs a
--- shell), no archive names (opening `x.gz` runs gzip), nothing a plugin's read/write
--- autocommand claims, and nothing outside the project root.
local M = {}
local H = {}

-- Module definition ==========================================================

--- File items. `file:reveal` only when a known file explorer is installed.
---@return table[]
function M.entries()
  local out = {}
  for _, a in ipairs(H.actions) do
    out[#out + 1] = {
      id = 'file:' .. a[1],
      kind = 'file',
      title = a[2],
      aliases = a.aliases,
      args = a.args or 'none',
      reach = a.reach,
      description = a.description,
    }
  end
  local explorer = M.explorer()
  if explorer then
    out[#out + 1] = {
      id = 'file:reveal',
      kind = 'file',
      title = ('reveal the current file in the file explorer (%s)'):format(explorer),
      aliases = { 'show file in tree', 'locate file in explorer', 'find file in sidebar' },
      args = 'none',
      reach = 'safe',
      description = 'Opens the file explorer with the current file selected.',
    }
  end
  return out
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

-- Helper data ================================================================

H.actions = {
  {
    'new',
    'new file: create a file at a path and open it',
    args = 'required',
    reach = 'safe', -- opens a buffer; the file exists once the user writes it
    aliases = { 'create file', 'make a new file', 'touch' },
    description = 'Opens a buffer for a new file at the given path (relative to the current directory). Nothing is written until you save.',
  },
  {
    'rename',
    'rename or move the current file',
    args = 'required',
    reach = 'write',
    aliases = { 'rename this file', 'move this file', 'mv', 'change file name' },
    description = 'Renames or moves the current file on disk to the new path (a bare name stays in the same folder) and points the buffer at it.',
  },
  {
    'copy_path',
    'copy the path of the current file',
    args = 'optional',
    reach = 'safe',
    aliases = { 'yank file path', 'copy file name', 'clipboard path' },
    description = 'Copies the current file path to the clipboard and the unnamed register. Argument: absolute (default), relative or name.',
  },
  {
    'delete',
    'delete the current file from disk',
    reach = 'write',
    aliases = { 'remove this file', 'rm', 'trash file' },
    description = 'Deletes the current file from disk and closes its buffer.',
  },
  {
    'open_folder',
    'open the folder containing the current file in the system file manager',
    reach = 'shell', -- starts the OS opener program
    aliases = { 'show in finder', 'open containing folder', 'open directory' },
    description = 'Opens the directory of the current file with the operating system (xdg-open, open, start).',
  },
}

return M
