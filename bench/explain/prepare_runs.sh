#!/usr/bin/env bash
# The trained runs and sequences that compare_with_tangermeme.py and speed_explain.py were run
# on for bench/RESULTS.md (issue 25), made once under WORK_DIR (reused when present):
#
#   runs/refexp     the reference experiment (`strand train`, its simulated TAL1_known4 data)
#   runs/reference  the reference, Basset (600 bp) and BPNet (2,114 bp) presets, each trained for
#   runs/basset     one epoch on a `strand simulate --simulation chip_nexus_profile` genome, as
#   runs/bpnet      bench/variants/compare_variants.py makes them (Basset with lr 2e-5)
#   refpos_N.fa     the first N positives of the reference experiment's test split (500 bp)
#   seqs_W_N.fa     the first N windows of W bp centred on the genome's peak summits
#
#   bash bench/explain/prepare_runs.sh
#
# Environment: STRAND (build/cli/strand), WORK_DIR (build-bench/explain), THREADS (2).
set -euo pipefail
cd "$(dirname "$0")/../.."
STRAND="${STRAND:-build/cli/strand}"
WORK_DIR="${WORK_DIR:-build-bench/explain}"
THREADS="${THREADS:-2}"
source bench/quality/strand_program.sh
mkdir -p "${WORK_DIR}"
sim="${WORK_DIR}/sim"
if [[ ! -f "${sim}/genome.fa" ]]; then
  "${STRAND}" simulate --simulation chip_nexus_profile --contigs 4 --contig-length 250000 \
    --peaks 80 --window 2114 --seed 3 --out "${sim}" | sed -n 1p
  cat "${sim}"/{train,valid,test}.narrowPeak > "${sim}/all.narrowPeak"
fi
common=(--format narrowpeak --fasta "${sim}/genome.fa" --epochs 1 --output-dir "${WORK_DIR}/runs"
        --threads "${THREADS}")
labelled=(--intervals "${sim}/all.narrowPeak" --valid-chroms chr3 --test-chroms chr4
          --negatives-ratio 1)
for preset in reference basset bpnet; do
  [[ -f "${WORK_DIR}/runs/${preset}/checkpoints/best.safetensors" ]] && continue
  case "${preset}" in
    reference) flags=("${labelled[@]}" --window 500) ;;
    basset) flags=("${labelled[@]}" --model basset --window 600 --lr 0.00002) ;;
    bpnet) flags=(--model bpnet --intervals "${sim}/train.narrowPeak"
                  --valid-intervals "${sim}/valid.narrowPeak"
                  --test-intervals "${sim}/test.narrowPeak" --profile-bigwigs
                  "${sim}/POU5F1_known1.plus.bw,${sim}/POU5F1_known1.minus.bw"
                  "${sim}/SOX2_1.plus.bw,${sim}/SOX2_1.minus.bw") ;;
  esac
  "${STRAND}" train "${common[@]}" --run-name "${preset}" "${flags[@]}" \
    > "${WORK_DIR}/train_${preset}.log" 2>&1 || { tail -20 "${WORK_DIR}/train_${preset}.log"; exit 1; }
done
if [[ ! -f "${WORK_DIR}/runs/refexp/checkpoints/best.safetensors" ]]; then
  "${STRAND}" train --threads "${THREADS}" --output-dir "${WORK_DIR}/runs" --run-name refexp \
    > "${WORK_DIR}/train_refexp.log" 2>&1
  "${STRAND}" simulate --out "${WORK_DIR}/refsim" > /dev/null
fi
# The first 64 positives of the reference experiment's test split.
awk -v n=64 -F'\t' 'NR == FNR { if ($2 == 1) keep[$1] = 1; next }
  /^>/ { split(substr($1, 2), words, " "); take = (words[1] in keep) && count < n
         if (take) count++ }
  take' "${WORK_DIR}/refsim/test.tsv" "${WORK_DIR}/refsim/test.fa" > "${WORK_DIR}/refpos_64.fa"
# Windows of W bp centred on the summits (narrowPeak column 10) of the genome's peaks, in the
# order of all.narrowPeak, the first N that fit in their contig.
windows() {
  local width="$1" n="$2"
  awk -v width="${width}" -v n="${n}" -F'\t' '
    NR == FNR { if (/^>/) { name = substr($1, 2); sub(/[ \t].*/, "", name); order[++k] = name }
                else seq[name] = seq[name] $0; next }
    { start = $2 + $10 - int(width / 2)
      if (start < 0 || start + width > length(seq[$1])) next
      printf ">%s_%d\n%s\n", $4, count, substr(seq[$1], start + 1, width)
      if (++count == n) exit }' "${sim}/genome.fa" "${sim}/all.narrowPeak" \
    > "${WORK_DIR}/seqs_${width}_${n}.fa"
}
for n in 8 16 64; do windows 600 "${n}"; done
for n in 2 4 16; do windows 2114 "${n}"; done
echo "runs and sequences in ${WORK_DIR}"
