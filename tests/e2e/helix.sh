#!/usr/bin/env bash
# End-to-end: a real Helix (25.07) in tmux, with the key bindings `leash helix keys`
# prints, against a local model server (tests/e2e/scripted_model.py, OpenAI wire format).
#
#   0. `keys --install` into a config whose inline space table binds space . already:
#      refused with the binding named, then --force: a [keys.normal.space] table Helix reads.
#   The user's config.toml rebinds q (to :quit), y, " and : (command mode is on ;): the
#   bindings leash makes type none of them, so the plans run and Helix stays open.
#   1. `space .`, "relative line numbers and a vertical split": the dialog shows the plan
#      (current → new value, the command), `y` writes config.toml (comments kept), Helix
#      reloads it and the split opens. The file open in Helix is named
#      `we'ird;$(touch pwned).txt`: its name reaches the dialog and no shell runs it.
#   2. `space .`, another plan: `n` cancels and config.toml is byte for byte the same.
#   3. A terminal step: shown in full, Esc cancels (nothing runs), then `y` runs it on the
#      terminal and its output stays until a key is pressed.
#   3b. Static commands by their keys (the user rebound `C-c`, so `toggle_comments` is
#      typed as `space c`), `:write`, then a program that runs after Helix saved.
#   3c. On 80x24: a [shell] step padded with 3,500 spaces shows the padding as ␠×3500,
#      its mark, its start and a pinned summary; a double Enter runs nothing. A 10-step
#      plan with its [shell] step below the fold: y does nothing until every row was on
#      screen.
#   4. `space ,`: "Planning with …" while the model plans, then the plan in Helix's popup;
#      nothing is applied. `space .` then Enter alone applies exactly that
#      plan (the model is not asked again).
#   4b. Helix's own error after the plan (`:format` with no formatter) stays on the
#      status line: leash's "done" does not hide it.
#   4c. List options ("rulers at 80 and 100"): written as TOML arrays, Helix loads them;
#      an element Helix does not have is dropped.
#   4d. A missing API key: space . and space , say so before the request line.
#   5. config.toml broken after Helix loaded it: the dialog says so, nothing is written
#      and nothing runs.
#   6. After Helix quits, the shell's screen is back: no dialog left the alternate screen.
#
# Usage: tests/e2e/helix.sh [--capture DIR]
# hx comes from $LEASH_TEST_HX, else PATH (25.07 or newer), else ../shared/tools (unpacked
# into .deps/helix). Needs tmux, python3 and target/release/leash (scripts/test builds it).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

. tests/e2e/lib.sh
e2e_start "helix e2e" hx "$@"
leash=$root/target/release/leash
[ -x "$leash" ] || { echo "helix e2e: FAIL: $leash is missing (cargo build --release)" >&2; exit 1; }

