#!/usr/bin/env bash
# Motifs end to end (issue 25): strand's DeepLIFT/SHAP contributions through TF-MoDISco-lite,
# and its patterns matched against the motifs the simulation embedded, for two datasets:
#
#   reference  `strand simulate` (TAL1_known4 in 500 bp, the reference experiment), the reference
#              model trained by `strand train`; the test split's positives explained
#   basset     the 12-motif multi-task simulation (multi_motif_embedding) with the Basset preset;
#              the test sequences explained for the sum of the 12 tasks' logits
#
# Each: strand explain --method deeplift_shap --out shap.npz (hypothetical contributions (N, 4, L)
# and shap_onehot.npz, the layout modisco reads), `modisco motifs -s shap_onehot.npz -a shap.npz`
# unchanged, then bench/explain/match_patterns.py: each pattern's best match among the
# simulation's motifs.meme (written by strand simulate) with its q-value.
#
#   bash bench/explain/run_modisco.sh [reference|basset|all]
#
# A rerun with the same WORK_DIR reuses a dataset's trained model (delete WORK_DIR/NAME/run to
# retrain). Environment: STRAND (default build/cli/strand, built when missing), WORK_DIR,
# THREADS (2), BASSET_SEQS (20000), BASSET_LENGTH (200), BASSET_EPOCHS (12), EXPLAIN_SEQS
# (2000), MODISCO_SEQLETS (20000), BASSET_TRAIN_FLAGS (extra `strand train` flags, e.g.
# "--optimizer adam --lr 0.001" instead of the preset's RMSprop recipe).
set -euo pipefail
cd "$(dirname "$0")/../.."
which="${1:-all}"
STRAND="${STRAND:-build/cli/strand}"
THREADS="${THREADS:-2}"
WORK_DIR="${WORK_DIR:-$(mktemp -d /tmp/strand-modisco.XXXXXX)}"
BASSET_SEQS="${BASSET_SEQS:-20000}"
BASSET_LENGTH="${BASSET_LENGTH:-200}"
BASSET_EPOCHS="${BASSET_EPOCHS:-12}"
read -r -a basset_train_flags <<< "${BASSET_TRAIN_FLAGS:-}"
EXPLAIN_SEQS="${EXPLAIN_SEQS:-2000}"
MODISCO_SEQLETS="${MODISCO_SEQLETS:-20000}"
MOTIFS="CTCF_known1,REST_known1,NRF1_known1,MYC_known1,ZNF143_known2,SIX5_known1,TAL1_known4,SPI1_known4,IRF_known20,NFKB_known1,AP1_known1,GATA_known1"
source bench/quality/strand_program.sh
PYTHON="${PYTHON:-$(PEER_EXTRA="modisco-lite" bash bench/peer_env.sh)}"
MODISCO="$(dirname "${PYTHON}")/modisco"
mkdir -p "${WORK_DIR}"
echo "work directory: ${WORK_DIR}"

# The first N records of a FASTA whose label (column 2 of the TSV) is 1, or all with "all".
first_records() {
  local fasta="$1" tsv="$2" n="$3" which="$4" out="$5"
  awk -v n="${n}" -v which="${which}" -F'\t' '
    NR == FNR { if ($1 != "name" && (which == "all" || $2 == 1)) keep[$1] = 1; next }
    /^>/ { split(substr($1, 2), words, " "); take = (words[1] in keep) && count < n
           if (take) count++ }
    take' "${tsv}" "${fasta}" > "${out}"
}

explain_and_match() {
  local name="$1" run="$2" fasta="$3" task="$4" meme="$5" width="$6"
  local dir="${WORK_DIR}/${name}"
  "${STRAND}" explain --model "${run}" --fasta "${fasta}" --method deeplift_shap --task "${task}" \
    --references 20 --threads "${THREADS}" --out "${dir}/shap.npz" \
    --plot "${dir}/logo.svg" | tee "${dir}/explain.log"
  "${MODISCO}" motifs -s "${dir}/shap_onehot.npz" -a "${dir}/shap.npz" -n "${MODISCO_SEQLETS}" \
    -w "${width}" -o "${dir}/modisco.h5" > "${dir}/modisco.log" 2>&1 ||
    { tail -20 "${dir}/modisco.log"; exit 1; }
  "${PYTHON}" bench/explain/match_patterns.py "${dir}/modisco.h5" "${meme}" \
    --json "${dir}/matches.json" | tee "${dir}/matches.txt"
}

if [[ "${which}" == reference || "${which}" == all ]]; then
  dir="${WORK_DIR}/reference"
  mkdir -p "${dir}"
  if [[ ! -f "${dir}/run/checkpoints/best.safetensors" ]]; then  # a rerun reuses the model
    "${STRAND}" simulate --out "${dir}/data" | sed -n 1p
    "${STRAND}" train --threads "${THREADS}" --output-dir "${dir}" --run-name run \
      > "${dir}/train.log" 2>&1 || { tail -20 "${dir}/train.log"; exit 1; }
  fi
  grep -E "^(test|best|epochs run)" "${dir}/train.log" || true
  first_records "${dir}/data/test.fa" "${dir}/data/test.tsv" "${EXPLAIN_SEQS}" positives \
    "${dir}/positives.fa"
  explain_and_match reference "${dir}/run" "${dir}/positives.fa" 0 "${dir}/data/motifs.meme" 400
fi

if [[ "${which}" == basset || "${which}" == all ]]; then
  dir="${WORK_DIR}/basset"
  mkdir -p "${dir}"
  data="${dir}/data"
  if [[ ! -f "${dir}/run/checkpoints/best.safetensors" ]]; then  # a rerun reuses the model
    "${STRAND}" simulate --simulation multi_motif_embedding --motifs "${MOTIFS}" \
      --n-seqs "${BASSET_SEQS}" --length "${BASSET_LENGTH}" --validation 1000 --test 2000 \
      --seed 0 --out "${data}" | sed -n 1p
    "${STRAND}" train --model basset --format records --window 0 \
      --fasta "${data}/train.fa" --intervals "${data}/train.tsv" \
      --valid-fasta "${data}/valid.fa" --valid-intervals "${data}/valid.tsv" \
      --test-fasta "${data}/test.fa" --test-intervals "${data}/test.tsv" \
      --epochs "${BASSET_EPOCHS}" --threads "${THREADS}" --output-dir "${dir}" --run-name run \
      "${basset_train_flags[@]}" > "${dir}/train.log" 2>&1 || { tail -20 "${dir}/train.log"; exit 1; }
  fi
  grep -E "^(test|best|epochs run)" "${dir}/train.log" || true
  first_records "${data}/test.fa" "${data}/test.tsv" "${EXPLAIN_SEQS}" all "${dir}/test.fa"
  explain_and_match basset "${dir}/run" "${dir}/test.fa" all "${data}/motifs.meme" \
    "${BASSET_LENGTH}"
fi
