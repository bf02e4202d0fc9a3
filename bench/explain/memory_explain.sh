#!/usr/bin/env bash
# strand explain's peak memory over 1,000, 10,000 and 100,000 sequences: results stream to the
# .npz a chunk of sequences at a time, so the peak resident set should not grow with the count.
#
#   bash bench/explain/memory_explain.sh [METHOD]     # deeplift_shap (default) or ism, ...
#
# The reference experiment's model (`strand train`, a few epochs) on 500 bp sequences of
# `strand simulate` (TAL1_known4); the peak resident set size from GNU time. Environment: STRAND,
# WORK_DIR, THREADS (2), COUNTS ("1000 10000 100000").
set -euo pipefail
cd "$(dirname "$0")/../.."
method="${1:-deeplift_shap}"
STRAND="${STRAND:-build/cli/strand}"
THREADS="${THREADS:-2}"
COUNTS="${COUNTS:-1000 10000 100000}"
WORK_DIR="${WORK_DIR:-$(mktemp -d /tmp/strand-explain-memory.XXXXXX)}"
source bench/quality/strand_program.sh
mkdir -p "${WORK_DIR}"
echo "work directory: ${WORK_DIR}"
largest=0
for n in ${COUNTS}; do (( n > largest )) && largest=${n}; done
if [[ ! -d "${WORK_DIR}/run" ]]; then
  "${STRAND}" train --epochs 5 --threads "${THREADS}" --output-dir "${WORK_DIR}" --run-name run \
    > "${WORK_DIR}/train.log"
fi
if [[ ! -f "${WORK_DIR}/data/train.fa" ]]; then
  "${STRAND}" simulate --n-pos $((largest / 2 + 1)) --n-neg $((largest / 2 + 1)) \
    --validation 1 --test 1 --out "${WORK_DIR}/data" | sed -n 1p
fi
printf '%-10s %-14s %14s %10s %14s\n' sequences method "peak RSS (MB)" seconds "output (MB)"
for n in ${COUNTS}; do
  awk -v n="${n}" '/^>/ { count++ } count > n { exit } { print }' "${WORK_DIR}/data/train.fa" \
    > "${WORK_DIR}/seqs_${n}.fa"
  /usr/bin/time -f '%M %e' -o "${WORK_DIR}/time_${n}" "${STRAND}" explain \
    --model "${WORK_DIR}/run" --fasta "${WORK_DIR}/seqs_${n}.fa" --method "${method}" \
    --threads "${THREADS}" --out "${WORK_DIR}/out_${n}.npz" > "${WORK_DIR}/explain_${n}.log"
  read -r rss seconds < "${WORK_DIR}/time_${n}"
  size=$(du -m "${WORK_DIR}/out_${n}.npz" | cut -f1)
  printf '%-10s %-14s %14d %10s %14s\n' "${n}" "${method}" $((rss / 1024)) "${seconds}" "${size}"
  rm -f "${WORK_DIR}/out_${n}.npz" "${WORK_DIR}/out_${n}_onehot.npz"
done
