#!/usr/bin/env bash
# Trains the reference model (Conv1D(4->16, k=15) -> ReLU -> GlobalMaxPool1D -> Dense(16->1),
# BCE, Adam, batch 128, 12,800 x 500 bp random samples per epoch) with strand and with PyTorch,
# side by side on the same threads, and prints both throughputs and their ratio.
#
# Usage: bench/run_reference_comparison.sh
# Environment: THREADS (2), ROUNDS (3), EPOCHS (3), BUILD_DIR (build-bench), PYTHON (the
# interpreter of bench/peer_env.sh's virtual environment with PyTorch 2.x from PyPI, created
# on first use; /usr/bin/python3 measures Debian's 1.13 instead).
#
# Runs alternate (strand, PyTorch, strand, ...) so that load from other processes on a shared
# machine hits both alike. Each run reports its best and median epoch; the summary takes, per
# program, the median over rounds of the runs' median epochs and the best epoch of all runs.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
threads="${THREADS:-2}"
rounds="${ROUNDS:-3}"
epochs="${EPOCHS:-3}"
build_dir="${BUILD_DIR:-${repo}/build-bench}"
python="${PYTHON:-$(bash "${repo}/bench/peer_env.sh")}"

# Build (incrementally) only the end-to-end program; configure first if needed.
# The build log is shown only when the build fails.
build_log="$(mktemp)"
trap 'rm -f "${build_log}"' EXIT
if [[ ! -f "${build_dir}/CMakeCache.txt" ]]; then
  cmake -S "${repo}" -B "${build_dir}" -DSTRAND_CUDA=OFF -DCMAKE_BUILD_TYPE=Release \
    >"${build_log}" 2>&1 || { cat "${build_log}"; exit 1; }
fi
cmake --build "${build_dir}" -j "${threads}" --target e2e_reference_model >"${build_log}" 2>&1 ||
  { cat "${build_log}"; exit 1; }
strand_bin="${build_dir}/bench/e2e_reference_model"
peer="${repo}/bench/peer_pytorch_reference.py"

export OMP_NUM_THREADS="${threads}"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; threads=${threads}"
echo "rounds=${rounds} epochs/run=${epochs}"

# "median: 12345 samples/s" -> 12345 (likewise "best:").
figure() { sed -n "s/^$1: \([0-9.]*\) samples\/s$/\1/p"; }

strand_medians=() torch_medians=() strand_bests=() torch_bests=()
for ((round = 1; round <= rounds; ++round)); do
  strand_out="$("${strand_bin}" --threads "${threads}" --epochs "${epochs}")"
  torch_out="$("${python}" "${peer}" --threads "${threads}" --epochs "${epochs}")"
  strand_medians+=("$(figure median <<<"${strand_out}")")
  strand_bests+=("$(figure best <<<"${strand_out}")")
  torch_medians+=("$(figure median <<<"${torch_out}")")
  torch_bests+=("$(figure best <<<"${torch_out}")")
  echo "round ${round}: strand median ${strand_medians[-1]} best ${strand_bests[-1]} |" \
    "pytorch median ${torch_medians[-1]} best ${torch_bests[-1]} samples/s"
done

"${python}" - "${strand_medians[*]}" "${torch_medians[*]}" "${strand_bests[*]}" \
  "${torch_bests[*]}" <<'EOF'
import statistics
import sys

strand_med, torch_med, strand_best, torch_best = (
    [float(v) for v in arg.split()] for arg in sys.argv[1:5])
s_med, t_med = statistics.median(strand_med), statistics.median(torch_med)
s_best, t_best = max(strand_best), max(torch_best)
print(f"strand:  median {s_med:.0f} samples/s, best {s_best:.0f} samples/s")
print(f"pytorch: median {t_med:.0f} samples/s, best {t_best:.0f} samples/s")
print(f"ratio strand/pytorch: median {s_med / t_med:.2f}x, best {s_best / t_best:.2f}x")
EOF
