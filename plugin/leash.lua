-- Defines :Do and :Leash, and the <Plug>(leash-do…) keys. Nothing is required until a
-- command runs.
if vim.g.loaded_leash then return end
vim.g.loaded_leash = true

vim.api.nvim_create_user_command('Do', function(cmd)
  -- :Do! shows the plan without a run key.
  local range = { range = cmd.range, line1 = cmd.line1, line2 = cmd.line2, plan_only = cmd.bang }
  if cmd.args ~= '' then return require('leash').run(cmd.args, range) end
  require('leash').ask(range)
end, {
  nargs = '*',
  range = true,
  bang = true,
  desc = 'leash: ask the model to do something in the editor',
  complete = function(arglead, cmdline) return require('leash').complete_request(arglead, cmdline) end,
})

vim.api.nvim_create_user_command('Leash', function(cmd)
  -- The range is for `:'<,'>Leash again`.
  require('leash').command(cmd.fargs, { range = cmd.range, line1 = cmd.line1, line2 = cmd.line2 })
end, {
  nargs = '*',
  range = true,
  desc = 'leash: catalog, rank, build, log, last, again, show, undo, cancel (alone: list them)',
  complete = function(arglead, cmdline) return require('leash').complete(arglead, cmdline) end,
})

-- For the user's own mapping: the `:Do ` command line, on the selection in Visual mode
-- (`:` there types `:'<,'>`). Not silent: the command line is where the request is typed.
for _, mode in ipairs({ 'n', 'x' }) do
  vim.api.nvim_set_keymap(mode, '<Plug>(leash-do)', ':Do ', { noremap = true, desc = 'leash: type a request' })
end
-- Ask about this line, or the selected lines: the request prompt (|vim.ui.input()|),
-- its plan running on those lines. In Visual mode `:` types the `'<,'>` range.
vim.api.nvim_set_keymap('n', '<Plug>(leash-do-line)', '<Cmd>.Do<CR>', {
  noremap = true,
  desc = 'leash: ask about this line',
})
vim.api.nvim_set_keymap('x', '<Plug>(leash-do-selection)', ':Do<CR>', {
  noremap = true,
  silent = true,
  desc = 'leash: ask about the selected lines',
})
