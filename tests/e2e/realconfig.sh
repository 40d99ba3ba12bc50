#!/usr/bin/env bash
# End to end in a real user's config: tests/e2e/realconfig/init.lua (kickstart.nvim /
# LazyVim style: lazy.nvim with gitsigns, lualine, telescope + plenary, conform with
# format on save, oil, fugitive, nvim-lspconfig with vim.lsp.enable for ruff, pyright and
# ts_ls, which-key, trouble, snacks, mini, nvim-cmp), leash loaded from this working tree,
# a Git project with Python and TypeScript files (tests/e2e/realconfig/project), a
# scripted model (tests/e2e/scripted_model.py answering tests/e2e/realconfig/plans.json).
#
# Each case starts a fresh Neovim in tmux on a fresh copy of the project, types
# `:Do REQUEST`, runs the plan from its window with y, and asks the Neovim (over RPC,
# tests/e2e/realconfig/probe.lua) whether the step did what it asked, with no refusal,
# no error from any plugin (:messages, v:errmsg, notifications) and the plugins alive
# afterwards (language servers attached, gitsigns signs, lualine drawing, the file
# formatted). A failing case prints the screen and what Neovim showed; the next case
# runs anyway. A plan that runs nothing says why in one notification, with no window
# and no hit-enter prompt, and :Leash last shows it. Then the shortlist targets of a real config: "find files", "go to
# definition" and "show diagnostics list" each in the top 5 of leash's ranking there.
#
# Usage: tests/e2e/realconfig.sh [CASE...]   (no argument: every case)
# Needs: tmux, python3, git, the native library built (scripts/test builds it), and the
# language servers on PATH: ruff, pyright-langserver, typescript-language-server
# (pip install ruff; npm install -g pyright typescript-language-server typescript;
# .ci/run installs them). lazy.nvim and the plugins come from ../shared/tools.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
here=$root/tests/e2e/realconfig

. tests/support/skip.sh
label=tests/e2e/realconfig.sh
tools=$root/../shared/tools
for f in "$tools/lazy.nvim-11.17.5.tar.xz" "$tools/plugins/SHA256SUMS"; do
  [ -f "$f" ] || skip "$label" "no $f (lazy.nvim and the plugin trees)"
done
install_hint="pip install ruff; npm install -g pyright typescript-language-server typescript@5"
for tool in git ruff pyright-langserver typescript-language-server tsc; do
  command -v "$tool" >/dev/null 2>&1 || skip "$label" "$tool is not on PATH ($install_hint)"
done
# typescript-language-server runs the project's TypeScript (tsserver.js, which TypeScript 7
# no longer has): the project links the installed one as its node_modules/typescript.
typescript=$(cd "$(dirname "$(readlink -f "$(command -v tsc)")")/.." && pwd)
[ -f "$typescript/lib/tsserver.js" ] || skip "$label" "no tsserver.js in $typescript (TypeScript 5 or 6: $install_hint)"
[ -f lua/leash_native.so ] || { echo "$label: FAIL: build the native library first (nvim -l build.lua)" >&2; exit 1; }

. tests/e2e/lib.sh
e2e_start realconfig realconfig
# NVIM_BIN: the Neovim to run the config in (scripts/test runs the suite on 0.12 and 0.11.4).
nvim=${NVIM_BIN:-$(scripts/nvim-path)}

