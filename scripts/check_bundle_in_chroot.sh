#!/usr/bin/env bash
# Checks the GPU bundle (scripts/make_gpu_bundle.sh) in a clean root: a Debian bookworm minbase
# chroot without any of the build's packages (no HTSlib, fmt, OpenMP runtime, oneDNN, compiler,
# Python) and without the source or build tree, like a bare GPU host. The CUDA runtime libraries
# of this machine (CUDA_LIB_DIR) are bind-mounted read-only at /usr/local/cuda/lib64 in it, as a
# GPU host has them; there is no driver and no GPU, so every CUDA test case skips. Checks:
#   1. before bin/cuda_library_path.sh, `ldd` finds every library but the CUDA ones, which only
#      the CUDA module (lib/libstrand_cuda.so) and the two programs linking it need;
#   2. still without the CUDA libraries, `strand simulate` and `strand train --device cpu` run
#      from an empty folder with no STRAND_SOURCE_DIR (the motif library is built in), and
#      `--device cuda` fails with one error naming the module and libcudart;
#   3. after cuda_library_path.sh every program and library of the bundle resolves, and
#      `--device cuda` fails naming the missing device;
#   4. bin/run_tests.sh passes, the CLI tests starting the bundle's own bin/strand, and test_cuda
#      reports its GPU cases as skipped.
# A developer check (root and a network for the first debootstrap; about 2 minutes for it, then
# the suite's time), not part of CI.
#
#   sudo bash scripts/check_bundle_in_chroot.sh [BUNDLE.tar.gz]
#       (default: the newest build-bundle/out/strand-*-cuda13-x86_64.tar.gz)
# Environment: STRAND_CHROOT (/tmp/strand-chroot/bookworm: made on first use, reused after),
# DEBIAN_MIRROR (http://deb.debian.org/debian), CUDA_LIB_DIR (/usr/local/cuda/lib64),
# STRAND_TEST_JOBS (2: test programs at once), STRAND_TEST_PROGRAMS (only these programs).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${STRAND_CHROOT:-/tmp/strand-chroot/bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
cuda_lib_dir="$(realpath "${CUDA_LIB_DIR:-/usr/local/cuda/lib64}")"
bundle_tar="${1:-$(ls -t "$repo"/build-bundle/out/strand-*-cuda13-x86_64.tar.gz 2>/dev/null | head -1)}"
[ -n "$bundle_tar" ] && [ -f "$bundle_tar" ] ||
  { echo "check_bundle_in_chroot: no bundle (scripts/make_gpu_bundle.sh builds one)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "check_bundle_in_chroot: needs root (chroot, mount)" >&2; exit 2; }
[ -f "$cuda_lib_dir/libcudart.so.13" ] ||
  { echo "check_bundle_in_chroot: no libcudart.so.13 in $cuda_lib_dir (set CUDA_LIB_DIR)" >&2; exit 2; }

if [ ! -f "$root/.strand-minbase-ready" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap
  rm -rf "$root"
  mkdir -p "$(dirname "$root")"
  echo "== debootstrap --variant=minbase bookworm $root (log: $root.debootstrap.log)"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log"; exit 1; }
  touch "$root/.strand-minbase-ready"
fi
# The root must not have what the build had.
present=$(chroot "$root" dpkg-query -W -f '${Package} ${Status}\n' 2>/dev/null |
  awk '$NF == "installed" {print $1}' |
  grep -E '^(libhts|libfmt|libgomp|libdnnl|libbigwig|libcurl|libdeflate|libnccl|libcudnn|python3)|^(gcc|g\+\+|cpp|cmake)(-[0-9]+)?$' ||
  true)
if [ -n "$present" ]; then
  echo "check_bundle_in_chroot: $root is not clean; it has: $present" >&2
  exit 1
fi

mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; --i)); do umount "${mounts[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mkdir -p "$root/proc" "$root/usr/local/cuda/lib64"
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount --bind "$cuda_lib_dir" "$root/usr/local/cuda/lib64" && mounts+=("$root/usr/local/cuda/lib64")
mount -o remount,bind,ro "$root/usr/local/cuda/lib64"

check_dir="$root/root/bundle-check"
rm -rf "$check_dir"
mkdir -p "$check_dir"
tar -xzf "$bundle_tar" -C "$check_dir"
name="$(basename "$(echo "$check_dir"/strand-*)")"
echo "== $name in $root ($(du -sm "$bundle_tar" | cut -f1) MiB packed; CUDA libraries from $cuda_lib_dir)"

