--- `:checkhealth leash`
local M = {}
local H = {}

-- Module definition ==========================================================

function M.check()
  local health = vim.health

  local native = require('leash.native')
  health.start('Neovim')
  if vim.fn.has('nvim-' .. native.min_nvim) == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error(('Neovim %s or newer is required, found %s'):format(native.min_nvim, tostring(vim.version())))
  end

  health.start('Native library')
  local s = native.status()
  if s.loaded then
    health.ok(('loaded %s (version %s, via %s)'):format(s.path, s.version, s.how))
    if s.how == 'target' then
      health.info('loaded from the cargo output; run :Leash build to install it as lua/' .. native.installed_name())
    elseif s.how == 'plugin' and not H.on_rtp(native.root()) then
      -- A check that loaded leash itself (lazy.nvim's stand-in) finds the library this
      -- way too, with the plugin on 'runtimepath' by now: only a real gap is worth a line.
      health.info("loaded from the plugin's lua/ directory, which is not on 'runtimepath'")
    end
  else
    health.error(s.error or 'not loaded', { native.build_hint() })
    for _, c in ipairs(s.candidates or {}) do
      health.info('looked for ' .. c)
    end
  end

  health.start('Build')
  H.check_build(health)

  health.start('Catalog')
  local ok, err = pcall(function()
    local catalog = require('leash.catalog')
    local _, counts = catalog.entries()
    local parts = {}
    for _, name in ipairs(require('leash.sources').names) do
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

  health.start('Process guard')
  local program, gerr = require('leash.guard').refusal_program()
  if program then
    health.ok(("while a step that is not [shell] runs, 'shell' is %s (it runs nothing)"):format(program))
  else
    health.error(gerr .. ': every step that is not [shell] fails until this is fixed')
  end

  health.start('Configuration')
  local config = require('leash.config')
  config.get() -- checks what waited for the native library, if it loads now
  if config.unchecked then
    health.warn('the core has not checked the config yet: ' .. config.unchecked .. '; nothing is planned until it is')
  elseif #config.errors > 0 then
    -- The same errors setup() reported, one per line; nothing of that config was applied.
    for _, err in ipairs(config.errors) do
      health.error(err)
    end
    health.info(
      'setup() applied nothing of it: the options stay as they were, and :Do plans nothing until the config is valid (see :help leash-config)'
    )
  elseif config.called then
    health.ok('setup() accepted the config')
  else
    health.info('setup() was not called: the defaults (see :help leash-config)')
  end

  health.start('Provider')
  local cfg = config.get()
  local p, perr = require('leash.planner').provider_config(cfg)
  if perr then
    health.warn(('provider %s: %s'):format(cfg.provider, perr))
  elseif not p then
    health.info(
      'no provider: :Do plans offline (direct requests such as "turn on word wrap"); see :help leash-providers'
    )
  else
    -- The dialect and the key by the core's rule, the one a request follows.
    local kok, key = require('leash.native').call('provider_key', 'read the provider', {
      provider = cfg.provider,
      providers = cfg.providers,
      timeout_ms = cfg.timeout_ms,
    })
    if not kok then return health.error(('provider %s: %s'):format(p.name, key)) end
    health.ok(
      ('provider %s (%s%s%s)'):format(
        p.name,
        key.kind,
        p.model and (', ' .. p.model) or '',
        p.url and (', ' .. p.url) or ''
      )
    )
    -- Only whether a key is reachable; never its value.
    local from = key.key
    if not from then
      health.ok('no key is sent to this server')
    elseif from.from == 'command' then
      health.ok('the key comes from a command, run when a request is made: ' .. from.program)
    elseif from.from == 'file' then
      local readable = vim.fn.filereadable(vim.fn.expand(from.path)) == 1
      local report = (readable or not key.required) and health.ok or health.warn
      report(('the key file %s %s'):format(from.path, readable and 'is readable' or 'cannot be read'))
    elseif vim.env[from.name] and vim.env[from.name] ~= '' then
      health.ok(('$%s is set'):format(from.name))
    elseif key.required then
      health.warn(('$%s is not set'):format(from.name), { 'export ' .. from.name .. '=… before starting Neovim' })
    else
      health.ok(('$%s is not set: this server is asked without a key'):format(from.name))
    end
    H.check_endpoint(health, key.url)
  end
end

--- How long `:checkhealth` waits for the provider's server, in seconds.
M.endpoint_deadline_s = 2

-- Helper functionality =======================================================

--- Whether `dir` is a directory of 'runtimepath' now.
---@param dir string
---@return boolean
function H.on_rtp(dir)
  dir = vim.fs.normalize(dir)
  for _, d in ipairs(vim.opt.rtp:get()) do
    if vim.fs.normalize(d) == dir then return true end
  end
  return false
end

--- Whether the provider's server answers: one GET of its base URL through curl, within
--- |M.endpoint_deadline_s| (the editor waits no longer). No key is sent, so none can
--- reach a server over plain http; a server that refuses a request without one still
--- answers. Any HTTP status counts as an answer.
function H.check_endpoint(health, url)
  if type(url) ~= 'string' or url == '' then return end
  if vim.fn.executable('curl') == 0 then
    return health.info(('curl not found: whether %s answers is not checked'):format(url))
  end
  local s = M.endpoint_deadline_s
  local argv = {
    'curl',
    '-q',
    '-sS',
    '-o',
    vim.fn.has('win32') == 1 and 'NUL' or '/dev/null',
    '-w',
    '%{http_code}',
    '--max-time',
    tostring(s),
    '--',
    url,
  }
  local started, proc = pcall(vim.system, argv, { text = true })
  if not started then return health.warn(('could not ask %s: %s'):format(url, tostring(proc))) end
  -- A little beyond curl's own deadline; a curl that overruns it is stopped.
  local r = proc:wait(s * 1000 + 500)
  local status = tonumber(vim.trim(r.stdout or ''):match('^%d%d%d$'))
  if status and status > 0 then
    local tail = (status == 401 or status == 403) and ', and wants a key for requests' or ''
    return health.ok(('%s answers (HTTP %d%s)'):format(url, status, tail))
  end
  local why = vim.trim((r.stderr or ''):gsub('^curl: %(%d+%) ', ''))
  if why == '' then why = ('no answer within %d s'):format(s) end
  health.warn(('%s does not answer: %s'):format(url, why), {
    'is the server running, and is this its address? :Do asks it and waits up to timeout_ms',
  })
end

--- How `:Leash build` would put the library in place: a prebuilt library (curl) or
--- cargo, and what is missing for each.
function H.check_build(health)
  local build = require('leash.build')
  local target, why = require('leash.build.prebuilt').target()
  local forced, reason = build.from_source()
  local has_curl = vim.fn.executable('curl') == 1
  if forced then
    health.info('prebuilt libraries are skipped: ' .. reason)
  elseif not target then
    health.info(why .. '; :Leash build uses cargo')
  elseif has_curl then
    health.ok(('prebuilt libraries: %s, downloaded with curl for releases'):format(target.triple))
  else
    health.warn('curl not found: :Leash build cannot download a prebuilt library and uses cargo')
  end
  local needs_cargo = forced or not target or not has_curl
  for _, tool in ipairs({ 'cargo', 'rustc' }) do
    if vim.fn.executable(tool) == 1 then
      health.ok(vim.trim(vim.fn.system({ tool, '--version' })))
    elseif needs_cargo then
      health.warn(
        tool .. ' not found: needed to build the native library here',
        { 'install Rust from https://rustup.rs' }
      )
    else
      health.info(tool .. ' not found (needed only where no prebuilt library fits)')
    end
  end
  local log = build.log_path()
  if vim.uv.fs_stat(log) then health.info('last build log: ' .. log) end
end

return M
