#!/usr/bin/env bash
# `strand` with no arguments at all trains the reference experiment: one run directory under
# ./runs with a report whose test auROC shows the TAL1 motif was learnt.
#   run_without_arguments.sh STRAND_BINARY
set -euo pipefail
strand="$1"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
cd "${work}"
"${strand}" >log.txt 2>&1 || { cat log.txt; exit 1; }
reports=(runs/*/report.json)
[[ ${#reports[@]} -eq 1 && -f "${reports[0]}" ]] || { echo "expected one run directory"; ls -R; exit 1; }
grep -q "Conv1D" "${reports[0]%/report.json}/config.json" || { echo "not the reference model"; exit 1; }
# The reference reaches a test auROC near 0.97; 0.9 leaves room for other machines' roundings.
auroc=$(sed -n '/"auroc"/ { s/.*"auroc": *\([0-9.]*\).*/\1/p; q }' "${reports[0]}")
awk -v a="${auroc:-0}" 'BEGIN { exit !(a > 0.9) }' || { echo "test auROC ${auroc:-missing}"; exit 1; }
echo "reference run: test auROC ${auroc}"
