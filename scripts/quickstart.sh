#!/usr/bin/env bash
# The README's two commands in one script:
#   bash scripts/quickstart.sh run    install what is missing, build, run the default job
#   bash scripts/quickstart.sh test   install what is missing, build, pass the tests
# Packages come from Debian (apt-get, idempotent: only missing ones are installed). The CUDA
# toolkit is used when nvcc is found (/usr/local/cuda); GPU tests skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-run}"
build_dir="${STRAND_BUILD_DIR:-build}"
jobs="$(nproc)"

# bcftools and tabix (bgzip): the variant scoring tests read VCF outputs back with `bcftools
# query` and compress test inputs with bgzip.
packages=(build-essential cmake pkg-config git clang-format libhts-dev libbigwig-dev zlib1g-dev
          doctest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev libopenmpi-dev
          openmpi-bin libdnnl-dev bcftools tabix)

install_missing() {
  local missing=()
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
  fi
}

# configure_and_build [TARGET]: configures the build tree and builds TARGET (default: all).
configure_and_build() {
  if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build_dir" -j "$jobs" ${1:+--target "$1"}
}

case "$mode" in
  run)
    install_missing
    # The run needs only the program: tests, benchmarks and examples are built by `test`.
    configure_and_build strand_exe
    shift || true
    "$build_dir/cli/strand" train "$@"
    ;;
  test)
    install_missing
    configure_and_build
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
