-- A real user's init.lua, kickstart.nvim / LazyVim style: lazy.nvim with the plugins
-- people run (gitsigns, lualine, telescope + plenary, conform with format on save, oil,
-- fugitive, nvim-lspconfig with vim.lsp.enable, which-key, trouble, snacks, mini,
-- nvim-cmp), kickstart's mappings and their bracketed descriptions, and leash loaded from
-- the working tree. Offline: every spec is a `dir =` of an unpacked plugin tree.
-- Environment (set by tests/e2e/realconfig.sh):
--   REALCFG_LAZY     lazy.nvim's directory
--   REALCFG_PLUGINS  the folder holding one unpacked tree per plugin
--   REALCFG_LEASH    this repository (leash)
--   REALCFG_PORT     the local model server's port
--   REALCFG_PROBE    the test's probe (tests/e2e/realconfig/probe.lua), loaded last
local plugins = assert(os.getenv('REALCFG_PLUGINS'))
local function dir(name) return plugins .. '/' .. name end

vim.g.mapleader = ' '
vim.g.maplocalleader = ' '
vim.g.have_nerd_font = false
vim.o.number = true
vim.o.mouse = 'a'
vim.o.showmode = false
vim.o.clipboard = 'unnamedplus'
vim.o.breakindent = true
vim.o.undofile = true
vim.o.ignorecase = true
vim.o.smartcase = true
vim.o.signcolumn = 'yes'
vim.o.updatetime = 250
vim.o.timeoutlen = 300
vim.o.splitright = true
vim.o.splitbelow = true
vim.o.inccommand = 'split'
vim.o.cursorline = true
vim.o.scrolloff = 10
vim.o.confirm = true
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. 'I'

vim.keymap.set('n', '<Esc>', '<cmd>nohlsearch<CR>')
vim.keymap.set('n', '<leader>q', vim.diagnostic.setloclist, { desc = 'Open diagnostic [Q]uickfix list' })
vim.keymap.set('n', '<C-h>', '<C-w><C-h>', { desc = 'Move focus to the left window' })
vim.keymap.set('n', '<C-l>', '<C-w><C-l>', { desc = 'Move focus to the right window' })
vim.keymap.set('n', '<C-j>', '<C-w><C-j>', { desc = 'Move focus to the lower window' })
vim.keymap.set('n', '<C-k>', '<C-w><C-k>', { desc = 'Move focus to the upper window' })

vim.api.nvim_create_autocmd('TextYankPost', {
  desc = 'Highlight when yanking (copying) text',
  group = vim.api.nvim_create_augroup('kickstart-highlight-yank', { clear = true }),
  callback = function() vim.hl.on_yank() end,
})

vim.opt.rtp:prepend(assert(os.getenv('REALCFG_LAZY')))

