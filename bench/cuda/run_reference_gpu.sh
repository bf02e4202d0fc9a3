#!/usr/bin/env bash
# The reference experiment on one GPU: strand (`strand train --device cuda`) against PyTorch
# eager and torch.compile on the same GPU, same data (written by `strand simulate`), same recipe
# (Conv1D(16, 15) -> ReLU -> GlobalMaxPool1D -> Dense(1), BCE, Adam 1e-3, batch 128) and the
# same number of epochs without early stopping. Prints wall times and the ratios; the targets:
# strand <= 1 s, >= 5x PyTorch eager, >= 1.5x torch.compile.
#
# Usage: bench/cuda/run_reference_gpu.sh
# Environment: BUILD_DIR (build-cuda-release), EPOCHS (10), ROUNDS (3), PYTHON (python3 with a
# CUDA torch), ARCH (CMAKE_CUDA_ARCHITECTURES, default 90).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${BUILD_DIR:-${repo}/build-cuda-release}"
epochs="${EPOCHS:-10}"
rounds="${ROUNDS:-3}"
python="${PYTHON:-python3}"
arch="${ARCH:-90}"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
if [[ ! -f "${build_dir}/CMakeCache.txt" ]]; then
  cmake -S "${repo}" -B "${build_dir}" -DSTRAND_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="${arch}" -DSTRAND_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "${build_dir}" -j "$(nproc)" --target strand_exe bench_cuda_ops >/dev/null 2>&1 ||
  cmake --build "${build_dir}" -j "$(nproc)" >/dev/null
strand_bin="$(find "${build_dir}" -type f -name strand -perm -u+x | head -1)"
[[ -x "${strand_bin}" ]] || { echo "strand CLI not built under ${build_dir}" >&2; exit 1; }

"${strand_bin}" simulate --out "${work}/data" >/dev/null

now() { date +%s.%N; }
strand_walls=()
for ((round = 1; round <= rounds; ++round)); do
  start="$(now)"
  "${strand_bin}" train --device cuda --epochs "${epochs}" --no-early-stopping \
    --output-dir "${work}/runs" --run-name "gpu-${round}" >"${work}/strand-${round}.log" 2>&1
  end="$(now)"
  strand_walls+=("$(python3 -c "print(f'{${end} - ${start}:.3f}')")")
  echo "round ${round}: strand wall ${strand_walls[-1]} s (process, incl. start-up and data)"
  grep -iE "device|epoch ${epochs}|val_loss" "${work}/strand-${round}.log" | tail -2 || true
done

peer_out="$("${python}" "${repo}/bench/cuda/peer_pytorch_gpu.py" --data "${work}/data" \
  --epochs "${epochs}")"
echo "${peer_out}"

"${python}" - "${strand_walls[*]}" "${peer_out}" <<'PY'
import re, statistics, sys
strand = statistics.median(float(v) for v in sys.argv[1].split())
walls = dict(re.findall(r"^(eager|compile): wall ([0-9.]+) s", sys.argv[2], re.M))
print(f"strand (median of runs): {strand:.3f} s   target <= 1 s: {'met' if strand <= 1 else 'MISSED'}")
for mode, target in (("eager", 5.0), ("compile", 1.5)):
    if mode in walls:
        ratio = float(walls[mode]) / strand
        print(f"pytorch {mode}: {float(walls[mode]):.3f} s -> strand is {ratio:.2f}x faster "
              f"(target >= {target}x: {'met' if ratio >= target else 'MISSED'})")
PY

# Kernel-level numbers (own vs cuDNN Conv1D, fused op, optimizer, a whole epoch eager vs graph).
if [[ -x "${build_dir}/bench/bench_cuda_ops" ]]; then
  "${build_dir}/bench/bench_cuda_ops" --benchmark_min_time=0.2s
fi
