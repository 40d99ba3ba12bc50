--- `:checkhealth leash`
local M = {}
local H = {}

-- Module definition ==========================================================

function M.check()
  local health = vim.health

  health.start('Neovim')
  if vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim 0.10 or newer is required, found ' .. tostring(vim.version()))
  end

  health.start('Native library')
  local native = require('leash.native')
  local s = native.status()
  if s.loaded then
    health.ok(('loaded %s (version %s, via %s)'):format(s.path, s.version, s.how))
    if s.how == 'target' then
      health.info('loaded from the cargo output; run :Leash build to install it as lua/' .. native.installed_name())
    end
  else
    health.error(s.error or 'not loaded', { native.build_hint() })
    for _, c in ipairs(s.candidates or {}) do
      health.info('looked for ' .. c)
    end
  end

  health.start('Build tools')
  for _, tool in ipairs({ 'cargo', 'rustc' }) do
    if vim.fn.executable(tool) == 1 then
      local out = vim.fn.system({ tool, '--version' })
      health.ok(vim.trim(out))
    else
      health.warn(
        tool .. ' not found (needed only to build the native library)',
        { 'install Rust from https://rustup.rs' }
      )
    end
  end
  local log = require('leash.build').log_path()
  if vim.uv.fs_stat(log) then health.info('last build log: ' .. log) end

  health.start('Catalog')
  local ok, err = pcall(function()
    local catalog = require('leash.catalog')
    local _, counts = catalog.entries()
    local parts = {}
    for _, name in ipairs(catalog.sources) do
      parts[#parts + 1] = ('%s %d'):format(name, counts[name] or 0)
    end
    health.ok(table.concat(parts, ', '))
    if s.loaded then
      local state, cerr = catalog.get()
      if state then
        health.ok(('the core accepted %d entries'):format(state.handle:len()))
      else
        health.error(cerr)
      end
    end
  end)
  if not ok then health.error('building the catalog failed: ' .. tostring(err)) end

  health.start('Provider')
  local cfg = require('leash.config').get()
  local p = require('leash.planner').provider_config(cfg)
  if not p then
    health.info(
      'no provider: :Do plans offline (direct requests such as "turn on word wrap"); see :help leash-providers'
    )
  else
    local kind = p.kind or (H.default_key_env[p.name] ~= nil and p.name) or '?'
    health.ok(
      ('provider %s (%s%s%s)'):format(
        p.name,
        kind,
        p.model and (', ' .. p.model) or '',
        p.url and (', ' .. p.url) or ''
      )
    )
    -- Only whether a key is reachable; never its value.
    if p.api_key_cmd then
      health.ok('the key comes from a command, run when a request is made: ' .. p.api_key_cmd[1])
    elseif p.api_key_file then
      local readable = vim.fn.filereadable(vim.fn.expand(p.api_key_file)) == 1
      local report = readable and health.ok or health.warn
      report(('the key file %s %s'):format(p.api_key_file, readable and 'is readable' or 'cannot be read'))
    else
      local env = p.api_key_env or H.default_key_env[kind]
      if env then -- ollama needs no key
        if vim.env[env] and vim.env[env] ~= '' then
          health.ok(('$%s is set'):format(env))
        else
          health.warn(('$%s is not set'):format(env), { 'export ' .. env .. '=… before starting Neovim' })
        end
      end
    end
  end
end

-- Helper data ================================================================

H.default_key_env = { anthropic = 'ANTHROPIC_API_KEY', openai = 'OPENAI_API_KEY', ollama = false }

return M
