#!/usr/bin/env bash
# ChromBPNet against bpnet-lite (issue 40): strand's chrombpnet_bias + chrombpnet presets and
# bpnet-lite's PyTorch ChromBPNet (bench/chrombpnet/peer_bpnetlite_chrombpnet.py), trained with
# the same recipe (architecture sizes, epochs, batch, jitter, learning rate, patience, threads)
# on the same `strand simulate --simulation atac` data; prints each program's training time
# (bias + accessibility model) and test-peak median profile Jensen-Shannon distance and counts
# Pearson, both scored by the same Python code (strand's checkpoint loaded into bpnet-lite's
# modules).
#
#   bench/chrombpnet/run_chrombpnet_bench.sh                          # the default scale
#   CONTIGS=6 CONTIG_LENGTH=60000 PEAKS=20 EPOCHS=2 bench/chrombpnet/run_chrombpnet_bench.sh
#
# Environment: STRAND (build/cli/strand), PYTHON (default: bench/peer_env.sh's virtual
# environment with bpnet-lite and pyBigWig from PyPI added; PEER_VENV=/path reuses one), WORK_DIR
# (kept; default a new temporary directory), CONTIGS (20), CONTIG_LENGTH (100000), PEAKS (30 per
# contig), WINDOW (1000), PROFILE (500), FILTERS (64, both models; 4 dilated layers as
# chrombpnet's bias model), EPOCHS (10), THREADS (2), SEED (0), HELD_OUT (2: contigs
# in the test set, and as many in the validation set).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${repo}"
STRAND="${STRAND:-build/cli/strand}"
CONTIGS="${CONTIGS:-20}"
CONTIG_LENGTH="${CONTIG_LENGTH:-100000}"
PEAKS="${PEAKS:-30}"
WINDOW="${WINDOW:-1000}"
PROFILE="${PROFILE:-500}"
FILTERS="${FILTERS:-64}"
EPOCHS="${EPOCHS:-10}"
THREADS="${THREADS:-2}"
SEED="${SEED:-0}"
HELD_OUT="${HELD_OUT:-2}"
WORK_DIR="${WORK_DIR:-$(mktemp -d /tmp/strand-chrombpnet-bench.XXXXXX)}"
PYTHON="${PYTHON:-$(PEER_EXTRA="bpnet-lite pyBigWig" bash bench/peer_env.sh)}"
mkdir -p "${WORK_DIR}"
echo "work directory: ${WORK_DIR}"
data="${WORK_DIR}/atac"
rm -rf "${data}"
"${STRAND}" simulate --simulation atac --contigs "${CONTIGS}" --contig-length "${CONTIG_LENGTH}" \
  --peaks "${PEAKS}" --window "${WINDOW}" --nonpeak-ratio 1 --seed "${SEED}" --out "${data}" |
  sed -n 1p
# The last HELD_OUT contigs are the test set, the HELD_OUT before them the validation set.
valid=$(seq -s, -f "chr%g" $((CONTIGS - 2 * HELD_OUT + 1)) $((CONTIGS - HELD_OUT)))
test=$(seq -s, -f "chr%g" $((CONTIGS - HELD_OUT + 1)) "${CONTIGS}")
# Both models at FILTERS filters (the bias preset's graph: 4 dilated layers).
for preset in chrombpnet_bias chrombpnet; do
  "${STRAND}" train --model chrombpnet_bias --print-config | "${PYTHON}" -c "
import json, sys
c = json.load(sys.stdin)
for n in c['model']['nodes']:
    if n.get('filters') == 128: n['filters'] = ${FILTERS}
print(json.dumps({'preset': '${preset}', 'model': c['model']}))" >"${WORK_DIR}/${preset}.json"
done
common=(--fasta "${data}/genome.fa" --profile-bigwigs "${data}/cuts.bw" --window "${WINDOW}"
  --profile-length "${PROFILE}" --valid-chroms "${valid}" --test-chroms "${test}"
  --output-dir "${WORK_DIR}/runs" --threads "${THREADS}" --epochs "${EPOCHS}" --seed "${SEED}")
bias_flags=(--config "${WORK_DIR}/chrombpnet_bias.json" --intervals "${data}/nonpeaks.bed"
  --bias-peaks "${data}/peaks.narrowPeak" --jitter 50 "${common[@]}")
main_flags=(--config "${WORK_DIR}/chrombpnet.json" --bias-model "${WORK_DIR}/runs/bias"
  --intervals "${data}/peaks_nonpeaks.bed" --jitter 100 "${common[@]}")
rm -rf "${WORK_DIR}/runs"
"${STRAND}" train "${bias_flags[@]}" --print-config >"${WORK_DIR}/bias_recipe.json"
start=$(date +%s.%N)
"${STRAND}" train "${bias_flags[@]}" --run-name bias >"${WORK_DIR}/strand_bias.log" 2>&1
middle=$(date +%s.%N)
"${STRAND}" train "${main_flags[@]}" --print-config >"${WORK_DIR}/recipe.json"
"${STRAND}" train "${main_flags[@]}" --run-name chrombpnet >"${WORK_DIR}/strand_chrombpnet.log" 2>&1
end=$(date +%s.%N)
bias_s=$(echo "${middle} - ${start}" | bc)
main_s=$(echo "${end} - ${middle}" | bc)
echo "strand: bias ${bias_s} s, chrombpnet ${main_s} s"
peer=("${PYTHON}" bench/chrombpnet/peer_bpnetlite_chrombpnet.py --data "${data}"
  --bias-recipe "${WORK_DIR}/bias_recipe.json" --recipe "${WORK_DIR}/recipe.json"
  --valid "${valid}" --test "${test}" --seed "${SEED}" --threads "${THREADS}")
"${peer[@]}" --evaluate-strand "${WORK_DIR}/runs/chrombpnet" --out "${WORK_DIR}/strand.json"
"${peer[@]}" --out "${WORK_DIR}/bpnetlite.json" 2>&1 | tee "${WORK_DIR}/bpnetlite.log"
"${PYTHON}" - "${WORK_DIR}" "${bias_s}" "${main_s}" <<'PY'
import json, sys
work, bias_s, main_s = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
s, p = json.load(open(f"{work}/strand.json")), json.load(open(f"{work}/bpnetlite.json"))
ps = p["bias_seconds"] + p["chrombpnet_seconds"]
print(f"{'':12} {'median JSD':>10} {'counts r':>9} {'train s':>8}")
print(f"{'strand':12} {s['median_jsd']:10.4f} {s['counts_pearson']:9.4f} {bias_s + main_s:8.0f}")
print(f"{'bpnet-lite':12} {p['median_jsd']:10.4f} {p['counts_pearson']:9.4f} {ps:8.0f}")
print(f"strand - bpnet-lite: JSD {s['median_jsd'] - p['median_jsd']:+.4f}, counts r "
      f"{s['counts_pearson'] - p['counts_pearson']:+.4f}; speed-up {ps / (bias_s + main_s):.2f}x "
      f"({s['test_peaks']} test peaks)")
PY
