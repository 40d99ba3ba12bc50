--- Catalog source: the terminal. `term:run` hands one shell command line to a terminal
--- (the core makes it `shell` whatever is declared); `term:below` and `term:tab` open
--- the user's shell. All three start a shell, so all three are `shell`: a plan with
--- any of them is always shown first.
local M = {}

-- Module definition ==========================================================

--- The terminal items (always offered).
---@return table[]
function M.entries()
  return {
    {
      id = 'term:run',
      kind = 'terminal',
      title = 'run a shell command in a terminal',
      aliases = { 'shell command line', 'execute in shell' },
      args = 'required',
      reach = 'shell',
      description = 'Runs one shell command line in a terminal split below. Use a project script item instead when one fits.',
    },
    {
      id = 'term:below',
      kind = 'terminal',
      title = 'open a terminal below',
      aliases = { 'terminal split', 'open shell', 'new terminal' },
      args = 'none',
      reach = 'shell',
      description = 'Opens an interactive shell in a horizontal split below the current window.',
    },
    {
      id = 'term:tab',
      kind = 'terminal',
      title = 'open a terminal in a new tab',
      aliases = { 'terminal tab', 'shell in new tab' },
      args = 'none',
      reach = 'shell',
      description = 'Opens an interactive shell in a new tab page.',
    },
  }
end

return M
