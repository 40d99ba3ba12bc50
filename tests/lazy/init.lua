-- A user's init.lua: lazy.nvim with leash as the README's spec says, but installed from
-- a file:// repository (no network). Environment (set by tests/lazy/run.sh):
--   LEASH_TEST_LAZY     lazy.nvim's directory
--   LEASH_TEST_REMOTE   the leash repository to install
--   LEASH_TEST_RELEASES "1": follow releases (version = '*'); else the default branch
--   LEASH_TEST_NAME     a plugin name other than leash.nvim
--   LEASH_TEST_OPTS     "bad": opts with two errors (an unknown provider kind, a deadline too short)
vim.opt.rtp:prepend(assert(os.getenv('LEASH_TEST_LAZY')))
require('lazy').setup({
  {
    url = 'file://' .. assert(os.getenv('LEASH_TEST_REMOTE')),
    name = os.getenv('LEASH_TEST_NAME'), -- nil: lazy.nvim's name for the URL, leash.nvim
    cmd = { 'Do', 'Leash' },
    version = os.getenv('LEASH_TEST_RELEASES') == '1' and '*' or nil,
    build = 'build.lua',
    opts = os.getenv('LEASH_TEST_OPTS') == 'bad' and { providers = { mine = { kind = 'gpt' } }, timeout_ms = 5 } or {},
  },
}, {
  install = { colorscheme = {} },
  checker = { enabled = false },
  change_detection = { enabled = false },
  rocks = { enabled = false },
  headless = { colors = false },
})
