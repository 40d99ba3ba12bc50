-- Reproduces the injection/option experiments quoted in doc/reach.md (section 4).
--   nvim --headless -u NONE -i NONE -l scripts/reach-repro.lua
-- Every probe tries to create a marker file in a fresh temp dir; "EXEC" means the
-- marker appeared (code/shell ran), "-" means it did not.  Nothing outside the
-- temp dir is touched (the probes only create empty files there).
local D = vim.fn.tempname() .. '-secrepro'
vim.fn.mkdir(D .. '/evil/c1', 'p')
vim.fn.mkdir(D .. '/evil/c2', 'p')
vim.fn.mkdir(D .. '/evil/c3', 'p')
vim.fn.mkdir(D .. '/rtp/ftplugin', 'p')
vim.cmd.cd(D)
vim.o.shortmess = vim.o.shortmess .. 'cF'
local function W(m) return ('writefile([], "%s/%s")'):format(D, m) end
local function T(m) return ('touch %s/%s'):format(D, m) end
vim.fn.writefile({ 'call ' .. W('colorscheme_trav') }, D .. '/evil/c1/x.vim')
vim.fn.writefile({ 'call ' .. W('compiler_trav') }, D .. '/evil/c2/x.vim')
vim.fn.writefile({ 'call ' .. W('syntax_include') }, D .. '/evil/c3/x.vim')
vim.fn.writefile({ ('vim.fn.writefile({}, "%s/rtp_ftplugin")'):format(D) }, D .. '/rtp/ftplugin/evilft.lua')
vim.fn.writefile(
  { 'hello world', 'zzzqx misspelt', '/* vim: set complete=F{->system("touch\\ ' .. D .. '/modeline_complete")} : */' },
  D .. '/ml.txt'
)
vim.fn.writefile({ 'foo\tbuf.txt\t:call ' .. W('tag_address') }, D .. '/tags')
vim.fn.writefile({ 'hello world' }, D .. '/buf.txt')
local TRAV = string.rep('../', 12) .. D:sub(2) .. '/evil/'

local function fresh()
  pcall(vim.cmd, 'silent! only | silent! tabonly | silent! %bwipeout!')
  vim.cmd('silent edit! ' .. D .. '/buf.txt')
  vim.cmd.cd(D)
end
local function probe(id, desc, marker, fn)
  fresh()
  local ok, err = pcall(fn)
  vim.wait(300)
  local hit = marker and vim.uv.fs_stat(D .. '/' .. marker) ~= nil
  local msg = tostring(err):gsub('\n', ' ')
  local note = ok and '' or ('  [' .. (msg:match('E%d+:[^%]]*') or msg:match('Invalid value[^:]*') or 'error') .. ']')
  io.stdout:write(('%-4s %-74s %s%s\n'):format(id, desc, marker and (hit and 'EXEC' or '-') or 'n/a', note:sub(1, 60)))
end
local OFF = { file = false, bar = false }
local C = vim.api.nvim_cmd

io.stdout:write('-- A. string execution is injectable\n')
probe('A1', "vim.cmd('vsplit ' .. x), x = 'foo | !touch M'", 'a1', function() vim.cmd('vsplit foo | !' .. T('a1')) end)
probe(
  'A2',
  "nvim_exec2('echo 1\\ncall writefile(..)')",
  'a2',
  function() vim.api.nvim_exec2('silent echo 1\ncall ' .. W('a2'), {}) end
)
probe(
  'A3',
  "vim.cmd('set tabstop=' .. v), v = '4 | !touch M'",
  'a3',
  function() vim.cmd('set tabstop=4 | !' .. T('a3')) end
)
probe(
  'A4',
  "vim.cmd('edit ' .. fnameescape('term://touch M'))",
  'a4',
  function() vim.cmd('edit ' .. vim.fn.fnameescape('term://' .. T('a4'))) end
)

