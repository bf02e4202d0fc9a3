#!/usr/bin/env bash
# The reference experiment on one GPU: strand (`strand train --device cuda`) against PyTorch
# eager and torch.compile (default and max-autotune) on the same GPU, with the same data
# (written by `strand simulate`) and recipe: Conv1D(16, 15) -> ReLU -> GlobalMaxPool1D ->
# Dense(1), BCE on logits, Adam 1e-3, batch 128, a validation pass per epoch, a fixed number of
# epochs without early stopping. Then the reference run as a user makes it (early stopping,
# then test), whose training must take <= 1 s.
#
# Like for like: the TRAINING figures are the same work on both sides: the epochs' training
# steps and validation passes, timed from the first step to the last validation loss on the
# host. strand's is `train_seconds` of its report (fit() alone: its loader's host-to-device
# copies included, data simulation and start-up excluded); PyTorch's is its timed loop over data
# already on the GPU (one-hot float32). PROCESS figures are whole-process wall times (start-up,
# CUDA context, data reading, training, evaluation) and are reported separately; they are not
# the speed ratio.
#
# Usage: bench/cuda/run_reference_gpu.sh
# Environment: STRAND_BIN (a built strand; else BUILD_DIR is built), BUILD_DIR
# (build-cuda-release), EPOCHS (10), ROUNDS (3), PYTHON (python3 with a CUDA torch), ARCH
# (CMAKE_CUDA_ARCHITECTURES when building, default 90), MODES (eager,compile,max-autotune).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${BUILD_DIR:-${repo}/build-cuda-release}"
epochs="${EPOCHS:-10}"
rounds="${ROUNDS:-3}"
python="${PYTHON:-python3}"
arch="${ARCH:-90}"
modes="${MODES:-eager,compile,max-autotune}"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
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

"${strand_bin}" simulate --out "${work}/data" >/dev/null

now() { date +%s.%N; }
# strand_round NAME ARGS...: one `strand train` process; prints "train_s process_s samples/s".
strand_round() {
  local name="$1"
  shift
  local start end
  start="$(now)"
  "${strand_bin}" train --device cuda --output-dir "${work}/runs" --run-name "${name}" "$@" \
    >"${work}/${name}.log" 2>&1 || { cat "${work}/${name}.log" >&2; return 1; }
  end="$(now)"
  "${python}" - "${work}/runs/${name}/report.json" "${start}" "${end}" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(f"{report['train_seconds']:.4f} {float(sys.argv[3]) - float(sys.argv[2]):.3f} "
      f"{report['samples_per_second']:.0f} {report['epochs_run']}")
PY
}

echo "== fixed ${epochs} epochs, ${rounds} rounds each"
strand_train=()
strand_process=()
for ((round = 1; round <= rounds; ++round)); do
  read -r train process rate _ < <(strand_round "fixed-${round}" --epochs "${epochs}" \
    --no-early-stopping)
  strand_train+=("${train}")
  strand_process+=("${process}")
  echo "strand round ${round}: training ${train} s (${rate} samples/s), process ${process} s"
done

peer_out="${work}/peer.txt"
start="$(now)"
"${python}" "${repo}/bench/cuda/peer_pytorch_gpu.py" --data "${work}/data" --epochs "${epochs}" \
  --rounds "${rounds}" --modes "${modes}" | tee "${peer_out}"
end="$(now)"
echo "pytorch process (all modes, incl. compilation): $("${python}" -c "print(f'{${end} - ${start}:.1f}')") s"
start="$(now)"
"${python}" "${repo}/bench/cuda/peer_pytorch_gpu.py" --data "${work}/data" --epochs "${epochs}" \
  --rounds 1 --modes eager >/dev/null
end="$(now)"
peer_eager_process="$("${python}" -c "print(f'{${end} - ${start}:.3f}')")"

echo "== the reference run (early stopping, then test)"
read -r ref_train ref_process ref_rate ref_epochs < <(strand_round reference)
grep -iE "^test|auROC|auPRC" "${work}/reference.log" | head -5 || true

"${python}" - "${strand_train[*]}" "${strand_process[*]}" "${peer_out}" "${peer_eager_process}" \
  "${ref_train}" "${ref_process}" "${ref_epochs}" <<'PY'
import re, statistics, sys
train = statistics.median(float(v) for v in sys.argv[1].split())
process = statistics.median(float(v) for v in sys.argv[2].split())
peers = {m: float(w) for m, w in re.findall(r"^(\S+): training ([0-9.]+) s", open(sys.argv[3]).read(), re.M)}
ref_train, ref_process, ref_epochs = float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
print("\n== summary (training = same work on both sides; medians)")
print(f"strand training {train:.3f} s; process {process:.2f} s (PyTorch eager process {float(sys.argv[4]):.2f} s)")
for mode, target in (("eager", 5.0), ("compile", 1.5), ("max-autotune", 1.5)):
    if mode in peers:
        ratio = peers[mode] / train
        print(f"pytorch {mode:13s} training {peers[mode]:.3f} s -> strand {ratio:.2f}x "
              f"(target >= {target}x: {'met' if ratio >= target else 'MISSED'})")
print(f"reference run: training {ref_train:.3f} s over {ref_epochs} epochs (target <= 1 s: "
      f"{'met' if ref_train <= 1.0 else 'MISSED'}); process {ref_process:.2f} s")
PY
