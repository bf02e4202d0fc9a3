#!/usr/bin/env bash
# A CUDA build runs where CUDA is absent (docs/cuda.md, "The CUDA module"):
#   1. strand, libstrand.so and the CPU test programs need no CUDA library, directly or through
#      another library (ldd), while the CUDA module does;
#   2. with STRAND_CUDA_MODULE naming a missing file, `strand train --device cuda` fails with one
#      error naming that path;
#   3. in a mount namespace where every folder holding a CUDA library the module needs is
#      covered by an empty one (the libraries are absent, as on a CPU-only node): `strand layers`
#      and a CPU training run work, `--device cuda` fails with one error naming the module and
#      the missing library, and every CPU test program given passes.
# Part 3 needs root (unshare --mount); without it the script reports itself skipped after 1-2.
#
#   run_without_cuda_libraries.sh STRAND LIBSTRAND MODULE [TEST_PROGRAM...]
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 STRAND LIBSTRAND MODULE [TEST_PROGRAM...]" >&2; exit 2; }
strand="$1" libstrand="$2" module="$3"
shift 3
cuda_libraries='lib(cuda|cudart|cublas|cublasLt|cudnn[a-z_]*|nccl)\.so'
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Checks that `strand train --device cuda` ends with status 1 and one error line containing
# every given text; $log holds its stderr.
expect_one_cuda_error() {
  local log="$1"
  shift
  local status=0
  "$strand" train --device cuda --epochs 1 --output-dir "$work/runs" >"$log.out" 2>"$log" ||
    status=$?
  [ "$status" -eq 1 ] || fail "--device cuda: exit $status, expected 1 ($(head -3 "$log"))"
  [ "$(wc -l <"$log")" -eq 1 ] || fail "--device cuda: not one error line: $(cat "$log")"
  local text
  for text in "$@"; do
    grep -qF -- "$text" "$log" || fail "--device cuda: the error does not name '$text': $(cat "$log")"
  done
  echo "  $(cat "$log")"
}

echo "== 1. which programs need the CUDA libraries (ldd)"
# Here-strings, not pipes into grep -q: grep stops at the first match, and under pipefail the
# writer's SIGPIPE would fail the check.
module_libraries=$(ldd "$module")
grep -qE "$cuda_libraries" <<<"$module_libraries" || fail "the module $module needs no CUDA library?"
for binary in "$strand" "$libstrand" "$@"; do
  needed=$(ldd "$binary" | grep -oE "$cuda_libraries[.0-9]*" | sort -u | tr '\n' ' ')
  [ -z "$needed" ] || fail "$(basename "$binary") needs CUDA libraries: $needed"
done
echo "  none of $(($# + 2)) programs and libraries; the module does"

echo "== 2. STRAND_CUDA_MODULE naming a missing file"
STRAND_CUDA_MODULE="$work/missing/libstrand_cuda.so" \
  expect_one_cuda_error "$work/missing.log" "$work/missing/libstrand_cuda.so" "STRAND_CUDA_MODULE"

if ! unshare --mount true 2>/dev/null; then
  echo "[strand-skip] no mount namespace here (unshare --mount needs root): only checks 1-2 ran"
  exit $((failures > 0))
fi

echo "== 3. in a mount namespace without the CUDA libraries"
# The folders the module's CUDA libraries resolve to, symlinks followed (a link elsewhere then
# points into an empty folder too).
folders=$(ldd "$module" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | grep -E "/$cuda_libraries" |
  xargs -r realpath | xargs -r -n1 dirname | sort -u)
[ -n "$folders" ] || fail "found no folder of the module's CUDA libraries"
export work strand module folders cuda_libraries
export -f fail expect_one_cuda_error
unshare --mount --propagation private bash -s -- "$@" <<'INSIDE'
set -uo pipefail
failures=0
mkdir -p "$work/empty"
for folder in $folders; do
  mount --bind "$work/empty" "$folder" || fail "could not cover $folder"
  echo "  covered $folder"
done
missing=$(ldd "$module" | awk '/not found/ {print $1}' | tr '\n' ' ')
echo "  the module now misses: ${missing:-nothing}"
grep -q "libcudart" <<<"$missing" || fail "libcudart is still found: the libraries are not hidden"

"$strand" layers >"$work/layers.log" 2>&1 || fail "strand layers: $(tail -3 "$work/layers.log")"
(cd "$work" && "$strand" simulate --out data --n-pos 512 --n-neg 512 --validation 256 --test 256 >simulate.log 2>&1) ||
  fail "strand simulate: $(tail -3 "$work/simulate.log")"
if "$strand" train --device cpu --epochs 1 --format records --fasta "$work/data/train.fa" \
  --intervals "$work/data/train.tsv" --valid-fasta "$work/data/valid.fa" \
  --valid-intervals "$work/data/valid.tsv" --output-dir "$work/runs" --run-name cpu \
  >"$work/train.log" 2>&1; then
  echo "  strand layers, simulate and train --device cpu ran"
else
  fail "strand train --device cpu: $(tail -5 "$work/train.log")"
fi
expect_one_cuda_error "$work/cuda.log" "$module" "libcudart.so"

for program in "$@"; do
  start=$SECONDS
  if "$program" --no-intro=true >"$work/$(basename "$program").log" 2>&1; then
    echo "  $(basename "$program"): passed ($((SECONDS - start)) s)"
  else
    fail "$(basename "$program"): $(grep -E 'ERROR|FAILED|error:' "$work/$(basename "$program").log" | head -10)"
  fi
done
exit $((failures > 0))
INSIDE
inside=$?
[ "$inside" -eq 0 ] || failures=$((failures + 1))
echo
if [ "$failures" -eq 0 ]; then
  echo "without the CUDA libraries: PASS"
else
  echo "without the CUDA libraries: $failures FAILURES"
fi
exit $((failures > 0))
