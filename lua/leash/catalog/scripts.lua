--- Catalog source: the project's own scripts, id `script:<runner>:<name>`.
---
--- Runners: package.json scripts (with the package manager its lockfile names), Makefile
--- targets, justfile recipes, Cargo (build, test, run, clippy, fmt, the workspace's
--- binaries and members), Python (pytest, tox and nox sessions, [project.scripts]), Go
--- (test, build, run) and `.vscode/tasks.json` tasks.
---
--- Discovery only reads files: it never runs `cargo metadata`, `make -pn`, `just
--- --list` or a Python interpreter, because listing what a project can do must not run
--- the project's code. Parsing is therefore approximate (a line-based TOML reader, a
--- Makefile rule pattern) and errs on the side of offering fewer items. Every file read
--- is cached by path, modification time and size, so a catalog rebuild costs one stat
--- per candidate file.
---
--- Every item runs a program, so every item is `shell`. Each entry carries the argv it
--- runs (`cmd`) and the directory it runs in (`cwd`); the title is that command line, so
--- the plan window shows exactly what will run. See lua/leash/actions/scripts.lua.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Script items for the project around `dir` (default: the current directory).
---@param opts? { dir?: string }
---@return table[]
function M.entries(opts)
  local dir = (opts and opts.dir) or vim.uv.cwd()
  if not dir then return {} end
  local root = M.root(dir)
  if not root then return {} end
  local out, seen = {}, {}
  local function add(e)
    if e and not seen[e.id] then
      seen[e.id] = true
      out[#out + 1] = e
    end
  end
  for _, runner in ipairs(H.runners) do
    local ok, list = pcall(runner, root)
    if ok then
      for _, e in ipairs(list or {}) do
        add(e)
      end
    end
  end
  -- The runners read these files again when they run (`npm run x` reads package.json,
  -- `make x` the Makefile): the action refuses an item whose files changed after the
  -- plan was shown.
  local pin = M.fingerprint(root)
  for _, e in ipairs(out) do
    e.pin, e.root = pin, root
  end
  return out
end

--- What the project's script files hold now (a hash of every file the runners read, or
--- of `.vscode/tasks.json`), read through the parse cache unless `fresh`.
---@param root string
---@param fresh? boolean read the files again whatever their time stamps say
---@return string
function M.fingerprint(root, fresh)
  local parts = {}
  for _, name in ipairs(H.definition_files) do
    local hash = H.file_hash(root .. '/' .. name, fresh)
    if hash then parts[#parts + 1] = name .. '\0' .. hash end
  end
  return table.concat(parts, '\1')
end

--- The project root: the nearest directory at or above `dir` holding a script file.
---@param dir string
---@return string?
function M.root(dir) return vim.fs.root(dir, H.markers) end

--- Forget every parsed file (tests).
function M.reset()
  H.cache, H.hashes = {}, {}
end

-- Helper data ================================================================

H.markers = {
  'package.json',
  'Cargo.toml',
  'pyproject.toml',
  'go.mod',
  'Makefile',
  'makefile',
  'GNUmakefile',
  'justfile',
  'Justfile',
  '.justfile',
  'tox.ini',
  'noxfile.py',
  '.vscode',
}

--- The files the runners read (pinned by |M.fingerprint()|): the markers, with the
--- task file for `.vscode`.
H.definition_files = vim.tbl_map(function(m) return m == '.vscode' and '.vscode/tasks.json' or m end, H.markers)

---@type table<string, { mtime: integer, nsec: integer, size: integer, value: any }>
H.cache = {}

---@type table<string, { mtime: integer, nsec: integer, size: integer, hash: string }>
H.hashes = {}

-- Lockfile → package manager, first match wins.
H.lockfiles = {
  { 'pnpm-lock.yaml', 'pnpm' },
  { 'yarn.lock', 'yarn' },
  { 'bun.lockb', 'bun' },
  { 'bun.lock', 'bun' },
  { 'package-lock.json', 'npm' },
  { 'npm-shrinkwrap.json', 'npm' },
}

-- What a conventional script name means, in the words people use to ask for it. The
-- ranker matches requests against titles, aliases and descriptions; a title such as
-- "pnpm run test" alone would not match "run the tests" well.
H.meanings = {
  test = { 'run the tests', 'test suite', 'unit tests' },
  tests = { 'run the tests', 'test suite' },
  spec = { 'run the tests', 'specs' },
  check = { 'check the code', 'type check' },
  build = { 'build the project', 'compile' },
  compile = { 'compile', 'build the project' },
  run = { 'run the program', 'start the app' },
  start = { 'start the app', 'run the program' },
  dev = { 'start the dev server', 'development mode' },
  serve = { 'start the server', 'serve' },
  lint = { 'lint the code', 'linter' },
  clippy = { 'lint the code', 'linter' },
  fmt = { 'format the code', 'formatter' },
  format = { 'format the code', 'formatter' },
  clean = { 'clean build artifacts' },
  bench = { 'run the benchmarks' },
  doc = { 'build the documentation' },
  docs = { 'build the documentation' },
  install = { 'install dependencies' },
  deploy = { 'deploy' },
  typecheck = { 'type check' },
  e2e = { 'run the end-to-end tests' },
}

-- Helper functionality =======================================================

--- One item. `argv` is what runs, `name` the script's own name.
---@param runner string
---@param name string
---@param argv string[]
---@param cwd string
---@param extra? { args?: string, description?: string, meaning?: string }
function H.item(runner, name, argv, cwd, extra)
  extra = extra or {}
  local meaning = H.meanings[extra.meaning or name:lower()] or {}
  local desc = extra.description or ''
  if meaning[1] then desc = (desc ~= '' and (desc .. '. ') or '') .. 'Meaning: ' .. table.concat(meaning, ', ') end
  return {
    id = ('script:%s:%s'):format(runner, H.id_part(name)),
    kind = 'script',
    title = table.concat(argv, ' '),
    aliases = vim.deepcopy(meaning),
    args = extra.args or 'none',
    reach = 'shell', -- runs a program; see the file header
    description = H.trim(desc),
    cmd = argv,
    cwd = cwd,
  }
end

--- Ids keep names readable but drop characters that would make them ambiguous to type.
function H.id_part(name) return (name:gsub('[^%w_.:@/+-]', '-')) end

function H.trim(s)
  s = vim.trim((s or ''):gsub('%s+', ' '))
  if #s > 300 then s = s:sub(1, 297) .. '...' end
  return s
end

--- Read and parse `path`, reusing the last result while its mtime and size are unchanged.
---@param path string
---@param parse fun(text: string, path: string): any
---@return any? value nil when the file does not exist or cannot be read
function H.read(path, parse)
  local st = vim.uv.fs_stat(path)
  if not st or st.type ~= 'file' then
    H.cache[path] = nil
    return nil
  end
  local c = H.cache[path]
  if c and c.mtime == st.mtime.sec and c.nsec == st.mtime.nsec and c.size == st.size and c.parse == parse then
    return c.value
  end
  local f = io.open(path, 'rb')
  if not f then return nil end
  local text = f:read('*a') or ''
  f:close()
  local ok, value = pcall(parse, text, path)
  if not ok then value = nil end
  H.cache[path] = { mtime = st.mtime.sec, nsec = st.mtime.nsec, size = st.size, parse = parse, value = value }
  -- The fingerprint of the same text, so pinning it reads nothing more.
  H.hashes[path] = { mtime = st.mtime.sec, nsec = st.mtime.nsec, size = st.size, hash = vim.fn.sha256(text) }
  return value
end

--- The SHA-256 of a file's content, cached by time stamp and size unless `fresh`; nil
--- when it is not a readable file.
function H.file_hash(path, fresh)
  local st = vim.uv.fs_stat(path)
  if not st or st.type ~= 'file' then
    H.hashes[path] = nil
    return nil
  end
  local c = H.hashes[path]
  if not fresh and c and c.mtime == st.mtime.sec and c.nsec == st.mtime.nsec and c.size == st.size then
    return c.hash
  end
  local f = io.open(path, 'rb')
  if not f then return nil end
  local text = f:read('*a') or ''
  f:close()
  local hash = vim.fn.sha256(text)
  H.hashes[path] = { mtime = st.mtime.sec, nsec = st.mtime.nsec, size = st.size, hash = hash }
  return hash
end

function H.exists(path) return vim.uv.fs_stat(path) ~= nil end

function H.is_dir(path)
  local st = vim.uv.fs_stat(path)
  return st ~= nil and st.type == 'directory'
end

function H.identity(text) return text end

-- package.json ---------------------------------------------------------------

function H.parse_json(text) return vim.json.decode(text, { luanil = { object = true, array = true } }) end

function H.node(root)
  local pkg = H.read(root .. '/package.json', H.parse_json)
  if type(pkg) ~= 'table' or type(pkg.scripts) ~= 'table' then return {} end
  local pm = H.node_manager(root, pkg)
  local names = vim.tbl_keys(pkg.scripts)
  table.sort(names)
  local out = {}
  for _, name in ipairs(names) do
    local body = pkg.scripts[name]
    if type(name) == 'string' and type(body) == 'string' and not name:find('^pre') and not name:find('^post') then
      -- `npm run x` works for every manager and never collides with a builtin
      -- subcommand (`pnpm test` would, for some names).
      out[#out + 1] = H.item(pm, name, { pm, 'run', name }, root, {
        args = 'optional',
        description = ('package.json script %q: %s'):format(name, body),
      })
    end
  end
  return out