io.stdout:write('-- B. nvim_cmd (structured) \n')
probe(
  'B1',
  "nvim_cmd{vsplit, args={'foo | !touch M'}} (default magic)",
  'b1',
  function() C({ cmd = 'vsplit', args = { 'foo | !' .. T('b1') } }, {}) end
)
probe(
  'B2',
  'nvim_cmd{echo, args={\'"a" | call writefile(M)\'}} - text after | dropped',
  'b2',
  function() C({ cmd = 'echo', args = { '"a" | call ' .. W('b2') } }, { output = true }) end
)
probe(
  'B3',
  "nvim_cmd{echo, args={'writefile(M)'}} - :echo evaluates expressions",
  'b3',
  function() C({ cmd = 'echo', args = { W('b3') } }, { output = true }) end
)
probe(
  'B4',
  "nvim_cmd{edit, args={'`touch M`'}} (default magic)",
  'b4',
  function() C({ cmd = 'edit', args = { '`' .. T('b4') .. '`' } }, {}) end
)
probe(
  'B5',
  "nvim_cmd{edit, args={'`touch M`'}, magic={file=false}}",
  'b5',
  function() C({ cmd = 'edit', args = { '`' .. T('b5') .. '`' }, magic = OFF }, {}) end
)
probe(
  'B6',
  "nvim_cmd{args, args={'`touch M`'}, magic={file=false}}",
  'b6',
  function() C({ cmd = 'args', args = { '`' .. T('b6') .. '`' }, magic = OFF }, {}) end
)
probe(
  'B7',
  "nvim_cmd{vimgrep, args={'/x/','`touch M`'}, magic={file=false}}",
  'b7',
  function()
    C({
      cmd = 'vimgrep',
      args = { '/x/', '`' .. T('b7') .. '`' },
      magic = OFF,
      mods = { silent = true, emsg_silent = true },
    }, {})
  end
)
probe(
  'B8',
  "nvim_cmd{edit, args={'+call\\ writefile(M)'}, magic off}",
  'b8',
  function() C({ cmd = 'edit', args = { '+call\\ ' .. W('b8'):gsub(' ', '\\ ') }, magic = OFF }, {}) end
)
probe(
  'B9',
  "nvim_cmd{buffer, args={'+call\\ writefile(M)','1'}, magic off}",
  'b9',
  function() C({ cmd = 'buffer', args = { '+call\\ ' .. W('b9'):gsub(' ', '\\ '), '1' }, magic = OFF }, {}) end
)
probe(
  'B10',
  "nvim_cmd{edit, args={'term://touch M'}, magic off}",
  'b10',
  function() C({ cmd = 'edit', args = { 'term://' .. T('b10') }, magic = OFF }, {}) end
)
probe(
  'B11',
  "nvim_cmd{read, args={'!touch M'}, magic off}",
  'b11',
  function() C({ cmd = 'read', args = { '!' .. T('b11') }, magic = OFF }, {}) end
)
probe('B12', "vim.cmd('read !touch M')", 'b12', function() vim.cmd('read !' .. T('b12')) end)
probe(
  'B13',
  "nvim_cmd(nvim_parse_cmd('edit `touch M`')) - parse turns magic back on",
  'b13',
  function() C(vim.api.nvim_parse_cmd('edit `' .. T('b13') .. '`', {}), {}) end
)
probe(
  'B14',
  "nvim_cmd{cmd='=', args={lua}} - ':=' is ':lua ='",
  'b14',
  function() C({ cmd = '=', args = { ('vim.fn.writefile({}, "%s/b14")'):format(D) } }, { output = true }) end
)
probe(
  'B15',
  "nvim_cmd{colorscheme, args={'../../..<tmp>/evil/c1/x'}}",
  'colorscheme_trav',
  function() C({ cmd = 'colorscheme', args = { TRAV .. 'c1/x' }, magic = OFF }, {}) end
)
probe(
  'B16',
  "nvim_cmd{compiler, args={'../../..<tmp>/evil/c2/x'}}",
  'compiler_trav',
  function() C({ cmd = 'compiler', args = { TRAV .. 'c2/x' }, magic = OFF }, {}) end
)
probe(
  'B17',
  "nvim_cmd{syntax, args={'include','@X','<tmp>/evil/c3/x.vim'}}",
  'syntax_include',
  function() C({ cmd = 'syntax', args = { 'include', '@X', D .. '/evil/c3/x.vim' }, magic = OFF }, {}) end
)
probe(
  'B18',
  "nvim_cmd{write, args={'++p <tmp>/newdir/deep/f'}} creates directories",
  'newdir',
  function() C({ cmd = 'write', args = { '++p ' .. D .. '/newdir/deep/f' }, magic = OFF, mods = { silent = true } }, {}) end
)
probe(
  'B19',
  "nvim_cmd{cmd='lu', ...} resolves to :lunmap, not :lua",
  nil,
  function() C({ cmd = 'lu', args = { 'x' } }, {}) end
)
fresh()
C({ cmd = 'vsplit', args = { '%.bak' }, magic = OFF }, {})
io.stdout:write(
  ('%-4s %-74s %s\n'):format(
    'B20',
    "nvim_cmd{vsplit, args={'%.bak'}, magic off} -> buffer name",
    vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t')
  )
)

