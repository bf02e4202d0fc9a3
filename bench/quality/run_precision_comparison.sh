#!/usr/bin/env bash
# --precision bf16 against fp32 on one preset: the same runs (same data, seeds and recipe) in both
# precisions, alternating, each seed's test mean auROC and training time (report.json's
# train_seconds, and per epoch: early stopping may end the two runs at different epochs) side by
# side, and the mean difference of the auROCs (issue 36: within 0.005). Training is chaotic
# (Basset's test auROC spreads by ~0.02 between seeds in either precision, bench/RESULTS.md), so
# the script also scores each fp32-trained model's test set with `strand predict` in both
# precisions: the same weights, so that difference is bf16's alone.
#
#   bench/quality/run_precision_comparison.sh reference|basset
#
# reference: `strand train` (the preset on its simulated TAL1 data; early stopping as configured
#   unless EPOCHS is set).
# basset: `--model basset` on a 12-task `strand simulate --simulation multi_motif_embedding`
#   dataset of records (as bench/quality/run_basset_quality.sh), EPOCHS epochs.
# Environment: STRAND (build/cli/strand), SEEDS ("1 2 3"), THREADS (2), DEVICE (cpu), EPOCHS
# (reference: the preset's early stopping; basset: 8), N_SEQS (basset: 21600), LENGTH (basset:
# 200), WORK_DIR (a new temporary folder). A run's log and run directory stay in WORK_DIR.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${repo}"
model="${1:?usage: run_precision_comparison.sh reference|basset}"
STRAND="${STRAND:-build/cli/strand}"
SEEDS="${SEEDS:-1 2 3}"
THREADS="${THREADS:-2}"
DEVICE="${DEVICE:-cpu}"
WORK_DIR="${WORK_DIR:-$(mktemp -d /tmp/strand-precision.XXXXXX)}"
mkdir -p "${WORK_DIR}"
echo "work directory: ${WORK_DIR}"

case "${model}" in
  reference)
    flags=(--threads "${THREADS}" --device "${DEVICE}")
    if [[ -n "${EPOCHS:-}" ]]; then flags+=(--epochs "${EPOCHS}" --no-early-stopping); fi
    ;;
  basset)
    motifs="CTCF_known1,REST_known1,NRF1_known1,MYC_known1,ZNF143_known2,SIX5_known1,TAL1_known4,SPI1_known4,IRF_known20,NFKB_known1,AP1_known1,GATA_known1"
    data="${WORK_DIR}/data"
    [[ -f "${data}/train.tsv" ]] ||
      "${STRAND}" simulate --simulation multi_motif_embedding --motifs "${motifs}" \
        --n-seqs "${N_SEQS:-21600}" --length "${LENGTH:-200}" --validation 600 --test 1000 \
        --seed 0 --out "${data}" | sed -n 1p
    flags=(--model basset --format records --window 0 --threads "${THREADS}" --device "${DEVICE}"
      --fasta "${data}/train.fa" --intervals "${data}/train.tsv"
      --valid-fasta "${data}/valid.fa" --valid-intervals "${data}/valid.tsv"
      --test-fasta "${data}/test.fa" --test-intervals "${data}/test.tsv"
      --epochs "${EPOCHS:-8}")
    ;;
  *)
    echo "unknown model '${model}' (reference or basset)" >&2
    exit 2
    ;;
esac

for seed in ${SEEDS}; do
  for precision in fp32 bf16; do
    name="${model}_${precision}_seed${seed}"
    rm -rf "${WORK_DIR}/runs/${name}"
    "${STRAND}" train "${flags[@]}" --seed "${seed}" --precision "${precision}" \
      --output-dir "${WORK_DIR}/runs" --run-name "${name}" >"${WORK_DIR}/${name}.log" 2>&1 ||
      { tail -20 "${WORK_DIR}/${name}.log"; exit 1; }
  done
done

