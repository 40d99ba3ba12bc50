-- A user's init.lua: lazy.nvim with leash as the README's spec says, but installed from
-- a file:// repository (no network). Environment (set by tests/lazy/run.sh):
--   LEASH_TEST_LAZY     lazy.nvim's directory
--   LEASH_TEST_REMOTE   the leash repository to install
--   LEASH_TEST_RELEASES "1": follow releases (version = '*'); else the default branch
vim.opt.rtp:prepend(assert(os.getenv('LEASH_TEST_LAZY')))
require('lazy').setup({
  {
    url = 'file://' .. assert(os.getenv('LEASH_TEST_REMOTE')),
    cmd = { 'Do', 'Leash' },
    version = os.getenv('LEASH_TEST_RELEASES') == '1' and '*' or nil,
    build = 'build.lua',
    opts = {},
  },
}, {
  install = { colorscheme = {} },
  checker = { enabled = false },
  change_detection = { enabled = false },
  rocks = { enabled = false },
  headless = { colors = false },
})
