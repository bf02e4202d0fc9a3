#!/usr/bin/env bash
# The Basset preset on one GPU: `strand train --model basset --device cuda` (batch 128) against
# the same recipe in PyTorch, eager and torch.compile, on the same GPU and the same files: a
# 12-task `strand simulate --simulation multi_motif_embedding` dataset of 600 bp records (the
# preset's window), a fixed number of epochs without early stopping. The PyTorch model, optimizer
# (RMSprop, momentum 0.98), batch and max-norm come from strand's resolved config
# (`--print-config`), as in bench/quality/run_basset_quality.sh.
#
# The TRAINING figures are the same work on both sides (the epochs' steps and validation passes;
# strand's `train_seconds`, PyTorch's timed loop over data already on the GPU); see
# run_reference_gpu.sh. Math mode: both sides strict float32 first (strand's default; PyTorch
# with TF32 off in cuDNN and cuBLAS, which is not PyTorch's default: it allows TF32 in cuDNN);
# where strand has `--precision`, both again in TF32 (eager only). Target: strand >= 1.2x
# PyTorch eager in the same math mode. On a GPU, one more strand round with cuDNN's timed
# algorithm search (STRAND_CUDNN_FIND=1) against the same FP32 PyTorch eager figure.
#
# Usage: bench/cuda/run_basset_gpu.sh
# Environment: STRAND_BIN (required: a built strand), PYTHON (python3 with a CUDA torch),
# EPOCHS (3), ROUNDS (2), N_SEQS (8000: records in all; 1000 of them validation, 200 test),
# LENGTH (600), MODES (eager,compile), COMPILE_ROUNDS (ROUNDS: rounds of each compiled mode),
# DEVICE (cuda; cpu only rehearses the script).
# PROFILE_NCU=path/to/ncu: no benchmark; instead one epoch's kernels ranked by total time, strand's
# under ncu (durations only, after its first 300 launches: start-up and cuDNN's algorithm search)
# beside PyTorch eager's under torch.profiler (bench/cuda/gpu_checks.sh step 5).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
strand_bin="${STRAND_BIN:?set STRAND_BIN to a built strand}"
python="${PYTHON:-python3}"
epochs="${EPOCHS:-3}"
rounds="${ROUNDS:-2}"
n_seqs="${N_SEQS:-8000}"
length="${LENGTH:-600}"
modes="${MODES:-eager,compile}"
compile_rounds="${COMPILE_ROUNDS:-${rounds}}"
device="${DEVICE:-cuda}"
motifs="CTCF_known1,REST_known1,NRF1_known1,MYC_known1,ZNF143_known2,SIX5_known1,TAL1_known4,SPI1_known4,IRF_known20,NFKB_known1,AP1_known1,GATA_known1"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

tf32_flag=()
if "${strand_bin}" train --help 2>&1 | grep -q -- "--precision"; then
  tf32_flag=(--precision tf32)
fi
data="${work}/data"
"${strand_bin}" simulate --simulation multi_motif_embedding --motifs "${motifs}" \
  --n-seqs "${n_seqs}" --length "${length}" --validation 1000 --test 200 --seed 0 \
  --out "${data}" | sed -n 1p
# --window 0: records train on their own length.
train_flags=(--model basset --format records --window 0 --device "${device}"
  --fasta "${data}/train.fa" --intervals "${data}/train.tsv"
  --valid-fasta "${data}/valid.fa" --valid-intervals "${data}/valid.tsv"
  --epochs "${epochs}" --no-early-stopping)
"${strand_bin}" train "${train_flags[@]}" --print-config >"${work}/recipe.json"
batch="$("${python}" -c "import json,sys; print(json.load(open(sys.argv[1]))['batch_size'])" \
  "${work}/recipe.json")"