io.stdout:write('-- C. options\n')
probe(
  'C1',
  "nvim_eval_statusline('%!writefile(M)') (what statusline drawing does)",
  'c1',
  function() vim.api.nvim_eval_statusline('%!' .. W('c1'), {}) end
)
probe(
  'C2',
  "nvim_eval_statusline('%{writefile(M)}')",
  'c2',
  function() vim.api.nvim_eval_statusline('%{' .. W('c2') .. '}', {}) end
)
probe('C3', 'foldexpr=writefile(M), foldmethod=expr, foldlevel(1)', 'c3', function()
  vim.wo.foldexpr = W('c3')
  vim.wo.foldmethod = 'expr'
  vim.fn.foldlevel(1)
end)
probe('C4', "makeef='x; touch M' then :make (makeprg=true)", 'c4', function()
  vim.o.makeprg = 'true'
  vim.o.makeef = D .. '/ef; ' .. T('c4')
  vim.cmd('silent make')
end)
probe('C5', "shellxquote='true;touch M;true ' then system('echo')", 'c5', function()
  vim.o.shellxquote = 'true;' .. T('c5') .. ';true '
  vim.fn.system('echo')
  vim.o.shellxquote = ''
end)
probe('C6', "spellsuggest='expr:system(\"touch M\")' then spellsuggest('zzzqx')", 'c6', function()
  vim.o.spell = true
  vim.o.spellsuggest = 'expr:system("' .. T('c6') .. '")'
  vim.fn.spellsuggest('zzzqx')
  vim.o.spellsuggest = 'best'
end)
probe('C7', 'complete=\'F{->system("touch M")}\' then i_CTRL-N', 'c7', function()
  vim.bo.complete = 'F{->system("' .. T('c7') .. '")}'
  vim.api.nvim_feedkeys(vim.keycode('Ozz<C-n><Esc>'), 'xt', false)
end)
probe('C8', 'runtimepath+=`touch M` then :runtime foo.vim', 'c8', function()
  vim.o.runtimepath = vim.o.runtimepath .. ',`' .. T('c8') .. '`'
  pcall(vim.cmd, 'runtime foo.vim')
end)
vim.o.runtimepath = vim.env.VIMRUNTIME
probe('C9', 'runtimepath^=<tmp>/rtp; filetype plugin on; filetype=evilft', 'rtp_ftplugin', function()
  vim.cmd('filetype plugin on')
  vim.o.runtimepath = D .. '/rtp,' .. vim.o.runtimepath
  vim.bo.filetype = 'evilft'
end)
vim.o.runtimepath = vim.env.VIMRUNTIME
probe('C10', "keywordprg=':call writefile(M) |\"' then K", 'c10', function()
  vim.bo.keywordprg = ':call ' .. W('c10') .. ' |"'
  vim.cmd('normal K')
end)
probe('C11', 'modeline on; open file whose modeline sets complete=F{...}; i_CTRL-N', 'modeline_complete', function()
  vim.o.modeline = true
  vim.cmd('edit ' .. D .. '/ml.txt')
  vim.api.nvim_feedkeys(vim.keycode('Ozz<C-n><Esc>'), 'xt', false)
end)
vim.o.complete = '.,w,b,u,t'
probe('C12', "tags file whose address is ':call writefile(M)' then :tag foo", 'tag_address', function()
  vim.o.tags = D .. '/tags'
  vim.cmd('tag foo')
end)
probe('C13', "filetype='../../x' (name validation)", nil, function() vim.bo.filetype = '../../x' end)
probe(
  'C14',
  "nvim_set_option_value('wrap', 'false') (type check)",
  nil,
  function() vim.api.nvim_set_option_value('wrap', 'false', {}) end
)
probe(
  'C15',
  "nvim_set_option_value('sw', 4) (aliases are accepted by the API)",
  nil,
  function() vim.api.nvim_set_option_value('sw', 4, {}) end
)
vim.fn.delete(D, 'rf')
