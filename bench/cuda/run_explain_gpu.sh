#!/usr/bin/env bash
# `strand explain` on one GPU (issue 25's comparisons on the GPU): BPNet's counts head, its ISM
# and DeepLIFT/SHAP with 20 shuffles on DEVICE against the same commands on this host's CPU
# (ISM's windowed fast path there), and ISM against PyTorch on the same DEVICE
# (bench/cuda/peer_ism_gpu.py: batched brute force, tangermeme's plain path; tangermeme itself
# does not travel in the GPU bundle). Prints timings, the largest differences, and RESULT lines.
#
# Usage: bench/cuda/run_explain_gpu.sh
# Environment: STRAND_BIN (strand), PYTHON (python3 with torch), DEVICE (cuda; cpu rehearses the
# script without a GPU), RUN (a BPNet run: config.json and checkpoints/best.safetensors, as
# bench/explain/prepare_runs.sh trains it; the GPU bundle carries one in share/strand/explain),
# FASTA (its sequences of 2,114 bp), POSITIONS (ISM's range, START-END; default: all), WORK (a
# folder for the outputs; default: a temporary one).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
strand="${STRAND_BIN:-strand}"
python="${PYTHON:-python3}"
device="${DEVICE:-cuda}"
run="${RUN:?RUN: a BPNet run directory}"
fasta="${FASTA:?FASTA: its sequences}"
positions=()
[ -n "${POSITIONS:-}" ] && positions=(--positions "$POSITIONS")
work="${WORK:-$(mktemp -d)}"
mkdir -p "$work"

# seconds NAME COMMAND...: runs it, prints its log's last line, keeps its wall time in $NAME.
seconds() {
  local name="$1" began
  shift
  began=$EPOCHREALTIME # bash's clock: GPU hosts have no bc
  "$@" >"$work/$name.log" 2>&1 || { echo "$name failed:"; tail -5 "$work/$name.log"; exit 1; }
  printf -v "$name" '%s' "$(awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
  echo "$name: ${!name} s ($(tail -1 "$work/$name.log"))"
}
explain=("$strand" explain --model "$run" --fasta "$fasta" --output counts)
# A rehearsal on the CPU takes the brute force that a GPU gets, so that the script's paths run.
device_path=()
[ "$device" = cpu ] && device_path=(--ism-path brute)

seconds ism_device "${explain[@]}" --method ism "${positions[@]}" --device "$device" \
  "${device_path[@]}" --out "$work/ism_device.npz"
seconds ism_cpu "${explain[@]}" --method ism "${positions[@]}" --device cpu \
  --out "$work/ism_cpu.npz"
seconds shap_device "${explain[@]}" --method deeplift_shap --references 20 --seed 1 \
  --device "$device" --save-references "$work/refs.fa" --out "$work/shap_device.npz"
seconds shap_cpu "${explain[@]}" --method deeplift_shap --reference-fasta "$work/refs.fa" \
  --device cpu --out "$work/shap_cpu.npz"
"$python" "$repo/bench/cuda/peer_ism_gpu.py" --run "$run" --fasta "$fasta" --device "$device" \
  ${POSITIONS:+--positions "$POSITIONS"} --compare "$work/ism_device.npz" | tee "$work/peer.txt"
peer=$(sed -n 's/^pytorch ism: \([0-9.]*\) s.*/\1/p' "$work/peer.txt")

differences=$("$python" - "$work" <<'EOF'
import sys
import numpy as np
work = sys.argv[1]
for method in ("ism", "shap"):
    a = np.load(f"{work}/{method}_device.npz")["arr_0"]
    b = np.load(f"{work}/{method}_cpu.npz")["arr_0"]
    print(f"{method}: device vs cpu max |difference| {np.abs(a - b).max():.3g} "
          f"(max |score| {np.abs(b).max():.3g})")
EOF
)
echo "$differences"
sequences=$(grep -c '^>' "$fasta")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
echo "RESULT explain ism ($sequences BPNet sequences${POSITIONS:+, positions $POSITIONS}): strand $device ${ism_device} s (brute force), strand cpu ${ism_cpu} s (fast path), PyTorch $device ${peer} s (brute force, passes only): PyTorch/strand $(ratio "$peer" "$ism_device")x; $(echo "$differences" | head -1)"
echo "RESULT explain deeplift_shap (20 shuffles): strand $device ${shap_device} s, strand cpu ${shap_cpu} s: cpu/$device $(ratio "$shap_cpu" "$shap_device")x; $(echo "$differences" | tail -1)"