end

function H.node_manager(root, pkg)
  for _, l in ipairs(H.lockfiles) do
    if H.exists(root .. '/' .. l[1]) then return l[2] end
  end
  local declared = type(pkg.packageManager) == 'string' and pkg.packageManager:match('^(%a+)@') or nil
  if declared == 'pnpm' or declared == 'yarn' or declared == 'bun' or declared == 'npm' then return declared end
  return 'npm'
end

-- Makefile --------------------------------------------------------------------

--- Targets in rule order, with the comment just above each (or a `## help` suffix).
function H.parse_make(text)
  local targets, seen, comment = {}, {}, nil
  for line in (text .. '\n'):gmatch('(.-)\r?\n') do
    if line:match('^#') then
      comment = line:gsub('^#+%s*', '')
    elseif line:match('^[^%s#=]') and not line:match('^%.') then
      local lhs, rest = line:match('^([^:=]+):(.*)$')
      -- `a: b` is a rule; `a := b` and `a ::= b` are assignments, `a:b` inside a
      -- variable reference is not a rule either.
      if lhs and not rest:match('^=') and not rest:match('^:=') and not lhs:find('[%$%%]') then
        local help = rest:match('##%s*(.-)%s*$')
        for name in lhs:gmatch('%S+') do
          if not seen[name] and name:match('^[%w_][%w_./-]*$') and not name:find('=') then
            seen[name] = true
            targets[#targets + 1] = { name = name, help = help or comment }
          end
        end
      end
      comment = nil
    elseif not line:match('^\t') then
      comment = nil
    end
  end
  return targets
end

function H.make(root)
  local out = {}
  for _, file in ipairs({ 'GNUmakefile', 'makefile', 'Makefile' }) do
    local targets = H.read(root .. '/' .. file, H.parse_make)
    if targets then
      for _, t in ipairs(targets) do
        out[#out + 1] = H.item('make', t.name, { 'make', t.name }, root, {
          description = ('%s target%s'):format(file, t.help and (': ' .. t.help) or ''),
        })
      end
      break -- make itself reads only the first of these it finds
    end
  end
  return out
