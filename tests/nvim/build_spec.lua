-- Putting the native library in place: the prebuilt download (against a local release
-- server serving real files: good, corrupt, missing, slow), the SHA-256 check, the
-- fallback to cargo, the streamed build log, and a session that recovers with
-- :Leash build after :Do found no library.

local server_script = root .. '/tests/support/release_server.py'

local function tempdir()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  return dir
end

--- The library this checkout installed (scripts/test builds it before the specs).
local function built_library()
  local path = root .. '/lua/' .. require('leash.native').installed_name()
  ok(vim.uv.fs_stat(path), 'scripts/test installs ' .. path)
  return path
end

--- A release directory holding this machine's asset (a copy of the built library), and a
--- release server for it. Returns the server's base URL.
local server
local function release_server()
  if server then return server.url end
  local prebuilt = require('leash.build.prebuilt')
  local target = assert(prebuilt.target(), 'this machine has a prebuilt target')
  local dir = tempdir()
  local tag_dir = dir .. '/v' .. require('leash.native').version
  vim.fn.mkdir(tag_dir, 'p')
  assert(vim.uv.fs_copyfile(built_library(), tag_dir .. '/' .. prebuilt.asset(target)))
  local port
  local proc = vim.system({ 'python3', server_script, dir }, {
    stdout = function(_, data)
      if data and not port then port = tonumber(data:match('%d+')) end
    end,
    stderr = function() end,
  })
  vim.wait(10000, function() return port ~= nil end, 10)
  ok(port, 'the release server started')
  -- Stop it when this Neovim exits: it would otherwise outlive the spec run.
  vim.api.nvim_create_autocmd('VimLeavePre', { callback = function() proc:kill('sigterm') end })
  server = { url = 'http://127.0.0.1:' .. port, proc = proc, dir = dir }
  return server.url
end

local function python_sha256(path)
  local res = vim
    .system({ 'python3', '-c', 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())', path })
    :wait()
  return vim.trim(res.stdout)
end

--- A new git repository with one commit; returns it and a function running git in it.
local function git_repo()
  local repo = tempdir()
  local function git(...)
    local args = vim.list_extend({ 'git', '-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t' }, { ... })
    local res = vim.system(args):wait()
    eq(0, res.code, table.concat({ ... }, ' ') .. ': ' .. (res.stderr or ''))
  end
  git('init', '-q')
  git('commit', '-q', '--allow-empty', '-m', 'one')
  return repo, git
end

--- prebuilt.release() for `repo` at version 0.1.0: the release, or nil and why.
local function release_of(repo)
  local got
  require('leash.build.prebuilt').release(repo, '0.1.0', function(rel, why) got = { rel, why } end)
  vim.wait(10000, function() return got ~= nil end, 5)
  return got[1], got[2]
end

--- Download this machine's asset from the release root `base` (a mode of the release
--- server, or a URL where nothing listens).
local function download(base)
  local prebuilt = require('leash.build.prebuilt')
  if not base:find('^http') then base = release_server() .. '/' .. base end
  local target = prebuilt.target()
  local url = ('%s/v%s/%s'):format(base, require('leash.native').version, prebuilt.asset(target))
  local dest = tempdir() .. '/lib.tmp'
  local result
  local started = vim.uv.hrtime()
  local ticks = 0
  local timer = vim.uv.new_timer()
  timer:start(10, 10, function() ticks = ticks + 1 end)
  prebuilt.download(
    { tag = 'v0', target = target, url = url, sum_url = url .. '.sha256' },
    dest,
    function(o, why) result = { ok = o, why = why } end
  )
  vim.wait(30000, function() return result ~= nil end, 10)
  timer:stop()
  timer:close()
  ok(result, 'the download finished')
  result.dest = dest
  result.seconds = (vim.uv.hrtime() - started) / 1e9
  result.ticks = ticks
  return result
end

