#!/usr/bin/env bash
# The length guard (scripts/length_guard.py, run by scripts/check_function_length.sh) on a
# scratch tree: it refuses a long branching function, a long file, an allowlist entry that is
# no longer needed and one without an issue, and passes a table, a short tree and an entry in
# use.
set -euo pipefail
guard="$1/scripts/length_guard.py"
if ! python3 -c 'import lizard' 2>/dev/null; then
  echo "[strand-skip] lizard is not installed (pip install lizard)"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
expect() {  # expect STATUS MESSAGE ALLOWLIST FILE...: the guard's exit status and a line of it
  local status=$1 message=$2 allowlist=$3
  shift 3
  local out got=0
  out=$(printf '%s\0' "$@" | python3 "$guard" --max-function-lines 100 --max-file-lines 800 \
    --allowlist "$allowlist" 2>&1) || got=$?
  if [ "$got" != "$status" ] || ! grep -qF -- "$message" <<<"$out"; then
    echo "FAIL: expected status $status and '$message' for $*; got $got:"
    echo "$out"
    failures=$((failures + 1))
  fi
}
# A branching function of 120 lines; a table of 120 lines (one expression); a file of 900 lines.
{
  echo "int long_branching(int x) {"
  for i in $(seq 1 118); do echo "  if (x == $i) return $i;"; done
  echo "  return 0; }"
} >branching.cpp
{
  echo "const int kTable[] = {"
  for i in $(seq 1 118); do echo "  $i,"; done
  echo "};"
} >table.cpp
for i in $(seq 1 900); do echo "// line $i"; done >long.h
echo "int short_one(int x) { return x > 0 ? x : -x; }" >short.cpp
: >empty.txt
echo "function branching.cpp long_branching -- split later (issue 1)" >function.txt
echo "file long.h -- split later (issue 1)" >file.txt
echo "file short.cpp -- once long (issue 1)" >stale.txt
echo "file long.h -- split later" >no_issue.txt

expect 0 "length guard: 2 files" empty.txt short.cpp table.cpp
expect 1 "long_branching is 120 lines long" empty.txt branching.cpp
expect 0 "allowed: branching.cpp:1: long_branching" function.txt branching.cpp
expect 1 "long.h has 900 lines" empty.txt long.h
expect 0 "allowed: long.h has 900 lines" file.txt long.h
expect 1 "file short.cpp is within its limit (or gone): remove the entry" stale.txt short.cpp
expect 1 "expected 'file PATH -- REASON (issue N)'" no_issue.txt short.cpp
if [ "$failures" -gt 0 ]; then
  echo "$failures case(s) failed"
  exit 1
fi
echo "the length guard refuses and allows as documented"
