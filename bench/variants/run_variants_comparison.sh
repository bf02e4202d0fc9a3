#!/usr/bin/env bash
# `strand variants` against the PyTorch peer's loop (pysam windows, batched torch inference),
# side by side in one run: scores equal to 1e-4 for the reference, Basset and BPNet presets
# (same weights), then variants/s of both on the same VCF (2 threads, alternating rounds), then
# strand on 100,000 and 1,000,000 variants with peak memory. See compare_variants.py.
#
# Usage: bench/variants/run_variants_comparison.sh [--check] [--speed] [--scale] [more flags]
#        (no flag: all three)
# Environment: BUILD_DIR (build-bench), WORK (BUILD_DIR/variants), THREADS (2), PYTHON (the
# interpreter of bench/peer_env.sh's virtual environment, with pysam, pyfaidx and pyBigWig).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${BUILD_DIR:-${repo}/build-bench}"
work="${WORK:-${build_dir}/variants}"
threads="${THREADS:-2}"
[[ $# -gt 0 ]] || set -- --check --speed --scale
build_log="$(mktemp)"
trap 'rm -f "${build_log}"' EXIT
if [[ ! -f "${build_dir}/CMakeCache.txt" ]]; then
  cmake -S "${repo}" -B "${build_dir}" -DSTRAND_CUDA=OFF -DCMAKE_BUILD_TYPE=Release \
    >"${build_log}" 2>&1 || { cat "${build_log}"; exit 1; }
fi
cmake --build "${build_dir}" -j "${threads}" --target strand_exe >"${build_log}" 2>&1 ||
  { cat "${build_log}"; exit 1; }
python="${PYTHON:-$(PEER_EXTRA="pysam pyfaidx pyBigWig" bash "${repo}/bench/peer_env.sh")}"
export OMP_NUM_THREADS="${threads}"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; threads=${threads};" \
  "$("${python}" -c 'import torch, pysam; print("torch", torch.__version__, "pysam", pysam.__version__)')"
"${python}" "${repo}/bench/variants/compare_variants.py" --strand "${build_dir}/cli/strand" \
  --work "${work}" --threads "${threads}" "$@"
