#!/bin/sh
# Runs EXECUTABLE --help: it must exit 0 within 10 seconds with a usage line on stdout and
# nothing on stderr. A program that took --help for something else (a server address, or
# nothing at all) and began to serve or connect would end in the timeout or a failure, and fail
# here.
#
#   answers_help.sh EXECUTABLE
set -u
executable=$1
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
timeout 10 "$executable" --help >"$out" 2>"$err"
code=$?
fail() {
  echo "$executable --help: $1" >&2
  echo "--- stdout:" >&2
  cat "$out" >&2
  echo "--- stderr:" >&2
  cat "$err" >&2
  exit 1
}
[ "$code" -eq 124 ] && fail "still running after 10 s (it did not take --help as help)"
[ "$code" -eq 0 ] || fail "exit $code, expected 0"
grep -qi '^usage: ' "$out" || fail "no usage line on stdout"
[ -s "$err" ] && fail "wrote to stderr"
exit 0
