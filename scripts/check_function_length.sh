#!/usr/bin/env bash
# Fails when, outside tests/ and bench/ (and third_party/, build*/):
# - a function that branches is longer than 100 lines by lizard's count
#   (https://pypi.org/project/lizard/): a long branching function is a flow to split into its
#   steps. Tables (one expression, cyclomatic complexity 1) may be as long as their rows.
# - a source file (.cpp, .cc, .h, .hpp, .cu, .cuh, .py) is longer than 800 lines: one concept
#   per file.
# The exceptions are listed, each with its reason and issue, in scripts/length_allowlist.txt;
# an entry that is no longer needed fails the check too, so the list only shrinks.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m lizard --version >/dev/null 2>&1 || python3 -m pip install --quiet lizard
git ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.cc' '*.h' '*.hpp' '*.cu' '*.cuh' '*.py' \
  ':!:tests/' ':!:bench/' ':!:third_party/' ':!:build*/' |
  python3 scripts/length_guard.py --max-function-lines 100 --max-file-lines 800 \
    --allowlist scripts/length_allowlist.txt