require('lazy').setup({
  {
    dir = dir('snacks.nvim'),
    name = 'snacks.nvim',
    priority = 1000,
    lazy = false,
    opts = {
      notifier = { enabled = true },
      input = { enabled = true },
      bigfile = { enabled = true },
      quickfile = { enabled = true },
    },
  },
  { dir = dir('vim-fugitive'), name = 'vim-fugitive', cmd = { 'Git', 'G' } },
  {
    dir = dir('gitsigns.nvim'),
    name = 'gitsigns.nvim',
    opts = {
      signs = { add = { text = '+' }, change = { text = '~' }, delete = { text = '_' } },
      on_attach = function(bufnr)
        local gitsigns = require('gitsigns')
        local function map(mode, l, r, desc) vim.keymap.set(mode, l, r, { buffer = bufnr, desc = desc }) end
        map('n', ']c', function()
          if vim.wo.diff then
            vim.cmd.normal({ ']c', bang = true })
          else
            gitsigns.nav_hunk('next')
          end
        end, 'Jump to next git [c]hange')
        map('n', '[c', function()
          if vim.wo.diff then
            vim.cmd.normal({ '[c', bang = true })
          else
            gitsigns.nav_hunk('prev')
          end
        end, 'Jump to previous git [c]hange')
        map('n', '<leader>hs', gitsigns.stage_hunk, 'git [s]tage hunk')
        map('n', '<leader>hr', gitsigns.reset_hunk, 'git [r]eset hunk')
        map('n', '<leader>hp', gitsigns.preview_hunk, 'git [p]review hunk')
        map('n', '<leader>hb', gitsigns.blame_line, 'git [b]lame line')
        map('n', '<leader>tb', gitsigns.toggle_current_line_blame, '[T]oggle git show [b]lame line')
      end,
    },
  },
  {
    dir = dir('which-key.nvim'),
    name = 'which-key.nvim',
    event = 'VimEnter',
    opts = {
      delay = 0,
      spec = {
        { '<leader>s', group = '[S]earch' },
        { '<leader>t', group = '[T]oggle' },
        { '<leader>h', group = 'Git [H]unk', mode = { 'n', 'v' } },
      },
    },
  },
  {
    dir = dir('telescope.nvim'),
    name = 'telescope.nvim',
    event = 'VimEnter',
    dependencies = { { dir = dir('plenary.nvim'), name = 'plenary.nvim' } },
    config = function()
      require('telescope').setup({})
      local builtin = require('telescope.builtin')
      vim.keymap.set('n', '<leader>sh', builtin.help_tags, { desc = '[S]earch [H]elp' })
      vim.keymap.set('n', '<leader>sk', builtin.keymaps, { desc = '[S]earch [K]eymaps' })
      vim.keymap.set('n', '<leader>sf', builtin.find_files, { desc = '[S]earch [F]iles' })
      vim.keymap.set('n', '<leader>ss', builtin.builtin, { desc = '[S]earch [S]elect Telescope' })
      vim.keymap.set('n', '<leader>sw', builtin.grep_string, { desc = '[S]earch current [W]ord' })
      vim.keymap.set('n', '<leader>sg', builtin.live_grep, { desc = '[S]earch by [G]rep' })
      vim.keymap.set('n', '<leader>sd', builtin.diagnostics, { desc = '[S]earch [D]iagnostics' })
      vim.keymap.set('n', '<leader>sr', builtin.resume, { desc = '[S]earch [R]esume' })
      vim.keymap.set('n', '<leader>s.', builtin.oldfiles, { desc = '[S]earch Recent Files ("." for repeat)' })
      vim.keymap.set('n', '<leader><leader>', builtin.buffers, { desc = '[ ] Find existing buffers' })
    end,
  },
  {
    dir = dir('nvim-lspconfig'),
    name = 'nvim-lspconfig',
    config = function()
      vim.api.nvim_create_autocmd('LspAttach', {
        group = vim.api.nvim_create_augroup('kickstart-lsp-attach', { clear = true }),
        callback = function(event)
          local map = function(keys, func, desc)
            vim.keymap.set('n', keys, func, { buffer = event.buf, desc = 'LSP: ' .. desc })
          end
          map('grn', vim.lsp.buf.rename, '[R]e[n]ame')
          map('gra', vim.lsp.buf.code_action, '[G]oto Code [A]ction')
          map('grr', require('telescope.builtin').lsp_references, '[G]oto [R]eferences')
          map('gd', require('telescope.builtin').lsp_definitions, '[G]oto [D]efinition')
          map('gO', require('telescope.builtin').lsp_document_symbols, 'Open Document Symbols')
        end,
      })
      vim.lsp.enable({ 'ruff', 'pyright', 'ts_ls' })
    end,
  },
  {
    dir = dir('conform.nvim'),
    name = 'conform.nvim',
    event = { 'BufWritePre' },
    cmd = { 'ConformInfo' },
    keys = {
      {
        '<leader>f',
        function() require('conform').format({ async = true, lsp_format = 'fallback' }) end,
        desc = '[F]ormat buffer',
      },
    },
    opts = {
      notify_on_error = true,
      format_on_save = { timeout_ms = 3000, lsp_format = 'fallback' },
      formatters_by_ft = { python = { 'ruff_format' } },
    },
  },
  {
    dir = dir('nvim-cmp'),
    name = 'nvim-cmp',
    event = 'InsertEnter',
    dependencies = { { dir = dir('cmp-nvim-lsp'), name = 'cmp-nvim-lsp' } },
    config = function()
      local cmp = require('cmp')
      cmp.setup({
        mapping = cmp.mapping.preset.insert({}),
        sources = { { name = 'nvim_lsp' } },
      })
    end,
  },
  {
    dir = dir('oil.nvim'),
    name = 'oil.nvim',
    lazy = false,
    opts = {},
    keys = { { '-', '<cmd>Oil<cr>', desc = 'Open parent directory' } },
  },
  {
    dir = dir('trouble.nvim'),
    name = 'trouble.nvim',
    cmd = 'Trouble',
    opts = {},
    keys = {
      { '<leader>xx', '<cmd>Trouble diagnostics toggle<cr>', desc = 'Diagnostics (Trouble)' },
      { '<leader>xq', '<cmd>Trouble qflist toggle<cr>', desc = 'Quickfix List (Trouble)' },
    },
  },
  {
    dir = dir('mini.nvim'),
    name = 'mini.nvim',
    config = function()
      require('mini.ai').setup({ n_lines = 500 })
      require('mini.surround').setup()
    end,
  },
  { dir = dir('nvim-web-devicons'), name = 'nvim-web-devicons', lazy = true },
  {
    dir = dir('lualine.nvim'),
    name = 'lualine.nvim',
    dependencies = { { dir = dir('nvim-web-devicons'), name = 'nvim-web-devicons' } },
    opts = { options = { icons_enabled = false } },
  },
  {
    dir = assert(os.getenv('REALCFG_LEASH')),
    name = 'leash.nvim',
    cmd = { 'Do', 'Leash' },
    opts = {
      provider = 'mock',
      providers = {
        mock = {
          kind = 'anthropic',
          model = 'mock-model',
          url = 'http://127.0.0.1:' .. assert(os.getenv('REALCFG_PORT')),
          api_key_env = 'LEASH_E2E_KEY',
        },
      },
    },
  },
}, {
  root = assert(os.getenv('REALCFG_LAZY_ROOT')),
  lockfile = os.getenv('REALCFG_LAZY_ROOT') .. '/lazy-lock.json',
  install = { missing = false, colorscheme = {} },
  checker = { enabled = false },
  change_detection = { enabled = false },
  rocks = { enabled = false },
})

dofile(assert(os.getenv('REALCFG_PROBE')))
