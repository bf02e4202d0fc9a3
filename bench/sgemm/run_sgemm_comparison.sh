#!/usr/bin/env bash
# Single-precision GEMM throughput of oneDNN, OpenBLAS, BLIS and strand's own loop on the shapes
# strand's layers produce, with the machine's FMA peak, side by side (GFLOP/s).
#
# Usage: bench/sgemm/run_sgemm_comparison.sh
# Environment: THREADS (2), SECONDS_PER_SHAPE (1), BUILD_DIR (build-bench). OpenBLAS and BLIS
# take part when Debian's OpenMP builds are installed:
#   apt-get install -y libopenblas-openmp-dev libblis-openmp-dev
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
threads="${THREADS:-2}"
budget="${SECONDS_PER_SHAPE:-1}"
build_dir="${BUILD_DIR:-${repo}/build-bench}"
if [[ ! -f "${build_dir}/CMakeCache.txt" ]]; then
  cmake -S "${repo}" -B "${build_dir}" -DSTRAND_CUDA=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake -S "${repo}" -B "${build_dir}" >/dev/null  # picks up libraries installed since
programs=()
for library in onednn openblas blis strand; do
  if cmake --build "${build_dir}" -j "${threads}" --target "sgemm_${library}" >/dev/null 2>&1; then
    programs+=("${library}")
  fi
done
export OMP_NUM_THREADS="${threads}"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; threads=${threads}"
results="$(mktemp -d)"
trap 'rm -rf "${results}"' EXIT
for library in "${programs[@]}"; do
  "${build_dir}/bench/sgemm_${library}" --threads "${threads}" --seconds "${budget}" \
    >"${results}/${library}"
done
# One row per shape, one column per library.
printf "%-58s" "shape (GFLOP/s)"
for library in "${programs[@]}"; do printf "%10s" "${library}"; done
echo
cut -f1 "${results}/${programs[0]}" | while IFS= read -r shape; do
  printf "%-58s" "${shape}"
  for library in "${programs[@]}"; do
    printf "%10s" "$(grep -F "${shape}	" "${results}/${library}" | cut -f2)"
  done
  echo
done