new_enough() { # helix 25.07 or newer
  local v
  v=$("$1" --version 2>/dev/null | sed -n 's/^helix \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  [ -n "$v" ] || return 1
  set -- $v
  [ "$1" -gt 25 ] || { [ "$1" -eq 25 ] && [ "$((10#$2))" -ge 7 ]; }
}
hx=
if [ -n "${LEASH_TEST_HX:-}" ]; then
  hx=$LEASH_TEST_HX
elif command -v hx >/dev/null 2>&1 && new_enough "$(command -v hx)"; then
  hx=$(command -v hx)
else
  tarball=$root/../shared/tools/helix-25.07.1-x86_64-linux.tar.xz
  if [ -f "$tarball" ]; then
    if [ ! -x .deps/helix/hx ]; then
      mkdir -p .deps/helix
      tar -C .deps/helix -xJf "$tarball"
    fi
    hx=$root/.deps/helix/hx
  fi
fi
if [ -z "$hx" ]; then
  . tests/support/skip.sh
  skip "helix e2e" "no hx 25.07+ on PATH, no LEASH_TEST_HX and no ../shared/tools/helix-*.tar.xz"
fi
new_enough "$hx" || { echo "helix e2e: FAIL: $hx is not Helix 25.07 or newer" >&2; exit 1; }
runtime=$(dirname "$hx")/runtime
echo "helix e2e: $("$hx" --version) ($hx)"

echo_file="$tmp/echo-out.txt"
e2e_model_server tests/e2e/scripted_model.py --plans tests/e2e/helix-plans.json --echo-file "$echo_file" \
  --log "$tmp/requests.jsonl"

mkdir -p "$tmp/config/leash" "$tmp/state" "$tmp/hx" "$tmp/proj"
cat >"$tmp/config/leash/config.toml" <<EOF
# the leash program's provider (same keys as Neovim's setup())
provider = "mock"
[providers.mock]
kind = "openai"
url = "http://127.0.0.1:$port/v1"
model = "mock-model"
EOF
hxconf=$tmp/hx/config.toml
cat >"$hxconf" <<'EOF'
# my Helix settings: leash must keep this comment
[editor]
mouse = false # and this one

[keys.normal]
C-c = "no_op" # toggle_comments' first default key, taken by the user
# Keys a macro would type: q quits, y and " do nothing, and : moved to ;. leash's
# bindings must not depend on them.
q = ":quit"
y = "no_op"
'"' = "no_op"
":" = "no_op"
";" = "command_mode"
EOF
"$leash" helix keys --install --helix-config "$hxconf" >/dev/null
grep -q '^\[keys.normal.space\]' "$hxconf" || { echo "helix e2e: FAIL: leash helix keys printed no bindings" >&2; exit 1; }

# --- 0. install into a config with a space . of the user's own, in an inline table -------
setup_fail() { echo "helix e2e: FAIL: $*" >&2; exit 1; }
inline=$tmp/hx/inline.toml
printf '[keys.normal]\nspace = { "." = ":write", x = ":vsplit" } # mine\n' >"$inline"
cp "$inline" "$tmp/inline-before.toml"
"$leash" helix keys --install --helix-config "$inline" 2>"$tmp/install.err" >/dev/null &&
  setup_fail "keys --install replaced the user's space . without --force"
grep -q 'space \. = ":write"' "$tmp/install.err" || setup_fail "keys --install does not name the binding in the way: $(cat "$tmp/install.err")"
cmp -s "$inline" "$tmp/inline-before.toml" || setup_fail "a refused install changed the file"
"$leash" helix keys --install --force --helix-config "$inline" >/dev/null || setup_fail "keys --install --force failed"
grep -q '^\[keys.normal.space\]$' "$inline" || setup_fail "the inline space table did not become a table: $(cat "$inline")"
grep -q '^x = ":vsplit"$' "$inline" || setup_fail "the user's other binding is gone: $(cat "$inline")"
"$hx" -c "$inline" --health clipboard 2>&1 | grep -qi 'malformed\|error' && setup_fail "Helix refuses the installed file: $("$hx" -c "$inline" --health clipboard 2>&1 | head -5)"
echo "helix e2e: ok: keys --install named the user's space . and wrote nothing; --force expanded the inline table into a file Helix reads"

weird="we'ird;\$(touch pwned).txt"
printf 'first line\nsecond line\nthird line\n' >"$tmp/proj/$weird"
cat >"$tmp/launch.sh" <<EOF
cd $(printf %q "$tmp/proj")
export HELIX_RUNTIME=$(printf %q "$runtime") XDG_CONFIG_HOME=$(printf %q "$tmp/config") XDG_STATE_HOME=$(printf %q "$tmp/state")
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
echo 'leash-e2e: the shell before Helix'
exec $(printf %q "$hx") -c $(printf %q "$hxconf") $(printf %q "$weird")
EOF

# Escape in a call of its own: sent with other keys, tmux may fold it into a sequence.
normal() { keys Escape; sleep 0.2; }
splits() { screen | grep -c '│' || true; }
views() { screen | grep -o ' sel ' | wc -l; } # one status line per view
ask() { # REQUEST: space . and type the request
  normal
  keys Space; keys .
  wait_for 'what should Helix do' 10 || fail "space . did not open the dialog"
  keys -l "$1"; keys Enter
}

e2e_tmux "bash $(printf %q "$tmp/launch.sh"); sleep 30"
wait_for 'NOR' 15 || fail "Helix did not start"
[ "$(splits)" -eq 0 ] || fail "the test expects one view before the plan runs"

# --- 1. settings and a command, y -------------------------------------------------
ask 'relative line numbers and a vertical split'
wait_for 'Run :vsplit' 30 || fail "the dialog did not show the plan"
wait_for 'Set line-number: "absolute" \(Helix.s default\) → "relative"' 2 || fail "the plan does not show the setting's current and new value"
wait_for 'count lines from the cursor' 2 || fail "the plan does not show the step's reason"
wait_for 'y/Enter run · n/Esc cancel' 2 || fail "the dialog does not show its keys (Enter runs an all-safe plan)"
capture plan-settings
sleep 0.3
keys y
wait_for 'leash: done|Config refreshed' 10 || fail "Helix did not come back with the plan applied"
sleep 0.5
grep -q '^line-number = "relative"' "$hxconf" || fail "config.toml has no line-number = \"relative\": $(cat "$hxconf")"
grep -q '^# my Helix settings: leash must keep this comment$' "$hxconf" || fail "the comment at the top of config.toml is gone"
grep -q '^mouse = false # and this one$' "$hxconf" || fail "the comment after a value is gone"
grep -q '^\[keys.normal.space\]' "$hxconf" || fail "the key bindings are gone from config.toml"
[ "$(splits)" -gt 0 ] || fail "no vertical split after y"
wait_for 'NOR' 2 || fail "Helix is gone after y (a macro typed the user's q = \":quit\")"
normal
keys -l ';get-option line-number'; keys Enter
wait_for '"relative"' 5 || fail "Helix did not reload config.toml (line-number is not relative)"
[ -e "$tmp/proj/pwned" ] && fail "the file name reached a shell"
grep -q 'filetype text' "$tmp/requests.jsonl" || fail "the file's language did not reach the model's context"
# The model was told each shortlisted setting as Helix has it: config.toml's value, else
# Helix's default.
python3 - "$tmp/requests.jsonl" <<'PY' || fail "the model was not told line-number's current value"
import json, sys
texts = [json.dumps(json.loads(line)["body"]["messages"]) for line in open(sys.argv[1])]
asked = [t for t in texts if "relative line numbers" in t]
sys.exit(0 if asked and 'now \\"absolute\\"' in asked[0] and "line-number (" in asked[0] else 1)
PY
echo "helix e2e: ok: space . planned, y wrote config.toml (comments kept), Helix reloaded it and split vertically"

# The file name reached the dialog intact (it is shown above the request line).
normal
keys Space; keys .
wait_for 'what should Helix do' 10 || fail "space . did not open the dialog"
wait_for "In we'ird;\\\$\\(touch pwned\\)\\.txt \\(text\\)" 2 || fail "the dialog does not name the current file and its language"
keys Escape
wait_for 'leash: cancelled' 10 || fail "Esc did not cancel the request line"
echo "helix e2e: ok: the file name and language reached the dialog on stdin; no shell ran the name"

# --- 2. n cancels: nothing changes --------------------------------------------------
cp "$hxconf" "$tmp/before.toml"
before=$(splits)
ask 'soft wrap and a horizontal split'
wait_for 'Run :hsplit' 30 || fail "the dialog did not show the second plan"
wait_for 'Set soft-wrap.enable: false \(Helix.s default\) → true' 2 || fail "the plan does not show soft-wrap's current value"
wait_for 'unknown setting “fontsize”' 2 || fail "the plan does not list the dropped step"
sleep 0.3
keys n
wait_for 'leash: cancelled' 10 || fail "n did not cancel"
cmp -s "$hxconf" "$tmp/before.toml" || fail "config.toml changed although the plan was cancelled"
[ "$(splits)" -eq "$before" ] || fail "the views changed although the plan was cancelled"
echo "helix e2e: ok: n cancelled, config.toml and the views are unchanged"

# --- 3. a terminal step: shown in full, Esc cancels, y runs it ---------------------
ask 'run the leash-e2e marker command'
wait_for '\[shell\] Run in a terminal:' 30 || fail "the terminal step is not marked [shell]"
flat=$(screen | tr -d '\n' | tr -s ' ')
case "$flat" in
  *"echo leash-e2e > $echo_file"*) ;;
  *) fail "the dialog does not show the whole command" ;;
