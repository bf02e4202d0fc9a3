#!/usr/bin/env bash
# End-to-end training throughput, strand versus PyTorch 2.x (eager and torch.compile), model by
# model, side by side in one run: bench/e2e_<model> against bench/peer_pytorch_<model>.py, the
# same architecture, initialisation family, optimizer (Adam 1e-3), batch and threads, on
# random DNA made before timing. Prints each program's median epoch and the ratios.
#
# Usage: bench/run_model_comparison.sh [MODEL ...]   (default: reference generic_conv basset bpnet)
# A MODEL has bench/e2e_MODEL.cpp (e2e_reference_model.cpp for "reference") and
# bench/peer_pytorch_MODEL.py.
# Environment: THREADS (2), ROUNDS (3), EPOCHS (3), BUILD_DIR (build-bench), PYTHON (the
# interpreter of bench/peer_env.sh's virtual environment, created on first use), COMPILE (1:
# also time torch.compile; 0: eager only).
#
# Rounds alternate (strand, eager, compile, strand, ...) so that load from other processes on a
# shared machine hits all alike. Each run reports its median epoch; the summary takes, per
# program, the median over rounds.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
threads="${THREADS:-2}"
rounds="${ROUNDS:-3}"
epochs="${EPOCHS:-3}"
compile="${COMPILE:-1}"
build_dir="${BUILD_DIR:-${repo}/build-bench}"
models=("$@")
[[ ${#models[@]} -gt 0 ]] || models=(reference generic_conv basset bpnet)

build_log="$(mktemp)"
trap 'rm -f "${build_log}"' EXIT
if [[ ! -f "${build_dir}/CMakeCache.txt" ]]; then
  cmake -S "${repo}" -B "${build_dir}" -DSTRAND_CUDA=OFF -DCMAKE_BUILD_TYPE=Release \
    >"${build_log}" 2>&1 || { cat "${build_log}"; exit 1; }
fi
# The strand program of a model (the reference one predates this script's naming).
program_of() { if [[ "$1" == reference ]]; then echo e2e_reference_model; else echo "e2e_$1"; fi; }
targets=()
for model in "${models[@]}"; do targets+=("$(program_of "${model}")"); done
cmake --build "${build_dir}" -j "${threads}" --target "${targets[@]}" >"${build_log}" 2>&1 ||
  { cat "${build_log}"; exit 1; }
python="${PYTHON:-$(bash "${repo}/bench/peer_env.sh")}"

export OMP_NUM_THREADS="${threads}"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; threads=${threads}"
echo "rounds=${rounds} epochs/run=${epochs}; $("${python}" -c 'import torch; print("torch", torch.__version__)')"

median_of() { sed -n 's/^median: \([0-9.]*\) samples\/s$/\1/p'; }

for model in "${models[@]}"; do
  strand_runs=() eager_runs=() compile_runs=()
  for ((round = 1; round <= rounds; ++round)); do
    strand_runs+=("$("${build_dir}/bench/$(program_of "${model}")" --threads "${threads}" --epochs "${epochs}" | median_of)")
    eager_runs+=("$("${python}" "${repo}/bench/peer_pytorch_${model}.py" --threads "${threads}" \
      --epochs "${epochs}" 2>/dev/null | median_of)")
    if [[ "${compile}" == 1 ]]; then
      compile_runs+=("$("${python}" "${repo}/bench/peer_pytorch_${model}.py" --threads "${threads}" \
        --epochs "${epochs}" --compile 2>/dev/null | median_of)")
    fi
    compiled="-"
    [[ ${#compile_runs[@]} -gt 0 ]] && compiled="${compile_runs[-1]}"
    echo "${model} round ${round}: strand ${strand_runs[-1]} | eager ${eager_runs[-1]}" \
      "| compile ${compiled} samples/s"
  done
  "${python}" - "${model}" "${strand_runs[*]}" "${eager_runs[*]}" "${compile_runs[*]-}" <<'PY'
import statistics
import sys

model, strand, eager, compiled = sys.argv[1], *[
    [float(v) for v in arg.split()] for arg in sys.argv[2:5]]
s, e = statistics.median(strand), statistics.median(eager)
line = f"{model}: strand {s:.0f}, pytorch eager {e:.0f}"
if compiled:
    c = statistics.median(compiled)
    line += f", torch.compile {c:.0f} samples/s; strand/eager {s / e:.2f}x, strand/compile {s / c:.2f}x"
else:
    line += f" samples/s; strand/eager {s / e:.2f}x"
print(line)
PY
done
