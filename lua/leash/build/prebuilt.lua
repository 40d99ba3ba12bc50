--- Prebuilt native libraries: which release asset fits this machine and this checkout,
--- and downloading it with curl (with deadlines, off the main loop), then checking its
--- SHA-256 against the checksum file published beside it.
---
--- A release `vX.Y.Z` carries, for each target of |M.targets|, the library
--- `leash_native-<triple><ext>` and `leash_native-<triple><ext>.sha256` (`sha256sum`
--- format). `.github/workflows/release.yml` builds them with the same
--- `cargo build --release` that `:Leash build` runs. The checksum comes from the same
--- place as the library: it catches a truncated or corrupted download, it is not a
--- signature.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.PrebuiltTarget
---@field os string `jit.os`
---@field arch string `jit.arch`
---@field triple string Rust target triple the release workflow builds
---@field ext string suffix cargo gives the library on that OS

--- Every target a release carries (the release workflow builds exactly these).
---@type leash.PrebuiltTarget[]
M.targets = {
  { os = 'Linux', arch = 'x64', triple = 'x86_64-unknown-linux-gnu', ext = '.so' },
  { os = 'Linux', arch = 'arm64', triple = 'aarch64-unknown-linux-gnu', ext = '.so' },
  { os = 'OSX', arch = 'x64', triple = 'x86_64-apple-darwin', ext = '.dylib' },
  { os = 'OSX', arch = 'arm64', triple = 'aarch64-apple-darwin', ext = '.dylib' },
  { os = 'Windows', arch = 'x64', triple = 'x86_64-pc-windows-msvc', ext = '.dll' },
}

--- Deadlines of one download, in seconds. Tests shorten them.
M.timeouts = { connect = 10, total = 120 }

--- Name of the release asset for a target.
---@param target leash.PrebuiltTarget
---@return string
function M.asset(target) return 'leash_native-' .. target.triple .. target.ext end

--- The target of this machine, or why there is none.
---@param sys? { os?: string, arch?: string, musl?: boolean } defaults: this machine
---@return leash.PrebuiltTarget? target
---@return string? why
function M.target(sys)
  sys = sys or {}
  local os, arch = sys.os or jit.os, sys.arch or jit.arch
  local musl = sys.musl
  if musl == nil then musl = os == 'Linux' and H.is_musl() end
  if musl then return nil, ('no prebuilt library for musl Linux (%s)'):format(arch) end
  for _, t in ipairs(M.targets) do
    if t.os == os and t.arch == arch then return t end
  end
  return nil, ('no prebuilt library for %s %s'):format(os, arch)
end

---@class leash.Release
---@field tag string `v` .. the plugin's version
---@field target leash.PrebuiltTarget
---@field url string the library
---@field sum_url string its checksum file

--- Which release asset to download for the checkout at `root`, or why none fits.
--- Only a checkout that is exactly the release (its tag points at HEAD) takes the
--- release's library: a later commit may call functions that library lacks. A
--- directory without `.git` (an unpacked release archive) is taken at its version.
---@param root string
---@param version string the Lua side's version
---@param on_done fun(release?: leash.Release, why?: string)
function M.release(root, version, on_done)
  local target, why = M.target()
  if not target then return on_done(nil, why) end
  local tag = 'v' .. version
  local function with_base(base)
    if not base then
      return on_done(
        nil,
        'no download location: the plugin was not cloned from GitHub (set $LEASH_PREBUILT_URL or g:leash_prebuilt_url)'
      )
    end
    local url = ('%s/%s/%s'):format(base:gsub('/+$', ''), tag, M.asset(target))
    on_done({ tag = tag, target = target, url = url, sum_url = url .. '.sha256' })
  end

  local override = H.override_url()
  if not vim.uv.fs_stat(root .. '/.git') then return with_base(override) end
  H.git(root, { 'tag', '--points-at', 'HEAD' }, function(tags)
    if not vim.tbl_contains(vim.split(tags or '', '\n', { trimempty = true }), tag) then
      return H.git(
        root,
        { 'describe', '--tags', '--long', '--match', 'v[0-9]*', 'HEAD' },
        function(described) on_done(nil, M.not_a_release(tag, described, H.lazy_hint(root))) end
      )
    end
    if override then return with_base(override) end
    H.git(root, { 'config', '--get', 'remote.origin.url' }, function(origin) with_base(M.github_base(origin)) end)
  end)
end

--- Why a checkout whose HEAD is not tagged `tag` gets no prebuilt library, from
--- `git describe --tags --long` of HEAD (nil: no release tag before HEAD).
---@param tag string the release this Lua code is (`v` .. version)
---@param described? string `v0.1.0-3-gabc1234`
---@param hint? string how to follow releases, said only for a checkout after one
---@return string
function M.not_a_release(tag, described, hint)
  local last, ahead = (described or ''):match('^(v[%w%.%-]-)%-(%d+)%-g%x+%s*$')
  if not last then
    return 'this checkout has no release before it (no v* tag), and prebuilt libraries exist for releases only'
  end
  ahead = tonumber(ahead)
  if ahead == 0 then return ('this checkout is tagged %s, but its Lua code is %s'):format(last, tag) end
  return ('this checkout is %d commit%s after the release %s, and prebuilt libraries exist for release commits only%s'):format(
    ahead,
    ahead == 1 and '' or 's',
    last,
    hint and (' (%s)'):format(hint) or ''
  )
end

