#!/usr/bin/env bash
# Runs every test program of the GPU bundle (bin/test_*) against the bundle's copy of the
# repository (share/strand/source: fixtures, configs, docs). Prints one line per program as it
# ends and a total; exits non-zero when any test case fails. STRAND_REQUIRE_GPU=1 turns every
# skipped GPU case into a failure (naming why no GPU is usable: no device, or the CUDA module
# lib/libstrand_cuda.so or its CUDA libraries missing). Arguments go to each program (doctest options, e.g.
# -tc='cuda:*').
#
# Environment:
#   STRAND_TEST_JOBS      programs run at once (default 1); each then gets nproc/jobs OpenMP
#                         threads unless OMP_NUM_THREADS is set
#   STRAND_TEST_FIRST     programs started first, alone, before the rest (e.g. "test_cuda")
#   STRAND_TEST_PROGRAMS  only these programs (space-separated names; default every bin/test_*)
#   STRAND_TEST_LOG_DIR   where each program's log goes (default a new temporary folder)
#   STRAND_TEST_TIMEOUT   seconds one program may run (default: no limit); exit 124 past it
#   STRAND_EXE            the strand program the CLI tests start (default bin/strand)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export STRAND_SOURCE_DIR="${STRAND_SOURCE_DIR:-$here/../share/strand/source}"
export STRAND_EXE="${STRAND_EXE:-$here/strand}"
log_dir="${STRAND_TEST_LOG_DIR:-$(mktemp -d)}"
jobs="${STRAND_TEST_JOBS:-1}"
mkdir -p "$log_dir"
if [ ! -d "$STRAND_SOURCE_DIR/tests" ]; then
  echo "run_tests: no test fixtures under STRAND_SOURCE_DIR=$STRAND_SOURCE_DIR" >&2
  exit 2
fi
# The CUDA module: libstrand loads it from beside itself on the first GPU case. Without it every
# GPU case skips, so a run that requires the GPU stops here, saying why.
if [ ! -f "$here/../lib/libstrand_cuda.so" ] && [ "${STRAND_REQUIRE_GPU:-}" = 1 ]; then
  echo "run_tests: STRAND_REQUIRE_GPU=1 but the CUDA module $here/../lib/libstrand_cuda.so is missing" >&2
  exit 2
fi
if [ "$jobs" -gt 1 ] && [ -z "${OMP_NUM_THREADS:-}" ]; then
  threads=$(($(nproc) / jobs))
  export OMP_NUM_THREADS=$((threads > 0 ? threads : 1))
fi

programs=()
for name in ${STRAND_TEST_FIRST:-}; do
  [ -x "$here/$name" ] && programs+=("$name")
done
first_count=${#programs[@]}
for program in "$here"/test_*; do
  name=$(basename "$program")
  [[ " ${programs[*]} " == *" $name "* ]] && continue
  if [ -n "${STRAND_TEST_PROGRAMS:-}" ] && [[ " $STRAND_TEST_PROGRAMS " != *" $name "* ]]; then
    continue
  fi
  programs+=("$name")
done
if [ ${#programs[@]} -eq 0 ]; then
  echo "run_tests: no test programs in $here" >&2
  exit 2
fi

# One program: its log, then a result line "<name> <status> <seconds>" in <name>.result.
run_one() {
  local name="$1"
  shift
  local start=$SECONDS
  if [ -n "${STRAND_TEST_TIMEOUT:-}" ]; then
    timeout -k 5 "$STRAND_TEST_TIMEOUT" "$here/$name" --no-intro=true "$@" >"$log_dir/$name.log" 2>&1
  else
    "$here/$name" --no-intro=true "$@" >"$log_dir/$name.log" 2>&1
  fi
  echo "$?" "$((SECONDS - start))" >"$log_dir/$name.result"
}

failed=0
report() {
  local name="$1" status seconds cases skips
  read -r status seconds <"$log_dir/$name.result"
  # "[doctest] test cases: 33 | 30 passed | 3 failed | 0 skipped" -> "33 cases: 30 passed, 3 failed"
  cases=$(sed -n 's/^\[doctest\] test cases: *\([0-9]*\) | *\([0-9]*\) passed | *\([0-9]*\) failed.*/\1 cases: \2 passed, \3 failed/p' \
    "$log_dir/$name.log")
  # A case that ends with STRAND_SKIP prints one line starting with the marker.
  skips=$(grep -c '^\[strand-skip\]' "$log_dir/$name.log")
  [ "$status" = 124 ] && cases="TIMEOUT after ${seconds} s${cases:+; $cases}"
  printf '%-20s exit %-3d %4d s  %s; %d skipped\n' "$name" "$status" "$seconds" \
    "${cases:-no doctest summary}" "$skips"
  if [ "$status" -ne 0 ]; then
    failed=1
    grep -E 'ERROR|FAILED|error:|\[strand-skip\]' "$log_dir/$name.log" | head -20
  fi
}

start=$SECONDS
for ((i = 0; i < first_count; ++i)); do
  run_one "${programs[i]}" "$@"
  report "${programs[i]}"
done
running=()
for ((i = first_count; i < ${#programs[@]}; ++i)); do
  name="${programs[i]}"
  run_one "$name" "$@" &
  running+=("$name")
  # At most `jobs` at once: wait for one to end, then report every program that has ended.
  while [ ${#running[@]} -ge "$jobs" ]; do
    wait -n
    still=()
    for other in "${running[@]}"; do
      if [ -f "$log_dir/$other.result" ]; then report "$other"; else still+=("$other"); fi
    done
    running=("${still[@]}")
  done
done
wait
for name in "${running[@]}"; do report "$name"; done
echo "${#programs[@]} programs in $((SECONDS - start)) s; logs: $log_dir"
exit $failed
