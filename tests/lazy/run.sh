#!/usr/bin/env bash
# End to end with the real lazy.nvim: leash installed as a user installs it, from a
# file:// git repository of this working tree (no network), in isolated XDG dirs.
#
#   1. Release: the repository is tagged as the release and the spec follows releases
#      (version = '*'); the prebuilt library comes from a local release server. A
#      headless `nvim "+Lazy! sync" +qa` returns with the library in place, `:help leash`
#      works before the plugin is loaded, and so does `:checkhealth leash` (also for a
#      config with errors: one message, no stack trace), and `:Do` plans offline and runs. A first
#      start in a terminal (tmux) installs the same way, `:checkhealth leash` in that session
#      does not call the plugin's directory off 'runtimepath', and it quits on :qa!.
#   2. Broken build: the default branch gets a commit whose crate does not compile
#      (a type error; leash's name and version without dependencies, so it fails in
#      seconds). The same command runs the real cargo build under lazy.nvim, returns,
#      prints cargo's progress and the reason no prebuilt library fits (once), and
#      lazy's build task shows cargo's error; `:Do` then says the library is missing
#      in one message.
#   3. Fixed (with LEASH_TEST_LAZY_CARGO=1): the next commit compiles; `Lazy! sync`
#      updates, cargo builds under lazy.nvim, and `:Do` works again.
#
# Case 3 reuses this checkout's compiled dependencies (CARGO_TARGET_DIR=target, or
# $LEASH_TEST_LAZY_TARGET: a copy of it, to leave this checkout's build as it is).
# Needs git, python3, cargo and a built library (scripts/test builds it first).
# LEASH_TEST_KEEP=1 keeps the temporary directory (repository, XDG dirs) for a look.
# lazy.nvim: $LEASH_TEST_LAZY, else .deps/lazy.nvim, else unpacked from
# ../shared/tools/lazy.nvim-11.17.5.tar.xz.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
nvim=${LEASH_TEST_NVIM:-$(scripts/nvim-path)}

lazy=${LEASH_TEST_LAZY:-$repo/.deps/lazy.nvim}
if [ ! -f "$lazy/lua/lazy/init.lua" ]; then
  tarball=$repo/../shared/tools/lazy.nvim-11.17.5.tar.xz
  if [ ! -f "$tarball" ]; then
    . tests/support/skip.sh
    skip tests/lazy/run.sh "no lazy.nvim (set LEASH_TEST_LAZY, or provide $tarball)"
  fi
  mkdir -p .deps && tar -C .deps -xJf "$tarball"
  lazy=$repo/.deps/lazy.nvim
fi

version=$(sed -n "s/^M.version = '\(.*\)'$/\1/p" lua/leash/native.lua)
library=$repo/lua/leash_native.so
[ -f "$library" ] || { echo "tests/lazy/run.sh: build the library first (nvim -l build.lua)" >&2; exit 1; }

