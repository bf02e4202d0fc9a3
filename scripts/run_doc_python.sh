#!/usr/bin/env bash
# Runs every ```python block of a Markdown page, in order, in one Python process, as a notebook
# runs its cells: what the Python tutorial's CTest case does, so that docs/python.md and what it
# promises cannot drift apart (scripts/run_doc_commands.sh does the same for shell pages).
#
#   scripts/run_doc_python.sh docs/python.md PYTHON
#
# PYTHON must import strand (an installed package, or PYTHONPATH=<build>/python). The blocks run
# in a scratch directory holding a copy of the repository's examples/ (the page uses paths
# relative to the repository's root); the directory is removed afterwards.
set -euo pipefail
page="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
python="$2"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
cp -R "${repo}/examples" "${work}/examples"  # a copy: strand writes indexes beside FASTAs
awk '/^```python$/ { inside = 1; next } /^```/ { inside = 0; next } inside { print }' "${page}" \
  > "${work}/cells.py"
[[ -s "${work}/cells.py" ]] || { echo "${page} has no python block" >&2; exit 2; }
cd "${work}"
"${python}" -u cells.py
