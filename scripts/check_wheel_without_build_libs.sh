#!/usr/bin/env bash
# Checks the distributable wheel (scripts/make_wheel.sh) where the build's libraries are absent:
# in a private mount namespace (unshare -m), every shared library the wheel vendors (HTSlib,
# oneDNN, fmt, libBigWig, libgomp, libcurl, libdeflate, GnuTLS, ...) is hidden on this machine
# by bind-mounting /dev/null over its file, so that neither the loader nor anything else can
# load the system copy. Only the libraries that the Python interpreter itself or one of its
# standard modules links (zlib, libcrypto, liblzma, libffi, ...: a machine with Python has them)
# stay visible, and are listed. The source tree is hidden too (an empty tmpfs over it). In there:
#   1. the hidden files read as empty (the hiding works, so the checks below can fail);
#   2. a fresh virtual environment installs the wheel with pip (numpy from a folder of wheels
#      fetched beforehand: no network is needed inside);
#   3. `ldd` of the installed extension resolves every library, each to the wheel's
#      strand.libs/ or to the manylinux base set (glibc, libstdc++, libgcc_s);
#   4. from an empty folder, `import strand` trains a small reference model and predicts with it
#      (as scripts/check_python_package.sh does), and the type stubs are installed.
# Exit 0: passed; 1: failed; 77: skipped (no mount namespace can be made here, e.g. not root
# in a container without CAP_SYS_ADMIN), with the reason on stderr.
#
#   bash scripts/check_wheel_without_build_libs.sh [WHEEL]
#       (default: the newest build-wheel/dist/strand-*.whl)
# Environment: PYTHON (python3: the interpreter the wheel was built for), STRAND_CHECK_WORK_DIR
# (a fresh mktemp -d, removed when the check passes).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wheel="${1:-$(ls -t "$repo"/build-wheel/dist/strand-*.whl 2>/dev/null | head -1)}"
python="${PYTHON:-python3}"
[ -n "$wheel" ] && [ -f "$wheel" ] ||
  { echo "check_wheel: no wheel (scripts/make_wheel.sh builds one)" >&2; exit 2; }
wheel="$(realpath "$wheel")"
if ! reason=$(unshare --mount --propagation private true 2>&1); then
  echo "check_wheel: SKIPPED: cannot make a mount namespace here (unshare -m: ${reason})" >&2
  exit 77
fi

work="${STRAND_CHECK_WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/strand_wheel.XXXXXX")}"
mkdir -p "$work/wheels"
cp "$wheel" "$work/wheels/"  # the repository is hidden in there, build-wheel/ with it
# numpy (the package's one dependency), fetched before the libraries are hidden.
"$python" -m venv "$work/fetch-venv"
"$work/fetch-venv/bin/pip" download --quiet --only-binary=:all: --dest "$work/wheels" \
  "$wheel" >/dev/null

# The libraries to hide: the files copied into the wheel's strand.libs/ (auditwheel names a
# copy after the library's file, with 8 hex digits of its hash before the first dot:
# libhts.so.1.16 -> libhts-57aaa0d3.so.1.16), and whatever else HTSlib, oneDNN, fmt, libBigWig
# and libgomp are called here.
vendored=$("$python" -m zipfile -l "$wheel" | awk '$1 ~ /^strand\.libs\/./ {print $1}' |
  sed -E 's|^strand\.libs/||; s/-[0-9a-f]{8}\././' | sort -u)
