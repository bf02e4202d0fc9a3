#!/usr/bin/env bash
# Fails when a function of cli/, app/ or python/src/ (the two front ends and the application
# layer between them and the library) that branches is longer than 100 lines by lizard's count
# (https://pypi.org/project/lizard/): a command is "parse from the table, build, call the
# library", and a long branching function there means a flow to split. Tables (one expression,
# cyclomatic complexity 1) may be as long as their rows.
set -euo pipefail
cd "$(dirname "$0")/.."
max_lines=100
python3 -m lizard --version >/dev/null 2>&1 || python3 -m pip install --quiet lizard
# lizard's CSV: NLOC, CCN, tokens, parameters, length, location, file, name, long name, start,
# end.
python3 -m lizard --csv cli/ app/ python/src/ | python3 -c '
import csv, sys
limit = int(sys.argv[1])
long = [row for row in csv.reader(sys.stdin) if int(row[1]) > 1 and int(row[4]) > limit]
for row in long:
    print(f"{row[6]}:{row[9]}: {row[7]} is {row[4]} lines long (cyclomatic complexity {row[1]})")
if long:
    sys.exit(f"{len(long)} branching function(s) of cli/, app/ and python/src/ over {limit} lines: split them")
print(f"function length: every branching function of cli/, app/ and python/src/ has at most {limit} lines")
' "$max_lines"