tmp=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  if [ -n "${LEASH_TEST_KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

fail() {
  echo "FAIL tests/lazy/run.sh: $*" >&2
  exit 1
}

# The plugin repository: this working tree (tracked files and new ones not ignored).
remote=$tmp/remote/leash.nvim
mkdir -p "$remote"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$remote"
g() { git -C "$remote" -c user.name=leash-test -c user.email=leash-test@localhost "$@"; }
g init -q -b main
g add -A
g commit -qm "leash $version"
g tag "v$version"

# A release server for this machine's asset: the library this checkout built.
asset=$("$nvim" --headless --clean --cmd "set rtp^=$repo" \
  +"lua local p = require('leash.build.prebuilt'); io.stdout:write(p.asset(assert(p.target())))" +qa)
mkdir -p "$tmp/release/v$version"
cp "$library" "$tmp/release/v$version/$asset"
python3 tests/support/release_server.py "$tmp/release" >"$tmp/port" 2>"$tmp/server.log" &
server=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || fail "the release server did not start"
url=http://127.0.0.1:$(head -n1 "$tmp/port")

# One user: isolated XDG dirs, the init.lua of tests/lazy/init.lua.
run() { # run HOME_NAME TIMEOUT_S [nvim args...]
  local home=$tmp/$1 limit=$2
  shift 2
  env -u CARGO_TARGET_DIR XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    XDG_STATE_HOME="$home/state" XDG_CACHE_HOME="$home/cache" \
    LEASH_TEST_LAZY="$lazy" LEASH_TEST_REMOTE="$remote" LEASH_BUILD_FROM_SOURCE= \
    LEASH_PREBUILT_URL="$url/good" ${EXTRA_ENV:-} \
    timeout "$limit" "$nvim" --headless -u "$repo/tests/lazy/init.lua" "$@"
}

# Run one case: its output is shown in full when it fails, else lazy's lines about
# leash's build. run_case NAME TIMEOUT_S WHAT [nvim args...]
run_case() {
  local name=$1 limit=$2 what=$3 started=$SECONDS code
  shift 3
  set +e
  run "$name" "$limit" "$@" >"$tmp/out" 2>&1
  code=$?
  set -e
  if [ $code -ne 0 ]; then
    cat "$tmp/out"
    [ $code -eq 124 ] && fail "$what did not return within $limit s"
    fail "$what exited with $code"
  fi
  grep -E '^\[leash\.nvim\] +build \||^(ok|FAIL) ' "$tmp/out" | cut -c1-240 || true
  echo "   ($what: $((SECONDS - started)) s)"
}
expect() { grep -q "$1" "$tmp/out" || { cat "$tmp/out"; fail "$2"; }; }

echo "-- 1. release: the prebuilt library from a local release server"
export LEASH_TEST_RELEASES=1
if command -v tmux >/dev/null 2>&1; then
  # The first start in a terminal: lazy.nvim installs and builds while Neovim starts,
  # then Neovim answers :qa! (before the fix it hung in lazy's "Working" state).
  sock=leash-lazy-$$
  home=$tmp/tui
  started=$SECONDS
  tmux -L "$sock" new-session -d -x 120 -y 40 -s lazy \
    env -u CARGO_TARGET_DIR XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    XDG_STATE_HOME="$home/state" XDG_CACHE_HOME="$home/cache" LEASH_TEST_LAZY="$lazy" \
    LEASH_TEST_REMOTE="$remote" LEASH_TEST_RELEASES=1 LEASH_BUILD_FROM_SOURCE= \
    LEASH_PREBUILT_URL="$url/good" "$nvim" -u "$repo/tests/lazy/init.lua"
  lib=$home/data/nvim/lazy/leash.nvim/lua/leash_native.so
  for _ in $(seq 600); do [ -f "$lib" ] && break; sleep 0.1; done
  screen=$(tmux -L "$sock" capture-pane -p -t lazy || true)
  [ -f "$lib" ] || { echo "$screen"; tmux -L "$sock" kill-server; fail "TUI first start: no library after 60 s"; }
  sleep 1
  # :checkhealth in the session that installed leash: the library was found beside the
  # plugin (the session's runtime files predate it), and the plugin is on 'runtimepath'.
  tmux -L "$sock" send-keys -t lazy q
  sleep 0.3
  tmux -L "$sock" send-keys -t lazy ':checkhealth leash' Enter
  for _ in $(seq 100); do tmux -L "$sock" capture-pane -p -t lazy | grep -q 'Native library' && break; sleep 0.1; done
  screen=$(tmux -L "$sock" capture-pane -p -t lazy || true)
  case "$screen" in
    *"Native library"*) ;;
    *) echo "$screen"; tmux -L "$sock" kill-server; fail "TUI first start: :checkhealth leash showed no check" ;;
  esac
  case "$screen" in
    *"not on 'runtimepath'"*)
      echo "$screen"; tmux -L "$sock" kill-server
      fail "TUI first start: :checkhealth says the plugin is not on 'runtimepath'" ;;
  esac
  echo "ok   TUI first start: :checkhealth leash in the installing session"
  tmux -L "$sock" send-keys -t lazy Escape ':qa!' Enter
  for _ in $(seq 100); do tmux -L "$sock" has-session -t lazy 2>/dev/null || break; sleep 0.1; done
  if tmux -L "$sock" has-session -t lazy 2>/dev/null; then
    tmux -L "$sock" capture-pane -p -t lazy
    tmux -L "$sock" kill-server
    fail "TUI first start: Neovim did not quit on :qa!"
  fi
  echo "ok   TUI first start: installed, then quit on :qa! ($((SECONDS - started)) s)"