[ -n "$vendored" ] || { echo "check_wheel: $wheel vendors no library (not repaired?)" >&2; exit 1; }
# What the interpreter needs for itself (its binary, libpython and its extension modules),
# as real files.
executable="$("$python" -c 'import os, sys; print(os.path.realpath(sys.executable))')"
dynload="$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("DESTSHARED"))')"
interpreter_libs=$(for f in "$executable" "$dynload"/*.so; do
                     ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
                   done | sort -u | xargs -r realpath | sort -u)
hide=() kept=()
for name in $vendored; do
  for dir in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    [ -e "$dir/$name" ] || continue
    real="$(realpath "$dir/$name")"
    if grep -qxF "$real" <<<"$interpreter_libs"; then kept+=("$name"); else hide+=("$real"); fi
  done
done
((${#kept[@]} == 0)) || mapfile -t kept < <(printf '%s\n' "${kept[@]}" | sort -u)
for pattern in 'libhts.so*' 'libdnnl.so*' 'libfmt.so*' 'libBigWig.so*' 'libgomp.so*'; do
  while read -r file; do hide+=("$(realpath "$file")"); done < <(
    find /usr/lib/x86_64-linux-gnu /usr/lib /usr/local/lib -maxdepth 1 -name "$pattern" \
      \( -type f -o -type l \) 2>/dev/null)
done
mapfile -t hide < <(printf '%s\n' "${hide[@]}" | sort -u)
echo "== $(basename "$wheel") ($(du -k "$wheel" | awk '{printf "%.1f", $1 / 1024}') MiB): " \
  "$(wc -w <<<"$vendored") libraries vendored; ${#hide[@]} files hidden"
echo "visible, the interpreter links them: ${kept[*]:-none}"

# Inside: the namespace is private, so the bind mounts vanish with it.
status=0
if unshare --mount --propagation private env WORK="$work" PYTHON="$python" REPO="$repo" \
  WHEEL="$work/wheels/$(basename "$wheel")" HIDE="${hide[*]}" bash -s <<'INSIDE'
set -uo pipefail
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for file in $HIDE; do mount --bind /dev/null "$file" || fail "cannot hide $file"; done
mount -t tmpfs tmpfs "$REPO" || fail "cannot hide the source tree $REPO"

echo "== 1. the build's libraries are hidden"
for file in $HIDE; do
  [ -z "$(head -c 4 "$file")" ] || fail "$file still reads"
done
echo "hidden: $(for f in $HIDE; do basename "$f"; done | tr '\n' ' ')"
[ -z "$(ls -A "$REPO")" ] || fail "the source tree $REPO is still visible"

echo "== 2. pip install the wheel in a fresh virtual environment"
"$PYTHON" -m venv "$WORK/venv" || fail "python -m venv"
"$WORK/venv/bin/pip" install --quiet --no-index --find-links "$WORK/wheels" "$WHEEL" ||
  fail "pip install $WHEEL"

echo "== 3. ldd of the installed extension"
site="$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')"
extension="$(ls "$site"/strand/_strand*.so)"
ldd "$extension" | sed 's/ (0x[0-9a-f]*)//'
# The manylinux base set: what auditwheel leaves to the host (glibc, libstdc++, libgcc_s, zlib).
base='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|librt|libpthread|libresolv|libstdc\+\+|libgcc_s|libz)\.so'
while read -r name arrow path _; do
  [ "$arrow" = "=>" ] || continue
  if [ "$path" = "not" ]; then fail "$name: not found"; continue; fi
  case "$(realpath -m "$path")" in
    "$site"/strand.libs/*) ;;
    *) [[ "$name" =~ $base ]] || fail "$name resolves outside the wheel: $path" ;;
  esac
done < <(ldd "$extension")

echo "== 4. import strand, train, predict (from an empty folder)"
mkdir -p "$WORK/empty" && cd "$WORK/empty"
env -u STRAND_SOURCE_DIR -u PYTHONPATH OMP_NUM_THREADS=2 "$WORK/venv/bin/python" - <<'PY' ||
import os
import numpy as np
import strand

assert strand.__file__.startswith(os.environ["WORK"]), strand.__file__
assert os.path.exists(os.path.join(os.path.dirname(strand.__file__), "_strand.pyi"))
run = strand.train("reference", n_pos=100, n_neg=100, length=100, validation=50, test=50,
                   epochs=1, batch_size=50, output_dir="runs", interactive=False)
model = strand.load(run.run_dir)
scores = model.predict(["ACGT" * 25, "TTGA" * 25])
assert scores.shape == (2, 1) and scores.dtype == np.float32 and np.isfinite(scores).all()
print("installed strand:", strand.__file__, "scores:", scores.ravel())
PY
  fail "import strand, train and predict"
if [ "$failures" -eq 0 ]; then
  echo "wheel check without the build's libraries: PASS"
else
  echo "wheel check without the build's libraries: $failures FAILURES (work dir $WORK)"
fi
exit $((failures > 0))
INSIDE
then :; else status=$?; fi
[ "$status" -ne 0 ] || [ -n "${STRAND_CHECK_WORK_DIR:-}" ] || rm -rf "$work"
exit "$status"
