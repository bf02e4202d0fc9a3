#!/usr/bin/env bash
# Runs every test program of the GPU bundle (bin/test_*) against the bundle's copy of the
# repository (share/strand/source: fixtures, configs, docs). Prints one line per program and a
# total; exits non-zero when any test case fails. STRAND_REQUIRE_GPU=1 turns every skipped GPU
# case into a failure. Arguments go to each program (doctest options, e.g. -tc='cuda:*').
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export STRAND_SOURCE_DIR="${STRAND_SOURCE_DIR:-$here/../share/strand/source}"
log_dir="${STRAND_TEST_LOG_DIR:-$(mktemp -d)}"
mkdir -p "$log_dir"
failed=0
for program in "$here"/test_*; do
  name=$(basename "$program")
  # The package and docs tests need a build tree or CMake; the bundle checks the programs.
  "$program" --no-intro=true "$@" >"$log_dir/$name.log" 2>&1
  status=$?
  summary=$(grep -E '^\[doctest\] (test cases|assertions)' "$log_dir/$name.log" | tr '\n' ' ')
  skips=$(grep -c '\[strand-skip\]' "$log_dir/$name.log")
  printf '%-20s exit %-3d %s skipped: %d\n' "$name" "$status" "$summary" "$skips"
  if [ "$status" -ne 0 ]; then
    failed=1
    grep -E 'ERROR|FAILED|error:' "$log_dir/$name.log" | head -20
  fi
done
echo "logs: $log_dir"
exit $failed
