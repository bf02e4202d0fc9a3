#!/usr/bin/env bash
# Everything strand needs from a GPU host, in one call of at most 9 minutes (GPU time is scarce),
# run from the GPU bundle (scripts/make_gpu_bundle.sh). Steps, most valuable first, each under
# its own time limit and all under one budget (so the summary is always printed):
#   1. the whole test suite with STRAND_REQUIRE_GPU=1 (a skipped GPU case fails);
#   2. the reference run on the CPU and on the GPU compared (test auROC within 1e-3), and two
#      `--deterministic` GPU runs compared byte for byte;
#   3. the benchmark against PyTorch on the same GPU, eager and torch.compile: the reference
#      experiment (run_reference_gpu.sh) and the Basset preset at batch 128 (run_basset_gpu.sh),
#      with ratios and each side's math mode;
#   4. compute-sanitizer memcheck and racecheck on test_cuda; then `strand explain --device` on
#      a trained BPNet against the CPU and a PyTorch ISM on the same GPU (run_explain_gpu.sh);
#   5. a: one Basset epoch's kernels ranked by time, strand's under ncu beside PyTorch's under
#      torch.profiler (run_basset_gpu.sh with PROFILE_NCU); then ncu on the kernels of a
#      reference training run ranked by time, and the three slowest profiled in detail.
# The last lines printed are a summary table. Logs go to $OUT (the device machine's folder whose
# files come back; else $LOG_DIR, else ./gpu-logs): 8 files, none in a subfolder.
#
#   bench/cuda/gpu_checks.sh [BUNDLE.tar.gz | UNPACKED_BUNDLE_DIR]
#       (default: the newest build-bundle/out/strand-*-cuda13-x86_64.tar.gz of this tree)
#
# Environment:
#   STRAND_GPU_CHECKS_REHEARSAL=1   no GPU: the suite without STRAND_REQUIRE_GPU, the "GPU" runs
#       and benchmarks on the CPU with fewer epochs (the PyTorch peers on the CPU), sanitizer
#       and ncu steps reported as not run when the tools are missing. Every path but the GPU
#       facts runs; a rehearsal is never reported as a GPU result.
#   STRAND_GPU_CHECKS_BUDGET (540 s), STRAND_GPU_CHECKS_TIME_SCALE (1: multiplies the budget and
#       every step's limit, for slow rehearsal machines), STRAND_GPU_CHECKS_STEPS (default
#       "tests runs bench sanitizer explain profile ncu"), PYTHON (python3: the one with PyTorch),
#       STRAND_GPU_CHECKS_KEEP=1 (keep the work folder).
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rehearsal="${STRAND_GPU_CHECKS_REHEARSAL:-0}"
scale="${STRAND_GPU_CHECKS_TIME_SCALE:-1}"
budget=$((${STRAND_GPU_CHECKS_BUDGET:-540} * scale))
steps=" ${STRAND_GPU_CHECKS_STEPS:-tests runs bench sanitizer explain profile ncu} "
python="${PYTHON:-python3}"
out="${OUT:-${LOG_DIR:-$PWD/gpu-logs}}"
deadline=$((SECONDS + budget))
reserve=$((5 * scale)) # kept for the summary and the log archive
mkdir -p "$out"
work="$(mktemp -d /tmp/strand-gpu-checks.XXXXXX)"
[ "${STRAND_GPU_CHECKS_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

gpu_device=cuda
mode_note="GPU run"
if [ "$rehearsal" = 1 ]; then
  gpu_device=cpu
  mode_note="REHEARSAL without a GPU: 'GPU' runs and benchmarks ran on the CPU"
fi

# ---- the summary table: one row per check, rewritten to $OUT/summary.txt after each step ----
rows=()
header=()
row() { rows+=("$(printf '%-34s %-8s %6s  %s' "$1" "$2" "$3" "$4")"); }
write_summary() {
  {
    printf '%s\n' "${header[@]}"
    printf '%-34s %-8s %6s  %s\n' "check" "status" "time" "detail"
    printf '%s\n' "${rows[@]}"
  } >"$out/summary.txt"
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

# ---- the bundle ---------------------------------------------------------------------------
bundle_arg="${1:-$(ls -t "$repo"/build-bundle/out/strand-*-cuda13-x86_64.tar.gz 2>/dev/null | head -1)}"
if [ -z "$bundle_arg" ] || [ ! -e "$bundle_arg" ]; then
  echo "gpu_checks: no bundle (give BUNDLE.tar.gz; scripts/make_gpu_bundle.sh builds one)" >&2
  exit 2
fi
if [ -d "$bundle_arg" ]; then
  bundle="$(cd "$bundle_arg" && pwd)"
  bundle_size="$(du -sm "$bundle" | cut -f1) MiB unpacked"
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
  "== strand gpu_checks: $mode_note; $(date -u '+%Y-%m-%d %H:%M UTC')"
  "machine: $(uname -m), $(nproc) cores, $(ldd --version | head -1 | sed 's/^ldd //'); GPU: ${gpu:-none (nvidia-smi failed)}"
  "bundle: $(basename "$bundle") ($bundle_size); CUDA libraries: ${LD_LIBRARY_PATH:-none}${library_lines:+ ($library_lines)}"
  "unresolved libraries of the CUDA module lib/libstrand_cuda.so: ${unresolved:-none}"
  "python: $python: ${torch_line:-no PyTorch}"
  "compute-sanitizer: ${sanitizer:-not found}; ncu: ${ncu:-not found}; budget ${budget} s"
)
printf '%s\n' "${header[@]}"
write_summary

# ---- 1. the whole suite --------------------------------------------------------------------
if wanted tests && limit=$(limit_for 150 30); then
  echo "== 1. the test suite (limit ${limit} s)"
  start=$SECONDS
  jobs=$(($(nproc) / 4))
  ((jobs < 1)) && jobs=1
  ((jobs > 6)) && jobs=6
  require=1
  [ "$rehearsal" = 1 ] && require=0
  # Each program may take all but 25 s of the step: a hanging test_cuda leaves the rest time.
  STRAND_REQUIRE_GPU=$require STRAND_TEST_FIRST=test_cuda STRAND_TEST_JOBS=$jobs \
    STRAND_TEST_TIMEOUT=$((limit - 25 * scale)) STRAND_TEST_LOG_DIR="$work/tests" \
    timeout -k 5 "$limit" "$bundle/bin/run_tests.sh" \
    --duration=true >"$work/tests.out" 2>&1
  code=$?
  cat "$work/tests.out"
  {
    cat "$work/tests.out"
    echo "== test_cuda (with each case's duration)"
    cat "$work/tests/test_cuda.log" 2>/dev/null
    for log in "$work"/tests/test_*.log; do
      name="$(basename "$log" .log)"
      read -r status _ <"$work/tests/$name.result" 2>/dev/null || status=unfinished
      [ "$status" = 0 ] || [ "$name" = test_cuda ] && continue
      echo "== $name: exit $status (first 300 lines)"
      head -300 "$log"
    done
  } >"$out/tests.txt"
  programs=$(find "$bundle/bin" -maxdepth 1 -name 'test_*' -type f | wc -l)
  passed=$(grep -l '^0 ' "$work"/tests/*.result 2>/dev/null | wc -l)
  unfinished=$(for program in "$bundle"/bin/test_*; do
    [ -f "$work/tests/$(basename "$program").result" ] || basename "$program"
  done | tr '\n' ' ')
  cuda_line=$(grep -m1 '^test_cuda ' "$work/tests.out" | sed 's/^test_cuda *//')
  skipped=$(grep -h '^\[strand-skip\]' "$work"/tests/test_*.log 2>/dev/null | sed 's/ (.*//' |
    sort | uniq -c | awk '{$1 = $1 "x"; print}' | tr '\n' ';')
  row "1 suite (STRAND_REQUIRE_GPU=$require)" "$(status_of $code)" "$((SECONDS - start)) s" \
    "$passed of $programs programs passed${unfinished:+; unfinished: $unfinished}"
  row "1 test_cuda" "" "" "${cuda_line:-did not finish}"
  [ -z "$skipped" ] || row "1 skipped cases" "" "" "$skipped"
  write_summary
elif wanted tests; then
  row "1 suite" "NOT RUN" "" "no time left"
fi

# ---- 2. CPU vs GPU reference run; deterministic repeats -------------------------------------
if wanted runs && limit=$(limit_for 100 30); then
  echo "== 2. reference run on cpu and $gpu_device, deterministic repeats (limit ${limit} s)"
  start=$SECONDS
  end=$((SECONDS + limit))
  runs="$work/runs"
  mkdir -p "$runs"
  train() { # NAME ARGS...: one strand train under what is left of the step's limit
    local name="$1"
    shift
    local left=$((end - SECONDS))
    ((left > 0)) || return 124
    timeout -k 5 "$left" "$strand" train --output-dir "$runs" --run-name "$name" "$@" \
      >"$runs/$name.log" 2>&1
  }
  # The CPU run does not use the GPU: it runs beside the GPU runs. The short deterministic
  # runs go first: a slow GPU reference run then costs only its own comparison.
  (train ref-cpu --device cpu; echo $? >"$runs/ref-cpu.status") &
  train det-1 --device "$gpu_device" --deterministic --epochs 3 --no-early-stopping
  det1=$?
  train det-2 --device "$gpu_device" --deterministic --epochs 3 --no-early-stopping
  det2=$?
  train ref-gpu --device "$gpu_device"
  gpu_code=$?
  wait
  cpu_code=$(cat "$runs/ref-cpu.status" 2>/dev/null || echo 124)
  {
    echo "exit codes: ref-cpu $cpu_code, ref-gpu ($gpu_device) $gpu_code, det-1 $det1, det-2 $det2"
    "$python" "$repo/bench/cuda/compare_runs.py" "$runs/ref-cpu" "$runs/ref-gpu"
    echo "compare exit $?" >"$work/compare.status"
    echo "== determinism: det-1 vs det-2"
    "$python" "$repo/bench/cuda/compare_runs.py" --identical "$runs/det-1" "$runs/det-2"
    echo "identical exit $?" >>"$work/compare.status"
    for name in ref-cpu ref-gpu det-1 det-2; do
      echo "== $name.log (last 40 lines)"
      tail -40 "$runs/$name.log" 2>/dev/null
    done
  } >"$out/runs.txt" 2>&1
  cat "$out/runs.txt" | head -60
  compare_code=$(sed -n 's/^compare exit //p' "$work/compare.status")
  identical_code=$(sed -n 's/^identical exit //p' "$work/compare.status")
  auroc_line=$(grep -m1 '^test auROC' "$out/runs.txt")
  if ((cpu_code != 0 || gpu_code != 0)); then
    status=$(status_of $((cpu_code != 0 ? cpu_code : gpu_code)))
  else
    status=$(status_of "$compare_code")
  fi
  failed_run=""
  ((cpu_code != 0)) && failed_run="ref-cpu: $(first_error "$runs/ref-cpu.log")"
  ((gpu_code != 0)) && failed_run="ref-gpu: $(first_error "$runs/ref-gpu.log")"
  row "2 reference cpu vs $gpu_device" "$status" "$((SECONDS - start)) s" \
    "${auroc_line:-no test auROC compared (exit codes cpu $cpu_code, $gpu_device $gpu_code)}${failed_run:+; $failed_run}"
  if ((det1 != 0 || det2 != 0)); then
    row "2 deterministic $gpu_device repeats" "$(status_of $((det1 != 0 ? det1 : det2)))" "" \
      "a run did not finish (exit $det1, $det2): $(first_error "$runs/det-1.log")"
  else
    row "2 deterministic $gpu_device repeats" "$(status_of "$identical_code")" "" \
      "$(grep -m1 '^identical:\|^DIFFER' "$out/runs.txt")"
  fi
  write_summary
elif wanted runs; then
  row "2 reference runs" "NOT RUN" "" "no time left"
fi

# ---- 3. benchmarks against PyTorch on the same GPU ------------------------------------------
if wanted bench; then
  : >"$out/bench.txt"
  if ! "$python" -c "import torch" 2>/dev/null; then
    row "3 benchmarks" "NOT RUN" "" "no PyTorch in $python (set PYTHON)"
  else
    # Rehearsal on a CPU: the same scripts, shorter.
    if [ "$rehearsal" = 1 ]; then
      reference_env=(EPOCHS=2 ROUNDS=1)
      basset_env=(EPOCHS=1 ROUNDS=1 N_SEQS=1700)
    else
      # One round of each compiled mode: each round compiles again (tens of seconds).
      reference_env=(EPOCHS=10 ROUNDS=3 COMPILE_ROUNDS=1)
      basset_env=(EPOCHS=3 ROUNDS=2 COMPILE_ROUNDS=1 N_SEQS=8000)
    fi
    for model in reference basset; do
      if [ "$model" = reference ]; then cap=130; else cap=140; fi
      if ! limit=$(limit_for "$cap" 40); then
        row "3 $model vs PyTorch" "NOT RUN" "" "no time left"
        continue
      fi
      echo "== 3. $model: strand vs PyTorch on $gpu_device (limit ${limit} s)"
      start=$SECONDS
      if [ "$model" = reference ]; then extra=("${reference_env[@]}"); else extra=("${basset_env[@]}"); fi
      env STRAND_BIN="$strand" PYTHON="$python" DEVICE="$gpu_device" MODES=eager,compile \
        "${extra[@]}" timeout -k 5 "$limit" bash "$repo/bench/cuda/run_${model}_gpu.sh" \
        >"$work/bench-$model.txt" 2>&1
      code=$?
      first_failure=""
      [ "$code" = 0 ] || first_failure="; $(first_error "$work/bench-$model.txt")"
      { echo "== $model (exit $code)"; cat "$work/bench-$model.txt"; } >>"$out/bench.txt"
      grep -E "^RESULT|math:|^pytorch |Error|error" "$work/bench-$model.txt" | head -20
      results=$(grep -c '^RESULT' "$work/bench-$model.txt")
      # A benchmark that ran is DONE: its RESULT lines say which targets were met.
      status=$(status_of $code)
      [ "$status" = PASS ] && status=DONE
      row "3 $model vs PyTorch" "$status" "$((SECONDS - start)) s" \
        "$results result lines; $(grep -m1 -o 'math: .*' "$work/bench-$model.txt")${first_failure:-}"
      while IFS= read -r line; do
        row "" "" "" "${line#RESULT }"
      done < <(grep -E '^(RESULT|breakdown)' "$work/bench-$model.txt")
      write_summary
    done
  fi
fi

# ---- 4. compute-sanitizer on test_cuda ------------------------------------------------------
if wanted sanitizer; then
  : >"$out/sanitizer.txt"
  racecheck_filter="${RACECHECK_FILTER:-*Conv1D*,*sum*,*max*,*every layer*}"
  # sanitize LIMIT TOOL DOCTEST_FILTER: test_cuda under the tool, appended to $work/TOOL.txt;
  # exact allocation sizes, as the allocator's 512-byte rounding would hide overruns.
  sanitize() {
    STRAND_CUDA_EXACT_ALLOC=1 STRAND_REQUIRE_GPU=1 timeout -k 5 "$1" "$sanitizer" \
      --tool "$2" --error-exitcode 99 --print-limit 100 "$bundle/bin/test_cuda" \
      --no-intro=true --duration=true "$3" >>"$work/$2.txt" 2>&1
  }
  for tool in memcheck racecheck; do
    label="4 compute-sanitizer $tool"
    if [ -z "$sanitizer" ]; then
      row "$label" "NOT RUN" "" "compute-sanitizer not found: no memory check was made"
      continue
    fi
    # memcheck: the deliberately broken capture in a process of its own, after the rest (the
    # sanitizer keeps that capture's never-freed block on its books, and a later graph reusing
    # the address would read as an out-of-bounds write).
    broken_capture="*a host read inside a capture is refused*"
    if [ "$tool" = memcheck ]; then cap=75 filter="-tce=$broken_capture"; else cap=60 filter="-tc=$racecheck_filter"; fi
    if ! limit=$(limit_for "$cap" 20); then
      row "$label" "NOT RUN" "" "no time left"
      continue
    fi
    echo "== 4. compute-sanitizer $tool on test_cuda (limit ${limit} s)"
    start=$SECONDS
    : >"$work/$tool.txt"
    sanitize "$limit" "$tool" "$filter"
    code=$?
    if [ "$tool" = memcheck ]; then
      # Both runs' summaries count: the totals below add them up.
      sanitize 30 memcheck "-tc=$broken_capture"
      second=$?
      [ "$code" = 0 ] && code=$second
    fi
    { echo "== $tool (exit $code)"; cat "$work/$tool.txt"; } >>"$out/sanitizer.txt"
    tail -4 "$work/$tool.txt"
    errors=$(grep -m1 -o 'ERROR SUMMARY: [0-9]* error[s]*' "$work/$tool.txt")
    hazards=$(grep -m1 -o 'RACECHECK SUMMARY: [0-9]* hazard[s]* displayed[^)]*)*' "$work/$tool.txt")
    cases=$(grep -E '^\[doctest\] test cases' "$work/$tool.txt" | tr -s ' ' | paste -sd ';')
    done_cases=$(grep -cE '^[0-9.]+ s: ' "$work/$tool.txt")
    # ERROR SUMMARY also counts CUDA API calls that returned an error to their caller ("Program
    # hit cudaErrorX on CUDA API call to ..."): the suite provokes some on purpose (out of
    # memory, item() inside a graph capture) and NCCL probes its kernels with some. They are
    # listed by name; only the rest (bad accesses, races, leaks) make a run unclean.
    api=$(grep -c 'Program hit cuda' "$work/$tool.txt")
    api_kinds=$(grep -o 'Program hit cuda[A-Za-z]*' "$work/$tool.txt" | sort | uniq -c |
      awk '{ printf "%s%s %dx", (NR > 1 ? ", " : ""), $4, $1 }')
    total=$(grep -oE 'ERROR SUMMARY: [0-9]+ errors?$' "$work/$tool.txt" |
      awk '{ n += $3; seen = 1 } END { if (seen) print n }')
    memory=$((${total:-0} - api))
    suite_passed=0
    grep -q '^\[doctest\] Status: SUCCESS' "$work/$tool.txt" &&
      ! grep -q '^\[doctest\] Status: FAILURE' "$work/$tool.txt" && suite_passed=1
    if [ -n "$total" ] && ((memory == 0)) && ((suite_passed)) && [[ "$code" == 0 || "$code" == 99 ]]; then
      status=CLEAN
    else
      status=$(status_of "$code")
      ((memory > 0)) && status=ERRORS
    fi
    [ -n "$total" ] && errors="$memory memory errors (${api} API errors returned to callers${api_kinds:+: $api_kinds})"
    row "$label" "$status" "$((SECONDS - start)) s" \
      "${errors:-no ERROR SUMMARY}${hazards:+; $hazards}; ${cases:-$done_cases test cases finished}"
    write_summary
  done
fi

# ---- 4b. strand explain on the GPU against the CPU and PyTorch --------------------------------
if wanted explain; then
  explain_dir="$bundle/share/strand/explain"
  if [ ! -f "$explain_dir/bpnet/checkpoints/best.safetensors" ]; then
    row "4b explain vs cpu and PyTorch" "NOT RUN" "" \
      "no BPNet run in the bundle (bench/explain/prepare_runs.sh before make_gpu_bundle.sh)"
  elif ! "$python" -c "import torch, numpy" 2>/dev/null; then
    row "4b explain vs cpu and PyTorch" "NOT RUN" "" "no PyTorch or numpy in $python"
  elif limit=$(limit_for 90 30); then
    echo "== 4b. explain: BPNet ISM and DeepLIFT/SHAP on $gpu_device vs cpu and PyTorch (limit ${limit} s)"
    start=$SECONDS
    # Two sequences whole on a GPU; a rehearsal mutates 60 positions.
    head -4 "$explain_dir/seqs.fa" >"$work/explain_seqs.fa"
    positions=""
    [ "$rehearsal" = 1 ] && positions=1001-1060
    env STRAND_BIN="$strand" PYTHON="$python" DEVICE="$gpu_device" RUN="$explain_dir/bpnet" \
      FASTA="$work/explain_seqs.fa" POSITIONS="$positions" WORK="$work/explain" \
      timeout -k 5 "$limit" bash "$repo/bench/cuda/run_explain_gpu.sh" >"$work/explain.txt" 2>&1
    code=$?
    { echo "== explain (exit $code)"; cat "$work/explain.txt"; } >>"$out/bench.txt"
    grep -E "^RESULT|failed|Error|error" "$work/explain.txt" | head -10
    status=$(status_of $code)
    [ "$status" = PASS ] && status=DONE
    first_failure=""
    [ "$code" = 0 ] || first_failure="$(first_error "$work/explain.txt")"
    row "4b explain vs cpu and PyTorch" "$status" "$((SECONDS - start)) s" \
      "$(grep -c '^RESULT' "$work/explain.txt") result lines${first_failure:+; $first_failure}"
    while IFS= read -r line; do
      row "" "" "" "${line#RESULT }"
    done < <(grep '^RESULT' "$work/explain.txt")
    write_summary
  else
    row "4b explain vs cpu and PyTorch" "NOT RUN" "" "no time left"
  fi
fi

# ---- 5a. Basset's kernels beside PyTorch's: where the GPU time of each goes ------------------
if wanted profile; then
  : >"$out/profile.txt"
  if [ -z "$ncu" ]; then
    row "5a basset kernels vs PyTorch" "NOT RUN" "" "ncu not found"
  elif ! "$python" -c "import torch" 2>/dev/null; then
    row "5a basset kernels vs PyTorch" "NOT RUN" "" "no PyTorch in $python"
  elif limit=$(limit_for 120 40); then
    echo "== 5a. basset kernels: strand under ncu, PyTorch under torch.profiler (limit ${limit} s)"
    start=$SECONDS
    # 1 epoch of 2280 training records (18 steps) and the 1000-record validation pass.
    env STRAND_BIN="$strand" PYTHON="$python" DEVICE="$gpu_device" PROFILE_NCU="$ncu" EPOCHS=1 \
      N_SEQS=3480 timeout -k 5 "$limit" bash "$repo/bench/cuda/run_basset_gpu.sh" \
      >"$work/profile.txt" 2>&1
    code=$?
    cp "$work/profile.txt" "$out/profile.txt"
    grep -E "^(all kernels|pytorch eager profile)" "$work/profile.txt"
    status=$(status_of $code)
    [ "$status" = PASS ] && status=DONE
    row "5a basset kernels vs PyTorch" "$status" "$((SECONDS - start)) s" \
      "$(grep '^all kernels' "$work/profile.txt" | tr '\n' ';')"
    write_summary
  else
    row "5a basset kernels vs PyTorch" "NOT RUN" "" "no time left"
  fi
fi

# ---- 5. ncu: the slowest kernels of a reference training run --------------------------------
if wanted ncu; then
  : >"$out/ncu.txt"
  if [ "$rehearsal" = 1 ]; then
    "$python" "$repo/bench/cuda/top_kernels.py" --self-test >>"$out/ncu.txt" 2>&1 ||
      row "5 ncu ranking parser" "FAIL" "" "top_kernels.py --self-test failed"
  fi
  if [ -z "$ncu" ]; then
    row "5 ncu top kernels" "NOT RUN" "" "ncu not found"
  elif ! limit=$(limit_for 200 40); then
    row "5 ncu top kernels" "NOT RUN" "" "no time left"
  else
    echo "== 5. ncu on a reference training run (limit ${limit} s)"
    start=$SECONDS
    end=$((SECONDS + limit))
    # The profiled program: 2 epochs of the reference experiment (add --run-name).
    workload=("$strand" train --device "$gpu_device" --epochs 2 --no-early-stopping
      --output-dir "$work/ncu-runs")
    # Pass 1: every kernel's duration over 600 launches after the first 300 (start-up, cuDNN's
    # algorithm timing), one metric each, ranked by total time.
    timeout -k 5 $((end - SECONDS)) "$ncu" --clock-control none --csv --print-units base \
      --metrics gpu__time_duration.sum --launch-skip 300 --launch-count 600 \
      --log-file "$work/ncu-durations.csv" "${workload[@]}" --run-name ranking \
      >"$work/ncu-app.log" 2>&1
    code=$?
    {
      echo "== pass 1: kernels by total time (exit $code)"
      "$python" "$repo/bench/cuda/top_kernels.py" "$work/ncu-durations.csv" --top 12 || {
        echo "== ncu's output (last 30 lines)"
        tail -30 "$work/ncu-durations.csv"
        echo "== the program's output (last 30 lines)"
        tail -30 "$work/ncu-app.log"
      }
    } >>"$out/ncu.txt" 2>&1
    profiled=0
    for name in $("$python" "$repo/bench/cuda/top_kernels.py" "$work/ncu-durations.csv" \
      --top 3 --names-only 2>/dev/null); do
      left=$((end - SECONDS))
      ((left > 10 * scale)) || break
      echo "== pass 2: $name, one launch, --set detailed" >>"$out/ncu.txt"
      timeout -k 5 "$left" "$ncu" --clock-control none --set detailed \
        -k "regex:(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)" --launch-skip 5 --launch-count 1 \
        --log-file "$work/ncu-$profiled.txt" "${workload[@]}" --run-name "detail-$profiled" \
        >/dev/null 2>&1
      cat "$work/ncu-$profiled.txt" >>"$out/ncu.txt" 2>/dev/null
      profiled=$((profiled + 1))
    done
    top=$("$python" "$repo/bench/cuda/top_kernels.py" "$work/ncu-durations.csv" --top 3 \
      --names-only 2>/dev/null | tr '\n' ' ')
    status=$(status_of $code)
    [ "$status" = PASS ] && status=DONE
    row "5 ncu top kernels" "$status" "$((SECONDS - start)) s" \
      "top: ${top:-none ranked}; $profiled profiled in detail"
  fi
  write_summary
fi

# ---- the raw logs, and the summary last ------------------------------------------------------
tar -czf "$out/logs.tar.gz" -C "$work" --exclude='*.safetensors' --exclude='strand-*' \
  --exclude='*.fa' --exclude='*.fa.gz' . 2>/dev/null
if [ "$(stat -c %s "$out/logs.tar.gz" 2>/dev/null || echo 0)" -gt $((15 * 1024 * 1024)) ]; then
  tar -czf "$out/logs.tar.gz" -C "$work" tests 2>/dev/null
fi
write_summary
echo
echo "== summary (also in $out/summary.txt; logs: $(ls "$out" | tr '\n' ' '))"
cat "$out/summary.txt"
echo "total $SECONDS s of a ${budget} s budget"
