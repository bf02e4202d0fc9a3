#!/usr/bin/env bash
# Everything strand needs from a GPU host, in one call of at most 9 minutes (GPU time is scarce),
# run from the GPU bundle (scripts/make_gpu_bundle.sh). Steps, most valuable first, each under
# its own time limit and all under one budget (so the summary is always written):
#   1. the whole test suite with STRAND_REQUIRE_GPU=1 (a skipped GPU case fails);
#   2. the reference run on the CPU and on the GPU compared (test auROC within 1e-3), and two
#      `--deterministic` GPU runs compared byte for byte;
#   3. what a user would see: Basset and BPNet, 20,000 training records, 5 epochs, strand against
#      PyTorch eager (and torch.compile) on the same GPU, every run a fresh process, in FP32 and
#      in bf16 against autocast (run_epochs_gpu.sh): first epoch, steady-state epochs, whole run;
#   4. compute-sanitizer memcheck (the deliberately broken capture confirmed in a second process)
#      and racecheck on test_cuda;
#   4b. `strand explain --device` on a trained BPNet against the CPU and a PyTorch ISM on the
#      same GPU (run_explain_gpu.sh);
#   5a. one Basset epoch's kernels ranked by time, strand's under ncu beside PyTorch's under
#      torch.profiler (run_basset_gpu.sh with PROFILE_NCU);
#   3b. the reference experiment against PyTorch eager and torch.compile (run_reference_gpu.sh);
#   5. ncu on the kernels of a reference training run, the three slowest profiled in detail.
#
# The record: OUT/<UTC date>-<commit>/ (OUT: the device machine's folder whose files come back,
# else $LOG_DIR, else ./gpu-logs; the commit is the bundle's), committed as it came back under
# bench/results/gpu/ (bench/cuda/results_lines.py turns it into RESULTS.md lines). Eight files,
# at most 4 MB in all, each rewritten as its step ends (a kill at the limit keeps everything up
# to then): summary.tsv (figure<TAB>value: the figures, NA where a step did not give one),
# summary.txt (the table printed last), tests.txt, runs.txt, bench.txt, sanitizer.txt,
# profile.txt and logs.tar.gz (every run's raw output and files, the test logs).
#
#   bench/cuda/gpu_checks.sh [BUNDLE.tar.gz | UNPACKED_BUNDLE_DIR]
#       (default: the newest build-bundle/out/strand-*-cuda13-x86_64.tar.gz of this tree)
#
# Environment:
#   STRAND_GPU_CHECKS_REHEARSAL=1   no GPU: the suite without STRAND_REQUIRE_GPU, the "GPU" runs
#       and benchmarks on the CPU with tiny data, sanitizer and ncu steps reported as not run
#       when the tools are missing (bench/cuda/rehearsal/ has a stand-in compute-sanitizer for
#       the parsing). Every path but the GPU facts runs; a rehearsal is never reported as a GPU
#       result (its summary says REHEARSAL, its folder ends in -rehearsal).
#   STRAND_GPU_CHECKS_BUDGET (540 s), STRAND_GPU_CHECKS_TIME_SCALE (1: multiplies the budget and
#       every step's limit, for slow rehearsal machines), STRAND_GPU_CHECKS_STEPS (default
#       "tests runs bench sanitizer explain profile reference ncu"), PYTHON (python3: the one
#       with PyTorch), STRAND_GPU_CHECKS_KEEP=1 (keep the work folder).
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rehearsal="${STRAND_GPU_CHECKS_REHEARSAL:-0}"
scale="${STRAND_GPU_CHECKS_TIME_SCALE:-1}"
budget=$((${STRAND_GPU_CHECKS_BUDGET:-540} * scale))
steps=" ${STRAND_GPU_CHECKS_STEPS:-tests runs bench sanitizer explain profile reference ncu} "
python="${PYTHON:-python3}"
out="${OUT:-${LOG_DIR:-$PWD/gpu-logs}}"
deadline=$((SECONDS + budget))
reserve=$((10 * scale)) # kept for the summary and the log archive
max_record_bytes=$((4 * 1024 * 1024))
work="$(mktemp -d /tmp/strand-gpu-checks.XXXXXX)"
[ "${STRAND_GPU_CHECKS_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

gpu_device=cuda
mode_note="GPU run"
if [ "$rehearsal" = 1 ]; then
  gpu_device=cpu
  mode_note="REHEARSAL without a GPU: 'GPU' runs and benchmarks ran on the CPU"
fi

# ---- the bundle ---------------------------------------------------------------------------
bundle_arg="${1:-$(ls -t "$repo"/build-bundle/out/strand-*-cuda13-x86_64.tar.gz 2>/dev/null | head -1)}"
if [ -z "$bundle_arg" ] || [ ! -e "$bundle_arg" ]; then
  echo "gpu_checks: no bundle (give BUNDLE.tar.gz; scripts/make_gpu_bundle.sh builds one)" >&2
  exit 2
fi
if [ -d "$bundle_arg" ]; then
  bundle="$(cd "$bundle_arg" && pwd)"
  bundle_size="$(du -smL "$bundle" | cut -f1) MiB unpacked"
else
  tar -xzf "$bundle_arg" -C "$work" || { echo "gpu_checks: cannot unpack $bundle_arg" >&2; exit 2; }
  bundle="$(echo "$work"/strand-*)"
  bundle_size="$(($(stat -c %s "$bundle_arg") / 1024 / 1024)) MiB"
fi
[ -x "$bundle/bin/strand" ] || { echo "gpu_checks: no bin/strand in $bundle" >&2; exit 2; }
strand="$bundle/bin/strand"
library_lines="$("$bundle/bin/cuda_library_path.sh" 2>&1 >"$work/library_path.sh")"
# shellcheck disable=SC1091
source "$work/library_path.sh"
export LD_LIBRARY_PATH
# The bundle's commit (make_gpu_bundle.sh writes it); the scripts' own, where git can say.
commit="$(cat "$bundle/share/strand/commit.txt" 2>/dev/null)"
commit="${commit:-$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null)}"
commit="${commit:-unknown}"
scripts_commit="$(git -C "$repo" describe --always --dirty --abbrev=12 2>/dev/null || echo 'not a git checkout')"
folder="$(date -u +%Y-%m-%d)-${commit}"
[ "$rehearsal" = 1 ] && folder="${folder}-rehearsal"
results="$out/$folder"
mkdir -p "$results"

# ---- the record: summary.txt (a table), summary.tsv (figures), logs.tar.gz ------------------
rows=()
header=()
row() { rows+=("$(printf '%-34s %-10s %6s  %s' "$1" "$2" "$3" "$4")"); }
declare -A figures
figure_order=()
figure() { # NAME VALUE: a row of summary.tsv (the last value given wins)
  [ -n "${figures[$1]+set}" ] || figure_order+=("$1")
  figures[$1]="${2:-NA}"
}
# The rows issue 36 asks for, NA until a step gives them.
for name in basset_fp32_steady_vs_eager basset_fp32_run_vs_eager basset_bf16_vs_amp \
  bpnet_fp32_vs_eager reference_train_seconds memcheck_errors racecheck_hazards \
  cuda_tests_failed cuda_tests_skipped basset_bf16_auroc_delta ism_gpu_vs_pytorch; do
  figure "$name" NA
done
write_summary() {
  {
    printf '%s\n' "${header[@]}"
    printf '%-34s %-10s %6s  %s\n' "check" "status" "time" "detail"
    printf '%s\n' "${rows[@]}"
  } >"$results/summary.txt"
  {
    printf 'figure\tvalue\n'
    for name in "${figure_order[@]}"; do printf '%s\t%s\n' "$name" "${figures[$name]}"; done
  } >"$results/summary.tsv"
}
# The raw logs of the work folder (never the data, checkpoints or the bundle), kept under the
# record's 4 MB: when too big, files over 256 kB, then over 32 kB, are left out (and listed).
archive_logs() {
  local others cap list
  others=$(($(du -cb "$results"/*.txt "$results"/*.tsv 2>/dev/null | tail -1 | cut -f1)))
  for cap in "" 256k 32k; do
    list="$work/archive-list.txt"
    (cd "$work" && find . -type f ! -name '*.safetensors' ! -name '*.fa' ! -name '*.fa.gz' \
      ! -name '*.fai' ! -name '*.bw' ! -name '*.npz' ! -name '*.tar.gz' ! -path './strand-*' \
      ! -path './archive-*' ! -path './epochs/data-*' ${cap:+! -size +$cap} | sort) >"$list"
    if [ -n "$cap" ]; then
      (cd "$work" && find . -type f -size +"$cap" ! -path './strand-*' \
        \( -name '*.log' -o -name '*.txt' -o -name '*.csv' -o -name '*.tsv' -o -name '*.json' \) \
        -printf '%p %s bytes\n') >"$work/archive-left-out.txt"
      echo "./archive-left-out.txt" >>"$list"
    fi
    tar -czf "$results/logs.tar.gz" -C "$work" -T "$list" 2>/dev/null
    (($(stat -c %s "$results/logs.tar.gz") + others <= max_record_bytes)) && return 0
  done
}
flush() { write_summary; archive_logs; }
# run_bounded LIMIT COMMAND...: COMMAND under `timeout` (which puts it in a process group of its
# own), waited for with `wait`, so that a signal to this script reaches on_signal at once
# rather than after the command.
child=""
run_bounded() {
  local limit="$1"
  shift
  timeout -k 5 "$limit" "$@" &
  child=$!
  wait "$child"
  local code=$?
  child=""
  return "$code"
}
# Stopped from outside (the device call's limit): the running step's command is ended, what it
# left in the work folder joins the record, and the record is written.
on_signal() {
  echo "gpu_checks: stopped by a signal; the record so far is in $results" >&2
  [ -z "$child" ] || kill -TERM "$child" 2>/dev/null
  [ -s "$results/tests.txt" ] || cat "$work/tests.out" >"$results/tests.txt" 2>/dev/null
  merge_epoch_figures
  grep -q "memcheck" "$results/sanitizer.txt" 2>/dev/null ||
    cat "$work"/memcheck-*.txt >>"$results/sanitizer.txt" 2>/dev/null
  row "stopped" "SIGNAL" "$SECONDS s" "a signal ended the call during the step after the last row"
  flush
  exit 124
}
trap on_signal TERM INT
merge_epoch_figures() { # the figures step 3 has so far (run_epochs_gpu.sh rewrites them per run)
  local name value
  [ -f "$work/epochs/figures.tsv" ] || return 0
  while IFS=$'\t' read -r name value; do
    figure "$name" "$value"
  done <"$work/epochs/figures.tsv"
}

# limit_for CAP MIN: the step's time limit (CAP seconds, scaled, cut to what the budget has
# left); fails when less than MIN is left.
limit_for() {
  local cap=$(($1 * scale)) min=$(($2 * scale)) left=$((deadline - SECONDS - reserve))
  ((left >= min)) || return 1
  echo $((cap < left ? cap : left))
}
status_of() { # exit code -> PASS / TIMEOUT / FAIL
  case "$1" in
    0) echo PASS ;;
    124 | 137) echo TIMEOUT ;;
    *) echo FAIL ;;
  esac
}
wanted() { [[ "$steps" == *" $1 "* ]]; }
first_error() { # LOG: the first line that looks like the reason a program failed
  grep -m1 -iE 'error|terminate|what\(\)|segmentation|aborted|core dumped' "$1" 2>/dev/null |
    cut -c1-150
}
# find_tool NAME: on PATH, else where CUDA and Nsight put it.
find_tool() {
  command -v "$1" 2>/dev/null && return 0
  local candidate
  for candidate in /usr/local/cuda/bin/"$1" /usr/local/cuda/compute-sanitizer/"$1" \
    /opt/nvidia/nsight-compute/*/"$1" /usr/local/cuda/nsight-compute-*/"$1"; do
    [ -x "$candidate" ] && { echo "$candidate"; return 0; }
  done
  return 1
}
# doctest_count LOG FIELD: from "[doctest] test cases: 49 | 48 passed | 1 failed | 2 skipped",
# FIELD 1 (cases run), 2 (passed), 3 (failed); empty when the program never printed it.
doctest_count() {
  sed -n 's/^\[doctest\] test cases: *\([0-9]*\) *| *\([0-9]*\) passed *| *\([0-9]*\) failed.*/\1 \2 \3/p' \
    "$1" 2>/dev/null | tail -1 | cut -d' ' -f"$2"
}

ran_cases() { local n; n=$(doctest_count "$1" 1); echo "${n:-none}"; }

# ---- the environment, first in summary.txt -------------------------------------------------
gpu="$(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
  --format=csv,noheader 2>/dev/null | head -1)"
sanitizer="$(find_tool compute-sanitizer)"
ncu="$(find_tool ncu)"
torch_line="$("$python" -c 'import torch
c = torch.cuda.is_available()
print(f"torch {torch.__version__} (CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}); "
      f"cuda available: {c}; defaults: cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}, "
      f"matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32}")' 2>/dev/null)"
# bin/strand needs no CUDA library: the CUDA module, loaded on the first GPU use, does.
unresolved="$(ldd "$bundle/lib/libstrand_cuda.so" 2>&1 | awk '/not found/ {print $1}' | tr '\n' ' ')"
header=(
  "== strand gpu_checks: $mode_note; $(date -u '+%Y-%m-%d %H:%M UTC'); record $folder"
  "bundle commit $commit; scripts: $scripts_commit"
  "machine: $(uname -m), $(nproc) cores, $(ldd --version | head -1 | sed 's/^ldd //'); GPU: ${gpu:-none (nvidia-smi failed)}"
  "bundle: $(basename "$bundle") ($bundle_size); CUDA libraries: ${LD_LIBRARY_PATH:-none}${library_lines:+ ($library_lines)}"
  "unresolved libraries of the CUDA module lib/libstrand_cuda.so: ${unresolved:-none}"
  "python: $python: ${torch_line:-no PyTorch}"
  "compute-sanitizer: ${sanitizer:-not found}; ncu: ${ncu:-not found}; budget ${budget} s"
)
printf '%s\n' "${header[@]}"
figure gpu "${gpu:-none}"
figure bundle_commit "$commit"
figure rehearsal "$rehearsal"
flush

# ---- 1. the whole suite --------------------------------------------------------------------
suite_step() {
  local limit="$1" start=$SECONDS jobs require=1 code
  echo "== 1. the test suite (limit ${limit} s)"
  jobs=$(($(nproc) / 4))
  ((jobs < 1)) && jobs=1
  ((jobs > 6)) && jobs=6
  [ "$rehearsal" = 1 ] && require=0
  # Each program may take all but 25 s of the step: a hanging test_cuda leaves the rest time.
  STRAND_REQUIRE_GPU=$require STRAND_TEST_FIRST=test_cuda STRAND_TEST_JOBS=$jobs \
    STRAND_TEST_TIMEOUT=$((limit - 25 * scale)) STRAND_TEST_LOG_DIR="$work/tests" \
    run_bounded "$limit" "$bundle/bin/run_tests.sh" \
    --duration=true >"$work/tests.out" 2>&1
  code=$?
  cat "$work/tests.out"
  {
    cat "$work/tests.out"
    echo "== test_cuda (with each case's duration)"
    cat "$work/tests/test_cuda.log" 2>/dev/null
    local log name status
    for log in "$work"/tests/test_*.log; do
      name="$(basename "$log" .log)"
      read -r status _ <"$work/tests/$name.result" 2>/dev/null || status=unfinished
      [ "$status" = 0 ] || [ "$name" = test_cuda ] && continue
      echo "== $name: exit $status (first 300 lines)"
      head -300 "$log"
    done
  } >"$results/tests.txt"
  local programs passed unfinished cuda_line skipped cuda_log="$work/tests/test_cuda.log"
  # The programs run_tests.sh runs: every bin/test_*, or those STRAND_TEST_PROGRAMS names.
  local selected=() program
  for program in "$bundle"/bin/test_*; do
    program="$(basename "$program")"
    [ -z "${STRAND_TEST_PROGRAMS:-}" ] || [[ " $STRAND_TEST_PROGRAMS test_cuda " == *" $program "* ]] &&
      selected+=("$program")
  done
  programs=${#selected[@]}
  passed=$(grep -l '^0 ' "$work"/tests/*.result 2>/dev/null | wc -l)
  unfinished=$(for program in "${selected[@]}"; do
    [ -f "$work/tests/$program.result" ] || echo "$program"
  done | tr '\n' ' ')
  cuda_line=$(grep -m1 '^test_cuda ' "$work/tests.out" | sed 's/^test_cuda *//')
  skipped=$(grep -h '^\[strand-skip\]' "$work"/tests/test_*.log 2>/dev/null | sed 's/ (.*//' |
    sort | uniq -c | awk '{$1 = $1 "x"; print}' | tr '\n' ';')
  row "1 suite (STRAND_REQUIRE_GPU=$require)" "$(status_of $code)" "$((SECONDS - start)) s" \
    "$passed of $programs programs passed${unfinished:+; unfinished: $unfinished}"
  row "1 test_cuda" "" "" "${cuda_line:-did not finish}"
  [ -z "$skipped" ] || row "1 skipped cases" "" "" "$skipped"
  figure suite_programs "$programs"
  figure suite_programs_failed $((programs - passed))
  figure suite_cases_skipped "$(grep -h '^\[strand-skip\]' "$work"/tests/test_*.log 2>/dev/null | wc -l)"
  local cases
  cases=$(doctest_count "$cuda_log" 1)
  if [ -n "$cases" ]; then
    figure cuda_tests_run "$cases"
    figure cuda_tests_passed "$(doctest_count "$cuda_log" 2)"
    figure cuda_tests_failed "$(doctest_count "$cuda_log" 3)"
    figure cuda_tests_skipped "$(grep -c '^\[strand-skip\]' "$cuda_log")"
  fi
}
if wanted tests && limit=$(limit_for 100 30); then
  suite_step "$limit"
elif wanted tests; then
  row "1 suite" "NOT RUN" "" "no time left"
fi
flush

# ---- 2. CPU vs GPU reference run; deterministic repeats -------------------------------------
report_value() { # RUN_DIR PYTHON_EXPRESSION_OF_r: a figure of report.json, or nothing
  "$python" -c "import json, sys; r = json.load(open(sys.argv[1])); print($2)" \
    "$1/report.json" 2>/dev/null
}
runs_step() {
  local limit="$1" start=$SECONDS end runs="$work/runs"
  echo "== 2. reference run on cpu and $gpu_device, deterministic repeats (limit ${limit} s)"
  end=$((SECONDS + limit))
  mkdir -p "$runs"
  train() { # NAME ARGS...: one strand train under what is left of the step's limit
    local name="$1"
    shift
    local left=$((end - SECONDS))
    ((left > 0)) || return 124
    run_bounded "$left" "$strand" train --output-dir "$runs" --run-name "$name" "$@" \
      >"$runs/$name.log" 2>&1
  }
  # The CPU run does not use the GPU: it runs beside the GPU runs. The short deterministic
  # runs go first: a slow GPU reference run then costs only its own comparison.
  (train ref-cpu --device cpu; echo $? >"$runs/ref-cpu.status") &
  train det-1 --device "$gpu_device" --deterministic --epochs 3 --no-early-stopping
  local det1=$?
  train det-2 --device "$gpu_device" --deterministic --epochs 3 --no-early-stopping
  local det2=$?
  train ref-gpu --device "$gpu_device"
  local gpu_code=$?
  wait
  local cpu_code
  cpu_code=$(cat "$runs/ref-cpu.status" 2>/dev/null || echo 124)
  {
    echo "exit codes: ref-cpu $cpu_code, ref-gpu ($gpu_device) $gpu_code, det-1 $det1, det-2 $det2"
    "$python" "$repo/bench/cuda/compare_runs.py" "$runs/ref-cpu" "$runs/ref-gpu"
    echo "compare exit $?" >"$work/compare.status"
    echo "== determinism: det-1 vs det-2"
    "$python" "$repo/bench/cuda/compare_runs.py" --identical "$runs/det-1" "$runs/det-2"
    echo "identical exit $?" >>"$work/compare.status"
    echo "== where the GPU reference run's training time went"
    "$python" "$repo/bench/cuda/run_breakdown.py" "$runs/ref-gpu"
    local name
    for name in ref-cpu ref-gpu det-1 det-2; do
      echo "== $name.log (last 40 lines)"
      tail -40 "$runs/$name.log" 2>/dev/null
    done
  } >"$results/runs.txt" 2>&1
  head -60 "$results/runs.txt"
  rm -rf "$runs"/*/checkpoints
  local compare_code identical_code auroc_line status failed_run=""
  compare_code=$(sed -n 's/^compare exit //p' "$work/compare.status")
  identical_code=$(sed -n 's/^identical exit //p' "$work/compare.status")
  auroc_line=$(grep -m1 '^test auROC' "$results/runs.txt")
  if ((cpu_code != 0 || gpu_code != 0)); then
    status=$(status_of $((cpu_code != 0 ? cpu_code : gpu_code)))
  else
    status=$(status_of "$compare_code")
  fi
  ((cpu_code != 0)) && failed_run="ref-cpu: $(first_error "$runs/ref-cpu.log")"
  ((gpu_code != 0)) && failed_run="ref-gpu: $(first_error "$runs/ref-gpu.log")"
  row "2 reference cpu vs $gpu_device" "$status" "$((SECONDS - start)) s" \
    "${auroc_line:-no test auROC compared (exit codes cpu $cpu_code, $gpu_device $gpu_code)}${failed_run:+; $failed_run}"
  if ((det1 != 0 || det2 != 0)); then
    row "2 deterministic $gpu_device repeats" "$(status_of $((det1 != 0 ? det1 : det2)))" "" \
      "a run did not finish (exit $det1, $det2): $(first_error "$runs/det-1.log")"
  else
    row "2 deterministic $gpu_device repeats" "$(status_of "$identical_code")" "" \
      "$(grep -m1 '^identical:\|^DIFFER' "$results/runs.txt")"
    figure deterministic_identical "$([ "$identical_code" = 0 ] && echo 1 || echo 0)"
  fi
  if ((gpu_code == 0)); then
    figure reference_train_seconds "$(report_value "$runs/ref-gpu" '"%.3f" % r["train_seconds"]')"
    figure reference_epochs "$(report_value "$runs/ref-gpu" 'r["epochs_run"]')"
    figure reference_test_auroc_gpu "$(report_value "$runs/ref-gpu" '"%.6f" % r["test"]["auroc"]')"
    row "" "" "" "$(grep -m1 '^breakdown' "$results/runs.txt")"
  fi
  ((cpu_code == 0)) &&
    figure reference_test_auroc_cpu "$(report_value "$runs/ref-cpu" '"%.6f" % r["test"]["auroc"]')"
}
if wanted runs && limit=$(limit_for 75 30); then
  runs_step "$limit"
elif wanted runs; then
  row "2 reference runs" "NOT RUN" "" "no time left"
fi
flush

# ---- 3. what a user would see: Basset and BPNet epochs against PyTorch ---------------------
has_torch() { "$python" -c "import torch" 2>/dev/null; }
epochs_step() {
  local limit="$1" start=$SECONDS code
  echo "== 3. basset and bpnet, 5 epochs, fresh processes: strand vs PyTorch on $gpu_device (limit ${limit} s)"
  local sizes=()
  if [ "$rehearsal" = 1 ]; then
    sizes=(EPOCHS=2 BASSET_N=200 HOLDOUT_N=50 BPNET_CONTIGS=4 BPNET_PEAKS=30
      BPNET_CONTIG_LENGTH=200000)
  fi
  run_bounded "$limit" env STRAND_BIN="$strand" PYTHON="$python" DEVICE="$gpu_device" WORK="$work/epochs" \
    LIMIT=$((limit - 10 * scale)) RUN_CAP=$((90 * scale)) PROGRESS_FILE="$results/bench.txt" \
    ESTIMATES="strand=$((40 * scale)) eager=$((45 * scale)) compile=$((110 * scale))" \
    "${sizes[@]}" bash "$repo/bench/cuda/run_epochs_gpu.sh" \
    >"$work/epochs.txt" 2>&1
  code=$?
  { echo "== 3. epochs (exit $code)"; cat "$work/epochs.txt"; } >"$results/bench.txt"
  grep -E "^(RESULT|run |data:)" "$work/epochs.txt"
  local status
  status=$(status_of $code)
  [ "$status" = PASS ] && status=DONE
  row "3 basset, bpnet vs PyTorch" "$status" "$((SECONDS - start)) s" \
    "$(grep -c '^run [^ ]*: exit 0,' "$work/epochs.txt") runs done, $(grep -c '^run [^ ]*: exit [1-9]' "$work/epochs.txt") failed, $(grep -c '^run [^ ]*: skipped' "$work/epochs.txt") skipped$([ "$code" = 0 ] || echo "; exit $code")"
  local line
  while IFS= read -r line; do
    row "" "" "" "${line#RESULT }"
  done < <(grep '^RESULT' "$work/epochs.txt")
  merge_epoch_figures
}
if wanted bench; then
  if ! has_torch; then
    row "3 basset, bpnet vs PyTorch" "NOT RUN" "" "no PyTorch in $python (set PYTHON)"
  elif limit=$(limit_for 220 60); then
    epochs_step "$limit"
  else
    row "3 basset, bpnet vs PyTorch" "NOT RUN" "" "no time left"
  fi
fi
flush

# ---- 4. compute-sanitizer on test_cuda ------------------------------------------------------
# sanitize LIMIT TOOL LOG DOCTEST_FILTER: test_cuda under the tool; exact allocation sizes, as
# the allocator's 512-byte rounding would hide overruns.
sanitize() {
  local require=1
  [ "$rehearsal" = 1 ] && require=0
  STRAND_CUDA_EXACT_ALLOC=1 STRAND_REQUIRE_GPU=$require run_bounded "$1" "$sanitizer" \
    --tool "$2" --error-exitcode 99 --print-limit 100 "$bundle/bin/test_cuda" \
    --no-intro=true --duration=true "$4" >"$3" 2>&1
}
# expected_cases DOCTEST_FILTER: how many test_cuda cases the filter selects (no GPU needed).
expected_cases() {
  "$bundle/bin/test_cuda" --no-intro=true --list-test-cases "$1" 2>/dev/null |
    sed -n 's/^\[doctest\] unskipped test cases passing the current filters: *\([0-9]*\).*/\1/p'
}
# judge TOOL LOG CODE EXPECTED: "<problems>" of one sanitizer run, empty when it is complete:
# it finished, printed the tool's summary, ran every case its filter selects (a filter that
# matched nothing is a failure) and every case passed.
judge() {
  local tool="$1" log="$2" code="$3" expected="$4" problems=() ran
  case "$code" in 124 | 137) problems+=("stopped at its time limit") ;; esac
  ran=$(doctest_count "$log" 1)
  if [ -z "$ran" ]; then
    problems+=("test_cuda printed no doctest summary (exit $code)")
  elif [ "${ran:-0}" -eq 0 ]; then
    problems+=("its filter matched no test case")
  elif [ -n "$expected" ] && [ "$ran" -ne "$expected" ]; then
    problems+=("$ran cases ran, $expected selected")
  fi
  [ -z "$ran" ] || [ "$(doctest_count "$log" 3)" = 0 ] || problems+=("a case failed")
  if [ "$tool" = memcheck ]; then
    grep -qE 'ERROR SUMMARY: [0-9]+ errors?$' "$log" || problems+=("no ERROR SUMMARY")
  else
    grep -q 'RACECHECK SUMMARY: [0-9]* hazard' "$log" || problems+=("no RACECHECK SUMMARY")
  fi
  local joined="" problem
  for problem in "${problems[@]}"; do joined="${joined:+$joined; }$problem"; done
  echo "$joined"
}
memcheck_step() {
  local limit="$1" start=$SECONDS main_limit confirm_limit=$((20 * scale))
  # The deliberately broken capture runs in a process of its own, after the rest: the sanitizer
  # keeps that capture's never-freed block on its books, and a later graph reusing the address
  # would read as an out-of-bounds write. Both runs share the step's limit.
  local broken="*a host read inside a capture is refused*"
  main_limit=$((limit - confirm_limit))
  echo "== 4. compute-sanitizer memcheck on test_cuda (limit ${limit} s: ${main_limit} s, then the broken capture)"
  local expected_main expected_confirm main_code confirm_code=none
  expected_main=$(expected_cases "-tce=$broken")
  expected_confirm=$(expected_cases "-tc=$broken")
  sanitize "$main_limit" memcheck "$work/memcheck-main.txt" "-tce=$broken"
  main_code=$?
  local left=$((start + limit - SECONDS))
  if ((left >= 10 * scale)); then
    sanitize "$left" memcheck "$work/memcheck-confirm.txt" "-tc=$broken"
    confirm_code=$?
  fi
  {
    echo "== memcheck, test_cuda without the broken capture (exit $main_code; $expected_main cases selected)"
    cat "$work/memcheck-main.txt"
    echo "== memcheck, the broken capture alone (exit $confirm_code; $expected_confirm cases selected)"
    cat "$work/memcheck-confirm.txt" 2>/dev/null || echo "not run: ${left} s left"
  } >>"$results/sanitizer.txt"
  cat "$work"/memcheck-*.txt >"$work/memcheck.txt"
  tail -4 "$work/memcheck.txt"
  # ERROR SUMMARY also counts CUDA API calls that returned an error to their caller ("Program
  # hit cudaErrorX on CUDA API call to ..."): the suite provokes some on purpose (out of memory,
  # item() inside a graph capture) and NCCL probes its kernels with some. They are listed by
  # name; only the rest (bad accesses, leaks) make a run unclean.
  local api api_kinds total memory problems
  api=$(grep -c 'Program hit cuda' "$work/memcheck.txt")
  api_kinds=$(grep -o 'Program hit cuda[A-Za-z]*' "$work/memcheck.txt" | sort | uniq -c |
    awk '{ printf "%s%s %dx", (NR > 1 ? ", " : ""), $4, $1 }')
  total=$(grep -ohE 'ERROR SUMMARY: [0-9]+ errors?$' "$work"/memcheck-*.txt |
    awk '{ n += $3; seen = 1 } END { if (seen) print n }')
  memory=$((${total:-0} - api))
  problems="$(judge memcheck "$work/memcheck-main.txt" "$main_code" "$expected_main")"
  if [ "$confirm_code" = none ]; then
    problems="${problems:+$problems; }the confirmation run did not start (${left} s left)"
  else
    local second
    second="$(judge memcheck "$work/memcheck-confirm.txt" "$confirm_code" "$expected_confirm")"
    [ -z "$second" ] || problems="${problems:+$problems; }confirmation: $second"
  fi
  local status=CLEAN
  if ((memory > 0)); then
    status=ERRORS
  elif [ -n "$problems" ]; then
    status=INCOMPLETE
  fi
  row "4 compute-sanitizer memcheck" "$status" "$((SECONDS - start)) s" \
    "${total:+$memory memory errors (${api} API errors returned to callers${api_kinds:+: $api_kinds}); }cases: $(ran_cases "$work/memcheck-main.txt") + $(ran_cases "$work/memcheck-confirm.txt") of $expected_main + $expected_confirm${problems:+; $problems}"
  figure memcheck_status "$status"
  [ -n "$total" ] && figure memcheck_errors "$memory"
  [ -n "$total" ] && figure memcheck_api_errors "$api"
}
racecheck_step() {
  local limit="$1" start=$SECONDS code filter="${RACECHECK_FILTER:-*Conv1D*,*sum*,*max*,*every layer*}"
  echo "== 4. compute-sanitizer racecheck on test_cuda (limit ${limit} s)"
  local expected
  expected=$(expected_cases "-tc=$filter")
  sanitize "$limit" racecheck "$work/racecheck.txt" "-tc=$filter"
  code=$?
  { echo "== racecheck (exit $code; $expected cases selected by $filter)"; cat "$work/racecheck.txt"; } \
    >>"$results/sanitizer.txt"
  tail -4 "$work/racecheck.txt"
  local hazards problems status=CLEAN
  hazards=$(grep -m1 -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$work/racecheck.txt" | grep -oE '[0-9]+')
  problems="$(judge racecheck "$work/racecheck.txt" "$code" "$expected")"
  if ((${hazards:-0} > 0)); then
    status=HAZARDS
  elif [ -n "$problems" ]; then
    status=INCOMPLETE
  fi
  row "4 compute-sanitizer racecheck" "$status" "$((SECONDS - start)) s" \
    "$(grep -m1 -o 'RACECHECK SUMMARY: .*' "$work/racecheck.txt" || echo 'no RACECHECK SUMMARY'); cases: $(ran_cases "$work/racecheck.txt") of $expected${problems:+; $problems}"
  figure racecheck_status "$status"
  [ -n "$hazards" ] && figure racecheck_hazards "$hazards"
}
if wanted sanitizer; then
  : >"$results/sanitizer.txt"
  if [ -z "$sanitizer" ]; then
    row "4 compute-sanitizer" "NOT RUN" "" "compute-sanitizer not found: no memory check was made"
    figure memcheck_status "NOT RUN"
    figure racecheck_status "NOT RUN"
  else
    if limit=$(limit_for 100 30); then
      memcheck_step "$limit"
    else
      row "4 compute-sanitizer memcheck" "NOT RUN" "" "no time left"
    fi
    flush
    if limit=$(limit_for 45 20); then
      racecheck_step "$limit"
    else
      row "4 compute-sanitizer racecheck" "NOT RUN" "" "no time left"
    fi
  fi
fi
flush

# ---- 4b. strand explain on the GPU against the CPU and PyTorch --------------------------------
explain_step() {
  local limit="$1" start=$SECONDS code explain_dir="$bundle/share/strand/explain"
  echo "== 4b. explain: BPNet ISM and DeepLIFT/SHAP on $gpu_device vs cpu and PyTorch (limit ${limit} s)"
  # Two sequences whole on a GPU; a rehearsal mutates 60 positions.
  head -4 "$explain_dir/seqs.fa" >"$work/explain_seqs.fa"
  local positions=""
  [ "$rehearsal" = 1 ] && positions=1001-1060
  run_bounded "$limit" env STRAND_BIN="$strand" PYTHON="$python" DEVICE="$gpu_device" RUN="$explain_dir/bpnet" \
    FASTA="$work/explain_seqs.fa" POSITIONS="$positions" WORK="$work/explain" \
    bash "$repo/bench/cuda/run_explain_gpu.sh" >"$work/explain.txt" 2>&1
  code=$?
  { echo "== 4b. explain (exit $code)"; cat "$work/explain.txt"; } >>"$results/bench.txt"
  grep -E "^RESULT|failed|Error|error" "$work/explain.txt" | head -10
  local status first_failure=""
  status=$(status_of $code)
  [ "$status" = PASS ] && status=DONE
  [ "$code" = 0 ] || first_failure="$(first_error "$work/explain.txt")"
  row "4b explain vs cpu and PyTorch" "$status" "$((SECONDS - start)) s" \
    "$(grep -c '^RESULT' "$work/explain.txt") result lines${first_failure:+; $first_failure}"
  local line
  while IFS= read -r line; do
    row "" "" "" "${line#RESULT }"
  done < <(grep '^RESULT' "$work/explain.txt")
  figure ism_gpu_vs_pytorch "$(sed -n 's/^RESULT explain ism.*PyTorch\/strand \([0-9.]*\)x.*/\1/p' "$work/explain.txt")"
}
if wanted explain; then
  if [ ! -f "$bundle/share/strand/explain/bpnet/checkpoints/best.safetensors" ]; then
    row "4b explain vs cpu and PyTorch" "NOT RUN" "" \
      "no BPNet run in the bundle (bench/explain/prepare_runs.sh before make_gpu_bundle.sh)"
  elif ! "$python" -c "import torch, numpy" 2>/dev/null; then
    row "4b explain vs cpu and PyTorch" "NOT RUN" "" "no PyTorch or numpy in $python"
  elif limit=$(limit_for 60 30); then
    explain_step "$limit"
  else
    row "4b explain vs cpu and PyTorch" "NOT RUN" "" "no time left"
  fi
fi
flush

# ---- 5a. Basset's kernels beside PyTorch's: where the GPU time of each goes ------------------
profile_step() {
  local limit="$1" start=$SECONDS code
  echo "== 5a. basset kernels: strand under ncu, PyTorch under torch.profiler (limit ${limit} s)"
  # 1 epoch of 2280 training records (18 steps) and the 1000-record validation pass.
  run_bounded "$limit" env STRAND_BIN="$strand" PYTHON="$python" DEVICE="$gpu_device" PROFILE_NCU="$ncu" EPOCHS=1 \
    N_SEQS=3480 bash "$repo/bench/cuda/run_basset_gpu.sh" \
    >"$work/profile.txt" 2>&1
  code=$?
  { echo "== 5a. basset kernels (exit $code)"; cat "$work/profile.txt"; } >>"$results/profile.txt"
  grep -E "^(all kernels|pytorch eager profile)" "$work/profile.txt"
  local status
  status=$(status_of $code)
  [ "$status" = PASS ] && status=DONE
  row "5a basset kernels vs PyTorch" "$status" "$((SECONDS - start)) s" \
    "$(grep '^all kernels' "$work/profile.txt" | tr '\n' ';')"
}
if wanted profile; then
  if [ -z "$ncu" ]; then
    row "5a basset kernels vs PyTorch" "NOT RUN" "" "ncu not found"
  elif ! has_torch; then
    row "5a basset kernels vs PyTorch" "NOT RUN" "" "no PyTorch in $python"
  elif limit=$(limit_for 90 40); then
    profile_step "$limit"
  else
    row "5a basset kernels vs PyTorch" "NOT RUN" "" "no time left"
  fi
fi
flush

# ---- 3b. the reference experiment against PyTorch eager and torch.compile --------------------
reference_step() {
  local limit="$1" start=$SECONDS code env_list=(EPOCHS=10 ROUNDS=2 COMPILE_ROUNDS=1)
  [ "$rehearsal" = 1 ] && env_list=(EPOCHS=2 ROUNDS=1 COMPILE_ROUNDS=1)
  echo "== 3b. reference: strand vs PyTorch on $gpu_device (limit ${limit} s)"
  run_bounded "$limit" env STRAND_BIN="$strand" PYTHON="$python" DEVICE="$gpu_device" MODES=eager,compile \
    "${env_list[@]}" bash "$repo/bench/cuda/run_reference_gpu.sh" \
    >"$work/bench-reference.txt" 2>&1
  code=$?
  { echo "== 3b. reference (exit $code)"; cat "$work/bench-reference.txt"; } >>"$results/bench.txt"
  grep -E "^RESULT|^pytorch " "$work/bench-reference.txt" | head -10
  local status
  status=$(status_of $code)
  [ "$status" = PASS ] && status=DONE
  row "3b reference vs PyTorch" "$status" "$((SECONDS - start)) s" \
    "$(grep -c '^RESULT' "$work/bench-reference.txt") result lines; $(grep -m1 -o 'math: .*' "$work/bench-reference.txt")"
  local line mode
  while IFS= read -r line; do
    row "" "" "" "${line#RESULT }"
  done < <(grep -E '^(RESULT|breakdown)' "$work/bench-reference.txt")
  for mode in eager compile; do
    figure "reference_fp32_vs_$mode" "$(sed -n "s/^RESULT reference fp32 vs pytorch $mode: .*-> \([0-9.]*\)x.*/\1/p" \
      "$work/bench-reference.txt" | head -1)"
  done
}
if wanted reference; then
  if ! has_torch; then
    row "3b reference vs PyTorch" "NOT RUN" "" "no PyTorch in $python (set PYTHON)"
  elif limit=$(limit_for 70 40); then
    reference_step "$limit"
  else
    row "3b reference vs PyTorch" "NOT RUN" "" "no time left"
  fi
fi
flush

# ---- 5. ncu: the slowest kernels of a reference training run --------------------------------
ncu_step() {
  local limit="$1" start=$SECONDS end code
  echo "== 5. ncu on a reference training run (limit ${limit} s)"
  end=$((SECONDS + limit))
  # The profiled program: 2 epochs of the reference experiment (add --run-name).
  local workload=("$strand" train --device "$gpu_device" --epochs 2 --no-early-stopping
    --output-dir "$work/ncu-runs")
  # Pass 1: every kernel's duration over 600 launches after the first 300 (start-up, cuDNN's
  # algorithm timing), one metric each, ranked by total time.
  run_bounded $((end - SECONDS)) "$ncu" --clock-control none --csv --print-units base \
    --metrics gpu__time_duration.sum --launch-skip 300 --launch-count 600 \
    --log-file "$work/ncu-durations.csv" "${workload[@]}" --run-name ranking \
    >"$work/ncu-app.log" 2>&1
  code=$?
  {
    echo "== 5. pass 1: kernels by total time (exit $code)"
    "$python" "$repo/bench/cuda/top_kernels.py" "$work/ncu-durations.csv" --top 12 || {
      echo "== ncu's output (last 30 lines)"
      tail -30 "$work/ncu-durations.csv"
      echo "== the program's output (last 30 lines)"
      tail -30 "$work/ncu-app.log"
    }
  } >>"$results/profile.txt" 2>&1
  local profiled=0 name left
  for name in $("$python" "$repo/bench/cuda/top_kernels.py" "$work/ncu-durations.csv" \
    --top 3 --names-only 2>/dev/null); do
    left=$((end - SECONDS))
    ((left > 10 * scale)) || break
    echo "== 5. pass 2: $name, one launch, --set detailed" >>"$results/profile.txt"
    run_bounded "$left" "$ncu" --clock-control none --set detailed \
      -k "regex:(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)" --launch-skip 5 --launch-count 1 \
      --log-file "$work/ncu-$profiled.txt" "${workload[@]}" --run-name "detail-$profiled" \
      >/dev/null 2>&1
    cat "$work/ncu-$profiled.txt" >>"$results/profile.txt" 2>/dev/null
    profiled=$((profiled + 1))
  done
  rm -rf "$work/ncu-runs"
  local top status
  top=$("$python" "$repo/bench/cuda/top_kernels.py" "$work/ncu-durations.csv" --top 3 \
    --names-only 2>/dev/null | tr '\n' ' ')
  status=$(status_of $code)
  [ "$status" = PASS ] && status=DONE
  row "5 ncu top kernels" "$status" "$((SECONDS - start)) s" \
    "top: ${top:-none ranked}; $profiled profiled in detail"
}
if wanted ncu; then
  if [ "$rehearsal" = 1 ]; then
    { echo "== 5. top_kernels.py --self-test (rehearsal)";
      "$python" "$repo/bench/cuda/top_kernels.py" --self-test; } >>"$results/profile.txt" 2>&1 ||
      row "5 ncu ranking parser" "FAIL" "" "top_kernels.py --self-test failed"
    { echo "== epoch_figures.py --self-test (rehearsal)";
      "$python" "$repo/bench/cuda/epoch_figures.py" --self-test; } >>"$results/profile.txt" 2>&1 ||
      row "3 epoch figures parser" "FAIL" "" "epoch_figures.py --self-test failed"
  fi
  if [ -z "$ncu" ]; then
    row "5 ncu top kernels" "NOT RUN" "" "ncu not found"
  elif limit=$(limit_for 200 40); then
    ncu_step "$limit"
  else
    row "5 ncu top kernels" "NOT RUN" "" "no time left"
  fi
fi

# ---- the record, and the summary last --------------------------------------------------------
for file in tests runs bench sanitizer profile; do
  [ -f "$results/$file.txt" ] || echo "(step not run)" >"$results/$file.txt"
done
flush
echo
echo "== summary (the record: $results: $(ls "$results" | tr '\n' ' ')$(du -sh "$results" | cut -f1))"
cat "$results/summary.txt"
echo "== figures (summary.tsv)"
column -t -s $'\t' "$results/summary.tsv" 2>/dev/null || cat "$results/summary.tsv"
echo "total $SECONDS s of a ${budget} s budget"
