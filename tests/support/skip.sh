# skip LABEL REASON: a test suite cannot run because a tool it needs is missing. Outside CI
# it says SKIPPED and records the reason in $LEASH_SKIPS (scripts/test repeats them at the
# end) and exits 0; under CI (CI=true), where every tool is installed, it fails.
skip() {
  if [ "${CI:-}" = true ]; then
    echo "$1: FAIL: $2 (CI installs every tool a test needs; a skip is a failure there)" >&2
    exit 1
  fi
  echo "$1: SKIPPED: $2"
  [ -z "${LEASH_SKIPS:-}" ] || echo "$1: $2" >>"$LEASH_SKIPS"
  exit 0
}