esac
capture plan-terminal
sleep 1
[ -e "$echo_file" ] && fail "the command ran before y"
keys Escape
wait_for 'leash: cancelled' 10 || fail "Esc did not cancel the plan"
sleep 0.5
[ -e "$echo_file" ] && fail "the command ran although the plan was cancelled"
ask 'run the leash-e2e marker command'
wait_for '\[shell\] Run in a terminal:' 30 || fail "the terminal step was not shown again"
sleep 0.3
keys y
wait_for 'Press any key to return to Helix' 10 || fail "the output was not left on screen"
wait_for "\\$ echo leash-e2e > " 2 || fail "the terminal does not show the command it ran"
capture terminal-output
[ -e "$echo_file" ] || fail "y did not run the command"
grep -q '^leash-e2e$' "$echo_file" || fail "the command did not write the marker"
sleep 0.5
wait_for 'Press any key to return to Helix' 1 || fail "the output did not stay until a key"
keys q
wait_for 'leash: done' 10 || fail "a key did not return to Helix"
echo "helix e2e: ok: the terminal step was shown in full, Esc cancelled it, y ran it and its output stayed until a key"

# --- 3b. static commands by their keys, :write, then a program after Helix saved ------
ask 'comment this line, shout and save'
wait_for 'Comment/uncomment selections: key space c \(toggle_comments\)' 30 || fail "the plan does not type toggle_comments' free key (C-c is rebound)"
wait_for 'Switch to uppercase: key A-` \(switch_to_uppercase\)' 2 || fail "the plan does not show the static command's key"
wait_for '\[write\] Run :write --no-format' 2 || fail "the plan does not show the write"
wait_for "\[shell\] Run in a terminal after Helix's commands above:" 2 || fail "the program is not shown as running after Helix's commands"
capture plan-static
sleep 0.3
keys y
wait_for 'Press any key to return to Helix' 15 || fail "leash helix resume did not run the program after Helix's commands"
wait_for '\$ cat \./\*\.txt > ' 2 || fail "the resumed program is not shown before it runs"
capture resume-output
printf '# FIRST LINE\nSECOND LINE\nTHIRD LINE\n' >"$tmp/expected.txt"
cmp -s "$echo_file.saved" "$tmp/expected.txt" ||
  fail "the program did not see the file Helix saved after the static commands: $(cat "$echo_file.saved" 2>&1)"