# strand_rounds LABEL ARGS...: ROUNDS runs; prints each and sets strand_train (seconds).
strand_rounds() {
  local label="$1"
  shift
  strand_train=()
  for ((round = 1; round <= rounds; ++round)); do
    local name="${label}-${round}"
    "${strand_bin}" train "${train_flags[@]}" "$@" --output-dir "${work}/runs" \
      --run-name "${name}" >"${work}/${name}.log" 2>&1 || { cat "${work}/${name}.log" >&2; exit 1; }
    read -r train rate < <("${python}" -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(f\"{r['train_seconds']:.4f} {r['samples_per_second']:.0f}\")" "${work}/runs/${name}/report.json")
    strand_train+=("${train}")
    echo "strand basset ${label} round ${round}: training ${train} s (${rate} samples/s)"
    "${python}" "${repo}/bench/cuda/run_breakdown.py" "${work}/runs/${name}"
  done
}

# ratio NAME STRAND_SECONDS_LIST PEER_OUTPUT MODE [TARGET]: a RESULT line for the peer's MODE.
ratio() {
  "${python}" - "$@" <<'PY'
import re, statistics, sys
name, strand_list, peer_path, mode = sys.argv[1:5]
target = float(sys.argv[5]) if len(sys.argv) > 5 else None
strand = statistics.median(float(v) for v in strand_list.split())
found = re.search(rf"^{re.escape(mode)}: training ([0-9.]+) s", open(peer_path).read(), re.M)
if not found:
    print(f"RESULT {name} vs pytorch {mode}: no PyTorch figure (see the log above)")
    sys.exit(0)
peer = float(found.group(1))
verdict = f" (target >= {target}x: {'met' if peer / strand >= target else 'MISSED'})" if target else ""
print(f"RESULT {name} vs pytorch {mode}: strand {strand:.3f} s, pytorch {peer:.3f} s -> "
      f"{peer / strand:.2f}x{verdict}")
PY
}
peer=("${python}" "${repo}/bench/cuda/peer_pytorch_gpu.py" --model basset --data "${data}"
  --recipe "${work}/recipe.json" --batch "${batch}" --epochs "${epochs}" --device "${device}")

if [[ -n "${PROFILE_NCU:-}" ]]; then
  echo "== basset kernels, ${epochs} epoch(s), batch ${batch}: strand under ncu, fp32"
  "${PROFILE_NCU}" --clock-control none --csv --print-units base \
    --metrics gpu__time_duration.sum --launch-skip 300 --log-file "${work}/ncu.csv" \
    "${strand_bin}" train "${train_flags[@]}" --output-dir "${work}/runs" --run-name ncu \
    >"${work}/ncu-app.log" 2>&1 || { tail -20 "${work}/ncu-app.log"; exit 1; }
  "${python}" "${repo}/bench/cuda/top_kernels.py" "${work}/ncu.csv" --top 15
  echo "== PyTorch eager, fp32, under torch.profiler"
  "${peer[@]}" --profile
  exit 0
fi

# Each RESULT line as soon as it is known (a time limit may stop the script): FP32 eager first,
# then TF32 eager (the mode PyTorch users get by default in cuDNN), then torch.compile.
echo "== basset, batch ${batch}, ${epochs} epochs, ${rounds} rounds each; math: strand fp32 (its default), pytorch fp32"
strand_rounds fp32
fp32_train="${strand_train[*]}"
{ "${peer[@]}" --rounds "${rounds}" --modes eager || echo "pytorch eager: exit $?"; } |
  tee "${work}/peer-eager.txt"
ratio "basset fp32" "${fp32_train}" "${work}/peer-eager.txt" eager 1.2

# Whether cuDNN's timed algorithm search beats its heuristics (which PyTorch eager uses too) by
# enough to pay for itself in a short run: one round with STRAND_CUDNN_FIND=1.
if [[ "${device}" == cuda ]]; then
  echo "== strand fp32 with cuDNN's timed algorithm search (STRAND_CUDNN_FIND=1), 1 round"
  saved_rounds="${rounds}"
  rounds=1
  export STRAND_CUDNN_FIND=1
  strand_rounds fp32-find
  unset STRAND_CUDNN_FIND
  rounds="${saved_rounds}"
  ratio "basset fp32 cudnn-find" "${strand_train[*]}" "${work}/peer-eager.txt" eager 1.2
fi

if [[ ${#tf32_flag[@]} -gt 0 && "${device}" == cuda ]]; then
  echo "== the same in TF32: strand ${tf32_flag[*]}, pytorch --tf32 (eager)"
  strand_rounds tf32 "${tf32_flag[@]}"
  { "${peer[@]}" --rounds "${rounds}" --modes eager --tf32 || echo "pytorch tf32: exit $?"; } |
    tee "${work}/peer-tf32.txt"
  ratio "basset tf32" "${strand_train[*]}" "${work}/peer-tf32.txt" eager 1.2
else
  echo "== no TF32 comparison: this strand has no --precision flag (or the device is not cuda)"
fi

IFS=, read -r -a other_modes <<<"${modes}"
for mode in "${other_modes[@]}"; do
  [[ "${mode}" == eager ]] && continue
  { "${peer[@]}" --rounds "${compile_rounds}" --modes "${mode}" || echo "pytorch ${mode}: exit $?"; } |
    tee "${work}/peer-${mode}.txt"
  ratio "basset fp32" "${fp32_train}" "${work}/peer-${mode}.txt" "${mode}"
done
