-- Defines :Do and :Leash. Nothing is required until a command runs.
if vim.g.loaded_leash then return end
vim.g.loaded_leash = true

vim.api.nvim_create_user_command('Do', function(cmd)
  local range = { range = cmd.range, line1 = cmd.line1, line2 = cmd.line2 }
  if cmd.args ~= '' then return require('leash').run(cmd.args, range) end
  vim.ui.input({ prompt = 'leash: ' }, function(input)
    if input and vim.trim(input) ~= '' then require('leash').run(input, range) end
  end)
end, {
  nargs = '*',
  range = true,
  desc = 'leash: ask the model to do something in the editor',
  complete = function(arglead, cmdline) return require('leash').complete_request(arglead, cmdline) end,
})

vim.api.nvim_create_user_command('Leash', function(cmd) require('leash').command(cmd.fargs) end, {
  nargs = '*',
  desc = 'leash: catalog, rank, build, log, show, undo, cancel (alone: list them)',
  complete = function(arglead, cmdline) return require('leash').complete(arglead, cmdline) end,
})
