#!/usr/bin/env bash
# Checks that strand can be consumed the two supported ways:
#   1. install it (cmake --install) to a temporary prefix and build tests/package/consumer
#      against it with find_package(strand), then run it; optionally also build examples/ and
#      run their tests against the installed package;
#   2. build the same consumer with add_subdirectory(<strand source>) and run it.
#
# Usage: scripts/check_package.sh [--build-dir DIR] [--work-dir DIR] [--examples] [--jobs N]
#   --build-dir DIR  an existing, built strand build tree to install from (no rebuild);
#                    without it, strand's library is configured and built in the work dir
#   --work-dir DIR   where prefixes and consumer builds go (default: a fresh mktemp -d,
#                    removed at exit)
#   --examples       also build examples/ against the installed strand and run their tests
#   --jobs N         parallel build jobs (default 2)
set -euo pipefail

source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir=""
work_dir=""
examples=0
jobs=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --work-dir) work_dir="$2"; shift 2 ;;
    --examples) examples=1; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "check_package.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -z "$work_dir" ]]; then
  work_dir="$(mktemp -d "${TMPDIR:-/tmp}/strand_package.XXXXXX")"
  trap 'rm -rf "$work_dir"' EXIT
fi
mkdir -p "$work_dir"
prefix="$work_dir/prefix"
generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi

step() { printf '\n== %s\n' "$*"; }
# Runs a command with its output in a log file, shown only when the command fails.
quiet() {
  local log="$1"
  shift
  "$@" > "$log" 2>&1 || { cat "$log" >&2; echo "failed: $*" >&2; exit 1; }
}

# ---- 1. install + find_package ----------------------------------------------------------
if [[ -z "$build_dir" ]]; then
  build_dir="$work_dir/strand-build"
  step "configure and build strand's library in $build_dir"
  quiet "$work_dir/strand-configure.log" cmake -S "$source_dir" -B "$build_dir" "${generator[@]}" \
    -DSTRAND_BUILD_TESTS=OFF -DSTRAND_BUILD_BENCH=OFF -DSTRAND_BUILD_EXAMPLES=OFF
  cmake --build "$build_dir" --target strand -j "$jobs"
fi
step "install $build_dir to $prefix"
quiet "$work_dir/install.log" cmake --install "$build_dir" --prefix "$prefix"
for header in include/strand/tensor.h include/strand/train.h include/strand/variants.h \
  include/strand/tensor/tensor.h include/strand/variants/variant_scorer.h \
  lib/cmake/strand/strandConfig.cmake share/strand/data/motifs/encode_motifs.txt.gz; do
  [[ -e "$prefix/$header" ]] || { echo "missing after install: $prefix/$header" >&2; exit 1; }
done

step "find_package consumer"
quiet "$work_dir/consumer-find-configure.log" cmake -S "$source_dir/tests/package/consumer" \
  -B "$work_dir/consumer-find" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$work_dir/consumer-find" -j "$jobs"
"$work_dir/consumer-find/consumer"

if [[ "$examples" == 1 ]]; then
  step "examples against the installed strand"
  quiet "$work_dir/examples-configure.log" cmake -S "$source_dir/examples" \
    -B "$work_dir/examples" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix"
  cmake --build "$work_dir/examples" -j "$jobs"
  (cd "$work_dir/examples" && ctest --output-on-failure -E microbenchmark)
fi

# ---- 2. add_subdirectory ------------------------------------------------------------------
# CPU only: the point is the CMake wiring, and the CUDA backend would double the build time.
step "add_subdirectory consumer (builds strand's library inside the consumer, CPU only)"
quiet "$work_dir/consumer-subdir-configure.log" cmake -S "$source_dir/tests/package/consumer" \
  -B "$work_dir/consumer-subdir" "${generator[@]}" -DSTRAND_CONSUMER_SOURCE="$source_dir" \
  -DSTRAND_CUDA=OFF
if grep -q "^STRAND_BUILD_TESTS:BOOL=ON" "$work_dir/consumer-subdir/CMakeCache.txt"; then
  echo "tests should be off when strand is not the top-level project" >&2
  exit 1
fi
cmake --build "$work_dir/consumer-subdir" --target consumer -j "$jobs"
"$work_dir/consumer-subdir/consumer"

step "package check passed"