# The test split of every fp32 run scored again in fp32 and bf16 (predict's mean auROC).
predict_inputs=()
if [[ "${model}" == basset ]]; then
  predict_inputs=(--format records --fasta "${data}/test.fa" --intervals "${data}/test.tsv")
fi
for seed in ${SEEDS}; do
  for precision in fp32 bf16; do
    "${STRAND}" predict --model "${WORK_DIR}/runs/${model}_fp32_seed${seed}" \
      "${predict_inputs[@]}" --threads "${THREADS}" --precision "${precision}" \
      --out "${WORK_DIR}/predict_fp32_seed${seed}_${precision}.tsv" >/dev/null
  done
done

python3 - "${WORK_DIR}" "${model}" ${SEEDS} <<'PY'
import csv, json, statistics, sys
work, model, seeds = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = f"{work}/runs"

def auroc(scores, labels):
    # Rank form, ties sharing their mean rank; None without both classes.
    pairs = sorted(zip(scores, labels))
    positives = sum(1 for _, y in pairs if y > 0.5)
    negatives = len(pairs) - positives
    if positives == 0 or negatives == 0:
        return None
    rank_sum, i = 0.0, 0
    while i < len(pairs):
        j = i
        while j + 1 < len(pairs) and pairs[j + 1][0] == pairs[i][0]:
            j += 1
        rank = 0.5 * (i + j) + 1.0
        rank_sum += rank * sum(1 for k in range(i, j + 1) if pairs[k][1] > 0.5)
        i = j + 1
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)

def predicted_mean_auroc(path):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    tasks = [c[len("label_"):] for c in rows[0] if c.startswith("label_")]
    values = []
    for task in tasks:
        kept = [r for r in rows if r[f"label_{task}"] not in ("", "NA", "nan")]
        value = auroc([float(r[task]) for r in kept], [float(r[f"label_{task}"]) for r in kept])
        if value is not None:
            values.append(value)
    return statistics.mean(values)
def report(precision, seed):
    r = json.load(open(f"{runs}/{model}_{precision}_seed{seed}/report.json"))
    test = r["test"]
    return test.get("mean_auroc", test.get("auroc")), r["train_seconds"], r["epochs_run"]
print(f"{'seed':>4} {'fp32 auROC':>11} {'bf16 auROC':>11} {'bf16-fp32':>10} "
      f"{'fp32 s':>8} {'bf16 s':>8} {'epochs':>7}")
diffs, fp32_s, bf16_s = [], [], []
for seed in seeds:
    a32, t32, e32 = report("fp32", seed)
    a16, t16, e16 = report("bf16", seed)
    diffs.append(a16 - a32)
    fp32_s.append(t32 / e32)
    bf16_s.append(t16 / e16)
    print(f"{seed:>4} {a32:11.4f} {a16:11.4f} {a16 - a32:+10.4f} {t32:8.1f} {t16:8.1f} "
          f"{e32:>3}/{e16:<3}")
mean = statistics.mean(diffs)
spread = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
same = []
for seed in seeds:
    a32 = predicted_mean_auroc(f"{work}/predict_fp32_seed{seed}_fp32.tsv")
    a16 = predicted_mean_auroc(f"{work}/predict_fp32_seed{seed}_bf16.tsv")
    same.append(a16 - a32)
    print(f"seed {seed}: the fp32-trained model's test set scored in fp32 {a32:.5f}, in bf16 "
          f"{a16:.5f} ({a16 - a32:+.5f})")
print(f"RESULT {model}: same weights, bf16 - fp32 test mean auROC {statistics.mean(same):+.5f} "
      f"(largest {max(same, key=abs):+.5f})")
print(f"RESULT {model}: mean bf16 - fp32 test auROC {mean:+.4f} (standard error {spread:.4f}, "
      f"{len(diffs)} seeds); training time per epoch fp32 {statistics.median(fp32_s):.2f} s, "
      f"bf16 {statistics.median(bf16_s):.2f} s (medians): "
      f"{statistics.median(fp32_s) / statistics.median(bf16_s):.2f}x")
PY