keys q
wait_for 'NOR' 10 || fail "a key did not return to Helix after the resumed program"
sleep 0.3
screen | grep -q 'Press any key' && fail "the resume screen stayed on"
echo "helix e2e: ok: static commands ran by their free keys, then :write, then the program on the saved file"

# --- 3c. a [shell] step padded with spaces on 80x24, and a double Enter ---------------
tmux -L "$sock" resize-window -t "$e2e_session" -x 80 -y 24
sleep 0.5
ask 'padded marker'
wait_for '␠×3500' 30 || fail "the padding is not labelled"
wait_for '\[shell\] Run in a terminal:' 2 || fail "the padded step's mark is not on screen"
# The label and what follows may wrap onto the next row when the temporary path is long.
wait_for 'touch .*\.padded;␠×3500' 2 || fail "the start of the padded command is not next to its padding"
flat=$(screen | tr -d '\n' | tr -s ' ')
case "$flat" in
  *'␠×3500cargo --version'* | *'␠×3500 cargo --version'*) ;;
  *) fail "the end of the padded command is not next to its padding" ;;
esac
wait_for 'marked: 1 \[shell\]' 2 || fail "no summary of the marked steps"
wait_for 'y run · n/Esc cancel' 2 || fail "a marked plan offers Enter"
capture plan-padded
# Characters, not bytes (mawk's length counts bytes: ␠ is three).
screen | python3 -c 'import sys; sys.exit(any(len(l) > 80 for l in sys.stdin.buffer.read().decode().splitlines()))' ||
  fail "a screen line is wider than 80 columns"
