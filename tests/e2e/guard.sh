#!/usr/bin/env bash
# The hostile end-to-end suite: plans a model could send, run through `:Do` in a real
# Neovim against a local model server (tests/e2e/mock_model.py answering the scripted
# plan of each case in tests/e2e/guard-cases.jsonl), with logging stand-ins for gzip, xz,
# lz4, bzip2, zstd, diff, xclip, tar, unzip, curl, git, perl… first on PATH and the user's
# 'shell' set to a logging wrapper. For every case that was not confirmed as a shell
# step, no stand-in and no 'shell' may run, and the outcome (the step stopped with a
# message naming what it tried, the window shown or not) must be the case's.
#
#   1. every case headless (nvim --headless -u INIT -l tests/e2e/guard.lua CASE), each in
#      a fresh Neovim and a fresh work directory;
#   2. a few cases in a real TUI in tmux: the keys typed, the screen read.
#
# Usage: tests/e2e/guard.sh [CASE...]    (no argument: every case, then the TUI cases)
# Needs: python3, tmux, the native library built (scripts/test builds it).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
cases_file=$root/tests/e2e/guard-cases.jsonl

. tests/e2e/lib.sh
e2e_start guard guard # the case names are this script's own arguments
nvim=$(scripts/nvim-path)

bin=$tmp/bin logs=$tmp/logs work=$tmp/work
# The guarded Neovims end with os.exit(), which leaves their temporary folders (and the
# files gzip.vim made there): they get a TMPDIR of their own, removed with the rest.
mkdir -p "$bin" "$logs" "$tmp/config" "$tmp/data" "$tmp/state" "$tmp/cache" "$tmp/nvim-tmp"

# Stand-ins: each logs its name and arguments and does nothing else.
standins="gzip gunzip zcat xz unxz lz4 bzip2 bunzip2 bzip3 zstd unzstd brotli lzip lzma lzop
  uncompress compress diff patch xclip xsel wl-copy wl-paste tar unzip zip curl wget scp rsync
  git perl ruby gawk node npm pnpm yarn make just cargo go pytest tox nox tmux"
for prog in $standins; do
  printf '#!/bin/sh\nprintf "%%s %%s\\n" "%s" "$*" >>"%s/standins.log"\nexit 0\n' "$prog" "$logs" >"$bin/$prog"
  chmod +x "$bin/$prog"
done
# The user's 'shell': logs every command line, then runs it.
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s/shell.log"\nexec /bin/sh "$@"\n' "$logs" >"$bin/logging-sh"
chmod +x "$bin/logging-sh"

e2e_model_server tests/e2e/mock_model.py --echo-file "$tmp/echo" --log "$tmp/requests.jsonl" \
  --cases "$cases_file" --dir "$work"

cat >"$tmp/init.lua" <<EOF
vim.opt.rtp:prepend(${root@Q})
vim.o.shell = ${bin@Q} .. '/logging-sh'
vim.o.shortmess = vim.o.shortmess .. 'I'
vim.o.swapfile = false
-- The driver adds each case's options to these (setup() replaces the whole configuration).
_G.leash_guard_base = {
  log = false,
  provider = 'mock',
  providers = {
    mock = { kind = 'anthropic', model = 'mock-model', url = 'http://127.0.0.1:${port}', api_key_env = 'LEASH_E2E_KEY' },
  },
}
require('leash').setup(_G.leash_guard_base)
EOF

# The real git, for the cases whose user's setup runs git (the stand-in only logs).
real_git=$(command -v git || true)

# Every case runs with these: stand-ins first on PATH, an X display for the clipboard
# provider to pick xclip, no tmux or Wayland for it to prefer.
run_env=(env -u TMUX -u WAYLAND_DISPLAY PATH="$bin:$PATH" DISPLAY=:99 NO_PROXY=127.0.0.1,localhost
  LEASH_GUARD_REAL_GIT="$real_git"
  no_proxy=127.0.0.1,localhost XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"
  XDG_STATE_HOME="$tmp/state" XDG_CACHE_HOME="$tmp/cache" LEASH_E2E_KEY=e2e-not-a-secret
  LEASH_GUARD_CASES="$cases_file" LEASH_GUARD_DIR="$work" LEASH_GUARD_LOGS="$logs"
  TMPDIR="$tmp/nvim-tmp")

