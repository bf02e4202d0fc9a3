#!/usr/bin/env bash
# Runs every ```sh block of a Markdown page, in order, as one script: what the tutorial's CTest
# case does, so that the page and what it promises cannot drift apart.
#
#   scripts/run_doc_commands.sh docs/tutorial.md build/cli
#
# The blocks run with `set -euo pipefail` in a scratch directory that holds a copy of the
# repository's examples/ (the pages use paths relative to the repository's root), with the
# directory of the `strand` program first on PATH. The scratch directory is removed afterwards.
set -euo pipefail
page="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
strand_dir="$(cd "$2" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ -x "${strand_dir}/strand" ]] || { echo "no strand program in ${strand_dir}" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
cp -R "${repo}/examples" "${work}/examples"  # a copy: strand writes indexes beside FASTAs
# The sh blocks, each line of each block as written.
awk '/^```sh$/ { inside = 1; next } /^```/ { inside = 0; next } inside { print }' "${page}" \
  > "${work}/commands.sh"
[[ -s "${work}/commands.sh" ]] || { echo "${page} has no sh block" >&2; exit 2; }
# Under pipefail, `producer | head -N` fails whenever head exits before the producer's last
# write (SIGPIPE): a race that passes or fails by timing. Pages peek with `sed -n 1,Np`, which
# reads its whole input.
if grep -n '|[[:space:]]*head\b' "${work}/commands.sh" >&2; then
  echo "${page}: a pipe into head (above) can fail by timing under pipefail; use sed -n 1,Np" >&2
  exit 2
fi
cd "${work}"
PATH="${strand_dir}:${PATH}" bash -euo pipefail -x commands.sh
