--- Source: the project's scripts, id `script:<runner>:<name>`: their catalog entries and
--- how a step of one runs. The core discovers them (|leash.sources.shared.core_sources|),
--- and their definition files are pinned (|leash.sources.shared.script_pin|). A step
--- runs the entry's argv in a terminal split, in the project directory the script was
--- found in.
---
--- The argv comes from the catalog entry (read from the project's files), never from the
--- model. Items declared with arguments (`cargo test`, `pytest`, package scripts…) take
--- the model's arguments as extra argv elements, split on whitespace, after the fixed
--- part: no shell sees them, and the plan window shows them in full because every
--- script item is `shell`.
local M = {}
local H = {}

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'scripts', 'script'

--- The scripts the core found for the current directory.
---@param ctx? leash.SourceContext
---@return table[]
function M.entries(ctx) return require('leash.sources.shared.core_sources').list(ctx, 'scripts') end

--- Run a step of a `script:` item.
---@param entry table catalog entry (`cmd`, `cwd`)
---@param step? table validated step (`args`)
---@param opts? leash.TermOpts extra terminal options (tests wait through on_exit)
---@return boolean ok
---@return string|leash.TermJob|nil err_or_job
function M.run(entry, step, opts)
  entry = H.resolve(entry)
  if not entry then return false, 'leash: this script is no longer in the project' end
  -- The runner reads the project's files when it starts: they must still say what they
  -- said when the plan was shown.
  if entry.root then
    -- A script found in a project always carries the pin of its files; one without it
    -- cannot be checked, so it does not run.
    if not entry.pin then return false, 'leash: the project’s script files were not pinned; run the request again' end
    if require('leash.sources.shared.script_pin').fingerprint(entry.root, true) ~= entry.pin then
      return false, 'leash: the project’s script files changed after the plan was shown; run the request again'
    end
  end
  local argv, err = M.argv(entry, step)
  if not argv then return false, err end
  local job, jerr =
    require('leash.sources.shared.term').open(argv, vim.tbl_extend('force', opts or {}, { cwd = entry.cwd }))
  if not job then return false, jerr end
  return true, job
end

--- The argv a step runs: the entry's command plus the step's arguments.
---@param entry table
---@param step? table
---@return string[]? argv
---@return string? err
function M.argv(entry, step)
  local argv = vim.deepcopy(entry.cmd)
  local args = M.words(step and step.args)
  if #args > 0 and entry.args == 'none' then return nil, ('leash: %s takes no arguments'):format(entry.id) end
  for _, a in ipairs(args) do
    if a:find('%c') then return nil, 'leash: an argument contains a control character' end
    argv[#argv + 1] = a
  end
  return argv
end

--- A step's arguments as words: a list of strings or one string, split on whitespace.
---@param args string|string[]|nil
---@return string[]
function M.words(args)
  if args == nil or args == vim.NIL then return {} end
  if type(args) == 'string' then args = { args } end
  local out = {}
  for _, a in ipairs(args) do
    for w in tostring(a):gmatch('%S+') do
      out[#out + 1] = w
    end
  end
  return out
end

-- Helper functionality =======================================================

--- The entry with its argv: as given, or found again by id in the current project.
function H.resolve(entry)
  if type(entry) ~= 'table' then return nil end
  if type(entry.cmd) == 'table' and #entry.cmd > 0 then return entry end
  for _, e in ipairs(require('leash.sources.shared.core_sources').discover().scripts) do
    if e.id == entry.id then return e end
  end
end

return M
