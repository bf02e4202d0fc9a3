#!/usr/bin/env python3
"""Checks that files from strand's safetensors writer load in the reference `safetensors` package.

Needs `safetensors` and numpy (pip install safetensors; the pyenv python 3.11 on PATH).
Runs the C++ test "safetensors round trip ..." with STRAND_KEEP_SAFETENSORS_DIR set, then loads
reference.safetensors with safetensors.numpy.load_file and safe_open (for metadata) and compares
with the values tests/io/safetensors_test.cpp writes (reference_entries()).

Usage: python3 scripts/check_safetensors.py [path/to/test_io]   (default build/tests/test_io)
"""
import json
import math
import os
import re
import pathlib
import struct
import subprocess
import sys
import tempfile

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEST_NAME = "safetensors round trip through a file keeps every field"

EXPECTED = {
    "conv1.weight": np.array([0.5 * i - 1.0 for i in range(6)], dtype=np.float32).reshape(2, 3),
    "conv1.bias": np.array([1e-300, -2.5, math.pi], dtype=np.float64),
    "codes": np.array([0, 1, 2, 3, 4], dtype=np.uint8),
    "index": np.array([-1, 2, -3, 2147483647], dtype=np.int32).reshape(2, 2),
    "step": np.array((1 << 40) + 7, dtype=np.int64),
    "empty": np.zeros((0, 4), dtype=np.float32),
}
METADATA = {"format": "strand", "epoch": "3"}


def main():
    binary = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build/tests/test_io"
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, STRAND_KEEP_SAFETENSORS_DIR=tmp, STRAND_SOURCE_DIR=str(ROOT))
        run = subprocess.run([str(binary), f"--test-case={TEST_NAME}"], env=env, check=True,
                             capture_output=True, text=True)
        # doctest exits 0 when the filter matches nothing, so insist that one case ran.
        assert re.search(r"test cases: +1 \| +1 passed", run.stdout), run.stdout
        path = pathlib.Path(tmp) / "reference.safetensors"
        print(f"file: {path.name} ({path.stat().st_size} bytes)")
        tensors = load_file(str(path))
        assert sorted(tensors) == sorted(EXPECTED), sorted(tensors)
        for name, want in EXPECTED.items():
            got = tensors[name]
            assert got.dtype == want.dtype, f"{name}: dtype {got.dtype} != {want.dtype}"
            assert got.shape == want.shape, f"{name}: shape {got.shape} != {want.shape}"
            assert np.array_equal(got, want), f"{name}: {got} != {want}"
            print(f"  {name:13s} {str(got.dtype):8s} shape={got.shape} OK")
        with safe_open(str(path), framework="numpy") as f:
            assert f.metadata() == METADATA, f.metadata()
        print(f"  metadata {METADATA} OK")
        raw = path.read_bytes()
        (n,) = struct.unpack("<Q", raw[:8])
        assert n % 8 == 0, n
        json.loads(raw[8:8 + n])
        print(f"  header length {n} (multiple of 8) OK")
    print("check_safetensors: OK")


if __name__ == "__main__":
    main()
