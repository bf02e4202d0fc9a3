#!/usr/bin/env bash
# Checks the Python package as a user installs it from source: in a fresh virtual environment,
# `pip install .` (build isolation on: pip installs pyproject.toml's build requirements into a
# new environment, as it does for any user), then, from an empty folder, `import strand` trains
# a small model and predicts with it, with the type stubs in place. The build is the whole
# library (~10 minutes on 2 cores): scikit-build-core starts each isolated build from an empty
# CMake cache. CI runs it after scripts/make_wheel.sh with that script's settings and CMake tree
# under ccache, so that only the extension's compile lines miss the cache.
#
#   bash scripts/check_python_package.sh [WORK_DIR]
#
# Environment: PYTHON (python3), STRAND_PIP_BUILD_DIR (the CMake tree, e.g.
# build-wheel/{wheel_tag}; default: pyproject.toml's build-pip/{wheel_tag}), and pyproject.toml's
# options (STRAND_NATIVE, STRAND_CPU_ARCH, STRAND_CUDA, STRAND_MPI).
# CMAKE_CXX_COMPILER_LAUNCHER=ccache speeds up a repeated build. Needs the Debian packages of
# scripts/quickstart.sh (python3-dev, python3-venv among them) and PyPI.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$(mktemp -d)}"
python="${PYTHON:-python3}"
mkdir -p "${work}"
rm -rf "${work}/venv"
"${python}" -m venv "${work}/venv"
"${work}/venv/bin/pip" install --quiet --upgrade pip
build_dir=()
if [ -n "${STRAND_PIP_BUILD_DIR:-}" ]; then
  build_dir=(--config-settings=build-dir="${STRAND_PIP_BUILD_DIR}")
fi
start=$(date +%s)
# As docs/python.md tells users: no --no-build-isolation, no pre-installed build requirements.
(cd "${repo}" && "${work}/venv/bin/pip" install "${build_dir[@]}" .)
echo "pip install .: $(($(date +%s) - start)) s"
mkdir -p "${work}/empty"
cd "${work}/empty"  # not the repository: the installed package must stand alone
env -u STRAND_SOURCE_DIR -u PYTHONPATH "${work}/venv/bin/python" - <<'PY'
import os
import numpy as np
import strand

package = os.path.dirname(strand.__file__)
assert "site-packages" in package, package
for name in ("__init__.py", "_strand.pyi", "py.typed", "explain.py", "variants.py"):
    assert os.path.exists(os.path.join(package, name)), f"{name} is not installed in {package}"
run = strand.train("reference", n_pos=100, n_neg=100, length=100, validation=50, test=50,
                   epochs=1, batch_size=50, output_dir="runs", interactive=False)
model = strand.load(run.run_dir)
scores = model.predict(["ACGT" * 25, "TTGA" * 25])
assert scores.shape == (2, 1) and scores.dtype == np.float32 and np.isfinite(scores).all()
print("installed strand:", strand.__file__, "scores:", scores.ravel())
PY
echo "check_python_package: OK"
