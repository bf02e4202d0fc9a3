#!/usr/bin/env bash
# Checks the Python package as a user gets it: `pip wheel .` builds a wheel, a fresh virtual
# environment installs it, and `import strand` predicts with a model trained there, with the
# type stubs in place. Not part of CTest (it rebuilds the whole library,
# ~10 minutes on 2 cores); run it after changing python/, pyproject.toml or the CMake files.
#
#   bash scripts/check_python_package.sh [WORK_DIR]
#
# Needs the Debian packages of scripts/quickstart.sh (python3-dev, python3-venv among them) and
# PyPI. CMAKE_CXX_COMPILER_LAUNCHER=ccache in the environment speeds up a repeated build.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "${work}"
python3 -m venv "${work}/venv"
"${work}/venv/bin/pip" install --quiet --upgrade pip
start=$(date +%s)
"${work}/venv/bin/pip" wheel --no-deps --wheel-dir "${work}/wheels" "${repo}"
echo "pip wheel: $(($(date +%s) - start)) s"
wheel="$(ls "${work}"/wheels/strand-*.whl)"
python3 -m zipfile -l "${wheel}" | awk '{print $1}' | grep -E '^strand/' | sort
members="$(python3 -m zipfile -l "${wheel}")"
for member in strand/__init__.py strand/_strand.pyi strand/py.typed strand/explain.py \
  strand/variants.py; do
  grep -q "^${member} " <<<"${members}" || { echo "missing ${member}" >&2; exit 1; }
done
"${work}/venv/bin/pip" install --quiet "${wheel}"
cd "${work}"  # not the repository: the installed package must stand alone
env -u STRAND_SOURCE_DIR "${work}/venv/bin/python" - <<'PY'
import numpy as np
import strand

run = strand.train("reference", n_pos=100, n_neg=100, length=100, validation=50, test=50,
                   epochs=1, batch_size=50, output_dir="runs", interactive=False)
model = strand.load(run.run_dir)
scores = model.predict(["ACGT" * 25, "TTGA" * 25])
assert scores.shape == (2, 1) and scores.dtype == np.float32
print("installed strand:", strand.__file__, "scores:", scores.ravel())
PY
echo "check_python_package: OK"
