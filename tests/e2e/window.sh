# End-to-end cases for the plan window, sourced by tests/e2e/run.sh (its helpers and its
# Neovim session, 120×40) after its own cases. The mock model answers `e2e-plan:NAME`
# with the scripted plans of tests/e2e/scripted_plans.py; their terminal steps write
# NAME.txt next to the echo file, so each case can tell whether a step ran.
#
#   3. Enter and y typed while a `User LeashPlanDone` handler keeps the main loop busy,
#      before the window exists, do not run the plan.
#   4. A plan may not set 'cmdheight' above 10 (`Set cmdheight: 1 → 34` is dropped); set
#      to 34 another way (a modeline, a plugin, the user), the next window says the editor
#      is too small and runs nothing; at the normal size it shows every step.
#   5. A 30-step plan with long reasons: the run key does nothing until the window was
#      scrolled to its end (the footer counts the lines not shown yet), then it runs.
#   6. After a plan set 'lines' to 12, a plan that does not fit must be scrolled too;
#      after a plan set 'columns' 300 and 'lines' 100 (larger than the terminal) the
#      window is drawn inside the terminal.
#   7. After a plan set 'rightleft', the window still reads left to right.
#   9. A plan that arrives while the user types in Insert mode does not take the keys:
#      the Enter typed then stays in the buffer, a notification says :Leash show opens
#      it; there <CR> does nothing for its [shell] step and y runs it.
#   8. A plan whose only step sets an option to its current value changes nothing and
#      says so, without a window.
#  10. Characters nobody sees (U+061C, U+202E, a tag character) in the model's text are
#      on the screen as <U+061C>…, not drawn raw.

out_dir=$(dirname "$echo_file")
marker() { echo "$out_dir/$1.txt"; }
# plan NAME: ask for the scripted plan NAME and wait for its window.
plan() {
  ex "Do e2e-plan:$1"
  wait_for 'leash plan' 30 || fail ":Do e2e-plan:$1 did not open the plan window"
}
# approve: press y (the run key of every plan) once the window is armed and wait for it
# to close.
approve() {
  sleep 0.4
  keys y
  gone 5 || fail "the window did not close on y"
}
# not_run NAME: the window is still open and NAME.txt did not appear.
not_run() {
  sleep 1
  [ -e "$(marker "$1")" ] && fail "the $1 step ran: $2"
  screen | grep -q 'leash plan' || fail "the window closed: $2"
  return 0
}
# ran NAME: NAME.txt appears.
ran() {
  local i
  for i in $(seq 100); do [ -s "$(marker "$1")" ] && return 0; sleep 0.1; done
  fail "the $1 step did not run: $2"
}

# --- 3. keys typed before the window existed ---------------------------------------
busy="$tmp/busy"
ex "lua vim.api.nvim_create_autocmd('User', { pattern = 'LeashPlanDone', once = true, callback = function() io.open('$busy', 'w'):close(); vim.uv.sleep(1500) end })"
ex 'Do e2e-plan:typeahead'
for _ in $(seq 300); do [ -e "$busy" ] && break; sleep 0.02; done
[ -e "$busy" ] || fail "the LeashPlanDone handler did not run"
keys Enter
keys y
for _ in $(seq 100); do
  [ -e "$(marker typeahead)" ] && fail "Enter and y typed while the main loop was busy ran the plan"
  screen | grep -q 'leash plan' && break
  sleep 0.1
done
wait_for 'leash plan' 1 || fail "no plan window after the busy LeashPlanDone handler"
not_run typeahead "Enter and y typed while the main loop was busy accepted the window"
keys q
gone 5 || fail "q did not close the window"
echo "e2e: ok: Enter and y typed before the window was drawn did not run the plan"

# --- 4. an earlier plan set 'cmdheight' -----------------------------------------------
ex 'Do e2e-plan:cmdheight'
wait_for "'cmdheight' = 34 is above the limit 10" 30 || fail "a plan could set 'cmdheight' to 34"
keys Enter
ex 'set cmdheight=34'
plan hidden_shell
wait_for 'too small to show the plan' 5 || fail "a window with four rows left does not say it is too small"
keys Enter
keys y
not_run hidden_shell "the run key worked in a window too small to show the plan"
capture plan-too-small
keys q
gone 5 || fail "q did not close the too-small window"
ex 'set cmdheight=1'
plan hidden_shell
wait_for '2 steps: 1 runs a shell command' 2 || fail "the header does not count the shell step"
wait_for '2\. \[shell\] Run in a terminal:' 2 || fail "the shell step is not on screen"
keys q
gone 5 || fail "q did not close the window"
echo "e2e: ok: a plan cannot set cmdheight=34; at 34 the window refused to run; at 1 it shows the shell step"

