#!/usr/bin/env bash
# Builds the relocatable GPU bundle: strand, its test and benchmark programs, libstrand.so, the
# CUDA module libstrand_cuda.so and every non-CUDA shared library they need, for hosts that have
# the NVIDIA driver and the CUDA 13 runtime libraries (cuBLAS, cuDNN, NCCL; e.g. the nvidia-*
# Python wheels) but none of strand's other dependencies (HTSlib, fmt, OpenMP runtime, ...) and
# no compiler or network. Without the CUDA libraries it still runs on the CPU: only the module
# (and test_cuda and bench_cuda_ops, which link it) needs them.
#
#   bash scripts/make_gpu_bundle.sh [OUT_DIR]      (default OUT_DIR: build-bundle/out)
#
# Result: OUT_DIR/strand-<version>-cuda13-x86_64.tar.gz holding
#   bin/      strand, test_*, bench_*, e2e_* (RPATH $ORIGIN/../lib) and the scripts below
#   lib/      libstrand.so, libstrand_cuda.so (loaded by libstrand on first CUDA use: it looks
#             beside itself) and the bundled libraries (glibc and CUDA stay the host's)
#   share/strand/source/   the repository's files: tests read their fixtures here, and
#             bench/cuda/gpu_checks.sh runs from here too
# Nothing in it depends on this machine's paths: the motif library is built into libstrand, the
# CLI tests start bin/strand (bin/run_tests.sh sets STRAND_EXE), fixtures come through
# STRAND_SOURCE_DIR. scripts/check_bundle_in_chroot.sh proves it in a clean root.
# CPU code targets x86-64-v3 (AVX2, FMA), not this machine: -march=native binaries can fault on
# another vendor's CPU. GPU code targets sm_80 and sm_90 (STRAND_BUNDLE_CUDA_ARCHS overrides).
# docs/cuda.md says how to run and check it.
set -euo pipefail
cd "$(dirname "$0")/.."
out_dir="$(realpath -m "${1:-build-bundle/out}")"
build_dir="${STRAND_BUNDLE_BUILD_DIR:-build-bundle}"
archs="${STRAND_BUNDLE_CUDA_ARCHS:-80;90}"
jobs="$(nproc)"

packages=(build-essential cmake pkg-config git libhts-dev libbigwig-dev zlib1g-dev doctest-dev
          libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev libdnnl-dev patchelf)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
export PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null || { echo "make_gpu_bundle: nvcc not found (/usr/local/cuda/bin)" >&2; exit 1; }

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DSTRAND_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$archs" -DSTRAND_NATIVE=OFF -DSTRAND_CPU_ARCH=x86-64-v3 \
  -DSTRAND_MPI=OFF -DSTRAND_BUILD_EXAMPLES=OFF "${launcher[@]}"
cmake --build "$build_dir" -j "$jobs"

version="$(sed -n 's/^project(strand VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
name="strand-${version}-cuda13-x86_64"
stage="$build_dir/bundle-stage/$name"
rm -rf "$stage" "$out_dir/$name.tar.gz"
mkdir -p "$out_dir"
mkdir -p "$stage/bin" "$stage/lib" "$stage/share/strand/source"

is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' \n')" = '177ELF' ]; }

# Programs: the CLI, every test and benchmark executable of the build tree.
cp "$build_dir/cli/strand" "$stage/bin/"
find "$build_dir/tests" "$build_dir/bench" -maxdepth 1 -type f -executable \
  \( -name 'test_*' -o -name 'bench_*' -o -name 'e2e_*' \) -exec cp {} "$stage/bin/" \;
cp "$build_dir"/libstrand.so* "$build_dir"/libstrand_cuda.so "$stage/lib/"
cp scripts/bundle/run_tests.sh scripts/bundle/cuda_library_path.sh "$stage/bin/"

# Shared libraries: everything the programs resolve here except glibc, the dynamic loader and
# the CUDA libraries (the host's driver and runtime must match each other, so they are never
# bundled).
host_only='^(linux-vdso|ld-linux|libc\.so|libm\.so|libmvec|libpthread|libdl\.so|librt\.so|libresolv|libutil|libcuda\.so|libcudart|libcublas|libcudnn|libnccl|libnvrtc|libnvJitLink|libcufft|libcurand|libcusparse|libcusolver|libnvidia)'
while read -r lib path; do
  [[ "$lib" =~ $host_only ]] && continue
  [ -f "$stage/lib/$lib" ] || cp -L "$path" "$stage/lib/$lib"
