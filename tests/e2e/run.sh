#!/usr/bin/env bash
# End-to-end: a real Neovim TUI in tmux, driven like a person would, against a local
# model server speaking the Anthropic Messages wire format (tests/e2e/mock_model.py).
#
#   1. `:Do make the font bigger and turn on word wrap` opens the plan window (checked on
#      screen with capture-pane); <CR> runs it; `:set wrap?` then shows `wrap`.
#   2. `:Do ... leash-e2e ...` proposes a terminal step: the window shows the whole
#      command; `q` cancels and nothing runs; asked again, the file appears only after <CR>.
#   2b. `e` in the window asks for the request again, prefilled, and plans the edited
#      request with the earlier plan as context; `q`, then `:Leash last` reopens that plan
#      without a new request to the model, and <CR> runs it.
#   3.–8. the plan window against scripted plans: keys typed ahead, an editor made small
#      by an earlier plan, a plan that must be scrolled, 'rightleft', a plan that changes
#      nothing (tests/e2e/window.sh).
#   11.–12. a plan with :sort, :substitute and a setting: the window shows what each text
#      step does before it runs, q changes nothing, y runs it, one :Leash undo takes the
#      text and the setting back (tests/e2e/preview.sh).
#
# Usage: tests/e2e/run.sh [--capture DIR]   (DIR receives the screens with each window)
# Needs: tmux, python3, the native library built (scripts/test builds it first).
# Exits non-zero with the screen printed when any step fails, including when `:Do`
# cannot plan yet.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

. tests/e2e/lib.sh
e2e_start e2e e2e "$@"
nvim=$(scripts/nvim-path)

echo_file="$tmp/echo-out.txt"
e2e_model_server tests/e2e/mock_model.py --echo-file "$echo_file" --log "$tmp/requests.jsonl"

e2e_mock_init "$tmp/init.lua" 'vim.o.wrap = false'
e2e_nvim "$tmp" "$tmp/init.lua"

# --- 1. settings ------------------------------------------------------------------
ex 'set wrap?'
wait_for '^ *nowrap *$' 5 || fail "the test expects 'nowrap' before the plan runs"

ex 'Do make the font bigger and turn on word wrap'
if ! wait_for 'leash plan' 30; then
  fail ":Do did not open the plan window (is the planner wired into :Do yet?)"
fi
wait_for 'Set wrap: false → true' 2 || fail "the window does not show the wrap step with its current value"
wait_for 'wrap long lines at the window edge' 2 || fail "the window does not show the step's why"
wait_for 'fontsize' 2 || fail "the window does not list the dropped fontsize step"
wait_for '<CR>/y run' 2 || fail "the window does not show its keys"
capture plan-settings

sleep 0.3 # the run key is armed 150 ms after the window opens
keys Enter
gone 5 || fail "the window did not close on <CR>"
ex 'set wrap?'
wait_for '^ *wrap *$' 5 || fail "':set wrap?' does not show 'wrap' after the run key"
echo "e2e: ok: :Do made a plan, the window showed it, <CR> ran it, 'wrap' is on"

# --- 2. a terminal step: cancel, then run -----------------------------------------
ex 'Do run the leash-e2e marker command'
wait_for 'leash plan' 30 || fail ":Do did not open the plan window for the terminal step"
wait_for "\\[shell\\] Run in a terminal:" 2 || fail "the terminal step is not marked [shell]"
# The whole command is on screen (it may wrap: compare with the line breaks removed).
flat=$(screen | sed 's/^[│ ]*//; s/[│ ]*$//' | tr -d '\n')
case "$flat" in
  *"echo leash-e2e > $echo_file"*) ;;
  *) fail "the window does not show the whole command" ;;
esac
capture plan-terminal
sleep 1
[ -e "$echo_file" ] && fail "the command ran before the run key"
keys q
gone 5 || fail "q did not close the window"
sleep 1
[ -e "$echo_file" ] && fail "the command ran although the window was cancelled"
echo "e2e: ok: the terminal step was shown in full, q cancelled it, nothing ran"

ex 'Do run the leash-e2e marker command'
wait_for 'leash plan' 30 || fail ":Do did not open the plan window the second time"
sleep 1
[ -e "$echo_file" ] && fail "the command ran before the run key"
wait_for 'y run \(marked steps: not <CR>\)' 2 || fail "the window of a [shell] plan does not say that y runs it"
keys Enter
sleep 1
[ -e "$echo_file" ] && fail "<CR> ran a plan with a [shell] step"
keys y
for _ in $(seq 100); do [ -s "$echo_file" ] && break; sleep 0.1; done
[ -s "$echo_file" ] || fail "the command did not run after the run key"
[ "$(cat "$echo_file")" = "leash-e2e" ] || fail "the command wrote $(cat "$echo_file"), not leash-e2e"
echo "e2e: ok: the terminal step ran only after y (<CR> did nothing in a marked plan)"

# --- 2b. refine with e, reopen with :Leash last -------------------------------------
ex 'set nowrap'
ex 'Do make the font bigger and turn on word wrap'
wait_for 'leash plan' 30 || fail ":Do did not open the plan window"
wait_for '<CR>/y run · e edit · q/<Esc> cancel' 2 || fail "the footer does not name e"
sleep 0.3
keys e
wait_for 'change the request: make the font bigger and turn on word wrap' 5 ||
  fail "e did not ask for the request again, prefilled with the old one"
keys -l ' only here'
keys Enter
wait_for 'leash plan' 30 || fail "the edited request did not open a plan window"
grep -q 'Earlier request: make the font bigger and turn on word wrap' "$tmp/requests.jsonl" ||
  fail "the edited request did not reach the model with the earlier plan"
grep -q 'Request: make the font bigger and turn on word wrap only here' "$tmp/requests.jsonl" ||
  fail "the edited request did not reach the model"
keys q
gone 5 || fail "q did not close the window"
asked=$(wc -l <"$tmp/requests.jsonl")
ex 'Leash last'
wait_for 'leash plan' 5 || fail ":Leash last did not open the last plan"
wait_for 'Set wrap: false → true' 2 || fail ":Leash last does not show the last plan's step"
[ "$(wc -l <"$tmp/requests.jsonl")" = "$asked" ] || fail ":Leash last asked the model again"
sleep 0.3
keys Enter
gone 5 || fail "the reopened window did not close on <CR>"
ex 'set wrap?'
wait_for '^ *wrap *$' 5 || fail "the plan reopened with :Leash last did not run"
log="$tmp/state/nvim/leash.log"
for status in edited cancelled ran; do
  grep -q '"status":"'"$status"'"' "$log" || fail "the log has no outcome $status"
done
echo "e2e: ok: e edited the request and planned again with the earlier plan, :Leash last reopened it, <CR> ran it"

# --- 3.–8. the plan window (tests/e2e/window.sh) ---------------------------------------
. tests/e2e/window.sh

# --- 11.–12. the dry run and :Leash undo (tests/e2e/preview.sh) ---------------------------
. tests/e2e/preview.sh

ex 'qa!'
n=$(wc -l <"$tmp/requests.jsonl" 2>/dev/null || echo 0)
[ "$n" -ge 3 ] || fail "the mock model saw $n request(s), expected one per :Do (3)"
grep -q 'make the font bigger and turn on word wrap' "$tmp/requests.jsonl" || fail "the request text did not reach the model"
echo "e2e: passed"
