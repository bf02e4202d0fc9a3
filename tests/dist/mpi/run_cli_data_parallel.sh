#!/usr/bin/env bash
# The real program, data-parallel: `mpiexec -np 2 strand train` on a tiny simulated dataset,
# once per mode (mirrored gradients, parameter averaging). Checks that the job exits 0, that
# exactly one run directory exists (rank 0 writes, rank 1 writes nothing) with config.json,
# report.json, metrics.csv and both checkpoints, and that the epochs agree: the report's
# epochs_run, the rows of metrics.csv and the requested --epochs. Then a SIGTERM on every rank
# and a resume, which must log the mirrored run's steps exactly.
#
# Usage: run_cli_data_parallel.sh MPIEXEC STRAND_EXE   (registered in tests/CMakeLists.txt)
set -uo pipefail

mpiexec=${1:?usage: run_cli_data_parallel.sh MPIEXEC STRAND_EXE}
strand=${2:?usage: run_cli_data_parallel.sh MPIEXEC STRAND_EXE}
work=$(mktemp -d "${TMPDIR:-/tmp}/strand_dp_cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
epochs=2

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# One mode: $1 = name (the run directory under $work/<name>/), $2... = extra train arguments.
check_mode() {
  local name=$1
  shift
  local parent="$work/$name"
  local log="$work/$name.log"
  mkdir -p "$parent/cwd"
  # Each rank runs in an empty directory, so a stray relative write by any rank shows up.
  (cd "$parent/cwd" && "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$strand" train \
    --n-pos 300 --n-neg 300 --length 100 --validation 100 --test 100 --epochs "$epochs" \
    --no-early-stopping --threads 1 --batch-size 32 --tensorboard-every 0 \
    --output-dir "$parent/runs" --run-name dp "$@") >"$log" 2>&1
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    cat "$log"
    fail "$name: mpiexec -np 2 strand train exited with $rc"
  fi
  grep -q "data-parallel: 2 ranks" "$log" || { cat "$log"; fail "$name: no 'data-parallel: 2 ranks' line: not run data-parallel"; }

  local entries
  entries=$(ls -A "$parent/runs")
  [[ "$entries" == "dp" ]] || fail "$name: expected exactly one run directory 'dp', found: $entries"
  [[ -z "$(ls -A "$parent/cwd")" ]] || fail "$name: a rank wrote into its working directory: $(ls -A "$parent/cwd")"
  local run="$parent/runs/dp"
  for file in config.json report.json metrics.csv checkpoints/best.safetensors \
              checkpoints/last.safetensors; do
    [[ -s "$run/$file" ]] || fail "$name: $run/$file is missing or empty"
  done
  # Only rank 0 writes checkpoints: exactly best and last.
  local checkpoints
  checkpoints=$(ls -A "$run/checkpoints" | sort | tr '\n' ' ')
  [[ "$checkpoints" == "best.safetensors last.safetensors " ]] ||
    fail "$name: unexpected checkpoint files: $checkpoints"

  local epochs_run
  epochs_run=$(tr -d ' \n' <"$run/report.json" | grep -o '"epochs_run":[0-9]*' | cut -d: -f2)
  [[ "$epochs_run" == "$epochs" ]] || fail "$name: report.json epochs_run is '$epochs_run', expected $epochs"
  local rows
  rows=$(($(grep -c . "$run/metrics.csv") - 1))
  [[ "$rows" == "$epochs" ]] || fail "$name: metrics.csv has $rows epoch rows, expected $epochs"
  tr -d ' \n' <"$run/report.json" | grep -q '"test":{' || fail "$name: report.json has no test metrics"
  echo "ok: $name: exit 0, one run directory, epochs_run $epochs_run, $rows metric rows, checkpoints $checkpoints"
}

check_mode mirrored
printf '{"distributed": {"mode": "averaging", "average_every": 4}}\n' >"$work/averaging.json"
check_mode averaging --config "$work/averaging.json"

# SIGTERM on every rank (as mpirun passes it on) after step 5: all ranks stop before the same
# step, exit 143, rank 0 writes last mid-epoch and an interrupted report, and --resume under
# mpiexec logs the steps of the uninterrupted mirrored run exactly.
stopped="$work/stopped"
mkdir -p "$stopped"
(cd "$stopped" && "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$strand" train \
  --n-pos 300 --n-neg 300 --length 100 --validation 100 --test 100 --epochs "$epochs" \
  --no-early-stopping --threads 1 --batch-size 32 --tensorboard-every 0 \
  --output-dir "$stopped/runs" --run-name dp --signal-after-steps 5) >"$work/stopped.log" 2>&1
rc=$?
[[ $rc -eq 143 ]] || { cat "$work/stopped.log"; fail "interrupted: mpiexec exited with $rc, expected 143"; }
tr -d ' \n' <"$stopped/runs/dp/report.json" | grep -q '"status":"interrupted"' ||
  fail "interrupted: report.json is not marked interrupted"
(cd "$stopped" && "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$strand" train \
  --resume "$stopped/runs/dp") >"$work/resumed.log" 2>&1 ||
  { cat "$work/resumed.log"; fail "interrupted: the resume under mpiexec failed"; }
cmp -s "$stopped/runs/dp/steps.csv" "$work/mirrored/runs/dp/steps.csv" ||
  fail "interrupted: the resumed steps.csv differs from the uninterrupted mirrored run"
echo "ok: interrupted: exit 143, interrupted report, resumed steps identical"
echo "PASS"
