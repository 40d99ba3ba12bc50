--- Source: Git, id `git:<action>`: its catalog entries and how a step of one runs. The
--- core offers the items inside a Git work tree (|leash.sources.shared.core_sources|),
--- and fixes every argv (src/sources/git.rs, shared with Helix); the model supplies only
--- a commit message or a branch name, each passed as one argv element after the core's
--- checks.
---
--- Read-only actions (status, diff, log, blame) run through `vim.system` with the
--- overrides that keep repository config from starting programs where the command line
--- can say so (see src/sources/git.rs for why they are `shell` all the same) and
--- show their output in a scratch buffer. Actions that change the repository or talk to
--- a remote run in a terminal split, where hooks, credential prompts and errors are seen.
local M = {}
local H = {}

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'git', 'git'

--- The Git items the core offers for the current directory.
---@param ctx? leash.SourceContext
---@return table[]
function M.entries(ctx) return require('leash.sources.shared.core_sources').list(ctx, 'git') end

---@class leash.GitOpts
---@field on_done? fun(buf: integer?, err: string?) read-only actions: called with the scratch buffer
---@field on_exit? fun(code: integer) terminal actions: called when git exits

--- Run a step of a `git:` item.
---@param entry table catalog entry
---@param step? table validated step
---@param opts? leash.GitOpts
---@return boolean ok
---@return any err_or_job
function M.run(entry, step, opts)
  opts = opts or {}
  local action = entry.id:match('^git:(.+)$')
  local root = require('leash.sources.shared.core_sources').git_root(0)
  if not root then return false, 'leash: not inside a Git work tree' end
  local args = step and step.args
  if type(args) == 'string' then args = { args } end
  if args == vim.NIL or args == nil then args = {} end
  local spec = H.actions[action]
  if not spec then return false, ('leash: unknown Git action %s'):format(tostring(action)) end
  local argv, err = require('leash.native').get().git_argv(action, {
    root = root,
    file = require('leash.sources.shared.core_sources').file(0),
    line = vim.api.nvim_win_get_cursor(0)[1],
    args = args,
  })
  if not argv then return false, 'leash: ' .. tostring(err) end
  if spec.show then
    local obj, serr = M.show(argv, root, spec.show, opts.on_done)
    if not obj then return false, serr end
    return true, obj
  end
  local job, jerr = require('leash.sources.shared.term').open(vim.list_extend({ 'git' }, argv), {
    cwd = root,
    on_exit = opts.on_exit, -- credential prompts stay possible: the user types in the terminal
  })
  if not job then return false, jerr end
  return true, job
end

--- Run a read-only git command quietly and show its output in a scratch buffer.
---@param argv string[] git arguments (after the hardening options)
---@param root string work tree
---@param show { name: string, filetype: string, follow?: fun(out: string): string[]? }
---@param on_done? fun(buf: integer?, err: string?)
---@return vim.SystemObj? obj
---@return string? err
function M.show(argv, root, show, on_done)
  if vim.fn.executable('git') ~= 1 then return nil, 'leash: git is not installed' end
  local function finish(text, err)
    vim.schedule(function()
      if err then
        require('leash.ui.notify').notify(err, vim.log.levels.ERROR)
        if on_done then on_done(nil, err) end
        return
      end
      local buf = H.scratch(show.name, show.filetype, text)
      if on_done then on_done(buf) end
    end)
  end
  local ok, obj = pcall(vim.system, M.quiet(argv), H.sys_opts(root), function(res)
    if res.code ~= 0 then
      return finish(nil, ('leash: git %s failed: %s'):format(argv[1], vim.trim(res.stderr or '')))
    end
    local more = show.follow and show.follow(res.stdout or '')
    if not more then return finish(res.stdout or '') end
    vim.system(
      M.quiet(more),
      H.sys_opts(root),
      function(res2) finish((res.stdout or '') .. '\n' .. (res2.code == 0 and res2.stdout or res2.stderr or '')) end
    )
  end)
  if not ok then return nil, 'leash: could not start git: ' .. tostring(obj) end
  return obj
end

--- The full argv of a read-only command: overrides first, so the repository's config
--- cannot point a pager, fsmonitor hook or signature program at us.
---@param argv string[]
---@return string[]
function M.quiet(argv) return require('leash.native').get().git_quiet(argv) end

--- Why `name` cannot be a branch name, or nil. Stricter than git-check-ref-format: the
--- name must not read as an option or a revision expression (the core decides).
---@param name any
---@return string? err
function M.check_branch(name)
  if type(name) ~= 'string' then return 'a branch name is needed' end
  return require('leash.native').get().git_check('branch', name)
end

--- Why `msg` cannot be a commit message, or nil.
---@param msg any
---@return string? err
function M.check_message(msg)
  if type(msg) ~= 'string' then return 'a commit message is needed' end
  return require('leash.native').get().git_check('message', msg)
end

-- Helper data ================================================================

-- What each action shows; actions without `show` run in a terminal split. The argv
-- comes from the core.
H.actions = {
  status = { show = { name = 'git status', filetype = 'git' } },
  diff = { show = { name = 'git diff', filetype = 'diff' } },
  diff_file = { show = { name = 'git diff (file)', filetype = 'diff' } },
  log_file = { show = { name = 'git log (file)', filetype = 'git' } },
  blame_line = {
    show = {
      name = 'git blame (line)',
      filetype = 'git',
      -- Show the commit that last touched the line, unless it is not committed yet.
      follow = function(out)
        local sha = out:match('^%^?(%x+)')
        if not sha or sha:match('^0+$') then return nil end
        return { 'show', '--no-ext-diff', '--no-textconv', '--no-show-signature', '--stat', sha }
      end,
    },
  },
  stage_file = {},
  stage_all = {},
  commit = {},
  pull = {},
  push = {},
  switch = {},
  branch_create = {},
  stash = {},
  stash_pop = {},
}

H.counter = 0

-- Helper functionality =======================================================

function H.sys_opts(root)
  return { cwd = root, text = true, env = { GIT_PAGER = 'cat', PAGER = 'cat', GIT_TERMINAL_PROMPT = '0' } }
end

--- A read-only scratch buffer in a split below, holding `text`.
function H.scratch(name, filetype, text)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].modeline = false -- git output quotes files the model may have written
  H.counter = H.counter + 1
  pcall(vim.api.nvim_buf_set_name, buf, ('leash-%s-%d'):format(name:gsub('[^%w]+', '-'), H.counter))
  local lines = vim.split((text:gsub('\n$', '')), '\n', { plain = true })
  if #lines == 1 and lines[1] == '' then lines = { '(no output)' } end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_open_win(buf, true, { split = 'below', win = -1 })
  vim.bo[buf].filetype = filetype
  return buf
end

return M
