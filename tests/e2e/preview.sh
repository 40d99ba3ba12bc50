# End-to-end cases for the dry run and :Leash undo, sourced by tests/e2e/run.sh (its
# helpers and its Neovim session, 120×40, and window.sh's `plan` and `approve`) after
# the plan window's cases. The scripted plan `preview` sorts the lines, capitalises an
# `apple` with :substitute and sets 'tabstop' to 4.
#
#  11. The window shows what each text step does to fruit.txt (`+1 −1 in fruit.txt`,
#      the removed and added lines) before anything runs; `q` leaves the buffer, its
#      undo history and 'modified' as they were.
#  12. `y` runs it: the buffer is what the window showed; one `:Leash undo` takes back
#      the text and the setting, and says so.
#  13. After the user edits the buffer the plan changed, `:Leash undo` asks first: `k`
#      (keep) undoes nothing, `u` takes the plan back and says which `:undo` brings the
#      user's edit back.

fruit="$tmp/fruit.txt"
printf 'pear\napple\nfig\n' >"$fruit"
# echo_lines: the buffer's lines, with 'tabstop' and 'modified', on one screen line.
echo_lines() { ex "echo 'text:' join(getline(1, '\$'), ',') 'ts=' .. &tabstop 'mod=' .. &modified 'undo=' .. undotree().seq_last"; }

# --- 11. the effect of each step, shown before it runs; q changes nothing -----------------
ex 'silent! only!'
ex "edit! $fruit"
ex 'set tabstop=8'
echo_lines
wait_for '^text: pear,apple,fig ts=8 mod=0 undo=0' 5 || fail "fruit.txt did not open as written"
plan preview
wait_for '1\. Run :sort' 2 || fail "the window does not show the :sort step"
wait_for '│ +\+1 −1 in .*fruit\.txt' 2 || fail "the window does not count the lines :sort changes"
wait_for '│ +- 1 pear' 2 || fail "the window does not show the line :sort moves"
wait_for '2\. Run :substitute /\^apple/APPLE/' 2 || fail "the substitute without an expression is not shown as an edit"
screen | grep -q '\[code\] Run :substitute' && fail "a substitute without an expression is marked [code]"
wait_for '│ +\+ 1 APPLE' 2 || fail "the window does not show what :substitute makes of the line"
wait_for '3\. Set tabstop: 8 → 4' 2 || fail "the window does not show the setting"
if [ -n "$capture_out" ]; then screen >"$capture_out/plan-preview.txt"; fi
keys q
gone 5 || fail "q did not close the window"
echo_lines
wait_for '^text: pear,apple,fig ts=8 mod=0 undo=0' 5 || fail "cancelling the previewed plan changed the buffer"
echo "e2e: ok: the window showed what :sort and :substitute do to fruit.txt; q left the buffer untouched"

# --- 12. y runs what was shown; one :Leash undo takes it all back --------------------------
plan preview
approve
echo_lines
wait_for '^text: APPLE,fig,pear ts=4 mod=1' 5 || fail "y did not run the plan as previewed"
ex 'Leash undo'
wait_for 'restored the text of .*fruit\.txt; restored tabstop' 5 || fail ":Leash undo does not say what it restored"
echo_lines
wait_for '^text: pear,apple,fig ts=8 mod=0' 5 || fail ":Leash undo did not take back the text and the setting"
echo "e2e: ok: y ran the previewed plan; one :Leash undo restored the text of fruit.txt and 'tabstop'"

# --- 13. over the user's own later edits, :Leash undo asks first ---------------------------
plan preview
approve
keys -l 'Gomine'
keys Escape
ex 'Leash undo'
wait_for 'you edited .*fruit\.txt after the plan' 5 || fail ":Leash undo did not ask before undoing over the user's edit"
keys k
wait_for 'nothing undone: you edited' 5 || fail "keeping the edits does not say nothing was undone"
echo_lines
wait_for '^text: APPLE,fig,pear,mine ts=4' 5 || fail "answering keep undid something"
ex 'Leash undo'
wait_for 'you edited .*fruit\.txt after the plan' 5 || fail ":Leash undo did not ask the second time"
keys u
wait_for 'your later edits: :undo [0-9]+ in ' 5 || fail ":Leash undo does not say how to get the user's edits back"
keys Enter # the message is longer than the command line
echo_lines
wait_for '^text: pear,apple,fig ts=8' 5 || fail "answering undo did not take the plan back"
echo "e2e: ok: over the user's later edit :Leash undo asked; keep undid nothing, undo took the plan back and named the :undo that brings the edit back"