done < <(for binary in "$stage"/bin/* "$stage"/lib/libstrand.so* "$stage"/lib/libstrand_cuda.so; do
           is_elf "$binary" || continue
           LD_LIBRARY_PATH="$stage/lib" ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
         done | sort -u)
# DT_RPATH (not RUNPATH) on the programs applies to every library they load, bundled ones'
# own dependencies included; CUDA libraries, not bundled, are then found through
# LD_LIBRARY_PATH or the system paths.
for binary in "$stage"/bin/*; do
  is_elf "$binary" || continue
  patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$binary"
done
for library in "$stage"/lib/*; do
  patchelf --force-rpath --set-rpath '$ORIGIN' "$library"
done

# The module must be where libstrand looks for it (beside itself): the bundled test_cuda, which
# links it, asks the loader to find and load that file (this machine has the CUDA libraries).
if ! "$stage/bin/test_cuda" --no-intro=true \
  -tc="cuda: the module is found beside libstrand and loads" >"$build_dir/module-check.log" 2>&1; then
  cat "$build_dir/module-check.log" >&2
  echo "make_gpu_bundle: libstrand.so does not load lib/libstrand_cuda.so in the bundle" >&2
  exit 1
fi
echo "bundle: lib/libstrand_cuda.so is found and loaded beside lib/libstrand.so"

# The tests' fixtures, configs and the motif library: the repository's own files.
git ls-files -z --cached --others --exclude-standard |
  tar --null -T - -cf - | tar -xf - -C "$stage/share/strand/source"
# The commit the bundle was built from (-dirty: with uncommitted changes): gpu_checks.sh names
# its record bench/results/gpu/<date>-<commit> after it.
commit="$(git rev-parse --short=12 HEAD)"
git diff --quiet HEAD -- 2>/dev/null || commit="${commit}-dirty"
echo "$commit" >"$stage/share/strand/commit.txt"
# A trained BPNet and four of its sequences, for gpu_checks.sh's explain step
# (bench/cuda/run_explain_gpu.sh): bench/explain/prepare_runs.sh trains them into build-bench.
explain_runs="${STRAND_BUNDLE_EXPLAIN_DIR:-build-bench/explain}"
if [ -f "$explain_runs/runs/bpnet/checkpoints/best.safetensors" ] &&
  [ -f "$explain_runs/seqs_2114_4.fa" ]; then
  mkdir -p "$stage/share/strand/explain/bpnet/checkpoints"
  cp "$explain_runs/runs/bpnet/config.json" "$stage/share/strand/explain/bpnet/"
  cp "$explain_runs/runs/bpnet/checkpoints/best.safetensors" \
    "$stage/share/strand/explain/bpnet/checkpoints/"
  cp "$explain_runs/seqs_2114_4.fa" "$stage/share/strand/explain/seqs.fa"
  echo "bundle: share/strand/explain holds $explain_runs's BPNet run for the explain checks"
else
  echo "bundle: no BPNet run in $explain_runs (bench/explain/prepare_runs.sh): gpu_checks.sh" \
    "will report its explain step as not run"
fi
# The newest glibc symbol version any program or library needs: the host's glibc must be at
# least this (Debian 12 builds need 2.34-2.36; Ubuntu 22.04 has 2.35, 24.04 2.39).
glibc=$(for binary in "$stage"/bin/* "$stage"/lib/*; do
          is_elf "$binary" && objdump -T "$binary" 2>/dev/null
        done | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 || true)
cat >"$stage/README.txt" <<EOF
strand $version GPU bundle (CUDA 13, sm_${archs//;/ sm_}; CPU code for x86-64-v3; needs ${glibc}).
For --device cuda: the NVIDIA driver and the CUDA 13 runtime libraries (libcudart, libcublas,
libcudnn, libnccl) on the usual paths or LD_LIBRARY_PATH; lib/libstrand_cuda.so, the CUDA
backend, is loaded when a GPU is first used. Nothing else; CPU runs need no CUDA library.
  eval "\$(bin/cuda_library_path.sh)"   # finds them (system, /usr/local/cuda, nvidia-* wheels)
  bin/strand train --device cuda         # the reference experiment on the GPU
  STRAND_REQUIRE_GPU=1 bin/run_tests.sh  # the whole test suite; GPU cases may not skip
  share/strand/source/bench/cuda/gpu_checks.sh .   # every GPU check in <= 9 minutes
See share/strand/source/docs/cuda.md.
EOF
tar -C "$(dirname "$stage")" -czf "$out_dir/$name.tar.gz" "$name"
size=$(stat -c %s "$out_dir/$name.tar.gz")
unpacked=$(du -sm "$stage" | cut -f1)
echo "bundle: $out_dir/$name.tar.gz ($(awk -v s="$size" 'BEGIN {printf "%.1f", s / 1048576}') MiB;" \
  "$unpacked MiB unpacked; GPU code sm_${archs//;/ sm_}; needs ${glibc})"
if ((size >= 64 * 1024 * 1024)); then
  echo "make_gpu_bundle: the bundle is over the 64 MiB limit" >&2
  exit 1
fi
