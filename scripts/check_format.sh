#!/usr/bin/env bash
# Fails when a tracked C++/CUDA file is not clang-formatted (.clang-format, Google base).
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.h' '*.hpp' '*.cpp' '*.cc' '*.cu' '*.cuh')
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
clang-format --dry-run -Werror $files
echo "clang-format: all $(echo "$files" | wc -l) files formatted"