fresh_work() {
  rm -rf "$work" "$logs"/*
  mkdir -p "$work"
}

if [ $# -gt 0 ]; then
  names=("$@")
else
  mapfile -t names < <(python3 -c 'import json,sys; [print(json.loads(l)["name"]) for l in open(sys.argv[1]) if l.strip()]' "$cases_file")
fi

failed=0
echo "guard: ${#names[@]} hostile cases, headless"
for name in "${names[@]}"; do
  fresh_work
  if ! (cd "$work" && "${run_env[@]}" timeout 60 "$nvim" --headless -u "$tmp/init.lua" -i NONE -l "$root/tests/e2e/guard.lua" "$name"); then
    failed=$((failed + 1))
  fi
done

# --- the TUI: a person's keys and screen -------------------------------------------
if [ $# -eq 0 ]; then
  # tui CASE WINDOW KEY SCREEN-PATTERN: run CASE in tmux; when WINDOW is yes, wait for the
  # plan window and press KEY; then the screen must show SCREEN-PATTERN and the driver's
  # verdict must have no failure.
  tui() {
    local name=$1 window=$2 key=$3 pattern=$4 problem=
    fresh_work
    e2e_tmux -c "$work" \
      "${run_env[*]} LEASH_GUARD_TUI=1 LEASH_GUARD_CASE=$name $(printf %q "$nvim") -u $tmp/init.lua -i NONE -c 'luafile $root/tests/e2e/guard.lua'; sleep 30"
    if ! wait_for '^~ *$' 15; then
      problem="Neovim did not start"
    else
      keys Escape
      keys -l ":Do case:$name"
      keys Enter
      if [ "$window" = yes ]; then
        if wait_for 'leash plan' 30; then
          sleep 0.5
          keys "$key"
        else
          problem="the plan window did not open"
        fi
      fi
      if [ -z "$problem" ]; then
        # Read the screen as a person would, pressing Enter at a hit-enter prompt (the
        # driver's verdict is written once Neovim is past it). One capture per look: a
        # message drawn between two captures must be read before Enter clears it.
        local seen= shot since=0
        for _ in $(seq 300); do
          shot=$(screen)
          grep -Eq -- "$pattern" <<<"$shot" && seen=yes
          [ -n "$seen" ] && [ -s "$logs/verdict.json" ] && break
          grep -q 'Press ENTER' <<<"$shot" && keys Enter
          # Read, the person presses Enter: Neovim does not always draw the hit-enter
          # prompt (a :registers listing after the clipboard tool ran).
          if [ -n "$seen" ]; then
            since=$((since + 1))
            [ $((since % 20)) -eq 0 ] && keys Enter
          fi
          sleep 0.1
        done
        if [ -z "$seen" ]; then
          problem="the screen does not show /$pattern/"
        elif [ ! -s "$logs/verdict.json" ]; then
          problem="the run did not end"
        elif ! python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); sys.exit(1 if v["failures"] else 0)' "$logs/verdict.json"; then
          problem="$(cat "$logs/verdict.json")"
        fi
      fi
    fi
    if [ -n "$problem" ]; then
      echo "guard: FAIL: tui $name: $problem" >&2
      screen >&2 || true
      failed=$((failed + 1))
    else
      echo "guard: ok: tui $name"
    fi
    tmux -L "$sock" kill-server >/dev/null 2>&1 || true
  }
  echo "guard: TUI cases in tmux"
  tui gz-cfile no '' 'it tried to start a program: .*lz4 -d'
  tui mapping-swap yes y 'not the one the plan showed'
  tui write-compressed-buffer yes y 'it would write .*notes\.gz'
  tui cd-then-write-into-config yes y 'needs .code.: writes'
  tui dash-name-hook no '' 'part beginning with .-.'
  tui code-names-system yes q 'cancelled, nothing ran'
  tui edit-then-write-dangling-link yes y 'needs .code.: writes'
  # No plan window (confirm_before_run = false): the outcome is said after the progress's
  # end, not wiped by it, with a file whose name is not UTF-8 open.
  tui not-utf8 no '' 'ran 1 step'
  tui user-command-redefined yes y 'is not the command the plan showed'
  tui nested-repo-config yes y 'ran 1 step'
  tui scheduled-shell no '' 'a callback that step 1'
  tui lsp-rename-into-config yes y 'rename was refused'
  # The clipboard tool runs (an argument-list start of the user's setup, rule 7): the
  # listing shows the yanked text; the driver's verdict requires that no shell ran.
  tui clipboard no '' '"0 +some text'
fi

if [ "$failed" -gt 0 ]; then
  echo "guard: $failed case(s) failed" >&2
  exit 1
fi
echo "guard: passed"
