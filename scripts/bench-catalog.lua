-- Catalog build times in Neovim (design budget: cold < 15 ms, cached < 1 ms).
--   nvim --headless --clean -l scripts/bench-catalog.lua [runs]
-- Run from the repository root after building (scripts/test or :Leash build).
--   first use   no disk cache: parse index.txt, quickref.txt, _meta/options.lua,
--               nvim_parse_cmd every command, collect user commands and mappings,
--               hand everything to the core (catalog_new)
--   cold        a new session's Lua side: the runtime data's summary read from the disk
--               cache, the rest as above (the core keeps its parse of the runtime entries
--               for the process: a new session's parse is in scripts/bench-do's first :Do)
--   cached      catalog.get() again with nothing changed (collect + compare signature)
-- LEASH_BENCH_ROOT: the plugin to load (scripts/bench-catalog-compare); the project is the cwd.
local root = vim.env.LEASH_BENCH_ROOT or vim.fn.getcwd()
vim.opt.rtp:prepend(root)
local runs = tonumber(_G.arg[1]) or 31
vim.env.XDG_CACHE_HOME = vim.fn.tempname()

local catalog = require('leash.catalog')
assert(require('leash.native').load())

local function median(xs)
  table.sort(xs)
  return xs[math.floor(#xs / 2) + 1]
end

local function measure(prepare)
  local xs = {}
  for _ = 1, runs do
    prepare()
    local t = vim.uv.hrtime()
    local state, err = catalog.get()
    xs[#xs + 1] = (vim.uv.hrtime() - t) / 1e6
    assert(state, err)
    -- The ranker's index is built by the first ranking (untimed here): the catalog's
    -- own time is what is measured.
    require('leash.native').get().rank(state.handle, 'wait for the index', { limit = 1 })
  end
  return median(xs)
end

catalog.reset()
catalog.get() -- writes the disk cache
local first = measure(function() catalog.reset({ disk = false }) end)
local cold = measure(function() catalog.reset() end)
catalog.get()
local cached = measure(function() end)
local state = catalog.get()
print(('entries %d (%s)'):format(state.handle:len(), vim.inspect(state.counts, { newline = ' ', indent = '' })))
print(('median of %d runs: first use %.2f ms, cold %.2f ms, cached %.3f ms'):format(runs, first, cold, cached))
