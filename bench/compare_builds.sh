#!/usr/bin/env bash
# Two builds of strand side by side on the end-to-end training benchmarks (bench/e2e_*.cpp):
# rounds alternate the builds, so a busy machine slows both alike; prints each round's
# samples/s and the median ratio new / old per model. For refactors that must not cost speed.
#
#   bash bench/compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS]
#
# Environment: THREADS (default 2), MODELS (default "reference_model generic_conv basset bpnet").
set -euo pipefail
old="$1" new="$2" rounds="${3:-3}"
threads="${THREADS:-2}"
models="${MODELS:-reference_model generic_conv basset bpnet}"
declare -A samples=([reference_model]=12800 [generic_conv]=1024 [basset]=512 [bpnet]=128)
best() { awk '/^best:/ {print $2}'; }
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for model in $models; do
  ratios=()
  for ((r = 1; r <= rounds; r++)); do
    args=(--epochs 1 --threads "$threads" --samples "${samples[$model]:-512}")
    a=$("$old/bench/e2e_$model" "${args[@]}" | best)
    b=$("$new/bench/e2e_$model" "${args[@]}" | best)
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')
    ratios+=("$ratio")
    echo "$model round $r: old $a, new $b samples/s (new / old $ratio)"
  done
  median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  echo "$model: median new / old $median"
done
