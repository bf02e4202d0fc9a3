#!/usr/bin/env bash
# Prints an `export LD_LIBRARY_PATH=...` line that adds the folders holding the CUDA 13 runtime
# libraries strand needs (libcudart, libcublas, libcudnn, libnccl), searched in the system's
# library folders, /usr/local/cuda and the nvidia-* Python wheels of every python3 on PATH.
# Use: eval "$(bin/cuda_library_path.sh)"
set -uo pipefail
folders=()
add() { [ -d "$1" ] && [[ " ${folders[*]-} " != *" $1 "* ]] && folders+=("$1"); }
for folder in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
              /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu; do
  add "$folder"
done
for python in python3 /opt/*/.venv/bin/python3; do
  command -v "$python" >/dev/null 2>&1 || continue
  site=$("$python" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null) || continue
  for dir in $site; do
    for lib in "$dir"/nvidia/*/lib "$dir"/nvidia/cu13/lib; do add "$lib"; done
  done
done
found=()
for name in libcudart.so.13 libcublas.so.13 libcudnn.so.9 libnccl.so.2; do
  hit=""
  for folder in "${folders[@]}"; do
    if [ -e "$folder/$name" ]; then hit="$folder"; break; fi
  done
  if [ -n "$hit" ]; then
    [[ " ${found[*]-} " == *" $hit "* ]] || found+=("$hit")
  else
    echo "echo 'cuda_library_path: $name not found' >&2"
  fi
done
joined=$(IFS=:; echo "${found[*]-}")
echo "export LD_LIBRARY_PATH=\"${joined}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
