#!/usr/bin/env bash
# strand motifs versus modisco-lite (issue 41), side by side on the same DeepLIFT/SHAP scores and
# the same thread count: wall and CPU time and peak memory of each (/usr/bin/time -v), and the
# patterns each finds, matched against the simulation's motifs (compare_patterns.py).
#
#   bash bench/motifs/run_motifs_bench.sh [small|large|all]
#
#   small  the reference experiment (`strand simulate`, TAL1_known4 in 500 bp; the reference
#          model `strand train` trains with no arguments): its test split's positives, about
#          2,000 sequences, explained with deeplift_shap (20 shuffled references)
#   large  50,000 sequences of 500 bp (the reference simulation with seeds 1, 2 and 3, every
#          split, positives and negatives) explained with the same model
#
# modisco-lite comes from PyPI into a virtual environment (MODISCO_VENV, default
# build-bench/modisco-venv). Both tools get THREADS (2) threads: strand --threads, modisco
# NUMBA_NUM_THREADS and OMP_NUM_THREADS. modisco runs `modisco motifs -n MAX_SEQLETS (20000)
# -w 500`, strand `strand motifs --max-seqlets MAX_SEQLETS`. A rerun with the same WORK_DIR reuses
# the model and the scores. Environment: STRAND (default build/cli/strand), WORK_DIR, THREADS,
# MAX_SEQLETS, MODISCO_VENV.
set -euo pipefail
cd "$(dirname "$0")/../.."
which="${1:-small}"
STRAND="$(realpath "${STRAND:-build/cli/strand}")"
THREADS="${THREADS:-2}"
MAX_SEQLETS="${MAX_SEQLETS:-20000}"
WORK_DIR="${WORK_DIR:-build-bench/motifs}"
MODISCO_VENV="${MODISCO_VENV:-build-bench/modisco-venv}"
mkdir -p "${WORK_DIR}"
if [[ ! -x "${MODISCO_VENV}/bin/modisco" ]]; then
  python3 -m venv "${MODISCO_VENV}"
  "${MODISCO_VENV}/bin/pip" install --quiet modisco-lite h5py
fi
PYTHON="${MODISCO_VENV}/bin/python"
"${PYTHON}" -c "import importlib.metadata as m; print('modisco-lite', m.version('modisco-lite'))"

# The reference model, trained once.
model="${WORK_DIR}/reference"
if [[ ! -f "${model}/run/checkpoints/best.safetensors" ]]; then
  mkdir -p "${model}"
  (cd "${model}" && "${STRAND}" simulate --out data > /dev/null &&
     "${STRAND}" train --threads "${THREADS}" --output-dir . --run-name run > train.log)
fi

# Peak memory and times of a command, from /usr/bin/time -v's report in $2.
summary() {
  awk -F': ' '/Elapsed/ {w=$2} /User time/ {u=$2} /System time/ {s=$2}
    /Maximum resident/ {m=$2} END {printf "wall %s, cpu %.1f s, peak %.0f MB\n", w, u+s, m/1024}' "$1"
}

run_both() {
  local name="$1" dir="${WORK_DIR}/$1"
  echo "== ${name}: $(grep -c '>' "${dir}/input.fa") sequences, ${THREADS} threads"
  if [[ ! -f "${dir}/shap.npz" ]]; then
    "${STRAND}" explain --model "${model}/run" --fasta "${dir}/input.fa" --method deeplift_shap \
      --task 0 --references 20 --threads "${THREADS}" --out "${dir}/shap.npz" > "${dir}/explain.log"
  fi
  /usr/bin/time -v "${STRAND}" motifs --scores "${dir}/shap.npz" --out "${dir}/strand" \
    --threads "${THREADS}" --max-seqlets "${MAX_SEQLETS}" > "${dir}/strand.log" 2> "${dir}/strand.time"
  echo "strand motifs:  $(summary "${dir}/strand.time")"
  NUMBA_NUM_THREADS="${THREADS}" OMP_NUM_THREADS="${THREADS}" /usr/bin/time -v \
    "${MODISCO_VENV}/bin/modisco" motifs -s "${dir}/shap_onehot.npz" -a "${dir}/shap.npz" \
    -n "${MAX_SEQLETS}" -w 500 -o "${dir}/modisco.h5" > "${dir}/modisco.log" 2> "${dir}/modisco.time"
  echo "modisco motifs: $(summary "${dir}/modisco.time")"
  "${PYTHON}" bench/motifs/compare_patterns.py "${dir}/strand/modisco_results.h5" \
    "${dir}/modisco.h5" "${model}/data/motifs.meme" --json "${dir}/compare.json"
}

if [[ "${which}" == small || "${which}" == all ]]; then
  mkdir -p "${WORK_DIR}/small"
  awk -F'\t' 'NR == FNR { if ($1 != "name" && $2 == 1) keep[$1] = 1; next }
    /^>/ { split(substr($1, 2), words, " "); take = (words[1] in keep) } take' \
    "${model}/data/test.tsv" \
    "${model}/data/test.fa" > "${WORK_DIR}/small/input.fa"
  run_both small
fi
if [[ "${which}" == large || "${which}" == all ]]; then
  mkdir -p "${WORK_DIR}/large"
  if [[ ! -f "${WORK_DIR}/large/input.fa" ]]; then
    for seed in 1 2 3; do
      "${STRAND}" simulate --seed "${seed}" --out "${WORK_DIR}/large/d${seed}" > /dev/null
    done
    for seed in 1 2 3; do  # the seeds' record names repeat: prefix them
      cat "${WORK_DIR}/large/d${seed}"/*.fa | sed "s/^>/>s${seed}_/"
    done | awk '/^>/ {n++} n <= 50000' > "${WORK_DIR}/large/input.fa"
  fi
  run_both large
fi
