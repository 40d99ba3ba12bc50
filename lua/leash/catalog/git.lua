--- Catalog source: Git, id `git:<action>`. Offered only inside a Git work tree, found by
--- looking for `.git` upward (a directory, or the file a worktree or submodule has);
--- building the catalog runs no program.
---
--- Reach: every Git item is `shell`, the read-only ones included. Running git is
--- running a program, and a repository's own `.git/config` can name further programs
--- that even `git status` or `git log` start: `core.fsmonitor` (a hook run on every
--- index refresh), filter drivers (`filter.<name>.clean`, run on a stat-dirty file
--- when the index is refreshed), `gpg.program` through `log.showSignature`, pagers,
--- `diff.external` and textconv drivers. A checkout is untrusted input, so the plan
--- window must show these steps. The read-only actions still take the quiet path: a
--- fixed argv through `vim.system` with the overrides that can be named on the command
--- line (`--no-pager`, `core.fsmonitor=false`, `log.showSignature=false`,
--- `--no-ext-diff`, `--no-textconv`), output in a scratch buffer, no terminal. Filter
--- drivers cannot be switched off generically, which is why they stay `shell`.
---
--- Actions that change the repository or talk to a remote run `git` in a terminal
--- split from an argv list (hooks, credential prompts and editors work there, and a
--- commit message is one argv element, never shell text). See lua/leash/actions/git.lua.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Git items, or none outside a work tree.
---@param opts? { bufnr?: integer }
---@return table[]
function M.entries(opts)
  local root = M.root(opts and opts.bufnr)
  if not root then return {} end
  local out = {}
  for _, a in ipairs(H.actions) do
    out[#out + 1] = {
      id = 'git:' .. a[1],
      kind = 'git',
      title = a[2],
      aliases = a.aliases or {},
      args = a.args or 'none',
      reach = 'shell', -- see the file header
      description = a.description,
    }
  end
  return out
end

--- The work tree root for `bufnr`'s file (or the current directory).
---@param bufnr? integer
---@return string?
function M.root(bufnr)
  local ok, root = pcall(vim.fs.root, bufnr or 0, '.git')
  return ok and root or nil
end

-- Helper data ================================================================

-- { action, title, args?, aliases?, description }. Titles name the git command that
-- runs so the plan window reads as what will happen.
H.actions = {
  {
    'status',
    'git status: show changed files',
    aliases = { 'what changed', 'modified files', 'working tree status' },
    description = 'Shows the working tree status (git status) in a scratch buffer.',
  },
  {
    'diff',
    'git diff: show the changes in the repository',
    aliases = { 'what changed', 'show me what changed', 'unstaged changes' },
    description = 'Shows every unstaged change in the repository (git diff) in a scratch buffer.',
  },
  {
    'diff_file',
    'git diff of the current file',
    aliases = { 'changes in this file', 'what changed in this file' },
    description = 'Shows the unstaged changes of the current file (git diff -- file) in a scratch buffer.',
  },
  {
    'log_file',
    'git log of the current file: its history',
    aliases = { 'file history', 'commits touching this file' },
    description = 'Shows the commit history of the current file (git log --follow) in a scratch buffer.',
  },
  {
    'blame_line',
    'git blame of the current line: who changed it',
    aliases = { 'who wrote this line', 'last commit of this line' },
    description = 'Shows which commit last changed the line under the cursor (git blame -L) and that commit.',
  },
  {
    'stage_file',
    'git add the current file: stage it',
    aliases = { 'stage this file', 'add file to index' },
    description = 'Stages the current file (git add -- file).',
  },
  {
    'stage_all',
    'git add -A: stage all changes',
    aliases = { 'stage everything', 'add all' },
    description = 'Stages every change in the work tree, new files included (git add -A).',
  },
  {
    'commit',
    'git commit -m MESSAGE: commit the staged changes',
    args = 'required',
    aliases = { 'commit changes', 'commit everything', 'save a commit' },
    description = 'Commits what is staged with the given message (the argument). Stage first to commit everything.',
  },
  {
    'pull',
    'git pull: fetch and merge from the remote',
    aliases = { 'update from remote' },
    description = 'Runs git pull.',
  },
  { 'push', 'git push: upload commits to the remote', aliases = { 'publish commits' }, description = 'Runs git push.' },
  {
    'switch',
    'git switch BRANCH: switch to another branch',
    args = 'required',
    aliases = { 'checkout branch', 'change branch' },
    description = 'Switches the work tree to an existing branch (the argument).',
  },
  {
    'branch_create',
    'git switch -c NAME: create a new branch',
    args = 'required',
    aliases = { 'new branch', 'make a branch' },
    description = 'Creates a branch with the given name from HEAD and switches to it.',
  },
  {
    'stash',
    'git stash: set the changes aside',
    aliases = { 'stash changes', 'shelve' },
    description = 'Saves uncommitted changes on the stash and cleans the work tree (git stash push).',
  },
  {
    'stash_pop',
    'git stash pop: bring back stashed changes',
    aliases = { 'unstash', 'restore stash' },
    description = 'Applies the latest stash entry and drops it (git stash pop).',
  },
}

return M
