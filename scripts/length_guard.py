#!/usr/bin/env python3
"""The length rules of scripts/check_function_length.sh, over the files named on stdin.

Reads NUL-separated paths (git ls-files -z) and fails (exit 1) when a function that branches
(cyclomatic complexity > 1) is longer than --max-function-lines by lizard's count, or a file is
longer than --max-file-lines, unless the allowlist names it. An allowlist entry that names
nothing over its limit fails too: the exception is no longer needed, remove it.

Allowlist lines ('#' starts a comment):
    file PATH -- REASON (issue N)
    function PATH NAME -- REASON (issue N)
NAME is lizard's name of the function (e.g. strand::alternates::WindowedChanges::make); the
reason must name the issue that removes the exception.
"""
import argparse
import csv
import pathlib
import re
import subprocess
import sys


def read_allowlist(path):
    """{(kind, path, name or ""): (line number, reason)}; exits on a malformed line."""
    entries = {}
    for number, raw in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        spec, sep, reason = line.partition(" -- ")
        words = spec.split()
        valid = sep and words and (
            (words[0] == "file" and len(words) == 2) or (words[0] == "function" and len(words) == 3))
        if not valid or not re.search(r"\bissue \d+", reason):
            sys.exit(f"{path}:{number}: expected 'file PATH -- REASON (issue N)' or "
                     f"'function PATH NAME -- REASON (issue N)', found '{raw}'")
        key = (words[0], words[1], words[2] if len(words) == 3 else "")
        if key in entries:
            sys.exit(f"{path}:{number}: '{spec.strip()}' is listed twice (line {entries[key][0]})")
        entries[key] = (number, reason.strip())
    return entries


def long_functions(files, limit):
    """[(path, line, name, length, ccn)] of the branching functions over `limit` lines."""
    if not files:
        return []
    out = subprocess.run([sys.executable, "-m", "lizard", "--csv", *files], check=True,
                         capture_output=True, text=True).stdout
    # lizard's CSV: NLOC, CCN, tokens, parameters, length, location, file, name, long name,
    # start, end.
    return [(row[6], int(row[9]), row[7], int(row[4]), int(row[1]))
            for row in csv.reader(out.splitlines())
            if int(row[1]) > 1 and int(row[4]) > limit]


def long_files(files, limit):
    """[(path, lines)] of the files over `limit` lines."""
    out = []
    for path in files:
        with open(path, "rb") as f:
            lines = sum(1 for _ in f)
        if lines > limit:
            out.append((path, lines))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-function-lines", type=int, required=True)
    parser.add_argument("--max-file-lines", type=int, required=True)
    parser.add_argument("--allowlist", required=True)
    args = parser.parse_args()
    files = sorted(p for p in sys.stdin.read().split("\0") if p and pathlib.Path(p).is_file())
    allowed = read_allowlist(args.allowlist)
    used = set()
    failures = []
    for path, line, name, length, ccn in long_functions(files, args.max_function_lines):
        what = f"{path}:{line}: {name} is {length} lines long (cyclomatic complexity {ccn})"
        key = ("function", path, name)
        if key in allowed:
            used.add(key)
            print(f"allowed: {what}: {allowed[key][1]}")
        else:
            failures.append(f"{what}: split it (at most {args.max_function_lines} lines)")
    for path, lines in long_files(files, args.max_file_lines):
        key = ("file", path, "")
        if key in allowed:
            used.add(key)
            print(f"allowed: {path} has {lines} lines: {allowed[key][1]}")
        else:
            failures.append(f"{path} has {lines} lines: split it (at most "
                            f"{args.max_file_lines} lines a file)")
    for key in sorted(set(allowed) - used):
        kind, path, name = key
        failures.append(f"{args.allowlist}:{allowed[key][0]}: {kind} {path} {name}".rstrip()
                        + " is within its limit (or gone): remove the entry")
    for failure in failures:
        print(failure)
    if failures:
        sys.exit(f"length guard: {len(failures)} problem(s) outside tests/ and bench/")
    print(f"length guard: {len(files)} files; every branching function has at most "
          f"{args.max_function_lines} lines and every file at most {args.max_file_lines}, "
          f"but {len(used)} allowlisted exception(s)")


if __name__ == "__main__":
    main()
