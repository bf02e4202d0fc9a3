#!/usr/bin/env bash
# Quality against PyTorch (issue 14), BPNet: strand's `--model bpnet` preset and a PyTorch peer of
# the same recipe (bench/quality/peer_bpnet_quality.py) trained on the same simulated ChIP-nexus
# profile data (FASTA + stranded bigWigs + narrowPeaks), per seed; prints each seed's test profile
# Pearson and counts Spearman, both means and the differences strand - PyTorch.
#
#   bench/quality/run_bpnet_quality.sh                        # the recorded comparison
#   SEEDS=1 EPOCHS=1 bench/quality/run_bpnet_quality.sh       # a smoke run
#
# 1. `strand simulate --simulation chip_nexus_profile` (seeded) writes genome.fa, per motif
#    <motif>.plus.bw / .minus.bw, and {train,valid,test}.narrowPeak held out by contig.
# 2. `strand train --model bpnet --print-config` gives the resolved recipe (recipe.json), which
#    the peer reads: optimizer, batch, epochs, early stopping, window, profile length, jitter, rc.
# 3. Per seed: `strand train --model bpnet --seed S` on the files; the peer scores strand's best
#    checkpoint with its evaluation code (report.json has no test profile figures and
#    `strand predict` writes no profiles), checking it against strand's printed validation
#    figures and `strand predict`'s test counts; then the peer trains with the same seed number.
# 4. bench/quality/compare.py prints the table.
#
# Environment: STRAND (build/cli/strand; built in build-quality/ when missing), PYTHON
# (default: the peers' virtual environment from bench/peer_env.sh with pyBigWig added;
# PEER_VENV=/path reuses one), WORK_DIR (kept; default a new temporary directory), SEEDS
# ("1 2 3"), EPOCHS (10), THREADS (2), CONTIGS (5), CONTIG_LENGTH (200000), PEAKS (100 per
# contig), SIM_SEED (0), MOTIFS (POU5F1_known1,SOX2_1), INIT (glorot: the peer initialises like
# strand; torch: its defaults).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${repo}"
STRAND="${STRAND:-build/cli/strand}"
SEEDS="${SEEDS:-1 2 3}"
EPOCHS="${EPOCHS:-10}"
THREADS="${THREADS:-2}"
CONTIGS="${CONTIGS:-5}"
CONTIG_LENGTH="${CONTIG_LENGTH:-200000}"
PEAKS="${PEAKS:-100}"
SIM_SEED="${SIM_SEED:-0}"
MOTIFS="${MOTIFS:-POU5F1_known1,SOX2_1}"
INIT="${INIT:-glorot}"
WORK_DIR="${WORK_DIR:-$(mktemp -d /tmp/strand-bpnet-quality.XXXXXX)}"

source bench/quality/strand_program.sh
PYTHON="${PYTHON:-$(PEER_EXTRA=pyBigWig bash bench/peer_env.sh)}"
mkdir -p "${WORK_DIR}"
echo "work directory: ${WORK_DIR}"

data="${WORK_DIR}/data"
# --window 2114: the preset's input; peaks stay half a window from the contig ends.
"${STRAND}" simulate --simulation chip_nexus_profile --motifs "${MOTIFS}" --contigs "${CONTIGS}" \
  --contig-length "${CONTIG_LENGTH}" --peaks "${PEAKS}" --window 2114 --seed "${SIM_SEED}" \
  --out "${data}" | sed -n 1p
bigwigs=()
IFS=, read -ra motif_list <<<"${MOTIFS}"
for motif in "${motif_list[@]}"; do bigwigs+=("${data}/${motif}.plus.bw,${data}/${motif}.minus.bw"); done
train_flags=(--model bpnet --format narrowpeak --fasta "${data}/genome.fa"
  --intervals "${data}/train.narrowPeak" --valid-intervals "${data}/valid.narrowPeak"
  --test-intervals "${data}/test.narrowPeak" --profile-bigwigs "${bigwigs[@]}"
  --epochs "${EPOCHS}" --threads "${THREADS}")
"${STRAND}" train "${train_flags[@]}" --print-config >"${WORK_DIR}/recipe.json"

for seed in ${SEEDS}; do
  run="${WORK_DIR}/runs/strand_seed${seed}"
  rm -rf "${run}"
  echo "== seed ${seed}: strand"
  "${STRAND}" train "${train_flags[@]}" --seed "${seed}" --output-dir "${WORK_DIR}/runs" \
    --run-name "strand_seed${seed}" >"${WORK_DIR}/strand_seed${seed}.log" 2>&1 ||
    { tail -20 "${WORK_DIR}/strand_seed${seed}.log"; exit 1; }
  grep -E "^counts loss weight|^epoch [0-9]+/|^epochs run" "${WORK_DIR}/strand_seed${seed}.log"
  "${STRAND}" predict --model "${run}" --format narrowpeak --fasta "${data}/genome.fa" \
    --intervals "${data}/test.narrowPeak" --output counts --threads "${THREADS}" \
    --out "${WORK_DIR}/strand_seed${seed}_test_counts.tsv" >/dev/null
  "${PYTHON}" bench/quality/peer_bpnet_quality.py --data "${data}" --motifs "${MOTIFS}" \
    --recipe "${WORK_DIR}/recipe.json" --seed "${seed}" --threads "${THREADS}" \
    --evaluate-strand "${run}" --strand-log "${WORK_DIR}/strand_seed${seed}.log" \
    --strand-counts "${WORK_DIR}/strand_seed${seed}_test_counts.tsv" \
    --out "${WORK_DIR}/strand_seed${seed}.json"
  echo "== seed ${seed}: PyTorch"
  "${PYTHON}" bench/quality/peer_bpnet_quality.py --data "${data}" --motifs "${MOTIFS}" \
    --recipe "${WORK_DIR}/recipe.json" --seed "${seed}" --threads "${THREADS}" --init "${INIT}" \
    --out "${WORK_DIR}/torch_seed${seed}.json" 2>&1 | tee "${WORK_DIR}/torch_seed${seed}.log"
done

"${PYTHON}" bench/quality/compare.py bpnet --work "${WORK_DIR}" --seeds ${SEEDS}
