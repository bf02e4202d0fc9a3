#!/usr/bin/env bash
# The whole default run, strand versus PyTorch: `strand train` with no arguments (DragoNN TAL1
# simulation, seed 0: 12,800 train / 3,200 validation / 4,000 test, 500 bp; Conv1D(4->16, k=15)
# -> ReLU -> GlobalMaxPool1D -> Dense(16->1) -> Sigmoid, BCE, Adam 1e-3, batch 128, up to 100
# epochs, early stopping on val_loss with patience 3 restoring the best weights, then the test
# split) against bench/peer_pytorch_tal1.py training the same recipe on the same data.
#
# Usage: bench/run_default_comparison.sh
# Environment: THREADS (2), ROUNDS (2), STRAND (build/cli/strand), PYTHON (/usr/bin/python3,
# which needs torch, numpy and sklearn), WORK_DIR (a temporary directory, removed at the end;
# given: kept, with the dataset, the strand run directories and both programs' logs).
#
# The data is simulated once with `strand simulate` (its defaults are the default run's data
# config and seed, and it calls the same simulation code, so the files hold the dataset that
# `strand train` builds in memory). Then the runs alternate (strand, PyTorch, strand, ...) so
# that load from other processes on a shared machine hits both alike. Figures per run: strand's
# report.json (wall_seconds: the whole invocation, in-memory simulation included;
# train_seconds: fit() with its validation passes), the peer's summary (run_seconds: training +
# test evaluation, data load excluded and shown apart; train_seconds: the epoch loop), and the
# process wall time of both commands measured here. The summary gives per-program medians and
# the ratio PyTorch/strand (how many times longer PyTorch takes).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
threads="${THREADS:-2}"
rounds="${ROUNDS:-2}"
strand="${STRAND:-${repo}/build/cli/strand}"
python="${PYTHON:-/usr/bin/python3}"
peer="${repo}/bench/peer_pytorch_tal1.py"
if [[ -n "${WORK_DIR:-}" ]]; then
  work="${WORK_DIR}"
  mkdir -p "${work}"
else
  work="$(mktemp -d)"
  trap 'rm -rf "${work}"' EXIT
fi
[[ -x "${strand}" ]] || {
  echo "no strand binary at ${strand} (cmake --build build --target strand_exe)" >&2
  exit 1
}

export OMP_NUM_THREADS="${threads}"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; threads=${threads}" \
  "rounds=${rounds}"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

simulate_log="$("${strand}" simulate --out "${work}/data")"
head -n 1 <<<"${simulate_log}"

now() { date +%s.%N; }
results="${work}/results.tsv"
: >"${results}"
for ((round = 1; round <= rounds; ++round)); do
  run_dir="${work}/runs/round${round}"
  start="$(now)"
  "${strand}" train --threads "${threads}" --output-dir "${work}/runs" --run-name "round${round}" \
    >"${work}/strand_round${round}.log" 2>&1
  strand_process="$(echo "$(now) - ${start}" | bc)"
  echo "${round} strand ${strand_process} ${run_dir}/report.json $(cut -d' ' -f1 /proc/loadavg)" \
    >>"${results}"

  start="$(now)"
  "${python}" "${peer}" --data "${work}/data" --threads "${threads}" \
    >"${work}/pytorch_round${round}.log" 2>&1
  torch_process="$(echo "$(now) - ${start}" | bc)"
  echo "${round} pytorch ${torch_process} ${work}/pytorch_round${round}.log" \
    "$(cut -d' ' -f1 /proc/loadavg)" >>"${results}"
  echo "round ${round}: strand ${strand_process%.*} s, pytorch ${torch_process%.*} s (process" \
    "wall), load average $(cut -d' ' -f1-3 /proc/loadavg)"
done

"${python}" - "${results}" <<'EOF'
import json
import statistics
import sys

rows = {"strand": [], "pytorch": []}
for line in open(sys.argv[1]):
    round_, program, process, source, load = line.split()
    if program == "strand":
        r = json.load(open(source))
        rows[program].append({
            "round": int(round_), "process": float(process), "load": float(load),
            "wall": r["wall_seconds"], "train": r["train_seconds"], "load_data": None,
            "epochs": r["epochs_run"], "best": r["best_epoch"],
            "auroc": r["test"]["auroc"], "auprc": r["test"]["auprc"],
            "acc": r["test"]["accuracy"], "loss": r["test"]["loss"]})
    else:
        kv = dict(l.split(": ", 1) for l in open(source).read().splitlines() if ": " in l
                  and not l.startswith(("epoch ", "test:", "pytorch ")))
        rows[program].append({
            "round": int(round_), "process": float(process), "load": float(load),
            "wall": float(kv["run_seconds"]), "train": float(kv["train_seconds"]),
            "load_data": float(kv["load_seconds"]), "epochs": int(kv["epochs"]),
            "best": int(kv["best_epoch"]), "auroc": float(kv["test_auroc"]),
            "auprc": float(kv["test_auprc"]), "acc": float(kv["test_accuracy"]),
            "loss": float(kv["test_loss"])})

print()
print("| program | round | run wall (s) | fit (s) | s/epoch | process wall (s) | data load (s) "
      "| epochs (best) | test loss | test acc | test auROC | test auPRC | load avg |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for program, runs in rows.items():
    for r in runs:
        load_data = "-" if r["load_data"] is None else f"{r['load_data']:.2f}"
        print(f"| {program} | {r['round']} | {r['wall']:.1f} | {r['train']:.1f} | "
              f"{r['train'] / r['epochs']:.2f} | {r['process']:.1f} | {load_data} | "
              f"{r['epochs']} ({r['best']}) | {r['loss']:.4f} | {r['acc']:.4f} | "
              f"{r['auroc']:.4f} | {r['auprc']:.4f} | {r['load']:.2f} |")

med = {p: {k: statistics.median(r[k] for r in runs) for k in ("wall", "train", "process")}
       for p, runs in rows.items()}
per_epoch = {p: statistics.median(r["train"] / r["epochs"] for r in runs)
             for p, runs in rows.items()}
print()
for p in rows:
    print(f"{p}: median run wall {med[p]['wall']:.1f} s, fit {med[p]['train']:.1f} s, "
          f"process wall {med[p]['process']:.1f} s, {per_epoch[p]:.2f} s/epoch")
print(f"ratio pytorch/strand: run wall {med['pytorch']['wall'] / med['strand']['wall']:.2f}x, "
      f"process wall {med['pytorch']['process'] / med['strand']['process']:.2f}x, "
      f"per epoch {per_epoch['pytorch'] / per_epoch['strand']:.2f}x")
EOF
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
