--- The registry of catalog sources: the one ordered list of what the editor can do. Each
--- source is one module of this folder holding both its catalog entries and how its
--- steps run (|leash.Source|); the catalog (|leash.catalog|) lists their entries in this
--- order, and the executor (|leash.execute|) runs an item through the source whose
--- prefix its id carries. Helpers several sources share live in `shared/`.
---
--- A source module is required only when its entries are listed or one of its steps
--- runs, so loading this registry costs nothing more.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.Source
---@field name string the name `setup({ sources = { … } })` enables or disables it by
---@field prefix? string the id prefix of its items (`cmd` for `cmd:vsplit`); none for the
---  options, whose steps are settings, not items
---@field entries fun(ctx?: leash.SourceContext): table[] its catalog entries now, asked on
---  every `:Do`: the very list it gave last time when nothing it lists changed (the
---  catalog then compares nothing more); a list once handed out is never changed
---@field run? fun(entry: table, step: table, ctx?: leash.ExecContext): boolean?, any run an
---  item step (`args` already a list of strings) with its catalog entry; returns `true`
---  (and perhaps a result) or `nil`/`false` and a message

---@class leash.SourceContext
---@field config? leash.Config the configuration the catalog is built for
---@field static? { commands: table[], options: table[], user_help: table<string, string> }
---  the parsed runtime data (`static()` of |leash.catalog|), when the builtin commands or
---  the options are enabled
---@field core? fun(): leash.CoreSources what the core discovers (scripts, Git, files),
---  asked once per catalog build and only by a source that needs it
---@field bufnr? integer the buffer to list for (default: the current one)

--- Source names in the order their entries are listed.
M.names = {
  'commands',
  'options',
  'user_commands',
  'keymaps',
  'lsp',
  'diagnostics',
  'scripts',
  'git',
  'files',
  'terminal',
  'entries',
}

--- The sources whose entries depend only on the Neovim build and its runtime files:
--- parsed once and cached on disk (the member of its name in the runtime data), handed to
--- the core as that file and not read before the request leaves. Listed here, not in
--- their modules: a `:Do` then needs not load those modules at all.
M.from_runtime = { commands = true, options = true }

--- The source module called `name`.
---@param name string one of |M.names|
---@return leash.Source
function M.get(name) return require('leash.sources.' .. name) end

--- The source whose items carry the id prefix `prefix`, or nil.
---@param prefix string
---@return leash.Source?
function M.by_prefix(prefix)
  if not H.prefixes then
    H.prefixes = {}
    for _, name in ipairs(M.names) do
      local source = M.get(name)
      if source.prefix then H.prefixes[source.prefix] = source end
    end
  end
  return H.prefixes[prefix]
end

-- Helper data ================================================================

---@type table<string, leash.Source>? sources by prefix, made on the first lookup
H.prefixes = nil

return M
