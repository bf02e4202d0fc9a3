#!/usr/bin/env bash
# The reference experiment on one GPU: strand (`strand train --device cuda`) against PyTorch
# eager and torch.compile on the same GPU, with the same data (written by `strand simulate`) and
# recipe: Conv1D(16, 15) -> ReLU -> GlobalMaxPool1D -> Dense(1), BCE on logits, Adam 1e-3,
# batch 128, a validation pass per epoch, a fixed number of epochs without early stopping. Then
# the reference run as a user makes it (early stopping, then test), whose training must take
# <= 1 s.
#
# Like for like: the TRAINING figures are the same work on both sides: the epochs' training
# steps and validation passes, timed from the first step to the last validation loss on the
# host. strand's is `train_seconds` of its report (fit() alone: its loader's host-to-device
# copies included, data simulation and start-up excluded); PyTorch's is its timed loop over data
# already on the GPU (one-hot float32). PROCESS figures are whole-process wall times (start-up,
# CUDA context, data reading, training, evaluation) and are reported separately; they are not
# the speed ratio. Math mode: both sides strict float32 (strand's default; PyTorch with TF32 off
# in cuDNN and cuBLAS); where strand has `--precision`, both sides again in TF32, eager only.
#
# Usage: bench/cuda/run_reference_gpu.sh
# Environment: STRAND_BIN (a built strand; else BUILD_DIR is built), BUILD_DIR
# (build-cuda-release), EPOCHS (10), ROUNDS (3), PYTHON (python3 with a CUDA torch), ARCH
# (CMAKE_CUDA_ARCHITECTURES when building, default 90), MODES (eager,compile; max-autotune
# takes minutes to compile), COMPILE_ROUNDS (ROUNDS: rounds of each compiled mode; each round
# compiles again), DEVICE (cuda; cpu only rehearses the script without a GPU).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${BUILD_DIR:-${repo}/build-cuda-release}"
epochs="${EPOCHS:-10}"
rounds="${ROUNDS:-3}"
python="${PYTHON:-python3}"
arch="${ARCH:-90}"
modes="${MODES:-eager,compile}"
compile_rounds="${COMPILE_ROUNDS:-${rounds}}"
device="${DEVICE:-cuda}"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null ||
  echo "no nvidia-smi (device ${device})"
strand_bin="${STRAND_BIN:-}"
if [[ -z "${strand_bin}" ]]; then
  if [[ ! -f "${build_dir}/CMakeCache.txt" ]]; then
    cmake -S "${repo}" -B "${build_dir}" -DSTRAND_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES="${arch}" -DSTRAND_BUILD_TESTS=OFF >/dev/null
  fi
  cmake --build "${build_dir}" -j "$(nproc)" --target strand_exe >/dev/null
  strand_bin="${build_dir}/cli/strand"
fi
[[ -x "${strand_bin}" ]] || { echo "strand not found at ${strand_bin}" >&2; exit 1; }
tf32_flag=()
if "${strand_bin}" train --help 2>&1 | grep -q -- "--precision"; then
  tf32_flag=(--precision tf32)
fi

"${strand_bin}" simulate --out "${work}/data" >/dev/null

now() { date +%s.%N; }
# strand_round NAME ARGS...: one `strand train` process; prints "train_s process_s samples/s".
strand_round() {
  local name="$1"
  shift
  local start end
  start="$(now)"
  "${strand_bin}" train --device "${device}" --output-dir "${work}/runs" --run-name "${name}" \
    "$@" >"${work}/${name}.log" 2>&1 || { cat "${work}/${name}.log" >&2; return 1; }
  end="$(now)"
  "${python}" - "${work}/runs/${name}/report.json" "${start}" "${end}" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(f"{report['train_seconds']:.4f} {float(sys.argv[3]) - float(sys.argv[2]):.3f} "
      f"{report['samples_per_second']:.0f} {report['epochs_run']}")
PY
}

# strand_rounds LABEL ARGS...: ROUNDS fixed-epoch runs; sets strand_train and strand_process.
strand_rounds() {
  local label="$1"
  shift
  strand_train=()
  strand_process=()
  for ((round = 1; round <= rounds; ++round)); do
    read -r train process rate _ < <(strand_round "${label}-${round}" --epochs "${epochs}" \
      --no-early-stopping "$@")
    strand_train+=("${train}")
    strand_process+=("${process}")
    echo "strand ${label} round ${round}: training ${train} s (${rate} samples/s), process ${process} s"
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
median() { "${python}" -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }
peer=("${python}" "${repo}/bench/cuda/peer_pytorch_gpu.py" --model reference --data "${work}/data"
  --epochs "${epochs}" --device "${device}")

# Most valuable first, each RESULT line printed as soon as it is known (a time limit may stop
# the script): strand and PyTorch eager, the reference run, then torch.compile, then TF32.
echo "== fixed ${epochs} epochs, ${rounds} rounds each; math: strand fp32 (its default), pytorch fp32"
strand_rounds fp32
fp32_train="${strand_train[*]}"
echo "strand training median $(median "${strand_train[@]}") s; process median $(median "${strand_process[@]}") s"
start="$(now)"
{ "${peer[@]}" --rounds "${rounds}" --modes eager || echo "pytorch eager: exit $?"; } |
  tee "${work}/peer-eager.txt"
end="$(now)"
echo "pytorch eager process (${rounds} rounds): $("${python}" -c "print(f'{${end} - ${start}:.1f}')") s"
ratio "reference fp32" "${fp32_train}" "${work}/peer-eager.txt" eager 5

echo "== the reference run (early stopping, then test)"
read -r ref_train ref_process _ ref_epochs < <(strand_round reference)
grep -iE "^test|auROC|auPRC" "${work}/reference.log" | head -5 || true
met="$(awk -v t="${ref_train}" 'BEGIN { print (t <= 1.0) ? "met" : "MISSED" }')"
printf 'RESULT reference run: training %.3f s over %s epochs (target <= 1 s: %s); process %.2f s\n' \
  "${ref_train}" "${ref_epochs}" "${met}" "${ref_process}"
"${python}" "${repo}/bench/cuda/run_breakdown.py" "${work}/runs/reference"

IFS=, read -r -a other_modes <<<"${modes}"
for mode in "${other_modes[@]}"; do
  [[ "${mode}" == eager ]] && continue
  { "${peer[@]}" --rounds "${compile_rounds}" --modes "${mode}" || echo "pytorch ${mode}: exit $?"; } |
    tee "${work}/peer-${mode}.txt"
  ratio "reference fp32" "${fp32_train}" "${work}/peer-${mode}.txt" "${mode}" 1.5
done

if [[ ${#tf32_flag[@]} -gt 0 && "${device}" == cuda ]]; then
  echo "== the same in TF32: strand ${tf32_flag[*]}, pytorch --tf32 (eager)"
  strand_rounds tf32 "${tf32_flag[@]}"
  { "${peer[@]}" --rounds "${rounds}" --modes eager --tf32 || echo "pytorch tf32: exit $?"; } |
    tee "${work}/peer-tf32.txt"
  ratio "reference tf32" "${strand_train[*]}" "${work}/peer-tf32.txt" eager
else
  echo "== no TF32 comparison: this strand has no --precision flag (or the device is not cuda)"
fi
