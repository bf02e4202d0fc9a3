#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan) and runs each for SECONDS.
#
#   bash scripts/run_fuzzers.sh SECONDS [TARGET...]     e.g. 60, or 600 fasta fai
#
# Every target first replays its committed seed corpus (fuzz/corpus/TARGET, reproducers of
# past findings included), then mutates for SECONDS. New inputs go to build-fuzz/corpus/TARGET
# (never into the repository); a finding leaves its input in build-fuzz/findings/TARGET/ and
# the log in build-fuzz/logs/TARGET.log. Exit status 1 when any target found something.
#
# Environment: FUZZ_PARALLEL (targets run at once; default 2, or 1 on a 1-core machine),
# FUZZ_BUILD_DIR (default build-fuzz), FUZZ_ARGS (extra libFuzzer flags, e.g. "-fork=1
# -ignore_crashes=1" to carry on after a finding). Packages (clang-14 with libFuzzer, LLVM's
# OpenMP and the parser dependencies) are installed with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(fasta fai bed narrowpeak dream labels safetensors config folds lists paths vcf)
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 SECONDS [TARGET...]   (targets: ${all_targets[*]})" >&2
  exit 2
fi
seconds="$1"
shift
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")
build_dir="${FUZZ_BUILD_DIR:-build-fuzz}"
cores="$(nproc)"
parallel="${FUZZ_PARALLEL:-$((cores >= 2 ? 2 : 1))}"

# clang-14 is Debian 12's clang; libFuzzer and the sanitizer runtimes are in libclang-rt-14-dev
# (only a Recommends of clang-14), and find_package(OpenMP) needs LLVM's libomp under clang.
packages=(clang-14 libclang-rt-14-dev libomp-14-dev cmake pkg-config libhts-dev libbigwig-dev
          zlib1g-dev nlohmann-json3-dev libfmt-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# Only the parser sources are compiled (fuzz/CMakeLists.txt); -O1 keeps asserts (no NDEBUG).
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build_dir" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" "${launcher[@]}" -DSTRAND_FUZZ=ON \
  -DSTRAND_CUDA=OFF -DSTRAND_MPI=OFF -DSTRAND_BUILD_TESTS=OFF -DSTRAND_BUILD_BENCH=OFF \
  -DSTRAND_BUILD_EXAMPLES=OFF -DSTRAND_INSTALL=OFF >/dev/null
cmake --build "$build_dir" -j "$cores" --target $(printf 'fuzz_%s ' "${targets[@]}")

build_abs="$(cd "$build_dir" && pwd)"
mkdir -p "$build_abs/logs"
# The targets write each input to a file: in RAM (/dev/shm) they run about 4x faster than on
# disk. Each target process makes its own directory below this one; all go at exit.
scratch_base=/dev/shm
[ -d "$scratch_base" ] && [ -w "$scratch_base" ] || scratch_base="$build_abs"
scratch="$(mktemp -d "$scratch_base/strand-fuzz-run.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# run_one TARGET: fuzzes TARGET for $seconds; status 0 when nothing was found.
run_one() {
  local t="$1"
  local corpus="$build_abs/corpus/$t" findings="$build_abs/findings/$t"
  rm -rf "$findings"  # this run's findings only
  mkdir -p "$corpus" "$findings"
  # -timeout: one input taking 25 s is a hang. -rss_limit_mb also caps single allocations.
  # ${FUZZ_ARGS} is split on purpose (several flags).
  # shellcheck disable=SC2086
  TMPDIR="$scratch" UBSAN_OPTIONS="print_stacktrace=1" \
    "$build_abs/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=25 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$findings/" ${FUZZ_ARGS:-} \
    "$corpus" "fuzz/corpus/$t" >"$build_abs/logs/$t.log" 2>&1
}

# summary TARGET STATUS: one line per target. A target found something when it failed or left
# an input in its findings folder (-fork -ignore_crashes exits 0 after findings); the message
# comes from replaying the first such input.
summary() {
  local t="$1" status="$2" log="$build_abs/logs/$1.log"
  local runs corpus first
  runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 ||
    true)"
  # -fork mode prints "#RUNS: cov: ..." lines and no final stats.
  [ -n "$runs" ] || runs="$(grep -o '^#[0-9]*:' "$log" | tr -d '#:' | tail -1 || true)"
  corpus="$(find "$build_abs/corpus/$t" -type f | wc -l)"
  first="$(find "$build_abs/findings/$t" -type f | sort | head -1 || true)"
  if [ "$status" -eq 0 ] && [ -z "$first" ]; then
    printf '%-12s ok        %10s inputs  %6s/s  corpus %s\n' "$t" "${runs:-?}" \
      "$(((${runs:-0}) / seconds))" "$corpus"
    return 0
  fi
  printf '%-12s FINDING   %10s inputs  %s inputs kept  log %s\n' "$t" "${runs:-?}" \
    "$(find "$build_abs/findings/$t" -type f | wc -l)" "$log"
  if [ -n "$first" ]; then
    TMPDIR="$scratch" "$build_abs/fuzz/fuzz_$t" "$first" 2>&1 |
      grep -m1 -E 'strand-fuzz finding|runtime error|ERROR: (AddressSanitizer|LeakSanitizer)|ERROR: libFuzzer: (timeout|out-of-memory|malloc)' |
      cut -c1-300 | sed 's/^/    /' || true
    echo "    input: $first"
  else
    grep -m1 -E 'strand-fuzz finding|runtime error|ERROR: ' "$log" | cut -c1-300 | sed 's/^/    /' ||
      true
  fi
  return 1
}

echo "fuzzing ${targets[*]} for ${seconds} s each, ${parallel} at a time (logs: $build_abs/logs)"
declare -A pid_of status_of
failed=0
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  run_one "$t" &
  pid_of[$t]=$!
done
for t in "${targets[@]}"; do
  if wait "${pid_of[$t]}"; then status_of[$t]=0; else status_of[$t]=$?; fi
done
for t in "${targets[@]}"; do
  summary "$t" "${status_of[$t]}" || failed=1
done
exit "$failed"
