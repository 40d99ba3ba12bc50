#!/usr/bin/env bash
# End-to-end: `leash mcp` with a real MCP client nobody here wrote (the official Python
# SDK, PyPI `mcp`) against a real Neovim TUI in tmux, started with --listen. The agent
# (tests/e2e/mcp_agent.py) calls the tools and presses keys in tmux as the person would:
#
#   1. tools/list: exactly catalog_search, propose_plan, editor_state, each input schema
#      valid JSON Schema (2020-12).
#   2. catalog_search: 'number' with its type, current value and reach; term:run as shell;
#      missing, ill-typed, empty and too long (1 MB) arguments and an unknown tool refused,
#      saying what is wrong; the address from $NVIM when no --server is given, and without either an
#      error that says how to pass it (Codex's env_vars); editor_state without buffer text.
#   3. a plan with a setting and a terminal step: the window titled "plan from e2e-agent"
#      shows the command marked [shell]; nothing runs before y; y runs it and the call
#      returns each step as ran.
#   4. a plan and q: cancelled, nothing ran.
#   5. an unknown id: refused at once with its code; no window. So is each kind of bad
#      step (not an object, an unknown type, a bad value, an unknown key, an 11th step),
#      with its own code, a plan without steps (saying so) and a 2 MB plan (saying how
#      large a plan may be).
#   6. fields that try to skip confirmation ("confirm", "approved", a reply saying so) with
#      confirm_before_run = false: the shell step is shown anyway, and so is an all-safe
#      plan (unlike :Do's). The person takes 6 s: the client hears progress meanwhile.
#   6b. the client's own timeout cancels a waiting call: the window is withdrawn, with a
#      notification saying so, and nothing runs; and so when another agent's client exits
#      while its plan is shown.
#   7. Neovim killed while a plan waits: the call fails saying Neovim went away; the next
#      call says it is not reachable.
#   8. a Neovim without leash: the call says leash is not loaded there.
#
# Usage: tests/e2e/mcp.sh. Needs tmux, python3 with the `mcp` package (2.x; .ci/run
# installs it), the native library and target/release/leash (scripts/test builds both),
# or the program in $LEASH_TEST_CLI. Neovim is $NVIM_BIN, else scripts/nvim-path's.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

. tests/e2e/lib.sh
e2e_start "mcp e2e" mcp "$@"
nvim=${NVIM_BIN:-$(scripts/nvim-path)}
leash=${LEASH_TEST_CLI:-$root/target/release/leash}
[ -x "$leash" ] || { echo "mcp e2e: FAIL: $leash is missing (cargo build --release --package leash)" >&2; exit 1; }
sdk=$(python3 -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true)
if [ -z "$sdk" ] || [ "${sdk%%.*}" -lt 2 ]; then
  . tests/support/skip.sh
  skip "mcp e2e" "the MCP Python SDK 2.x is not installed (python3 -m pip install --user 'mcp>=2'; found: ${sdk:-none})"
fi
echo "mcp e2e: the MCP Python SDK $sdk, $("$nvim" --version | head -n1)"

mkdir -p "$tmp/config" "$tmp/data" "$tmp/state" "$tmp/cache"
printf 'first line\nsecret second line\nthird\n' >"$tmp/notes.txt"
cat >"$tmp/init.lua" <<EOF
vim.opt.rtp:prepend(${root@Q})
vim.o.shortmess = vim.o.shortmess .. 'I'
vim.fn.writefile({ tostring(vim.fn.getpid()) }, ${tmp@Q} .. '/nvim.pid')
require('leash').setup({ confirm_before_run = false })
EOF

nvim_sock=$tmp/nvim.sock
e2e_tmux \
  "env -u TMUX XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache $(printf %q "$nvim") --listen $(printf %q "$nvim_sock") -i NONE -u $tmp/init.lua +2 $(printf %q "$tmp/notes.txt"); sleep 30"
wait_for 'secret second line' 15 || fail "Neovim did not start"

# A second Neovim, headless, without leash on its runtimepath.
bare=$tmp/bare.sock
"$nvim" --clean --headless --listen "$bare" >/dev/null 2>&1 &
bare_pid=$!
trap 'kill $bare_pid >/dev/null 2>&1 || true; e2e_cleanup' EXIT
for _ in $(seq 100); do [ -S "$bare" ] && break; sleep 0.05; done

python3 tests/e2e/mcp_agent.py --leash "$leash" --server "$nvim_sock" --bare-server "$bare" \
  --tmux "$sock" --session mcp --tmp "$tmp" --pid-file "$tmp/nvim.pid" || exit 1
echo "mcp e2e: all passed"
