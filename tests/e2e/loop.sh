#!/usr/bin/env bash
# End-to-end: the everyday loop as a person sees it, in a real Neovim TUI in tmux at
# 80×24 and at 120×40, with 'cmdheight' 0, against a local model server
# (tests/e2e/mock_model.py). No hit-enter prompt may appear at any moment of 1.–3.:
#
#   1. `:Do` opens the plan window, and the progress message is gone under it; each
#      mark in it says why, in a few words.
#   2. Progress moves while a slow model thinks: the spinner turns and the seconds count.
#   3. A second `:Do` while one is planning cancels it and opens the new plan's window.
#   4. A hit-enter prompt of someone else's, dismissed with Enter while a plan is made, is
#      not typing: the window opens when the plan arrives.
#   5. (80×24) With snacks.nvim's notifier, a planning error is shown whole, wrapped,
#      in a notification titled leash, without the "leash:" prefix; so is `:Leash` alone.
#   7. (80×24, a new session) `:Do <Tab>` completes the last session's request; a plan
#      reviewed with `:Do!` runs from `:Leash last` with y in the session after; `:Leash
#      log` lists it with its steps and outcome, and q closes it.
#   8. (80×24, offline) a candidate picked from Neovim's own vim.ui.select list opens its
#      plan window: the keys that picked it are not typing, no hit-enter prompt; what a
#      plan of two settings did fits one line, its trailing hint left out whole, not cut.
#   6. (80×24) setup() with a typo in init.lua: one line names the error, no prompt, the
#      rest of init.lua runs, and `:Do` says the config has errors instead of planning.
#
# Usage: tests/e2e/loop.sh [--capture DIR]   (DIR receives the screens)
# Needs: tmux, python3, the native library built; snacks.nvim from ../shared/tools/plugins
# for 5 (skipped without it).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

. tests/e2e/lib.sh
e2e_start loop loop "$@"
nvim=$(scripts/nvim-path)

echo_file="$tmp/echo-out.txt"
e2e_model_server tests/e2e/mock_model.py --echo-file "$echo_file" --log "$tmp/requests.jsonl"

# no_prompt WHAT: fail when a hit-enter prompt is on screen.
no_prompt() {
  if screen | grep -q 'Press ENTER'; then fail "a hit-enter prompt $1"; fi
  return 0
}
# wait_quietly PATTERN SECONDS WHAT: wait_for, failing at once on a hit-enter prompt.
wait_quietly() {
  local i
  for i in $(seq $(($2 * 10))); do
    no_prompt "$3"
    screen | grep -Eq -- "$1" && return 0
    sleep 0.1
  done
  return 1
}

# start COLS ROWS INIT: a fresh Neovim in a fresh terminal of that size.
start() {
  tmux -L "$sock" kill-session -t "$e2e_session" >/dev/null 2>&1 || true
  e2e_cols=$1 e2e_rows=$2
  e2e_nvim "$tmp/xdg-$1" "$3"
}

e2e_mock_init "$tmp/init.lua" 'vim.o.cmdheight = 0' 'vim.o.wrap = false'