end

-- justfile --------------------------------------------------------------------

function H.parse_just(text)
  local recipes, comment, private = {}, nil, false
  for line in (text .. '\n'):gmatch('(.-)\r?\n') do
    if line:match('^#') then
      comment = line:gsub('^#+%s*', '')
    elseif line:match('^%[') then
      if line:find('private') then private = true end
    elseif line:match('^[@%a_]') then
      local name, params, rest = line:match('^@?([%a_][%w_-]*)(.-):(.*)$')
      if name and not rest:match('^=') and not params:find('=%s*[^%s]*:=') and not line:match('^%w+%s*:=') then
        if
          not private
          and not name:find('^_')
          and not vim.tbl_contains({ 'set', 'alias', 'export', 'import', 'mod' }, name)
        then
          recipes[#recipes + 1] = { name = name, params = vim.trim(params) ~= '', help = comment }
        end
      end
      comment, private = nil, false
    elseif not line:match('^%s') then
      comment, private = nil, false
    end
  end
  return recipes
end

function H.just(root)
  for _, file in ipairs({ 'justfile', 'Justfile', '.justfile' }) do
    local recipes = H.read(root .. '/' .. file, H.parse_just)
    if recipes then
      local out = {}
      for _, r in ipairs(recipes) do
        out[#out + 1] = H.item('just', r.name, { 'just', r.name }, root, {
          args = r.params and 'optional' or 'none',
          description = ('justfile recipe%s'):format(r.help and (': ' .. r.help) or ''),
        })
      end
      return out
    end
  end
  return {}