# --- 5. a long plan must be scrolled to its end -----------------------------------------
plan long
wait_for '10 steps: 1 runs a shell command' 2 || fail "the header does not count the long plan's steps"
wait_for 'scroll to the end' 2 || fail "the window does not say it must be scrolled"
wait_for 'more lines: j/<C-d> scroll' 2 || fail "the footer does not count the lines not shown yet"
screen | grep -q 'Run in a terminal:' && fail "the test expects the shell step below the first screen"
capture plan-long
keys Enter
keys y
not_run long "the run key worked before the plan was scrolled to its end"
for _ in $(seq 20); do
  screen | grep -q 'y run (marked' && break
  keys C-d
  sleep 0.2
done
wait_for 'y run \(marked' 2 || fail "scrolled to the end, the footer does not offer the run key"
flat=$(screen | sed 's/^[│ ]*//; s/[│ ]*$//' | tr -d '\n')
case "$flat" in
  *"echo long > $(marker long)"*) ;;
  *) fail "scrolled to the end, the whole shell command is not on screen" ;;
esac
keys y
ran long "after scrolling to the end, y did not run the plan"
gone 5 || fail "the window did not close after y"
echo "e2e: ok: a 30-step plan ran only after it was scrolled to its end"

# --- 6. an earlier plan set 'lines' -------------------------------------------------------
plan lines
approve
plan hidden_shell
wait_for 'more lines: j/<C-d> scroll' 5 || fail "with 12 lines the window does not ask to scroll"
keys Enter
not_run hidden_shell "the run key worked before the small window was scrolled"
keys q
gone 5 || fail "q did not close the window"
ex 'set lines=40'
echo "e2e: ok: with 'lines' set to 12 the window must be scrolled before it runs"

# --- 6b. an earlier plan made 'lines' and 'columns' larger than the terminal -------------
plan huge
approve
plan hidden_shell
# Whole framed rows: Neovim's 300-column rows wrap in the 120-column terminal, so text
# drawn past the terminal's edge shows up only in pieces.
wait_for '^ *│ 2\. \[shell\] Run in a terminal: +│$' 5 ||
  fail "with 'columns' 300 and 'lines' 100 the shell step is not on the terminal"
wait_for '^[~ ]*╰─+ y run \(marked steps: not <CR>\) · e edit · q/<Esc> cancel ─+╯$' 2 ||
  fail "with 'columns' 300 and 'lines' 100 the window's keys are not on the terminal"
keys q
gone 5 || fail "q did not close the window"
ex 'set lines=40 columns=120'
echo "e2e: ok: with 'columns' and 'lines' larger than the terminal the window is drawn where it can be seen"

# --- 7. an earlier plan set 'rightleft' ---------------------------------------------------
plan rightleft
approve
plan typeahead
wait_for '1 step: 1 runs a shell command\.' 2 || fail "with 'rightleft' set the header is not readable"
wait_for '1\. \[shell\] Run in a terminal:' 2 || fail "with 'rightleft' set the step is mirrored"
keys q
gone 5 || fail "q did not close the window"
ex 'set norightleft'
echo "e2e: ok: with 'rightleft' set the window reads left to right"

# --- 8. a plan that changes nothing --------------------------------------------------------
ex 'set wrap'
ex 'Do e2e-plan:already'
wait_for 'nothing to change: wrap is already true' 30 || fail "a plan that changes nothing does not say so"
screen | grep -q 'leash plan' && fail "a plan that changes nothing opened the window"
echo "e2e: ok: a plan that changes nothing says so and opens no window"

# --- 9. a plan that arrives while the user is typing ------------------------------------
ex 'silent! only!'
ex 'enew!'
ex 'Do e2e-plan:slow'
keys i
keys -l 'typing while the model thinks'
# The plan arrives after 3 s; the user keeps typing lines through it.
for i in 1 2 3 4 5 6; do
  keys Enter
  keys -l "line $i"
  sleep 0.6
done
sleep 1
screen | grep -q 'leash plan' && fail "the plan window took the keys while the user was typing"
[ -e "$(marker slow)" ] && fail "the slow plan ran from keys typed in Insert mode"
screen | grep -q 'line 6' || fail "the keys typed in Insert mode did not reach the buffer"
keys Escape
wait_for 'a plan is waiting .*:Leash show opens it' 5 || fail "back in Normal mode, no notice that a plan waits"
sleep 1.2
ex 'Leash show'
wait_for 'leash plan' 5 || fail ":Leash show did not open the waiting plan"
sleep 0.4
keys Enter
sleep 0.8
[ -e "$(marker slow)" ] && fail "<CR> ran the [shell] step of the waiting plan"
keys y
ran slow "y did not run the waiting plan"
gone 5 || fail "the window did not close after y"
echo "e2e: ok: a plan that arrived while typing waited for :Leash show; <CR> did not run it, y did"

# --- 10. characters nobody sees ------------------------------------------------------------
plan invisible
wait_for 'cd junk;<U\+061C> rm -f precious\.txt' 2 || fail "U+061C in the reply is not written out on screen"
wait_for 'tidy<U\+202E> up<U\+E0041>' 2 || fail "U+202E or a tag character in a reason is not written out on screen"
screen | grep -q 'cd junk; rm' && fail "the reply is drawn as if U+061C were not there"
keys q
gone 5 || fail "q did not close the window"
echo "e2e: ok: invisible characters in the model's text are written out on screen"
