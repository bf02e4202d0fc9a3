#!/usr/bin/env bash
# What a user would see training Basset and BPNet on one GPU: `strand train --device cuda`
# against the same recipe in PyTorch (eager, eager under autocast, torch.compile) on the same GPU
# and the same files, a realistic epoch (20,000 training records; BPNet's windows of 2,114 bp),
# 5 epochs without early stopping, every round of every side a FRESH process (so each pays its
# start-up, as a user's run does). Per run: the first epoch's training steps (the one-off work)
# apart from the later, steady-state epochs', the whole training (train_seconds: every epoch's
# steps and validation pass) and the whole process (wall-clock). Both math modes: strict FP32
# (strand's default; PyTorch with TF32 off in cuDNN and cuBLAS) and mixed precision (strand
# `--precision bf16`; PyTorch `torch.autocast(device_type="cuda", dtype=torch.bfloat16)`).
#
# Data, made on the host by `strand simulate` (no network needed): Basset, a 12-task
# multi_motif_embedding simulation of 600 bp records (train BASSET_N, valid and test 2,000);
# BPNet, a chip_nexus_profile simulation (two stranded tracks, narrowPeaks of BPNET_PEAKS per
# contig over BPNET_CONTIGS contigs, the last two validation and test). The PyTorch side reads
# strand's resolved recipe (`--print-config`) and the same files (bench/cuda/peer_pytorch_gpu.py).
#
# Runs follow PLAN in order (most valuable first), each started only when the time left under
# LIMIT covers its estimate (the same side's last process time, else a default), and stopped at
# RUN_CAP or the limit; a run that does not fit is skipped and the next tried. Every run appends
# its row to WORK/runs.tsv and the figures are rewritten after each (epoch_figures.py: RESULT
# lines, WORK/figures.tsv), so a kill at the limit keeps everything up to then.
#
# Usage: bench/cuda/run_epochs_gpu.sh
# Environment: STRAND_BIN (required), PYTHON (python3 with torch), DEVICE (cuda; cpu rehearses),
#   WORK (kept; default a temporary folder, removed), LIMIT (seconds, 0: none), RUN_CAP (150),
#   EPOCHS (5), BASSET_N (20000), HOLDOUT_N (2000: Basset's validation and test records each),
#   BPNET_CONTIGS (12), BPNET_PEAKS (2000), BPNET_CONTIG_LENGTH (2000000), MODELS ("basset bpnet"),
#   PLAN (entries MODEL/SIDE/PRECISION, SIDE strand|eager|compile; default below),
#   ESTIMATES ("strand=40 eager=45 compile=110": seconds, before a side has run once),
#   PROGRESS_FILE (rewritten after every run with the runs and results so far).
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
strand_bin="${STRAND_BIN:?set STRAND_BIN to a built strand}"
python="${PYTHON:-python3}"
device="${DEVICE:-cuda}"
epochs="${EPOCHS:-5}"
limit="${LIMIT:-0}"
run_cap="${RUN_CAP:-150}"
basset_n="${BASSET_N:-20000}"
holdout_n="${HOLDOUT_N:-2000}"
bpnet_contigs="${BPNET_CONTIGS:-12}"
bpnet_peaks="${BPNET_PEAKS:-2000}"
bpnet_contig_length="${BPNET_CONTIG_LENGTH:-2000000}"
models=" ${MODELS:-basset bpnet} "
plan="${PLAN:-basset/strand/fp32 basset/eager/fp32 basset/strand/bf16 basset/eager/bf16
  bpnet/strand/fp32 bpnet/eager/fp32 basset/strand/fp32 basset/eager/fp32
  bpnet/strand/bf16 bpnet/eager/bf16 basset/compile/fp32 bpnet/strand/fp32 bpnet/eager/fp32
  basset/strand/bf16 basset/eager/bf16 bpnet/compile/fp32}"