describe('sha256', function()
  before_each(function() fresh() end)

  it('matches the FIPS 180-4 examples', function()
    local sha = require('leash.build.sha256')
    eq('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', sha.hex(''))
    eq('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', sha.hex('abc'))
    eq(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      sha.hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')
    )
    -- Lengths around the padding boundary (55, 56, 64 bytes) and a NUL byte.
    for _, s in ipairs({ ('a'):rep(55), ('a'):rep(56), ('a'):rep(64), 'a\0b' }) do
      local file = vim.fn.tempname()
      local f = assert(io.open(file, 'wb'))
      f:write(s)
      f:close()
      eq(python_sha256(file), sha.hex(s), #s .. ' bytes')
    end
  end)

  it('hashes a library file on a worker thread, as hashlib does', function()
    local sha = require('leash.build.sha256')
    local lib = built_library()
    local order = {}
    local got
    sha.file(lib, function(hex, err)
      got = hex or err
      order[#order + 1] = 'hash'
    end)
    vim.schedule(function() order[#order + 1] = 'main loop' end)
    vim.wait(60000, function() return got ~= nil end, 5)
    eq(python_sha256(lib), got)
    eq({ 'main loop', 'hash' }, order, 'the main loop ran while the hash was computed')
  end)

  it('reports a file it cannot read', function()
    local got
    require('leash.build.sha256').file('/nonexistent/leash', function(hex, err) got = { hex, err } end)
    vim.wait(5000, function() return got ~= nil end, 5)
    eq(nil, got[1])
    matches('No such file', got[2])
  end)
end)

describe('prebuilt targets and release URLs', function()
  before_each(function()
    fresh()
    vim.env.LEASH_PREBUILT_URL = nil
  end)

  it('maps OS and architecture to the five release targets', function()
    local prebuilt = require('leash.build.prebuilt')
    local function asset(os, arch)
      return prebuilt.asset(assert(prebuilt.target({ os = os, arch = arch, musl = false })))
    end
    eq('leash_native-x86_64-unknown-linux-gnu.so', asset('Linux', 'x64'))
    eq('leash_native-aarch64-unknown-linux-gnu.so', asset('Linux', 'arm64'))
    eq('leash_native-x86_64-apple-darwin.dylib', asset('OSX', 'x64'))
    eq('leash_native-aarch64-apple-darwin.dylib', asset('OSX', 'arm64'))
    eq('leash_native-x86_64-pc-windows-msvc.dll', asset('Windows', 'x64'))
    local t, why = prebuilt.target({ os = 'Linux', arch = 'x64', musl = true })
    eq(nil, t)
    matches('musl', why)
    t, why = prebuilt.target({ os = 'BSD', arch = 'x64', musl = false })
    eq(nil, t)
    matches('no prebuilt library for BSD x64', why)
  end)

  it('the release workflow builds and attaches exactly those assets', function()
    local workflow = table.concat(vim.fn.readfile(root .. '/.github/workflows/release.yml'), '\n')
    for _, t in ipairs(require('leash.build.prebuilt').targets) do
      matches('target: ' .. vim.pesc(t.triple), workflow, t.triple)
      matches('ext: ' .. vim.pesc(t.ext), workflow, t.triple)
    end
    matches(vim.pesc('leash_native-${{ matrix.target }}${{ matrix.ext }}'), workflow)
    matches('cargo build %-%-release %-%-locked %-%-target', workflow)
    matches('sha256', workflow)
  end)

  it('reads the download root from a GitHub remote', function()
    local base = require('leash.build.prebuilt').github_base
    local want = 'https://github.com/someone/leash.nvim/releases/download'
    eq(want, base('https://github.com/someone/leash.nvim'))
    eq(want, base('https://github.com/someone/leash.nvim.git\n'))
    eq(want, base('git@github.com:someone/leash.nvim.git'))
    eq(want, base('ssh://git@github.com/someone/leash.nvim'))
    eq(nil, base('https://gitlab.com/someone/leash.nvim'))
    eq(nil, base('file:///tmp/leash.nvim'))
    eq(nil, base(nil))
  end)

  it('takes a release only for the checkout of that release tag', function()
    local prebuilt = require('leash.build.prebuilt')
    local repo, git = git_repo()
    git('remote', 'add', 'origin', 'https://github.com/someone/leash.nvim.git')
    local rel, why = release_of(repo)
    eq(nil, rel)
    eq('this checkout has no release before it (no v* tag), and prebuilt libraries exist for releases only', why)
    ok(not why:find('version =', 1, true), 'no setting is blamed when there is no release at all')

    git('tag', 'v0.1.0')
    rel = release_of(repo)
    local asset = prebuilt.asset(prebuilt.target())
    eq('https://github.com/someone/leash.nvim/releases/download/v0.1.0/' .. asset, rel and rel.url)
    eq(rel.url .. '.sha256', rel.sum_url)

    vim.env.LEASH_PREBUILT_URL = 'http://127.0.0.1:9/mirror/'
    rel = release_of(repo)
    vim.env.LEASH_PREBUILT_URL = nil
    eq('http://127.0.0.1:9/mirror/v0.1.0/' .. asset, rel and rel.url)

    git('commit', '-q', '--allow-empty', '-m', 'two')
    rel, why = release_of(repo)
    eq(nil, rel, 'a commit after the tag is not the release')
    local after =
      'this checkout is 1 commit after the release v0.1.0, and prebuilt libraries exist for release commits only'
    eq(after, why, 'no lazy.nvim setting is named outside lazy.nvim (:Leash build, nvim -l build.lua)')
    -- Under lazy.nvim, its record of the plugin says whether the user chose what to follow.
    local function under_lazy(spec)
      package.loaded['lazy.core.config'] =
        { plugins = { ['leash.nvim'] = vim.tbl_extend('force', spec, { dir = repo }) } }
      local _, reason = release_of(repo)
      package.loaded['lazy.core.config'] = nil
      return reason
    end
    eq(after .. " (with lazy.nvim, version = '*' follows releases)", under_lazy({ _ = {} }))
    eq(after, under_lazy({ version = '*', _ = {} }), 'a user who set version is not told to set it')
    eq(after, under_lazy({ branch = 'main', _ = {} }), 'nor one who chose a branch')
    eq(after, under_lazy({ _ = { is_local = true } }), 'nor a dir = checkout, which lazy.nvim never updates')
    git('commit', '-q', '--allow-empty', '-m', 'three')
    git('tag', 'v0.2.0')
    rel, why = release_of(repo)
    eq(nil, rel)
    eq('this checkout is tagged v0.2.0, but its Lua code is v0.1.0', why)
  end)

  it('needs a download location when the plugin was not cloned from GitHub', function()
    local repo, git = git_repo()
    git('tag', 'v0.1.0')
    local rel, why = release_of(repo)
    eq(nil, rel)
    matches('LEASH_PREBUILT_URL', why)
  end)
end)

describe("reading cargo's progress", function()
  before_each(function() fresh() end)

  it('finds the bar drawings and the lines in chunks cut anywhere', function()
    local progress = require('leash.build.progress')
    local text = '   Compiling a v1\n    Building [=>  ] 1/212: serde, tok'
      .. 'io     \r    Building [==> ] 2/212: tokio \r   Compiling b v2\nerror: x'
    for _, cut in ipairs({ 1, 7, 20, 45, #text - 3 }) do
      local read = progress.reader()
      local events = vim.list_extend(read(text:sub(1, cut)), read(text:sub(cut + 1)))
      vim.list_extend(events, read(nil))
      eq({
        { line = '   Compiling a v1' },
        { bar = { done = 1, total = 212, names = 'serde, tokio' } },
        { bar = { done = 2, total = 212, names = 'tokio' } },
        { line = '   Compiling b v2' },
        { line = 'error: x' },
      }, events, 'cut at ' .. cut)
    end
  end)

  it('says durations and what a first build takes', function()
    local progress = require('leash.build.progress')
    eq('45 s', progress.duration(45.2))
    eq('2 min 10 s', progress.duration(130))
    eq('1 h 3 min', progress.duration(3790))
    eq('a first build usually takes 4 min or more on 2 cores (about 460 s of CPU time)', progress.expected(nil, 2))
    eq('the last build here took 2 min 21 s', progress.expected(141))
    eq('a first build: 4 min or more', progress.usual(nil, 2))
    eq('a first build: 2 min or more', progress.usual(nil, 4))
    eq('last build: 2 min 21 s', progress.usual(141))
    eq(
      'Compiling 1/2 (serde) · 5 s (last build: 2 min 21 s)',
      progress.status({ done = 1, total = 2, names = 'serde' }, 5, progress.usual(141))
    )
    eq('Compiling 1/2 · 5 s', progress.status({ done = 1, total = 2, names = '' }, 5))
  end)
end)

describe('prebuilt download from a local release server', function()
  before_each(function()
    fresh()
    require('leash.build.prebuilt').timeouts = { connect = 5, total = 120 }
  end)

  it('downloads a good library and verifies it', function()
    local r = download('good')
    eq(true, r.ok, r.why)
    eq(python_sha256(built_library()), python_sha256(r.dest))
  end)

  it('refuses a corrupt library and removes it', function()
    local r = download('corrupt')
    eq(false, r.ok)
    matches('checksum mismatch for leash_native%-', r.why)
    eq(nil, vim.uv.fs_stat(r.dest), 'the corrupt file is gone')
  end)

  it('says which URL is missing', function()
    local r = download('missing')
    eq(false, r.ok)
    matches('/missing/v0%.1%.0/leash_native%-.*%.sha256 answered HTTP 404', r.why)
  end)

  it('gives up on a slow server at the deadline, without blocking the editor', function()
    require('leash.build.prebuilt').timeouts = { connect = 5, total = 2 }
    local r = download('slow')
    eq(false, r.ok)
    matches('timed out', r.why)
    ok(r.seconds < 10, ('gave up after %.1f s'):format(r.seconds))
    -- A 10 ms timer kept firing while curl waited (a blocked loop would fire ~never).
    ok(r.ticks >= r.seconds * 100 / 4, ('%d timer ticks in %.1f s'):format(r.ticks, r.seconds))
    eq(nil, vim.uv.fs_stat(r.dest))
  end)

  it('says when there is no network', function()
    local r = download('http://127.0.0.1:9') -- port 9 (discard): nothing listens
    eq(false, r.ok)
    matches('cannot reach', r.why)
  end)
end)

describe('build.start()', function()
  local saved_path
  before_each(function()
    fresh()
    require('leash.build.prebuilt').timeouts = { connect = 5, total = 120 }
    vim.env.LEASH_BUILD_FROM_SOURCE = nil
    saved_path = vim.env.PATH
  end)

  --- A plugin root without .git (taken at its version), with a fake `cargo` first on
  --- PATH that prints `lines` to stderr, each after a pause, and exits with `code`.
  local function fake_cargo_root(script)
    local dir = tempdir()
    vim.fn.mkdir(dir .. '/lua', 'p')
    vim.fn.mkdir(dir .. '/bin', 'p')
    vim.fn.writefile({ '#!/bin/sh', unpack(vim.split(script, '\n')) }, dir .. '/bin/cargo')
    vim.uv.fs_chmod(dir .. '/bin/cargo', 493) -- 0755
    vim.env.PATH = dir .. '/bin:' .. saved_path
    return dir
  end

  local function run_build(opts)
    local progress, result = {}, nil
    require('leash.build').start(vim.tbl_extend('force', opts, {
      on_progress = function(msg, level) progress[#progress + 1] = { msg = msg, level = level } end,
      on_done = function(o, msg) result = { ok = o, msg = msg } end,
    }))
    return progress,
      function()
        vim.wait(60000, function() return result ~= nil end, 10)
        vim.env.PATH = saved_path
        return result
      end
  end

  it("streams cargo's output to build.log while cargo runs, and reports its errors", function()
    local dir = fake_cargo_root(table.concat({
      'echo "   Compiling leash v0.1.0 (/x)" >&2',
      'sleep 2',
      'echo "warning: unused variable: \\`x\\`" >&2',
      'echo "" >&2',
      'echo "error[E0308]: mismatched types" >&2',
      'echo "  --> src/lib.rs:3:5" >&2',
      'echo "" >&2',
      'echo "error: could not compile \\`leash\\` (lib) due to 1 previous error" >&2',
      'exit 101',
    }, '\n'))
    local progress, finish = run_build({ root = dir, from_source = true })
    local log = dir .. '/build.log'
    vim.wait(5000, function()
      local text = vim.uv.fs_stat(log) and table.concat(vim.fn.readfile(log), '\n') or ''
      return text:find('Compiling leash') ~= nil and #progress > 0 and progress[#progress].msg:find('Compiling') ~= nil
    end, 20)
    matches('Compiling leash', table.concat(vim.fn.readfile(log), '\n'), 'build.log while cargo runs')
    matches('Compiling leash v0%.1%.0', progress[#progress] and progress[#progress].msg, 'the latest progress line')
    local result = finish()
    eq(false, result.ok)
    matches('cargo build failed %(exit 101%)', result.msg)
    matches('error%[E0308%]: mismatched types\n  %-%-> src/lib%.rs:3:5\nerror: could not compile', result.msg)
    ok(not result.msg:find('warning'), 'warnings are left to the log')
    matches(vim.pesc(log), result.msg)
  end)

  --- cargo's stderr as cargo writes it into a pipe with CARGO_TERM_PROGRESS_WHEN=always
  --- and --color never (copied from a real build of three crates): each drawing of the
  --- bar ends with `\r`, and the next line is written over it.
  local bar_start = {
    'echo "   Compiling itoa v1.0.19" >&2',
    [[printf '    Building [      ] 0/3: itoa                \r' >&2]],
    'echo "   Compiling serde v1.0.0" >&2',
    [[printf '    Building [==>   ] 1/3: serde, tokio        \r' >&2]],
  }
  local cargo_fails = { 'echo "error: could not compile \\`leash\\`" >&2', 'exit 101' }
  local cargo_bar = table.concat(vim.list_extend(vim.list_extend({}, bar_start), cargo_fails), '\n')
  -- The status line's end when this root never built (the estimate for this machine's
  -- cores: its words are checked in 'says durations and what a first build takes').
  local first_build = ' (' .. require('leash.build.progress').usual() .. ')'

  it("shows cargo's progress bar as Compiling n/m with the time, and what a build takes", function()
    local script = { 'echo "env: $CARGO_TERM_PROGRESS_WHEN" >&2', unpack(bar_start) }
    vim.list_extend(script, { 'sleep 1.2', [[printf '    Building [====> ] 2/3: leash(lib)          \r' >&2]] })
    local dir = fake_cargo_root(table.concat(vim.list_extend(script, { 'sleep 0.2', unpack(cargo_fails) }), '\n'))
    vim.fn.writefile({ 'leash build (an earlier one)', 'cargo finished in 222 s' }, dir .. '/build.log')
    local progress, finish = run_build({ root = dir, from_source = true, checkpoints = true })
    local result = finish()
    eq(false, result.ok)
    local levels = vim.log.levels
    local function at(level)
      return vim.tbl_map(
        function(p) return p.msg end,
        vim.tbl_filter(function(p) return p.level == level end, progress)
      )
    end
    eq('building from source with cargo build --release: the last build here took 3 min 42 s', at(levels.INFO)[1])
    local status = at(levels.TRACE)
    -- cargo's own status line until its bar is drawn, then the bar only.
    eq('Compiling itoa v1.0.19', status[1])
    eq('Compiling 0/3 (itoa) · 0 s (last build: 3 min 42 s)', status[2], 'what a build takes stays in sight')
    eq('Compiling 1/3 (serde, tokio) · 0 s (last build: 3 min 42 s)', status[3])
    matches('^Compiling 2/3 %(leash%(lib%)%) · 1 s %(last build: 3 min 42 s%)$', status[4])
    eq(4, #status, 'one status line per crate finished: ' .. table.concat(status, ' | '))
    eq('Compiling 0/3 (itoa) · 0 s (last build: 3 min 42 s)', at(levels.INFO)[2], 'the first drawing, for headless')
    eq(2, #at(levels.INFO), 'the next one is due after 30 s')
    local log = table.concat(vim.fn.readfile(dir .. '/build.log'), '\n')
    matches('env: always', log, 'cargo was asked to draw its bar into the pipe')
    matches('Compiling serde v1%.0%.0', log)
    ok(not log:find('Building [', 1, true), 'the bar drawings are left out of the log')
    matches('cargo build failed %(exit 101%) after %d s', result.msg)
  end)

  it('says the elapsed time every 5 s while cargo draws nothing new (the long link of leash)', function()
    local dir = fake_cargo_root(table.concat({
      [[printf '    Building [=====>] 2/3: leash(lib)          \r' >&2]],
      'sleep 5.6',
      'exit 101',
    }, '\n'))
    local progress, finish = run_build({ root = dir, from_source = true })
    finish()
    local status = vim.tbl_map(
      function(p) return p.msg end,
      vim.tbl_filter(function(p) return p.level == vim.log.levels.TRACE end, progress)
    )
    eq('Compiling 2/3 (leash(lib)) · 0 s' .. first_build, status[1])
    eq('Compiling 2/3 (leash(lib)) · 5 s' .. first_build, status[2], table.concat(status, ' | '))
    eq(2, #status)
  end)

  it("gives lazy.nvim's build line cargo's progress: build.run() yields it to lazy's task", function()
    local dir = fake_cargo_root(cargo_bar)
    -- lazy.nvim runs build.lua in a task coroutine and logs each yielded { msg, level }:
    -- the task's line in its window is the latest one.
    package.loaded['lazy.async'] = { running = function() return true end }
    local co = coroutine.create(function() return require('leash.build').run({ root = dir, from_source = true }) end)
    local yielded, result = {}, nil
    vim.wait(30000, function()
      local res = { coroutine.resume(co) }
      assert(res[1], res[2])
      if coroutine.status(co) == 'dead' then
        result = { res[2], res[3] }
      elseif res[2] then
        yielded[#yielded + 1] = res[2]
      end
      return result ~= nil
    end, 10)
    package.loaded['lazy.async'] = nil
    vim.env.PATH = saved_path
    eq(false, result and result[1])
    matches('^leash: cargo build failed %(exit 101%) after 0 s; the whole output is in ', result[2])
    local trace = vim.tbl_filter(function(y) return y.level == vim.log.levels.TRACE end, yielded)
    eq({
      'Compiling itoa v1.0.19',
      'Compiling 0/3 (itoa) · 0 s' .. first_build,
      'Compiling 1/3 (serde, tokio) · 0 s' .. first_build,
    }, vim.tbl_map(function(y) return y.msg end, trace))
    matches('^building from source with cargo build %-%-release: a first build usually takes %d+ min', yielded[1].msg)
    eq(vim.log.levels.INFO, yielded[1].level, 'what the build takes is kept in the task log')
  end)

  it('prints the progress headless (nvim -l build.lua), not silent for minutes', function()
    local dir = fake_cargo_root(cargo_bar)
    vim.env.PATH = saved_path
    for _, path in ipairs({ 'build.lua', 'lua/leash/native.lua', 'lua/leash/build.lua', 'lua/leash/build', 'doc' }) do
      vim.fn.mkdir(vim.fs.dirname(dir .. '/' .. path), 'p')
      vim.system({ 'cp', '-R', root .. '/' .. path, dir .. '/' .. path }):wait()
    end
    local res = vim
      .system({ vim.v.progpath, '--headless', '--clean', '-l', dir .. '/build.lua' }, {
        env = { PATH = dir .. '/bin:' .. saved_path, LEASH_BUILD_FROM_SOURCE = '1' },
        text = true,
      })
      :wait(60000)
    eq(1, res.code, res.stderr)
    -- `nvim -l` prints messages (print()) to stderr, as lines ended by \r\n.
    local out = vim.split(res.stderr:gsub('\r', ''), '\n')
    matches('^building from source with cargo build %-%-release: a first build usually takes ', out[1])
    eq('Compiling 0/3 (itoa) · 0 s' .. first_build, out[2], 'the first drawing, then one line every 30 s')
    matches('leash: cargo build failed %(exit 101%) after 0 s; the whole output is in ', out[3])
    matches('error: could not compile `leash`', res.stderr)
  end)

  it('falls back to cargo with the reason when the download is corrupt', function()
    vim.env.LEASH_PREBUILT_URL = release_server() .. '/corrupt'
    local dir = fake_cargo_root('echo "error: could not find Cargo.toml" >&2; exit 101')
    local progress, finish = run_build({ root = dir })
    local result = finish()
    vim.env.LEASH_PREBUILT_URL = nil
    eq(false, result.ok)
    matches('could not find Cargo.toml', result.msg)
    local said = vim.tbl_filter(function(p) return p.level == vim.log.levels.INFO end, progress)
    matches('^no prebuilt library: checksum mismatch for leash_native%-', said[1] and said[1].msg)
    matches('^building from source with cargo build %-%-release: ', said[2] and said[2].msg)
    -- The reason is said once: not again in the final message, nor in another line.
    local all = table.concat(vim.tbl_map(function(p) return p.msg end, progress), '\n') .. '\n' .. result.msg
    local _, times = all:gsub('checksum mismatch', '')
    eq(1, times, all)
    eq({}, vim.fn.glob(dir .. '/lua/*', false, true), 'nothing was installed')
  end)

  it('says once, in its own words, that no prebuilt library exists for this system', function()
    local prebuilt = require('leash.build.prebuilt')
    prebuilt.target = function() return nil, 'no prebuilt library for plan9 mips' end
    local dir = fake_cargo_root('exit 101')
    local progress, finish = run_build({ root = dir })
    local result = finish()
    eq('no prebuilt library for plan9 mips', progress[2] and progress[2].msg)
    ok(not result.msg:find('plan9', 1, true), result.msg)
  end)

  it('builds from source without asking the server when LEASH_BUILD_FROM_SOURCE is set', function()
    vim.env.LEASH_PREBUILT_URL = 'http://127.0.0.1:9'
    vim.env.LEASH_BUILD_FROM_SOURCE = '1'
    local dir = fake_cargo_root('exit 3')
    local progress, finish = run_build({ root = dir })
    local result = finish()
    vim.env.LEASH_PREBUILT_URL = nil
    vim.env.LEASH_BUILD_FROM_SOURCE = nil
    matches('cargo build failed %(exit 3%)', result.msg)
    ok(not result.msg:find('prebuilt'), result.msg)
    for _, p in ipairs(progress) do
      ok(not p.msg:find('prebuilt'), p.msg)
    end
    matches(
      'building from source: %$LEASH_BUILD_FROM_SOURCE is set',
      table.concat(vim.fn.readfile(dir .. '/build.log'), '\n')
    )
  end)

  it('says so when cargo is missing', function()
    local dir = tempdir()
    vim.env.PATH = '/nonexistent'
    local _, finish = run_build({ root = dir, from_source = true })
    local result = finish()
    eq(false, result.ok)
    matches('cargo is not on PATH; install Rust from https://rustup%.rs', result.msg)
  end)

  it('cancels a download in flight and a running cargo', function()
    vim.env.LEASH_PREBUILT_URL = release_server() .. '/slow'
    local dir = fake_cargo_root('sleep 30')
    local progress, result = {}, nil
    local job = require('leash.build').start({
      root = dir,
      on_progress = function(msg) progress[#progress + 1] = msg end,
      on_done = function(o, msg) result = { ok = o, msg = msg } end,
    })
    vim.wait(5000, function() return progress[#progress] and progress[#progress]:find('^downloading') ~= nil end, 10)
    matches('^downloading', progress[#progress])
    local t0 = vim.uv.hrtime()
    job.cancel()
    vim.wait(5000, function() return result ~= nil end, 10)
    eq({ ok = false, msg = 'leash: build cancelled' }, result)
    ok((vim.uv.hrtime() - t0) / 1e9 < 3, 'cancelled at once')
    eq({}, vim.fn.glob(dir .. '/lua/*', false, true), 'the partial download is gone')

    vim.env.LEASH_PREBUILT_URL = nil
    result = nil
    job = require('leash.build').start({
      root = dir,
      from_source = true,
      on_done = function(o, msg) result = { ok = o, msg = msg } end,
    })
    vim.wait(500)
    t0 = vim.uv.hrtime()
    job.cancel()
    vim.wait(5000, function() return result ~= nil end, 10)
    vim.env.PATH = saved_path
    eq({ ok = false, msg = 'leash: build cancelled' }, result)
    ok((vim.uv.hrtime() - t0) / 1e9 < 3, 'cargo stopped at once')
  end)

  it('runs one build at a time', function()
    local dir = fake_cargo_root('sleep 1; exit 1')
    local _, finish = run_build({ root = dir, from_source = true })
    local second
    require('leash.build').start({ root = dir, on_done = function(o, msg) second = { o, msg } end })
    eq(false, second and second[1])
    matches('a build is already running', second[2])
    finish()
  end)
end)

describe(':Leash build in a session where :Do found no library', function()
  it('loads the downloaded library at once; a second build asks for a restart', function()
    -- A separate Neovim: this one already has the library loaded.
    local plugin = tempdir() .. '/leash.nvim'
    vim.fn.mkdir(plugin, 'p')
    vim.system({ 'cp', '-R', root .. '/lua', root .. '/plugin', root .. '/doc', plugin }):wait()
    os.remove(plugin .. '/lua/' .. require('leash.native').installed_name())
    local script = tempdir() .. '/session.lua'
    vim.fn.writefile({
      'vim.opt.rtp:prepend(' .. vim.inspect(plugin) .. ')',
      "vim.cmd.runtime('plugin/leash.lua')",
      'local seen = {}',
      'vim.notify = function(msg) seen[#seen + 1] = msg end',
      "vim.cmd('Do set tabstop to 4')",
      'vim.wait(2000, function() return #seen > 0 end)',
      "print('FIRST ' .. tostring(seen[1]))",
      "vim.cmd('Leash build')",
      'vim.wait(60000, function() return #seen > 1 end)',
      "print('BUILD ' .. tostring(seen[2]))",
      "vim.cmd('Do set tabstop to 4')",
      "vim.wait(10000, function() return vim.fn.win_gettype() == 'popup' end)",
      "print('WINDOW ' .. vim.fn.win_gettype())",
      'vim.wait(300) -- the plan window ignores keys for its first 150 ms',
      "vim.api.nvim_feedkeys('y', 'x', false)",
      'vim.wait(2000, function() return vim.o.tabstop == 4 end)',
      "print('TABSTOP ' .. vim.o.tabstop)",
      "vim.cmd('Leash build')",
      "vim.wait(60000, function() return #seen > 2 and seen[#seen]:find('^leash: installed') ~= nil end)",
      "print('AGAIN ' .. tostring(seen[#seen]))",
    }, script)
    local env = {
      LEASH_PREBUILT_URL = release_server() .. '/good',
      LEASH_BUILD_FROM_SOURCE = '',
      CARGO_TARGET_DIR = tempdir(),
    }
    local res = vim
      .system({ vim.v.progpath, '--headless', '--clean', '-l', script }, { env = env, text = true })
      :wait(120000)
    local out = (res.stdout or '') .. (res.stderr or '')
    eq(0, res.code, out)
    matches('FIRST leash: native library not found', out)
    matches('BUILD leash: installed the prebuilt library v0%.1%.0 for [%w_%-]+ %(SHA%-256 verified%)', out)
    matches('loaded it %(version 0%.1%.0%): :Do works now', out)
    matches('WINDOW popup', out)
    matches('TABSTOP 4', out)
    matches('AGAIN leash: installed .*restart Neovim to use it', out)
  end)
end)
