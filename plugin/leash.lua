-- Defines :Do and :Leash. Nothing is required until a command runs.
if vim.g.loaded_leash then return end
vim.g.loaded_leash = true

vim.api.nvim_create_user_command('Do', function(cmd)
  if cmd.args ~= '' then return require('leash').run(cmd.args) end
  vim.ui.input({ prompt = 'leash: ' }, function(input)
    if input and vim.trim(input) ~= '' then require('leash').run(input) end
  end)
end, { nargs = '*', desc = 'leash: ask the model to do something in the editor' })

vim.api.nvim_create_user_command('Leash', function(cmd) require('leash').command(cmd.fargs) end, {
  nargs = '+',
  desc = 'leash: catalog, rank, build, log, undo, cancel',
  complete = function(arglead, cmdline) return require('leash').complete(arglead, cmdline) end,
})