# Inside: a clean environment, no STRAND_SOURCE_DIR, nothing of this machine's PATH.
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  STRAND_TEST_JOBS="${STRAND_TEST_JOBS:-2}" STRAND_TEST_PROGRAMS="${STRAND_TEST_PROGRAMS:-}" \
  BUNDLE="/root/bundle-check/$name" /bin/bash -s <<'INSIDE'
set -uo pipefail
cd "$BUNDLE"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
elf_files() { for f in bin/* lib/*; do head -c 4 "$f" | grep -q ELF && echo "$f"; done; }

# `strand train --device cuda` must fail with exit 1 and one error line containing TEXT.
cuda_fails_naming() {
  local text="$1" code=0
  "$BUNDLE/bin/strand" train --device cuda --epochs 1 --output-dir runs --run-name gpu \
    >cuda.out 2>cuda.log || code=$?
  if [ "$code" -ne 1 ] || [ "$(wc -l <cuda.log)" -ne 1 ] || ! grep -qF "$text" cuda.log; then
    cat cuda.log; fail "--device cuda: exit $code, expected one error naming '$text'"
  else
    echo "--device cuda: exit $code: $(cat cuda.log)"
  fi
}

echo "== 1. unresolved before cuda_library_path.sh (expected: CUDA libraries, for the module only)"
unresolved=$(for f in $(elf_files); do ldd "$f" | awk -v f="$f" '/not found/ {print f, $1}'; done | sort -u)
echo "${unresolved:-none}"
others=$(echo "$unresolved" | awk '{print $2}' | grep -vE '^(libcudart|libcublas|libcublasLt|libcudnn|libnccl)\.so' || true)
[ -z "$others" ] || fail "non-CUDA libraries not found: $others"
users=$(echo "$unresolved" | awk 'NF {print $1}' | sort -u | grep -vE '^(lib/libstrand_cuda\.so|bin/test_cuda|bin/bench_cuda_ops)$' || true)
[ -z "$users" ] || fail "need CUDA libraries, though only the module should: $users"
echo "$unresolved" | grep -q '^lib/libstrand_cuda.so libcudart' ||
  fail "lib/libstrand_cuda.so resolves libcudart: the CUDA libraries are not absent here"

echo "== 2. strand from an empty folder, no source tree, no CUDA libraries"
work=$(mktemp -d)
cd "$work"
if "$BUNDLE/bin/strand" simulate --out data >simulate.log 2>&1; then
  head -2 simulate.log
else
  cat simulate.log; fail "strand simulate"
fi
if "$BUNDLE/bin/strand" train --device cpu --epochs 1 --no-early-stopping --output-dir runs \
  --run-name cpu >train.log 2>&1; then
  grep -E "^test:" train.log
else
  tail -20 train.log; fail "strand train --device cpu"
fi
cuda_fails_naming "lib/libstrand_cuda.so could not be loaded: libcudart.so.13"
cd "$BUNDLE"

echo "== 3. after cuda_library_path.sh"
eval "$(bin/cuda_library_path.sh)"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
left=$(for f in $(elf_files); do ldd "$f" | awk -v f="$f" '/not found/ {print f ": " $1}'; done)
[ -z "$left" ] || fail "still not found: $left"
echo "${left:-every program and library resolves}"
cd "$work"
cuda_fails_naming "cudaGetDeviceCount"
cd "$BUNDLE"

echo "== 4. bin/run_tests.sh"
STRAND_TEST_LOG_DIR="$work/tests" bin/run_tests.sh || fail "run_tests.sh"
if [ -f "$work/tests/test_cuda.log" ]; then
  skips=$(grep -c '^\[strand-skip\]' "$work/tests/test_cuda.log")
  [ "$skips" -gt 0 ] || fail "test_cuda skipped nothing on a machine without a GPU"
  echo "test_cuda: $skips cases skipped (no GPU here, as expected)"
fi
echo
if [ "$failures" -eq 0 ]; then
  rm -rf "$work"
  echo "bundle check in a clean root: PASS"
else
  echo "bundle check in a clean root: $failures FAILURES (logs in the root's $work)"
fi
exit $((failures > 0))
INSIDE
