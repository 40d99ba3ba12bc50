-- Loading the native module, the version handshake, and failing closed without it.

local function capture_notify()
  local seen = {}
  local orig = vim.notify
  vim.notify = function(msg, level) seen[#seen + 1] = { msg = msg, level = level } end
  return seen, function() vim.notify = orig end
end

describe('native.load()', function()
  before_each(function()
    fresh()
    require('leash.native').reset()
  end)

  it('loads the library and passes the handshake', function()
    local native = require('leash.native')
    local mod, err = native.load()
    ok(mod, err)
    eq('0.1.0', mod.version())
    eq(native.version, mod.version())
    eq(native.version, require('leash').version)
    local s = native.status()
    eq(true, s.loaded)
    eq('0.1.0', s.version)
  end)

  it('finds the installed lua/leash_native through runtimepath', function()
    local installed = root .. '/lua/' .. require('leash.native').installed_name()
    ok(vim.uv.fs_stat(installed), 'scripts/test installs ' .. installed)
    eq('runtimepath', require('leash.native').status().how)
  end)

  it('exports the functions of the contract', function()
    local mod = require('leash.native').get()
    for _, name in ipairs({ 'version', 'catalog_new', 'rank', 'prompt', 'validate' }) do
      eq('function', type(mod[name]), name)
    end
  end)

  it('reports a missing library with what to run', function()
    local native = require('leash.native')
    local empty = vim.fn.tempname()
    vim.fn.mkdir(empty, 'p')
    local saved = vim.env.CARGO_TARGET_DIR
    vim.env.CARGO_TARGET_DIR = nil
    native.reset({ root = empty, runtimepath = false })
    local mod, err = native.load()
    vim.env.CARGO_TARGET_DIR = saved
    eq(nil, mod)
    matches('native library not found', err)
    matches(':Leash build', err)
    matches('cargo build %-%-release', err)
    matches(vim.pesc(empty), err)
    eq(false, native.status().loaded)
    local msg = raises(native.get)
    matches('native library not found', msg)
  end)

  it('reports a version mismatch with what to run', function()
    local native = require('leash.native')
    native.version = '9.9.9'
    native.reset()
    local mod, err = native.load()
    eq(nil, mod)
    matches('is version 0%.1%.0 but the Lua side is 9%.9%.9', err)
    matches(':Leash build', err)
  end)
end)

describe(':Do without the native library', function()
  before_each(function()
    fresh()
    local empty = vim.fn.tempname()
    vim.fn.mkdir(empty, 'p')
    require('leash.native').reset({ root = empty, runtimepath = false })
  end)

  it('refuses to plan and says why', function()
    local leash = require('leash')
    local planned = false
    leash.plan = function() planned = true end
    local seen, restore = capture_notify()
    local saved = vim.env.CARGO_TARGET_DIR
    vim.env.CARGO_TARGET_DIR = nil
    vim.cmd('Do turn on word wrap')
    vim.env.CARGO_TARGET_DIR = saved
    restore()
    eq(false, planned, 'plan() must not be called')
    eq(1, #seen)
    eq(vim.log.levels.ERROR, seen[1].level)
    matches('native library not found', seen[1].msg)
  end)

  it('cannot rank either', function()
    local hits, err = require('leash').rank('wrap')
    eq(nil, hits)
    matches(':Leash build', err)
  end)
end)

describe('build.install()', function()
  before_each(function() fresh() end)

  it('installs atomically by rename, leaving no temp file', function()
    local native = require('leash.native')
    local dir = vim.fn.tempname()
    vim.fn.mkdir(dir .. '/lua', 'p')
    vim.fn.mkdir(dir .. '/target/release', 'p')
    local saved = vim.env.CARGO_TARGET_DIR
    vim.env.CARGO_TARGET_DIR = nil
    local art = native.artifact(dir)
    vim.fn.writefile({ 'new' }, art)
    local dest = dir .. '/lua/' .. native.installed_name()
    vim.fn.writefile({ 'old' }, dest)
    local old_inode = vim.uv.fs_stat(dest).ino
    local ok_, msg = require('leash.build').install(dir)
    vim.env.CARGO_TARGET_DIR = saved
    ok(ok_, msg)
    eq({ 'new' }, vim.fn.readfile(dest))
    ok(vim.uv.fs_stat(dest).ino ~= old_inode, 'a new inode, not an overwrite')
    eq({}, vim.fn.glob(dir .. '/lua/*.tmp', false, true))
  end)
end)