--- The releases download root of a GitHub remote URL, or nil.
---@param remote? string
---@return string?
function M.github_base(remote)
  if not remote then return nil end
  remote = vim.trim(remote)
  local path = remote:match('^https?://github%.com/(.+)$')
    or remote:match('^git@github%.com:(.+)$')
    or remote:match('^ssh://git@github%.com/(.+)$')
  if not path then return nil end
  local owner, name = path:gsub('%.git$', ''):gsub('/+$', ''):match('^([%w%.%-_]+)/([%w%.%-_]+)$')
  if not owner then return nil end
  return ('https://github.com/%s/%s/releases/download'):format(owner, name)
end

--- Download `release` into `dest` and check its SHA-256. `on_done(true)` leaves the
--- verified file at `dest`; on any failure `dest` is removed and `on_done(false, why)`
--- says why. Callbacks run on the main loop; nothing here waits on the network.
---@param release leash.Release
---@param dest string
---@param on_done fun(ok: boolean, why?: string)
---@return { cancel: fun() } handle
function M.download(release, dest, on_done)
  local handle = { cancelled = false }
  local function fail(why)
    vim.uv.fs_unlink(dest)
    on_done(false, why)
  end
  function handle.cancel()
    handle.cancelled = true
    if handle.proc then handle.proc:kill('sigterm') end
  end
  if vim.fn.executable('curl') ~= 1 then
    on_done(false, 'curl is not on PATH')
    return handle
  end

  handle.proc = H.curl({ release.sum_url }, function(sum, err)
    if handle.cancelled then return fail('cancelled') end
    if not sum then return fail(err) end
    local expected = (sum:match('^%s*(%x+)') or ''):lower()
    if #expected ~= 64 then return fail(('%s is not a SHA-256 checksum file'):format(release.sum_url)) end
    handle.proc = H.curl({ '--output', dest, release.url }, function(_, derr)
      if handle.cancelled then return fail('cancelled') end
      if derr then return fail(derr) end
      require('leash.build.sha256').file(dest, function(actual, herr)
        if handle.cancelled then return fail('cancelled') end
        if not actual then return fail('cannot read the download: ' .. tostring(herr)) end
        if actual ~= expected then
          return fail(
            ('checksum mismatch for %s: expected %s, got %s (a corrupt download)'):format(
              M.asset(release.target),
              expected,
              actual
            )
          )
        end
        on_done(true)
      end)
    end)
  end)
  return handle
end

-- Helper functionality =======================================================

function H.override_url()
  local url = vim.env.LEASH_PREBUILT_URL
  if url == nil or url == '' then url = vim.g.leash_prebuilt_url end
  if type(url) == 'string' and url ~= '' then return url end
end

function H.is_musl()
  if vim.uv.fs_stat('/etc/alpine-release') then return true end
  return #vim.fn.glob('/lib/ld-musl-*', false, true) > 0
end

--- Run git in `root`; `on_done(stdout)` on the main loop (nil when git failed).
function H.git(root, args, on_done)
  local ok = pcall(vim.system, vim.list_extend({ 'git', '-C', root }, args), { text = true }, function(res)
    vim.schedule(function() on_done(res.code == 0 and res.stdout or nil) end)
  end)
  if not ok then on_done(nil) end
end

--- curl with deadlines, following redirects, HTTP(S) only. `on_done(stdout)` on
--- success, `on_done(nil, why)` with a sentence for the user otherwise.
---@return vim.SystemObj?
function H.curl(args, on_done)
  local t = M.timeouts
  local cmd = {
    'curl',
    '--fail',
    '--location',
    '--silent',
    '--show-error',
    '--proto',
    '=http,https',
    '--connect-timeout',
    tostring(t.connect),
    '--max-time',
    tostring(t.total),
  }
  vim.list_extend(cmd, args)
  local url = args[#args]
  local ok, proc = pcall(vim.system, cmd, { text = true, timeout = (t.total + 5) * 1000 }, function(res)
    vim.schedule(function()
      if res.code == 0 then return on_done(res.stdout) end
      on_done(nil, H.curl_error(url, res))
    end)
  end)
  if not ok then
    on_done(nil, 'could not start curl: ' .. tostring(proc))
    return nil
  end
  return proc
end

--- A sentence for a failed curl run (exit codes from `man curl`).
function H.curl_error(url, res)
  local stderr = vim.trim(res.stderr or '')
  local status = stderr:match('error: (%d%d%d)')
  if res.code == 22 and status then return ('%s answered HTTP %s'):format(url, status) end
  if res.code == 6 or res.code == 7 then return ('cannot reach %s (no network?): %s'):format(url, stderr) end
  if res.code == 28 or res.code == 124 then
    return ('the download of %s timed out (deadline %d s): %s'):format(url, M.timeouts.total, stderr)
  end
  return ('curl failed on %s (exit %d): %s'):format(url, res.code, stderr)
end

--- How to get release checkouts, when lazy.nvim installed the plugin at `root` on a
--- branch it did not ask for: nil for a spec that sets a version, tag, commit or
--- branch (the user chose it), a `dir =` checkout (never updated), another manager.
---@param root string
---@return string?
function H.lazy_hint(root)
  local plugins = require('leash.lazy').plugins()
  local function real(path) return vim.uv.fs_realpath(path) or vim.fs.normalize(path) end
  local here = real(root)
  for _, p in pairs(plugins) do
    if type(p) == 'table' and type(p.dir) == 'string' and real(p.dir) == here then
      if (type(p._) == 'table' and p._.is_local) or p.version or p.tag or p.commit or p.branch then return nil end
      return "with lazy.nvim, version = '*' follows releases"
    end
  end
  return nil
end

return M