end

-- TOML (the subset Cargo.toml and pyproject.toml need) -------------------------

--- Sections as `{ name = 'package', array = false, keys = { name = 'x' } }`, in order.
--- Values: strings, booleans, numbers and arrays of those (arrays may span lines);
--- anything else (inline tables, dates) is kept as its raw text.
function H.parse_toml(text)
  local sections = { { name = '', array = false, keys = {} } }
  local cur = sections[1]
  local pending_key, pending = nil, nil
  for line in (text .. '\n'):gmatch('(.-)\r?\n') do
    if pending then
      pending = pending .. ' ' .. H.strip_comment(line)
      if H.array_closed(pending) then
        cur.keys[pending_key] = H.toml_value(pending)
        pending_key, pending = nil, nil
      end
    else
      local s = vim.trim(H.strip_comment(line))
      local arr = s:match('^%[%[%s*(.-)%s*%]%]$')
      local tbl = not arr and s:match('^%[%s*(.-)%s*%]$')
      if arr or tbl then
        cur = { name = H.unquote_key(arr or tbl), array = arr ~= nil, keys = {} }
        sections[#sections + 1] = cur
      else
        local key, value = s:match('^([%w_.%-"\']+)%s*=%s*(.-)$')
        if key then
          key = H.unquote_key(key)
          if value:match('^%[') and not H.array_closed(value) then
            pending_key, pending = key, value
          else
            cur.keys[key] = H.toml_value(value)
          end
        end
      end
    end
  end
  return sections
end

function H.unquote_key(k) return (k:gsub('"', ''):gsub("'", '')) end

--- Drop a `#` comment that is not inside a string.
function H.strip_comment(line)
  local quote
  for i = 1, #line do
    local c = line:sub(i, i)
    if quote then
      if c == quote then quote = nil end
    elseif c == '"' or c == "'" then
      quote = c
    elseif c == '#' then
      return line:sub(1, i - 1)
    end
  end
  return line
end

function H.array_closed(s)
  local depth, quote = 0, nil
  for i = 1, #s do
    local c = s:sub(i, i)
    if quote then
      if c == quote then quote = nil end
    elseif c == '"' or c == "'" then
      quote = c
    elseif c == '[' then
      depth = depth + 1
    elseif c == ']' then
      depth = depth - 1
    end
  end
  return depth <= 0
end

function H.toml_value(v)
  v = vim.trim(v)
  local s = v:match('^"(.-)"$') or v:match("^'(.-)'$")
  if s then return s end
  if v == 'true' then return true end
  if v == 'false' then return false end
  if v:match('^%[') then
    local list = {}
    for q, item in v:gmatch('(["\'])(.-)%1') do
      local _ = q
      list[#list + 1] = item
    end
    return list
  end
  return tonumber(v) or v
end

--- Every section named `name` (array tables give several).
function H.sections(doc, name)
  return vim.tbl_filter(function(s) return s.name == name end, doc or {})
end

function H.section(doc, name) return H.sections(doc, name)[1] end

-- Cargo -----------------------------------------------------------------------

function H.cargo(root)
  local doc = H.read(root .. '/Cargo.toml', H.parse_toml)
  if not doc then return {} end
  local out = {
    H.item('cargo', 'build', { 'cargo', 'build' }, root, { description = 'Compiles the crate or workspace' }),
    H.item('cargo', 'test', { 'cargo', 'test' }, root, {
      args = 'optional',
      description = 'Runs the Rust tests (unit, integration and doc tests); an argument filters test names',
    }),
    H.item(
      'cargo',
      'run',
      { 'cargo', 'run' },
      root,
      { args = 'optional', description = 'Builds and runs the default binary' }
    ),
    H.item('cargo', 'clippy', { 'cargo', 'clippy' }, root, { description = 'Lints the Rust code with clippy' }),
    H.item('cargo', 'fmt', { 'cargo', 'fmt' }, root, { description = 'Formats the Rust code with rustfmt' }),
  }
  local bins, packages = {}, {}
  H.cargo_package(root, doc, bins, packages)
  local ws = H.section(doc, 'workspace')
  if ws and type(ws.keys.members) == 'table' then
    for _, pattern in ipairs(ws.keys.members) do
      for _, dir in ipairs(vim.fn.glob(root .. '/' .. pattern, false, true)) do
        local mdoc = H.read(dir .. '/Cargo.toml', H.parse_toml)
        if mdoc then H.cargo_package(dir, mdoc, bins, packages) end
      end
    end
  end
  if #packages > 1 then
    for _, p in ipairs(packages) do
      out[#out + 1] = H.item('cargo', 'test-' .. p, { 'cargo', 'test', '-p', p }, root, {
        args = 'optional',
        meaning = 'test',
        description = ('Runs the tests of the workspace member %s'):format(p),
      })
    end
  end
  for _, b in ipairs(bins) do
    out[#out + 1] = H.item('cargo', 'run-' .. b, { 'cargo', 'run', '--bin', b }, root, {
      args = 'optional',
      meaning = 'run',
      description = ('Builds and runs the binary %s'):format(b),
    })
  end
  return out