# lazy.nvim and the plugins, unpacked afresh (half a second).
mkdir -p "$tmp/plugins" "$tmp/lazy-root" "$tmp/xdg"
tar -C "$tmp" -xJf "$tools/lazy.nvim-11.17.5.tar.xz"
for f in "$tools"/plugins/*.tar.xz; do tar -C "$tmp/plugins" -xJf "$f"; done

e2e_model_server tests/e2e/scripted_model.py --plans "$here/plans.json" --echo-file "$tmp/echo" --log "$tmp/requests.jsonl"

# The project: committed, then app.py changed (a hunk for gitsigns).
fixture() {
  local dir=$1
  mkdir -p "$dir" && cp -R "$here/project/." "$dir/"
  (
    cd "$dir"
    printf 'node_modules/\n' >.gitignore
    git init -q -b main . && git add -A
    git -c user.name=test -c user.email=test@example.invalid commit -qm fixture
    sed -i 's/^def main():$/def main():\n    # work in progress/' app.py
    mkdir node_modules && ln -s "$typescript" node_modules/typescript
  )
}
fixture "$tmp/expect" && ruff format - <"$tmp/expect/app.py" >"$tmp/expected-app.py"

# rpc EXPR: evaluate EXPR in the case's Neovim (a hit-enter prompt blocks it: 5 s at most).
rpc() { timeout 5 "$nvim" --clean --server "$dir/nvim.sock" --remote-expr "$1" 2>&1; }
lua_str() { printf "'%s'" "${1//\'/\'\'}"; }

# stop: ends the case's Neovim (the one this script started, by its pid) and waits, so
# nothing writes into the folder after the script removed it.
nvim_pid=
stop() {
  tmux -L "$sock" kill-server >/dev/null 2>&1 || true
  [ -n "$nvim_pid" ] || return 0
  local i
  for i in $(seq 50); do kill -0 "$nvim_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$nvim_pid" 2>/dev/null || true
  nvim_pid=
}
trap 'stop; e2e_cleanup' EXIT

# start CASE SERVERS [FILES...]: a fresh project, XDG dirs and Neovim of the case's own
# ($dir); waits (30 s at most) until the language servers SERVERS (comma-separated, or
# "-") are attached to the current buffer.
start() {
  local name=$1 servers=$2 i
  shift 2
  stop
  dir=$tmp/cases/$name
  mkdir -p "$dir"/xdg/{config,data,state,cache}
  fixture "$dir/project"
  local files=""
  [ $# -eq 0 ] || files=$(printf ' %q' "$@")
  e2e_tmux -c "$dir/project" \
    "env -u TMUX NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost XDG_CONFIG_HOME=$dir/xdg/config XDG_DATA_HOME=$dir/xdg/data XDG_STATE_HOME=$dir/xdg/state XDG_CACHE_HOME=$dir/xdg/cache LEASH_E2E_KEY=e2e-not-a-secret REALCFG_LAZY=$tmp/lazy.nvim REALCFG_PLUGINS=$tmp/plugins REALCFG_LAZY_ROOT=$dir/lazy-root REALCFG_LEASH=$root REALCFG_PORT=$port REALCFG_PROBE=$here/probe.lua REALCFG_PROJECT=$dir/project REALCFG_EXPECT=$tmp/expected-app.py $(printf %q "$nvim") -i NONE --listen $dir/nvim.sock -u $here/init.lua$files; sleep 30"
  for i in $(seq 100); do [ -S "$dir/nvim.sock" ] && break; sleep 0.1; done
  nvim_pid=$(rpc 'getpid()' || true)
  [[ "$nvim_pid" =~ ^[0-9]+$ ]] || nvim_pid=
  [ "$servers" = - ] && { sleep 1; return 0; }
  local got= deadline=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$deadline" ]; do
    got=$(rpc "v:lua.Realcfg.ready($(lua_str "$servers"))" || true)
    [ "$got" = ok ] && return 0
    sleep 0.2
  done
  note "the language servers $servers did not attach before the request ($got)"
  return 1
}

failed=() passed=()
note() { echo "realconfig: $case: $*" >&2; }
case_fail() {
  echo "realconfig: FAIL: $case: $1" >&2
  echo "---- screen ----" >&2
  screen >&2 || true
  echo "---- what Neovim showed ----" >&2
  rpc 'v:lua.Realcfg.report()' >&2 || echo "(no answer over RPC)" >&2
  echo "----------------" >&2
  failed+=("$case: $(printf '%s' "$1" | head -n 3 | tr '\n' ' ')")
}

# run CASE SERVERS "REQUEST" [FILES...]: the case's Neovim, `:Do REQUEST`, y in the
# plan window, then the case's check (polled for up to 20 s).
run() {
  case=$1
  local servers=$2 request=$3 got i
  shift 3
  if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" $case "* ]]; then return 0; fi
  start "$case" "$servers" "$@" || { case_fail "not ready: the language servers did not attach"; return 0; }
  rpc "v:lua.Realcfg.setup($(lua_str "$case"))" >/dev/null
  keys Escape
  keys -l ":Do $request"
  keys Enter
  if ! wait_for 'leash plan' 30; then
    case_fail ":Do did not open the plan window"
    return 0
  fi
  sleep 0.4 # the run key is armed 150 ms after the window opens
  keys y # runs every plan; <CR> only those without marked steps
  local deadline=$((SECONDS + 20))
  while [ "$SECONDS" -lt "$deadline" ]; do
    got=$(rpc "v:lua.Realcfg.check($(lua_str "$case"), 0)" || true)
    [[ "$got" == "wait: "* ]] || break
    sleep 0.2
  done
  [[ "$got" != "wait: "* ]] || got=$(rpc "v:lua.Realcfg.check($(lua_str "$case"), 1)" || true)
  [ -n "$got" ] || got="Neovim does not answer over RPC (waiting at a prompt? see the screen)"
  if [ "$got" = ok ]; then
    echo "realconfig: ok: $case: :Do $request"
    passed+=("$case")
  else
    case_fail "$got"
  fi
}

wanted=("$@")

run open - "open app.py" # no file yet: the case checks the servers
run bnext pyright,ruff "switch to the next buffer" app.py util.py
run bprevious pyright,ruff "go to the next buffer and back" app.py util.py
run vsplit pyright,ruff "open util.py in a vertical split" app.py
run write pyright,ruff "save the file" app.py
run definition pyright "go to the definition of helper" app.py
run rename pyright "rename helper to double" app.py
run format ts_ls "format this file" web/index.ts
run hunk - "jump to the next git change" app.py
run telescope - "find files" app.py
run oil - "open the parent directory" app.py

# A plan that runs nothing (its one step refused): no window and no hit-enter prompt, one
# notification that says why (snacks shows every line) without the model's reply, and
# :Leash last shows it whole with no run key.
nothing_case() {
  case=nothing
  if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" nothing "* ]]; then return 0; fi
  start nothing - app.py || { case_fail "not ready"; return 0; }
  keys Escape
  keys -l ":Do make the font bigger"
  keys Enter
  local notes= i
  for i in $(seq 100); do
    notes=$(rpc "luaeval('vim.json.encode(Realcfg.notes)')" || true)
    [[ "$notes" == *"nothing ran"* ]] && break
    sleep 0.2
  done
  if [[ "$notes" != *"leash: nothing ran, refused: unknown setting “fontsize”"* ]]; then
    case_fail "no notification said why nothing ran: $notes"
  elif [[ "$notes" == *"Making the font bigger"* ]]; then
    case_fail "the model's reply was shown as if the plan had run: $notes"
  elif screen | grep -Eq 'Press ENTER|leash plan'; then
    case_fail "a hit-enter prompt or a plan window"
  else
    keys -l ":Leash last"
    keys Enter
    if ! wait_for 'nothing to run · e edit · q/<Esc> close' 10; then
      case_fail ":Leash last did not show the plan"
    elif ! screen | grep -q 'unknown setting “fontsize”'; then
      case_fail "the window does not say what was refused"
    else
      sleep 0.4
      keys y
      sleep 0.5
      if ! screen | grep -q 'leash plan'; then
        case_fail "y closed the window of a plan with nothing to run"
      else
        keys q
        echo "realconfig: ok: nothing: :Do make the font bigger, then :Leash last"
        passed+=("$case")
      fi
    fi
  fi
}
nothing_case

# The shortlist in this config: each target in the top 5 of leash's ranking.
rank_case() {
  case=rank-$1
  local request=$2 pattern=$3 got
  if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" rank "* ]]; then return 0; fi
  got=$(rpc "v:lua.Realcfg.rank($(lua_str "$request"), 5)" || true)
  echo "realconfig: rank: \"$request\" → $got"
  if printf '%s' "$got" | grep -Eq "$pattern"; then
    passed+=("$case")
  else
    failed+=("$case: \"$request\" top 5 is $got; expected one of $pattern")
  fi
}
if [ ${#wanted[@]} -eq 0 ] || [[ " ${wanted[*]} " == *" rank "* ]]; then
  case=rank
  if start rank pyright,ruff app.py; then
    rank_case files "find files" '"(map:n: sf|user:Telescope)"'
    rank_case definition "go to definition" '"(lsp:definition|map:n:gd)"'
    rank_case diagnostics "show diagnostics list" '"(diag:quickfix|diag:loclist|map:n: q|map:n: xx|user:Trouble)"'
  else
    case_fail "not ready for the ranking"
  fi
fi

stop
echo "realconfig: ${#passed[@]} passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'realconfig: FAIL: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "realconfig: passed"