for size in 80x24 120x40; do
  cols=${size%x*} rows=${size#*x}
  start "$cols" "$rows" "$tmp/init.lua"

  # --- 1. the window opens, no prompt, the progress gone -------------------------------
  ex 'Do make the font bigger and turn on word wrap'
  wait_quietly 'leash plan' 30 "appeared before the plan window opened ($size, cmdheight=0)" ||
    fail ":Do did not open the plan window ($size, cmdheight=0)"
  sleep 0.3
  no_prompt "appeared after the plan window opened ($size)"
  screen | grep -q 'planning with' && fail "the progress message stayed under the plan window ($size)"
  capture "window-$size"
  keys Enter
  gone || fail "the plan window did not close"
  echo "loop: ok ($size): :Do opened the plan window with cmdheight=0, no hit-enter prompt, no progress left under it"

  # --- 1b. each mark says why ------------------------------------------------------------
  ex 'Do e2e-plan:marked'
  wait_quietly 'leash plan' 30 "appeared before the marked plan opened ($size)" || fail "the marked plan did not open ($size)"
  sleep 0.3
  win=$(screen | tr -s ' ')
  grep -q 'colorscheme habamax — a colorscheme' <<<"$win" || fail "the [code] mark of :colorscheme does not say why ($size): $win"
  grep -q 'may load spell files' <<<"$win" || fail "the [code] mark of spelllang does not say why ($size): $win"
  capture "marked-$size"
  # <CR> does not run a marked plan, and says so without a hit-enter prompt.
  keys Enter
  sleep 0.5
  screen | grep -q 'Press ENTER' && fail "<CR> on a marked plan left a hit-enter prompt ($size)"
  screen | grep -q 'leash plan' || fail "<CR> closed the marked plan ($size)"
  keys q
  gone || fail "the marked plan's window did not close ($size)"
  echo "loop: ok ($size): each [code] mark says why in a few words"

  # --- 2. progress moves ---------------------------------------------------------------
  ex 'Do e2e-plan:slow'
  seen=
  for _ in $(seq 25); do
    no_prompt "appeared while planning ($size)"
    seen+=$(screen | grep -o '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] planning with mock[^…]*' || true)$'\n'
    screen | grep -q 'leash plan' && break
    sleep 0.2
  done
  frames=$(printf '%s' "$seen" | grep -o '^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]' | sort -u | wc -l)
  [ "$frames" -ge 2 ] || fail "the spinner did not move ($size): $seen"
  printf '%s' "$seen" | grep -Eq ' · [12] s' || fail "the seconds were not counted ($size): $seen"
  wait_quietly 'leash plan' 30 "appeared when the slow plan arrived ($size)" || fail "the slow plan did not open ($size)"
  keys q
  gone || fail "the plan window did not close"
  echo "loop: ok ($size): the spinner turned and the seconds counted while the model was slow"

  # --- 3. a second :Do while one is planning ---------------------------------------------
  ex 'Do e2e-plan:slow'
  sleep 0.5
  ex 'Do e2e-plan:slow'
  wait_quietly 'leash plan' 30 "appeared after a second :Do ($size)" || fail "the second :Do did not open its plan ($size)"
  keys q
  gone || fail "the plan window did not close"
  echo "loop: ok ($size): a second :Do while planning replaced the first, no hit-enter prompt"

  # --- 4. a dismissed hit-enter prompt is not typing ------------------------------------
  # Typed before the request: a message of two lines a second later, someone else's.
  ex "lua require('leash.ui.arrival').quiet_ms = 10000; vim.defer_fn(function() print('one\\ntwo') end, 1000)"
  ex 'Do e2e-plan:slow'
  wait_for 'Press ENTER' 10 || fail "the test's own two-line message gave no hit-enter prompt ($size)"
  keys Enter
  wait_for 'leash plan' 15 || fail "after a dismissed hit-enter prompt the plan did not open: the Enter counted as typing ($size)"
  keys q
  gone || fail "the plan window did not close"
  echo "loop: ok ($size): the Enter that dismissed a hit-enter prompt did not hold the plan"
done

# --- 7. a new session: history, :Do! then :Leash last, :Leash log (80×24) ------------------
start 80 24 "$tmp/init.lua" # the state folder of the 80×24 session above
keys Escape
keys -l ':Do '
keys Tab
wait_for '^:Do e2e-plan:slow *$' 5 || fail ":Do <Tab> in a new session did not complete the last request"
keys C-u Escape
echo "loop: ok: :Do <Tab> completes the requests of an earlier session, newest first"

shell_marker="$(dirname "$echo_file")/hidden_shell.txt"
rm -f "$shell_marker"
ex 'Do! e2e-plan:hidden_shell'
wait_quietly 'plan only \(:Do!\), nothing runs' 30 "appeared with :Do!" || fail ":Do! did not show the plan only"
keys q
gone || fail "the plan window did not close"
# Reviewed today, run after a restart: the plan is kept with the history.
start 80 24 "$tmp/init.lua"
ex 'Leash last'
wait_quietly 'y run \(marked steps' 5 "appeared with :Leash last" || fail ":Leash last did not offer to run the reviewed plan"
sleep 0.4
keys y
for _ in $(seq 50); do [ -s "$shell_marker" ] && break; sleep 0.1; done
[ -s "$shell_marker" ] || fail "y in :Leash last did not run the reviewed :Do! plan"
gone || fail "the plan window did not close"
echo "loop: ok: a plan reviewed with :Do! ran from :Leash last with y, after a restart"

# One window again, without wrap (the plan turned it on and opened a terminal split).
ex 'only | set nowrap'
ex 'Leash log'
wait_quietly '^leash log: [0-9]+ requests, newest first' 5 "appeared with :Leash log" || fail ":Leash log did not open its view"
wait_for '  outcome: only shown \(:Do!\), nothing ran' 2 || fail ":Leash log does not say the plan was only shown first"
wait_for '  outcome \([0-9:]+\): ran 2 steps' 2 || fail ":Leash log does not say the plan then ran from :Leash last"
wait_for '  ran     2\. Run in a terminal: echo hidden_shell' 2 || fail ":Leash log does not list the steps with their outcome"
capture log-80x24
keys q
sleep 0.3
screen | grep -q '^leash log:' && fail "q did not close the log view"
echo "loop: ok: :Leash log shows one entry per request with its steps and outcome; q closes it"

# --- 8. offline, a candidate picked from Neovim's own list (80×24) ---------------------------
# The keys that pick it (`1<CR>`) answer leash's own question: they are not typing that
# holds the plan (behind a hit-enter prompt, with 'cmdheight' 0).
cat >"$tmp/offline.lua" <<EOF
vim.opt.rtp:prepend(${root@Q})
vim.o.cmdheight = 0
vim.o.shortmess = vim.o.shortmess .. 'I'
require('leash').setup({})
EOF
start 80 24 "$tmp/offline.lua"
ex 'Do show matching brackets'
wait_for '^[0-9]+: showmatch: off → on' 10 || fail "the offline planner did not offer showmatch in a list"
choice=$(screen | sed -n 's/^\([0-9]*\): showmatch: off → on.*/\1/p' | head -n 1)
keys -l "$choice"
keys Enter
wait_quietly 'leash plan' 10 "appeared after a candidate was picked from the list" ||
  fail "the candidate picked from the list did not open its plan window"
keys q
gone || fail "the plan window did not close"
echo "loop: ok: offline, a candidate picked from Neovim's own list opened its plan window, no hit-enter prompt"

# What a plan did, in one line of 80 columns: the hint "(:Leash undo takes it back)" does
# not fit, and is left out whole rather than cut mid-word before "(:Leash log)".
sleep 1.2
ex 'Do indent with 2 spaces'
wait_quietly 'leash plan' 10 "appeared before the plan window opened (offline)" || fail "no plan window for 'indent with 2 spaces'"
sleep 0.3
keys y
gone || fail "the plan window did not close after y"
wait_quietly '^leash: ran 2 steps' 5 "appeared after the plan ran" || fail "no message saying what the plan did"
line=$(screen | grep '^leash: ran 2 steps' | sed 's/ *$//')
[ "$line" = "leash: ran 2 steps: shiftwidth=2, tabstop=2 (:Leash log)" ] ||
  fail "the message of what ran, at 80 columns: $line"
echo "loop: ok: what the plan did fits one line of 80 columns, the hint left out whole: $line"

# --- 6. a config with a typo, from init.lua ----------------------------------------------
cat >"$tmp/typo.lua" <<EOF
vim.opt.rtp:prepend(${root@Q})
vim.o.cmdheight = 0
vim.o.shortmess = vim.o.shortmess .. 'I'
require('leash').setup({ shortlist_limt = 10 })
vim.g.after_setup = 'the rest of init.lua ran'
EOF
start 80 24 "$tmp/typo.lua"
sleep 0.5
no_prompt "appeared at startup after a config error"
wait_for "leash: config: shortlist_limt: unknown option" 5 || fail "no message naming the config error at startup"
ex 'echo g:after_setup'
wait_for 'the rest of init.lua ran' 5 || fail "the rest of init.lua did not run after setup() with a typo"
ex 'Do turn on word wrap'
wait_quietly 'leash: config: shortlist_limt' 10 "appeared when :Do met the config error" ||
  fail ":Do with a config error did not say so"
sleep 1
no_prompt "appeared after :Do met the config error"
screen | grep -q 'planning with' && fail ":Do planned although the config has errors"
capture config-error-80x24
echo "loop: ok: setup() with a typo said so in one line, the rest of init.lua ran, :Do refused, no hit-enter prompt"

# --- 5. snacks.nvim's notifier --------------------------------------------------------------
snacks_tar=$root/../shared/tools/plugins/snacks.nvim.tar.xz
if [ -f "$snacks_tar" ]; then
  mkdir -p "$tmp/plugins"
  tar -C "$tmp/plugins" -xJf "$snacks_tar"
  cat >"$tmp/snacks.lua" <<EOF
vim.opt.rtp:prepend(${root@Q})
vim.opt.rtp:prepend('$tmp/plugins/snacks.nvim')
vim.o.cmdheight = 0
vim.o.shortmess = vim.o.shortmess .. 'I'
require('snacks').setup({ notifier = { enabled = true, timeout = 20000 } })
require('leash').setup({
  provider = 'dead',
  providers = { dead = { kind = 'openai', model = 'm', url = 'http://127.0.0.1:1/v1', api_key_env = 'LEASH_E2E_KEY', retries = 0 } },
})
EOF
  start 80 24 "$tmp/snacks.lua"
  ex 'Do turn on word wrap'
  wait_quietly 'refused' 30 "appeared with snacks.nvim's notifier" || fail "no notification of the planning error"
  sleep 0.5
  capture snacks-80x24
  # The notification box: its lines between the border's │, joined.
  box=$(screen | grep -o '│.*│' | sed 's/^│ *//; s/ *│$//' | tr '\n' ' ' | tr -s ' ')
  case "$box" in
    *"dead: connection refused at http://127.0.0.1:1: is the server running?"*) ;;
    *) fail "the notification does not hold the whole error: $box" ;;
  esac
  case "$box" in *"leash: dead"*) fail "the notification repeats the leash: prefix: $box" ;; esac
  screen | grep -q 'leash' || fail "the notification is not titled leash"
  echo "loop: ok: snacks.nvim's notifier shows the whole error, wrapped, titled leash, without the prefix"

  # :Leash alone: a listing of every subcommand with its line is cut off in the
  # notifier's window; the names in one sentence are not.
  ex 'Leash'
  wait_quietly 'what each' 10 "appeared after :Leash alone with snacks.nvim's notifier" ||
    fail ":Leash alone showed no notification"
  sleep 0.5
  capture snacks-leash-80x24
  box=$(screen | grep -o '│.*│' | sed 's/^│ *//; s/ *│$//' | tr '\n' ' ' | tr -s ' ')
  case "$box" in
    *"again, build, cancel, catalog, last, log, rank, show, undo (:help :Leash says what each does)"*) ;;
    *) fail ":Leash alone is not shown whole in the notification: $box" ;;
  esac
  screen | grep -q '↓' && fail ":Leash alone left lines below the notification's edge"
  echo "loop: ok: :Leash alone names every subcommand in a notification that shows it whole"
else
  echo "loop: note: no $snacks_tar; the snacks.nvim case did not run"
fi

echo "loop: passed"
