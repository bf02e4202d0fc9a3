#!/usr/bin/env bash
# Every check strand needs from a GPU host, in one call (GPU time is scarce), run from an
# unpacked bundle (scripts/make_gpu_bundle.sh). Logs go to $LOG_DIR (default ./gpu-logs); the
# last lines printed are a summary table.
#
#   bench/cuda/gpu_checks.sh BUNDLE.tar.gz [STEPS]
# STEPS (comma-separated, default all): info, tests, sanitize, runs, bench, kernels
set -uo pipefail
bundle_tar="$(realpath "$1")"
steps="${2:-info,tests,sanitize,runs,bench,kernels}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log_dir="$(realpath -m "${LOG_DIR:-gpu-logs}")"
mkdir -p "$log_dir"
work="$(mktemp -d)"
tar -xzf "$bundle_tar" -C "$work"
bundle="$(echo "$work"/strand-*)"
eval "$("$bundle/bin/cuda_library_path.sh")"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
summary=()
note() { summary+=("$(printf '%-28s %s' "$1" "$2")"); }
has() { [[ ",$steps," == *",$1,"* ]]; }

if has info; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
    --format=csv | tee "$log_dir/info.txt"
  (ldd "$bundle/bin/strand" | grep -E "not found|cud|nccl|hts|fmt|gomp") | tee -a "$log_dir/info.txt"
  note "bundle size" "$(du -sh "$bundle_tar" | cut -f1)"
fi

if has tests; then
  start=$(date +%s)
  STRAND_REQUIRE_GPU=1 STRAND_TEST_LOG_DIR="$log_dir/tests" timeout "${TEST_TIMEOUT:-420}" \
    "$bundle/bin/run_tests.sh" >"$log_dir/tests.txt" 2>&1
  status=$?
  cat "$log_dir/tests.txt"
  note "tests (REQUIRE_GPU=1)" "exit $status in $(($(date +%s) - start)) s"
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck initcheck; do
    start=$(date +%s)
    STRAND_CUDA_EXACT_ALLOC=1 STRAND_REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool "$tool" \
      --error-exitcode 99 "$bundle/bin/test_cuda" --no-intro=true ${SANITIZE_FILTER:+-tc="$SANITIZE_FILTER"} \
      >"$log_dir/sanitize-$tool.txt" 2>&1
    status=$?
    tail -3 "$log_dir/sanitize-$tool.txt"
    note "compute-sanitizer $tool" "exit $status in $(($(date +%s) - start)) s ($(grep -c '=========  *\(Invalid\|Race\|Barrier\|Uninitialized\)' "$log_dir/sanitize-$tool.txt") reports)"
  done
fi

if has runs; then
  # The reference run on the CPU and the GPU: test metrics and per-epoch losses side by side.
  for device in cpu cuda; do
    timeout 300 "$bundle/bin/strand" train --device "$device" --output-dir "$work/runs" \
      --run-name "ref-$device" >"$log_dir/ref-$device.txt" 2>&1
    note "reference run $device" "exit $?"
    cp "$work/runs/ref-$device/metrics.csv" "$log_dir/ref-$device-metrics.csv" 2>/dev/null
    cp "$work/runs/ref-$device/report.json" "$log_dir/ref-$device-report.json" 2>/dev/null
  done
  python3 "$repo/bench/cuda/compare_runs.py" "$log_dir/ref-cpu-report.json" \
    "$log_dir/ref-cuda-report.json" "$log_dir/ref-cpu-metrics.csv" "$log_dir/ref-cuda-metrics.csv" |
    tee "$log_dir/ref-compare.txt"
  # Determinism: two identical deterministic GPU runs give identical metrics files.
  for round in 1 2; do
    timeout 300 "$bundle/bin/strand" train --device cuda --deterministic --epochs 3 \
      --no-early-stopping --output-dir "$work/runs" --run-name "det-$round" >/dev/null 2>&1
  done
  if cmp -s "$work/runs/det-1/metrics.csv" "$work/runs/det-2/metrics.csv" &&
     cmp -s "$work/runs/det-1/checkpoints/last.safetensors" "$work/runs/det-2/checkpoints/last.safetensors"; then
    note "deterministic GPU repeats" "bit-identical"
  else
    note "deterministic GPU repeats" "DIFFER"
  fi
fi

if has bench; then
  STRAND_BIN="$bundle/bin/strand" timeout 900 bash "$repo/bench/cuda/run_reference_gpu.sh" \
    >"$log_dir/bench.txt" 2>&1
  note "reference benchmark" "exit $?"
  tail -8 "$log_dir/bench.txt"
fi

if has kernels; then
  if [[ -x "$bundle/bin/bench_cuda_ops" ]]; then
    timeout 240 "$bundle/bin/bench_cuda_ops" --benchmark_min_time=0.1s >"$log_dir/kernels.txt" 2>&1
    note "bench_cuda_ops" "exit $?"
  fi
fi

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
