#!/usr/bin/env bash
# Prints the Python interpreter of the peers' virtual environment, creating it first when
# needed: the current PyTorch 2.x from PyPI (Debian's python3-torch is 1.13) and numpy.
#
#   python="$(bash bench/peer_env.sh)"
#
# Environment: PEER_VENV (build-bench/peer-venv), PEER_PACKAGES ("torch numpy"), PEER_EXTRA
# (more packages a peer needs, e.g. "pyBigWig": installed into the environment, new or existing,
# when pip does not list them). The first run downloads PyTorch (about 1 GB with its CUDA
# wheels); later runs reuse the environment.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${PEER_VENV:-${repo}/build-bench/peer-venv}"
packages="${PEER_PACKAGES:-torch numpy}"
if [[ ! -x "${venv}/bin/python" ]] || ! "${venv}/bin/python" -c "import torch, numpy" 2>/dev/null; then
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c "import ensurepip" 2>/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
  fi
  python3 -m venv "${venv}" >&2
  # shellcheck disable=SC2086
  "${venv}/bin/pip" install --quiet --upgrade ${packages} >&2
fi
for package in ${PEER_EXTRA:-}; do
  if ! "${venv}/bin/pip" show --quiet "${package}" >/dev/null 2>&1; then
    "${venv}/bin/pip" install --quiet "${package}" >&2
  fi
done
echo "${venv}/bin/python"