sleep 0.3
keys Enter; keys Enter
wait_for 'Enter does not run a plan with marked steps' 3 || fail "Enter on a marked plan says nothing"
sleep 0.5
[ -e "$echo_file.padded" ] && fail "a double Enter ran the [shell] step"
keys Escape
wait_for 'leash: cancelled' 10 || fail "Esc did not cancel the padded plan"
[ -e "$echo_file.padded" ] && fail "the padded step ran although cancelled"
echo "helix e2e: ok: 80x24: the padding is labelled, mark and summary on screen, a double Enter ran nothing"

ask 'ten steps'
wait_for 'marked: 10 \[shell\]' 30 || fail "the summary does not name the [shell] step below the fold"
wait_for 'y after the last row' 2 || fail "the keys do not say that y needs the end"
screen | grep -q 'touch ' && fail "the test needs the [shell] step below the fold"
sleep 0.3
keys y
wait_for 'y runs once every row was on screen' 3 || fail "y before the end was seen did not say why it did nothing"
sleep 0.5
[ -e "$echo_file.fold" ] && fail "y ran a plan whose [shell] step was never on screen"
keys PageDown; keys PageDown; keys PageDown; keys PageDown
wait_for 'below the fold' 3 || fail "PageDown did not reach the [shell] step"
wait_for 'marked: 10 \[shell\]' 1 || fail "the summary is not pinned at the end"
keys n
wait_for 'leash: cancelled' 10 || fail "n did not cancel the ten steps"
[ -e "$echo_file.fold" ] && fail "the [shell] step ran although cancelled"
tmux -L "$sock" resize-window -t "$e2e_session" -x 120 -y 40
sleep 0.5
echo "helix e2e: ok: y waits until every row of a 10-step plan was on screen; the summary names the [shell] step"

# --- 4. space , shows the plan only; space . applies exactly that plan -----------------
cp "$hxconf" "$tmp/before.toml"
before=$(views)
normal
keys Space; keys ,
wait_for 'what should Helix do' 10 || fail "space , did not open the request line"
keys -l 'soft wrap and a horizontal split, slowly'; keys Enter
wait_for 'Planning with' 2 || fail "space , shows nothing while the model plans"
wait_for 'leash plan for: soft wrap' 30 || fail "space , did not show the plan in Helix's popup"
wait_for 'Nothing was applied' 2 || fail "the popup does not say that nothing was applied"
wait_for 'space . then Enter alone' 2 || fail "the popup does not say how to apply this plan"
capture plan-popup
normal
cmp -s "$hxconf" "$tmp/before.toml" || fail "space , changed config.toml"
[ "$(views)" -eq "$before" ] || fail "space , changed the views"
asked=$(wc -l <"$tmp/requests.jsonl")
normal
keys Space; keys .
wait_for 'what should Helix do' 10 || fail "space . did not open the dialog"
wait_for 'the same request: the plan space , showed for “soft wrap and a horizontal split, slowly”' 2 ||
  fail "space . does not offer the plan space , showed"
keys Enter
wait_for 'Run :hsplit' 10 || fail "the previewed plan is not shown again"
wait_for 'Set soft-wrap.enable: false \(Helix.s default\) → true' 2 || fail "the previewed plan's setting is not shown"
[ "$(wc -l <"$tmp/requests.jsonl")" -eq "$asked" ] || fail "space . asked the model again instead of applying the previewed plan"
sleep 0.3
keys y
wait_for 'Config refreshed' 10 || fail "Helix did not come back with the previewed plan applied"
sleep 0.5
grep -q '^soft-wrap = { enable = true }\|^enable = true' "$hxconf" || grep -q 'soft-wrap.enable = true' "$hxconf" ||
  fail "the previewed setting was not written: $(cat "$hxconf")"
[ "$(views)" -gt "$before" ] || fail "the previewed :hsplit did not run"
echo "helix e2e: ok: space , said it was planning, showed the plan and applied nothing; space . applied exactly that plan without asking the model again"

# --- 4b. Helix's own error after the plan stays on the status line ----------------------
ask 'format this file'
wait_for 'Run :format' 30 || fail "the dialog did not show the :format plan"
sleep 0.3
keys y
wait_for "A formatter isn't available" 10 || fail "Helix's error after the plan is not on the status line: $(screen | tail -n 2)"
screen | grep -q 'leash: done' && fail "leash's status hides Helix's error"
echo "helix e2e: ok: Helix's own error after the plan stays on the status line"

