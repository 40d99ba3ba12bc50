# What the end-to-end scripts share (sourced from the repository root, after `set -euo
# pipefail`): a private folder and tmux server removed on exit, a local model server, and
# the helpers that type keys and read the screen as a person would.
#
#   e2e_start LABEL SESSION [ARGS...]: reads --capture DIR into $capture_out, checks tmux
#     and python3, sets $tmp (a private folder), $sock (a tmux server of its own) and the
#     EXIT trap that removes both; screen, keys and wait_for act on the tmux SESSION.
#   e2e_model_server SCRIPT [ARGS...]: starts a model server (tests/e2e/*.py) on a free
#     port and sets $port.
#   e2e_tmux [OPTIONS...] COMMAND: the terminal, in tmux session SESSION.
#   e2e_mock_init FILE [LUA...]: an init.lua for Neovim against that server.
#   e2e_nvim XDG INIT: Neovim in that terminal, its XDG folders under XDG.
#   ex, gone, capture: an Ex command typed, the plan window gone, the screen kept.
#   fail MESSAGE: says what failed, with the screen and the requests the server received.

e2e_start() {
  e2e_label=$1 e2e_session=$2
  shift 2
  capture_out=
  while [ $# -gt 0 ]; do
    case "$1" in
      --capture) capture_out=$2; shift 2 ;;
      *) echo "$e2e_label: unknown argument $1" >&2; exit 2 ;;
    esac
  done
  local tool
  for tool in tmux python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$e2e_label: FAIL: $tool is not installed" >&2; exit 1; }
  done
  tmp=$(mktemp -d)
  sock="leash-$e2e_session-$$"
  e2e_server_pid=
  trap e2e_cleanup EXIT
}

e2e_cleanup() {
  tmux -L "$sock" kill-server >/dev/null 2>&1 || true
  [ -n "$e2e_server_pid" ] && kill "$e2e_server_pid" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}

e2e_model_server() {
  python3 "$@" --port-file "$tmp/port" &
  e2e_server_pid=$!
  local i
  for i in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
  [ -s "$tmp/port" ] || { echo "$e2e_label: FAIL: the model server did not start" >&2; exit 1; }
  port=$(cat "$tmp/port")
}

# e2e_tmux [OPTIONS...] COMMAND: a 120×40 terminal (or $e2e_cols×$e2e_rows) running
# COMMAND, kept after it exits. A suite that killed its last session starts the next one
# while that server may still be exiting ("server exited unexpectedly"): asked again.
e2e_tmux() {
  local i
  for i in 1 2 3 4 5; do
    tmux -L "$sock" -f /dev/null new-session -d -s "$e2e_session" -x "${e2e_cols:-120}" -y "${e2e_rows:-40}" "$@" &&
      break
    sleep 0.2
  done
  tmux -L "$sock" set-option -t "$e2e_session" remain-on-exit on >/dev/null
}

# e2e_mock_init FILE [LUA...]: writes FILE, an init.lua that puts this checkout ($root)
# first on 'runtimepath', runs each LUA line, and sets leash up with the model server of
# e2e_model_server as provider `mock` (its key in $LEASH_E2E_KEY, which e2e_nvim sets).
e2e_mock_init() {
  local file=$1
  shift
  {
    echo "vim.opt.rtp:prepend(${root@Q})"
    echo "vim.o.shortmess = vim.o.shortmess .. 'I'"
    [ $# -gt 0 ] && printf '%s\n' "$@"
    cat <<EOF
require('leash').setup({
  provider = 'mock',
  providers = {
    mock = { kind = 'anthropic', model = 'mock-model', url = 'http://127.0.0.1:${port}', api_key_env = 'LEASH_E2E_KEY' },
  },
})
EOF
  } >"$file"
}

# e2e_nvim XDG INIT: Neovim with INIT (no ShaDa) in a new terminal (e2e_tmux), its
# config, data, state and cache folders under XDG, the model server's key set and no
# proxy for it; fails unless it has started within 15 s.
e2e_nvim() {
  mkdir -p "$1"
  e2e_tmux \
    "env -u TMUX NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost XDG_CONFIG_HOME=$1/config XDG_DATA_HOME=$1/data XDG_STATE_HOME=$1/state XDG_CACHE_HOME=$1/cache LEASH_E2E_KEY=e2e-not-a-secret $(printf %q "$nvim") -i NONE -u $2; sleep 30"
  wait_for '^~ *$' 15 || fail "Neovim did not start"
}

screen() { tmux -L "$sock" capture-pane -p -t "$e2e_session"; }
keys() { tmux -L "$sock" send-keys -t "$e2e_session" "$@"; }

# wait_for PATTERN [SECONDS]: poll the screen until a line matches (grep -E).
wait_for() {
  local pattern=$1 limit=${2:-10} i
  for i in $(seq $((limit * 10))); do
    screen | grep -Eq -- "$pattern" && return 0
    sleep 0.1
  done
  return 1
}

# ex CMD: type an Ex command and <CR>.
ex() { keys Escape; keys -l ":$1"; keys Enter; }

# gone [SECONDS]: poll (5 s unless told) until the plan window is off the screen; 1 if
# it stays.
gone() {
  local i
  for i in $(seq $((${1:-5} * 10))); do
    screen | grep -q 'leash plan' || return 0
    sleep 0.1
  done
  return 1
}

# capture NAME: with --capture DIR, the screen is kept as DIR/NAME.txt.
capture() { if [ -n "$capture_out" ]; then mkdir -p "$capture_out" && screen >"$capture_out/$1.txt"; fi; }

fail() {
  echo "$e2e_label: FAIL: $*" >&2
  echo "---- screen ----" >&2
  screen >&2 || true
  echo "----------------" >&2
  if [ -s "$tmp/requests.jsonl" ]; then
    echo "$e2e_label: the model server received $(wc -l <"$tmp/requests.jsonl") request(s):" >&2
    grep -o 'Request: [^"\\]*' "$tmp/requests.jsonl" >&2 || true
  else
    echo "$e2e_label: the model server received no request" >&2
  fi
  exit 1
}