end

--- Collect the package name and binaries of one Cargo.toml.
function H.cargo_package(dir, doc, bins, packages)
  local pkg = H.section(doc, 'package')
  local name = pkg and type(pkg.keys.name) == 'string' and pkg.keys.name or nil
  if not name then return end
  packages[#packages + 1] = name
  local seen = {}
  local function add(b)
    if b and b:match('^[%w_-]+$') and not seen[b] then
      seen[b] = true
      bins[#bins + 1] = b
    end
  end
  for _, s in ipairs(H.sections(doc, 'bin')) do
    add(type(s.keys.name) == 'string' and s.keys.name or nil)
  end
  if H.exists(dir .. '/src/main.rs') then add(name) end
  for _, f in ipairs(vim.fn.glob(dir .. '/src/bin/*.rs', false, true)) do
    add(vim.fn.fnamemodify(f, ':t:r'))
  end
end

-- Python ----------------------------------------------------------------------

--- The prefix that runs a tool inside the project's environment.
function H.python_prefix(root)
  if H.exists(root .. '/uv.lock') then return { 'uv', 'run' } end
  if H.exists(root .. '/poetry.lock') then return { 'poetry', 'run' } end
  if H.exists(root .. '/pdm.lock') then return { 'pdm', 'run' } end
  return {}
end

function H.python(root)
  local doc = H.read(root .. '/pyproject.toml', H.parse_toml)
  local out = {}
  local prefix = H.python_prefix(root)
  local function argv(...) return vim.list_extend(vim.deepcopy(prefix), { ... }) end
  if H.pytest_configured(root, doc) then
    out[#out + 1] = H.item('python', 'pytest', argv('pytest'), root, {
      args = 'optional',
      meaning = 'test',
      description = 'Runs the Python tests with pytest',
    })
  end
  local scripts = H.section(doc, 'project.scripts')
  if scripts then
    local names = vim.tbl_keys(scripts.keys)
    table.sort(names)
    for _, name in ipairs(names) do
      if name:match('^[%w_.-]+$') and type(scripts.keys[name]) == 'string' then
        out[#out + 1] = H.item('python', name, argv(name), root, {
          args = 'optional',
          description = ('[project.scripts] entry point %s = %s'):format(name, scripts.keys[name]),
        })
      end
    end
  end
  local envs = H.read(root .. '/tox.ini', H.parse_tox)
  if envs then
    out[#out + 1] =
      H.item('tox', 'all', argv('tox'), root, { meaning = 'test', description = 'Runs every tox environment' })
    for _, env in ipairs(envs) do
      out[#out + 1] = H.item('tox', env, argv('tox', '-e', env), root, { description = 'tox environment ' .. env })
    end
  end
  local sessions = H.read(root .. '/noxfile.py', H.parse_nox)
  if sessions then
    for _, s in ipairs(sessions) do
      out[#out + 1] = H.item('nox', s, argv('nox', '-s', s), root, { description = 'nox session ' .. s })
    end
  end
  return out
end

function H.pytest_configured(root, doc)
  if H.section(doc, 'tool.pytest.ini_options') or H.section(doc, 'tool.pytest') then return true end
  if H.exists(root .. '/pytest.ini') or H.exists(root .. '/conftest.py') then return true end
  if (H.is_dir(root .. '/tests') or H.is_dir(root .. '/test')) and (doc or H.exists(root .. '/setup.py')) then
    return true
  end
  local cfg = H.read(root .. '/setup.cfg', H.identity)
  if cfg and cfg:find('%[tool:pytest%]') then return true end
  local tox = H.read(root .. '/tox.ini', H.identity)
  return tox ~= nil and tox:find('%[pytest%]') ~= nil
end

function H.parse_tox(text)
  local envs, seen = {}, {}
  local function add(e)
    e = vim.trim(e)
    if e:match('^[%w_.-]+$') and not seen[e] then
      seen[e] = true
      envs[#envs + 1] = e
    end
  end
  local list = text:match('\n%s*envlist%s*=%s*([^\n]*)') or text:match('^%s*envlist%s*=%s*([^\n]*)')
  if list and not list:find('{') then
    for e in list:gmatch('[^,%s]+') do
      add(e)
    end
  end
  for e in text:gmatch('%[testenv:([^%]]+)%]') do
    add(e)
  end
  return envs
end

function H.parse_nox(text)
  local sessions = {}
  for name in text:gmatch('@nox%.session[^\n]*\n%s*def%s+([%w_]+)') do
    sessions[#sessions + 1] = name
  end
  return sessions
end

-- Go --------------------------------------------------------------------------

function H.go(root)
  if not H.exists(root .. '/go.mod') then return {} end
  local out = {
    H.item(
      'go',
      'test',
      { 'go', 'test', './...' },
      root,
      { args = 'optional', description = 'Runs the Go tests of every package' }
    ),
    H.item('go', 'build', { 'go', 'build', './...' }, root, { description = 'Compiles every Go package' }),
  }
  if H.exists(root .. '/main.go') then
    out[#out + 1] = H.item(
      'go',
      'run',
      { 'go', 'run', '.' },
      root,
      { args = 'optional', description = 'Runs the main package' }
    )
  end
  for _, dir in ipairs(vim.fn.glob(root .. '/cmd/*', false, true)) do
    local name = vim.fn.fnamemodify(dir, ':t')
    if H.is_dir(dir) and name:match('^[%w_.-]+$') then
      out[#out + 1] = H.item('go', 'run-' .. name, { 'go', 'run', './cmd/' .. name }, root, {
        args = 'optional',
        meaning = 'run',
        description = 'Runs the command ' .. name,
      })
    end
  end
  return out
end

-- .vscode/tasks.json ------------------------------------------------------------

--- JSON with comments and trailing commas, as VS Code writes it.
function H.parse_jsonc(text)
  local out, i, n, quote = {}, 1, #text, false
  while i <= n do
    local c = text:sub(i, i)
    if quote then
      out[#out + 1] = c
      if c == '\\' then
        out[#out + 1] = text:sub(i + 1, i + 1)
        i = i + 1
      elseif c == '"' then
        quote = false
      end
    elseif c == '"' then
      quote = true
      out[#out + 1] = c
    elseif text:sub(i, i + 1) == '//' then
      local e = text:find('\n', i, true) or n
      i = e - 1
    elseif text:sub(i, i + 1) == '/*' then
      local e = text:find('*/', i + 2, true) or n
      i = e + 1
    else
      out[#out + 1] = c
    end
    i = i + 1
  end
  local clean = table.concat(out):gsub(',(%s*[%]}])', '%1')
  return H.parse_json(clean)
end

function H.vscode(root)
  local doc = H.read(root .. '/.vscode/tasks.json', H.parse_jsonc)
  if type(doc) ~= 'table' or type(doc.tasks) ~= 'table' then return {} end
  local out = {}
  for _, t in ipairs(doc.tasks) do
    local e = type(t) == 'table' and H.vscode_task(root, t)
    if e then out[#out + 1] = e end
  end
  return out
end

--- A `shell` or `process` task as an item, or nil when it cannot be resolved without
--- VS Code (input variables, the current file, an npm task already listed).
function H.vscode_task(root, t)
  local label = type(t.label) == 'string' and t.label or (type(t.taskName) == 'string' and t.taskName)
  local kind = t.type or 'process'
  if not label or (kind ~= 'shell' and kind ~= 'process') then return nil end
  local function value(v)
    if type(v) == 'table' then v = v.value end
    if type(v) ~= 'string' then return nil end
    v = v:gsub('%${workspaceFolder}', root):gsub('%${workspaceRoot}', root)
    if v:find('${', 1, true) then return nil end
    return v
  end
  local command = value(t.command)
  if not command or command == '' then return nil end
  local args = {}
  for _, a in ipairs(type(t.args) == 'table' and t.args or {}) do
    local v = value(a)
    if not v then return nil end
    args[#args + 1] = v
  end
  local cwd = root
  if type(t.options) == 'table' and t.options.cwd ~= nil then
    cwd = value(t.options.cwd)
    if not cwd then return nil end
  end
  local argv
  if kind == 'shell' then
    -- A shell task is a command line by definition; it runs in sh (cmd.exe on Windows)
    -- exactly as shown in the title.
    local line = table.concat(vim.list_extend({ command }, args), ' ')
    argv = jit.os == 'Windows' and { 'cmd.exe', '/d', '/c', line } or { 'sh', '-c', line }
  else
    argv = vim.list_extend({ command }, args)
  end
  local group = type(t.group) == 'table' and t.group.kind or t.group
  return H.item('vscode', label, argv, cwd, {
    meaning = type(group) == 'string' and group or label:lower(),
    description = ('.vscode/tasks.json task %q'):format(label),
  })
end

H.runners = { H.node, H.make, H.just, H.cargo, H.python, H.go, H.vscode }

return M