# --- 4c. list options: Helix's own elements, written as TOML arrays ---------------------
ask 'rulers at 80 and 100'
wait_for 'Set rulers: \[\] \(Helix.s default\) → \[80,100\]' 30 || fail "the dialog does not show the rulers as a list"
wait_for 'Set statusline.right: ' 2 && wait_for '→ *$' 2 && wait_for '^ *\["position","file-type"\]' 2 ||
  fail "the dialog does not show the statusline elements"
wait_for 'clock' 2 || fail "the dialog does not say why statusline.left = mode,clock was dropped"
sleep 0.3
keys y
wait_for 'Config refreshed' 10 || fail "Helix did not reload the config after the list options"
sleep 0.5
grep -q '^rulers = \[80, 100\]$' "$hxconf" || fail "rulers was not written as a TOML array: $(cat "$hxconf")"
grep -q '^right = \["position", "file-type"\]$' "$hxconf" || fail "statusline.right was not written as a TOML array: $(cat "$hxconf")"
grep -q 'clock' "$hxconf" && fail "an element Helix does not have was written"
screen | grep -q 'Failed to load config' && fail "Helix refused the config leash wrote"
normal
keys -l ';get-option rulers'; keys Enter
wait_for '\[ ?80, ?100 ?\]' 5 || fail "Helix does not have the rulers leash wrote"
echo "helix e2e: ok: rulers and statusline elements were written as TOML arrays and Helix loaded them; an unknown element was dropped"

# --- 4d. a missing API key is said before the request is typed -------------------------
cp "$tmp/config/leash/config.toml" "$tmp/leash-config.toml"
cat >"$tmp/config/leash/config.toml" <<'EOF2'
provider = "claude"
[providers.claude]
kind = "anthropic"
api_key_env = "LEASH_E2E_NO_SUCH_KEY"
EOF2
asked=$(wc -l <"$tmp/requests.jsonl")
normal
keys Space; keys .
wait_for 'no API key for claude: set LEASH_E2E_NO_SUCH_KEY' 10 || fail "space . does not say that the API key is missing"
screen | grep -q 'what should Helix do' && fail "space . asked for a request it could not plan"
keys Escape
wait_for 'leash: nothing applied' 10 || fail "the key error did not close with nothing applied"
normal
keys Space; keys ,
wait_for 'no API key for claude: set LEASH_E2E_NO_SUCH_KEY' 10 || fail "space , does not say that the API key is missing"
normal
cp "$tmp/leash-config.toml" "$tmp/config/leash/config.toml"
[ "$(wc -l <"$tmp/requests.jsonl")" -eq "$asked" ] || fail "a request reached a model without a key"
echo "helix e2e: ok: a missing API key was named before the request line, by space . and space ,"

# --- 5. a config.toml that does not parse is never written ------------------------------
printf '[editor\nbroken = \n' >>"$hxconf"
cp "$hxconf" "$tmp/before.toml"
before=$(splits)
ask 'soft wrap and a horizontal split'
wait_for 'does not parse' 30 || fail "the dialog does not say that config.toml does not parse"
wait_for 'any key closes' 2 || fail "a broken config.toml still offered to run the plan"
capture plan-broken-config
keys y
wait_for 'leash: nothing applied' 10 || fail "the dialog did not close with nothing applied"
cmp -s "$hxconf" "$tmp/before.toml" || fail "leash wrote a config.toml that does not parse"
[ "$(splits)" -eq "$before" ] || fail "a command ran although the plan could not be applied"
echo "helix e2e: ok: a config.toml that does not parse was left as it was, and nothing ran"

# --- 6. after Helix quits, the shell's screen comes back ---------------------------------
# Every dialog above ran while Helix held the alternate screen: none may have left it.
normal
keys -l ';quit-all!'; keys Enter
wait_for 'leash-e2e: the shell before Helix' 10 || fail "after Helix quit, the shell's screen did not come back"
screen | grep -q 'NOR' && fail "Helix's last frame stayed on the shell's screen: a dialog left the alternate screen"
echo "helix e2e: ok: after Helix quit, the shell's screen came back"
