-- In-process ranking latency in Neovim: the native ranker against vim.fn.matchfuzzy
-- over the same strings, in the same process.
--
--   cargo build --release
--   nvim --headless --clean -l scripts/bench-rank-nvim.lua [ITERATIONS]
--
-- The catalog is what `:Leash catalog` exports from this Neovim (builtin commands,
-- options, user commands and mappings, with their help text). matchfuzzy gets each
-- entry's name and title ("vsplit split current window vertically") and the whole
-- request (it keeps the strings that contain every word, fuzzily). Both are timed per
-- call, alternately in one loop, including building the Lua result; the median is
-- reported.
local root = vim.fs.dirname(vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')))
vim.opt.rtp:prepend(root)
local iterations = tonumber(_G.arg and _G.arg[1]) or 2000

-- The freshly built library first (target/release), else whatever leash.native finds.
local native
for _, name in ipairs({ 'libleash_nvim.so', 'libleash_nvim.dylib', 'leash_nvim.dll' }) do
  local path = root .. '/target/release/' .. name
  if vim.uv.fs_stat(path) then
    local open = package.loadlib(path, 'luaopen_leash_native')
    if open then
      native = open()
      break
    end
  end
end
native = native or assert(require('leash.native').load())

local entries = require('leash.catalog').entries()
local catalog = native.catalog_new(entries, 'neovim')
local strings = {}
for i, e in ipairs(entries) do
  strings[i] = (e.id or e.key):gsub('^%a+:', '') .. ' ' .. (e.title or '')
end

local requests = {
  'make the font a little bigger and turn on soft word wrap please',
  'show invisible characters and highlight the line the cursor is on',
  'open a terminal in a vertical split below the current window now',
  'stop creating swap files and backups when i save my files',
}

-- Both are timed in the same loop, call for call, so a busy machine slows both alike.
local function medians(fns)
  for i = 1, 50 do
    for _, f in ipairs(fns) do
      f(requests[i % #requests + 1])
    end
  end
  local times = {}
  for k = 1, #fns do
    times[k] = {}
  end
  for i = 1, iterations do
    local q = requests[i % #requests + 1]
    for k, f in ipairs(fns) do
      local t = vim.uv.hrtime()
      f(q)
      times[k][i] = vim.uv.hrtime() - t
    end
  end
  local out = {}
  for k, list in ipairs(times) do
    table.sort(list)
    out[k] = { list[math.floor(#list / 2) + 1] / 1e3, list[math.floor(#list * 0.9)] / 1e3 }
  end
  return out
end

local m = medians({
  function(q) return native.rank(catalog, q, { limit = 60 }) end,
  function(q) return vim.fn.matchfuzzy(strings, q) end,
})
local rank_med, rank_p90, fuzzy_med, fuzzy_p90 = m[1][1], m[1][2], m[2][1], m[2][2]
local fuzzy_hits = #vim.fn.matchfuzzy(strings, requests[1])

print(('Neovim %s, %d entries, 10-word requests, %d calls each'):format(tostring(vim.version()), #entries, iterations))
print(('  native rank (limit 60):   median %7.1f µs   p90 %7.1f µs'):format(rank_med, rank_p90))
print(
  ('  vim.fn.matchfuzzy:        median %7.1f µs   p90 %7.1f µs   (%d hits for the first request)'):format(
    fuzzy_med,
    fuzzy_p90,
    fuzzy_hits
  )
)
print(('  ratio rank / matchfuzzy:  %.2f'):format(rank_med / fuzzy_med))
