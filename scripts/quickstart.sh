#!/usr/bin/env bash
# The README's two commands in one script:
#   bash scripts/quickstart.sh run    install what is missing, build, run the default job
#   bash scripts/quickstart.sh test   install what is missing, build, pass the tests
# Packages come from Debian (apt-get, idempotent: only missing ones are installed). The CUDA
# toolkit is used when nvcc is found (/usr/local/cuda); GPU tests skip without a GPU.
# `test` also builds the Python package (python/) and runs its suite (tests/python/, pytest):
# a virtual environment under the build directory gets pytest, numpy, nanobind and torch from
# PyPI (about a minute the first time; STRAND_PYTHON_TESTS=0 leaves the Python part out).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-run}"
build_dir="${STRAND_BUILD_DIR:-build}"
jobs="$(nproc)"

# bcftools and tabix (bgzip): the variant scoring tests read VCF outputs back with `bcftools
# query` and compress test inputs with bgzip.
# librsvg2-bin: rsvg-convert, with which a test renders strand explain's SVG logos.
# libigraph-dev, libhdf5-dev: strand motifs' Leiden clustering and its modisco-lite HDF5 file.
packages=(build-essential cmake pkg-config git clang-format libhts-dev libbigwig-dev zlib1g-dev
          doctest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev libopenmpi-dev
          openmpi-bin libdnnl-dev python3-dev python3-venv librsvg2-bin libigraph-dev libhdf5-dev
          bcftools tabix)

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

# configure_and_build [TARGET [CMAKE_ARGS...]]: configures the build tree and builds TARGET
# (default, or "": all).
configure_and_build() {
  local target="${1:-}"
  shift || true
  if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$build_dir" -j "$jobs" ${target:+--target "$target"}
}

# python_environment: prints the interpreter of the Python suite's virtual environment, made
# (or completed) first: the packages the extension's build and tests need. torch is PyPI's
# wheel (to_torch and DLPack tests; it brings CUDA libraries, which the CPU tests leave unused);
# hypothesis fuzzes the Python argument layer (tests/python/test_argument_fuzz.py).
python_environment() {
  local venv
  venv="$(realpath -m "$build_dir")/python-venv"
  if ! "$venv/bin/python" -c "import pytest, numpy, nanobind, torch, hypothesis" 2>/dev/null; then
    /usr/bin/python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --upgrade pip >&2
    "$venv/bin/pip" install --quiet pytest numpy nanobind torch hypothesis >&2
  fi
  echo "$venv/bin/python"
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
    python_args=()
    if [ "${STRAND_PYTHON_TESTS:-1}" != 0 ]; then
      python_args=(-DSTRAND_PYTHON=ON "-DPython_EXECUTABLE=$(python_environment)")
    fi
    configure_and_build "" "${python_args[@]}"
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