declare -A estimate=([strand]=40 [eager]=45 [compile]=110) measured
for pair in ${ESTIMATES:-}; do estimate[${pair%%=*}]=${pair#*=}; done
if [[ -n "${WORK:-}" ]]; then
  work="${WORK}"
  mkdir -p "${work}"
else
  work="$(mktemp -d)"
  trap 'rm -rf "${work}"' EXIT
fi
start_time=${SECONDS}
# bounded SECONDS COMMAND...: COMMAND under `timeout` (a process group of its own), waited for
# with `wait` so that a TERM to this script (gpu_checks.sh's limit) ends the running run too.
child=""
trap '[[ -n "${child}" ]] && kill -TERM "${child}" 2>/dev/null; exit 143' TERM INT
bounded() {
  timeout -k 5 "$1" "${@:2}" &
  child=$!
  wait "${child}"
  local code=$?
  child=""
  return "${code}"
}
left() { if ((limit > 0)); then echo $((start_time + limit - SECONDS)); else echo 999999; fi; }
now() { echo "${EPOCHREALTIME/,/.}"; }

# ---- data and recipes (both simulations at once: host work, before any timed run) ------------
basset_motifs="CTCF_known1,REST_known1,NRF1_known1,MYC_known1,ZNF143_known2,SIX5_known1,TAL1_known4,SPI1_known4,IRF_known20,NFKB_known1,AP1_known1,GATA_known1"
data_start=$(now)
[[ "${models}" == *" basset "* ]] && "${strand_bin}" simulate --simulation multi_motif_embedding \
  --motifs "${basset_motifs}" --n-seqs $((basset_n + 2 * holdout_n)) --length 600 \
  --validation "${holdout_n}" --test "${holdout_n}" --seed 0 --out "${work}/data-basset" \
  >"${work}/simulate-basset.log" 2>&1 &
[[ "${models}" == *" bpnet "* ]] && "${strand_bin}" simulate --simulation chip_nexus_profile \
  --contigs "${bpnet_contigs}" --contig-length "${bpnet_contig_length}" --peaks "${bpnet_peaks}" \
  --window 2114 --no-control --seed 0 --out "${work}/data-bpnet" >"${work}/simulate-bpnet.log" 2>&1 &
wait
echo "data: $(awk -v a="${data_start}" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}') s to simulate"
head -qn1 "${work}"/simulate-*.log

precision_flag() { # PRECISION: the flag strand takes for it (none when it has no --precision)
  if [[ "$1" == fp32 ]] && ! "${strand_bin}" train --help 2>&1 | grep -q -- "--precision"; then
    return
  fi
  echo "--precision $1"
}
has_bf16=0
"${strand_bin}" train --help 2>&1 | grep -A2 -- "--precision" | grep -q bf16 && has_bf16=1

declare -A flags_of
d="${work}/data-basset"
flags_of[basset]="--model basset --format records --window 0 --fasta ${d}/train.fa
  --intervals ${d}/train.tsv --valid-fasta ${d}/valid.fa --valid-intervals ${d}/valid.tsv
  --test-fasta ${d}/test.fa --test-intervals ${d}/test.tsv"
d="${work}/data-bpnet"
flags_of[bpnet]="--model bpnet --format narrowpeak --fasta ${d}/genome.fa
  --intervals ${d}/train.narrowPeak --valid-intervals ${d}/valid.narrowPeak --window 2114
  --profile-bigwigs ${d}/POU5F1_known1.plus.bw,${d}/POU5F1_known1.minus.bw
  ${d}/SOX2_1.plus.bw,${d}/SOX2_1.minus.bw --profile-length 1000"
declare -A ready batch_of
for model in basset bpnet; do
  [[ "${models}" == *" ${model} "* ]] || continue
  # shellcheck disable=SC2086
  if "${strand_bin}" train ${flags_of[${model}]} --device "${device}" --epochs "${epochs}" \
    --no-early-stopping --print-config >"${work}/recipe-${model}.json" 2>"${work}/recipe-${model}.log"; then
    ready[${model}]=1
    batch_of[${model}]=$("${python}" -c "import json,sys; print(json.load(open(sys.argv[1]))['batch_size'])" \
      "${work}/recipe-${model}.json")
  else
    echo "${model}: no recipe (strand train --print-config failed): $(head -3 "${work}/recipe-${model}.log")"
  fi
done
echo "== ${epochs} epochs a run, each a fresh process; device ${device}; basset batch ${batch_of[basset]:-?}," \
  "bpnet batch ${batch_of[bpnet]:-?}; strand --precision bf16: $([[ ${has_bf16} == 1 ]] && echo yes || echo 'no (bf16 runs skipped)')"
echo "== math: fp32 = strand's default against PyTorch with TF32 off in cuDNN and cuBLAS;" \
  "bf16 = strand --precision bf16 against PyTorch eager under torch.autocast(dtype=torch.bfloat16)"

# ---- one run: a fresh process ------------------------------------------------------------------
declare -A round_of
run_one() { # MODEL SIDE PRECISION TIMEOUT
  local model="$1" side="$2" precision="$3" timeout="$4"
  local key="${model}-${side}-${precision}"
  round_of[${key}]=$((${round_of[${key}]:-0} + 1))
  local name="${key}-${round_of[${key}]}" begin code process
  begin=$(now)
  if [[ "${side}" == strand ]]; then
    # shellcheck disable=SC2046,SC2086
    bounded "${timeout}" "${strand_bin}" train ${flags_of[${model}]} --device "${device}" \
      --epochs "${epochs}" --no-early-stopping $(precision_flag "${precision}") \
      --output-dir "${work}/runs" --run-name "${name}" >"${work}/${name}.log" 2>&1
    code=$?
    process=$(awk -v a="${begin}" -v b="$(now)" 'BEGIN {printf "%.3f", b - a}')
    "${python}" "${repo}/bench/cuda/epoch_figures.py" strand "${work}/runs.tsv" "${model}" \
      "${precision}" "${work}/runs/${name}" "${code}" "${process}"
    rm -rf "${work}/runs/${name}/checkpoints"
  else
    local amp=()
    [[ "${precision}" == bf16 ]] && amp=(--amp bf16)
    local data=()
    [[ "${model}" == basset ]] && data=(--data "${work}/data-basset")
    bounded "${timeout}" env PYTHONUNBUFFERED=1 "${python}" \
      "${repo}/bench/cuda/peer_pytorch_gpu.py" --model "${model}" "${data[@]}" \
      --recipe "${work}/recipe-${model}.json" --batch "${batch_of[${model}]}" --epochs "${epochs}" \
      --rounds 1 --modes "${side}" "${amp[@]}" --device "${device}" --json "${work}/${name}.json" \
      >"${work}/${name}.log" 2>&1
    code=$?
    process=$(awk -v a="${begin}" -v b="$(now)" 'BEGIN {printf "%.3f", b - a}')
    "${python}" "${repo}/bench/cuda/epoch_figures.py" peer "${work}/runs.tsv" "${model}" \
      "${precision}" "${side}" "${work}/${name}.json" "${code}" "${process}"
  fi
  # Later estimates: this model's and side's last process time, with a margin.
  measured[${model}/${side}]=$(awk -v p="${process}" 'BEGIN {printf "%d", p * 1.2 + 5}')
  local detail
  detail=$(tail -1 "${work}/runs.tsv" | cut -f4-9 | tr '\t' ' ')
  echo "run ${name}: exit ${code}, process ${process} s (exit process train epoch1 steady validation: ${detail})"
  if [[ "${code}" != 0 ]]; then
    grep -m3 -iE 'error|Traceback|what\(\)' "${work}/${name}.log" | cut -c1-200
  fi
  "${python}" "${repo}/bench/cuda/epoch_figures.py" summary "${work}/runs.tsv" \
    --figures "${work}/figures.tsv" >"${work}/results.txt"
  if [[ -n "${PROGRESS_FILE:-}" ]]; then # the record so far, should a kill come before the end
    { echo "== run_epochs_gpu.sh in progress: the runs so far"; cat "${work}/runs.tsv"
      cat "${work}/results.txt"; } >"${PROGRESS_FILE}"
  fi
}

for entry in ${plan}; do
  IFS=/ read -r model side precision <<<"${entry}"
  [[ -n "${ready[${model}]:-}" ]] || continue
  if [[ "${precision}" == bf16 && "${has_bf16}" != 1 ]]; then
    continue
  fi
  need=${measured[${model}/${side}]:-${estimate[${side}]}}
  have=$(left)
  if ((have < need)); then
    echo "run ${entry}: skipped, ${have} s left and it needs about ${need} s"
    continue
  fi
  run_one "${model}" "${side}" "${precision}" $((have < run_cap ? have : run_cap))
done
echo "== results (median over rounds; runs in ${work}/runs.tsv)"
cat "${work}/results.txt" 2>/dev/null