else
  echo "-- (the TUI first start needs tmux: not run)"
fi
run_case release 300 "first start + Lazy! sync" "+Lazy! sync" +qa
expect "installed the prebuilt library v$version" "no prebuilt install reported"
run_case release 60 "help, :Do" +"luafile $repo/tests/lazy/check_installed.lua"
run_case release 60 ":checkhealth before :Do" +"luafile $repo/tests/lazy/check_health.lua"
EXTRA_ENV=LEASH_TEST_OPTS=bad run_case release 60 ":checkhealth, a config with errors" \
  +"luafile $repo/tests/lazy/check_health.lua"
# Under another name, leash's lazy.lua (which names leash.nvim) must not make lazy.nvim
# install a second plugin.
LEASH_TEST_NAME=leash run_case renamed 300 "first start under another name" "+Lazy! sync" \
  +"lua local p = vim.tbl_keys(require('lazy.core.config').plugins); table.sort(p); print('plugins: ' .. table.concat(p, ' '))" +qa
expect "plugins: lazy.nvim leash$" "lazy.nvim has plugins besides lazy.nvim and leash"
unset LEASH_TEST_RELEASES

echo "-- 2. broken build: a commit on the default branch that does not compile"
# The crate of that commit is leash's name and version without its dependencies, so the
# real cargo build fails within seconds (and touches nothing of this checkout).
# It is the package :Leash build asks for (`--package leash-nvim`), alone at the root: the
# workspace's other crates are left out of it.
cat >"$remote/Cargo.toml" <<EOF
[package]
name = "leash-nvim"
version = "$version"
edition = "2021"
autobins = false
autotests = false
autobenches = false
autoexamples = false

[lib]
crate-type = ["cdylib"]
EOF
mkdir -p "$remote/src"
printf '//! Does not compile: tests/lazy/run.sh breaks the build on purpose.\npub fn leash_e2e_broken() -> u32 {\n    "not a number"\n}\n' >"$remote/src/lib.rs"
# Its own lock file, committed: a lock file cargo wrote during the build would be an
# untracked file that blocks lazy.nvim's checkout of the next commit (case 3).
(cd "$remote" && rm -f Cargo.lock && cargo generate-lockfile --offline --quiet)
g add -A && g commit -qm "break the build"
run_case branch 300 "first start + Lazy! sync (cargo fails)" "+Lazy! sync" +"luafile $repo/tests/lazy/check_failed.lua"
expect 'error\[E0308\]' "cargo's error is not in lazy's output"
# Headless, lazy.nvim prints what is not a status line: cargo's progress (its bar, read
# from the pipe), and the reason no prebuilt library fits, once.
expect 'build | Compiling 0/1 (leash-nvim) · [0-9]* s (a first build: [0-9]* min or more)$' "no progress of cargo in the headless output"
[ "$(grep -c 'after the release v' "$tmp/out")" = 1 ] || { cat "$tmp/out"; fail "the reason is not said once"; }

# A successful cargo build under lazy.nvim compiles leash once more: minutes on two
# cores, so it runs when asked for. It reuses this checkout's compiled dependencies
# (CARGO_TARGET_DIR=target); cargo then takes the two copies of leash for one, so the
# checkout's next build compiles leash again.
if [ "${LEASH_TEST_LAZY_CARGO:-}" = 1 ]; then
  echo "-- 3. fixed: lazy.nvim updates and cargo builds"
  g revert --no-edit HEAD >/dev/null
  export EXTRA_ENV="CARGO_TARGET_DIR=${LEASH_TEST_LAZY_TARGET:-$repo/target}"
  run_case branch 1200 "Lazy! sync (cargo builds)" "+Lazy! sync" +qa
  expect "built from source" "no cargo build reported"
  unset EXTRA_ENV
  run_case branch 60 "help, :Do" +"luafile $repo/tests/lazy/check_installed.lua"
else
  echo "-- 3. (a successful cargo build under lazy.nvim: not run; LEASH_TEST_LAZY_CARGO=1 runs it)"
fi

echo "lazy.nvim end to end: ok"
