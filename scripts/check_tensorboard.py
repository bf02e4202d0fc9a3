#!/usr/bin/env python3
"""Checks strand's TensorBoard event files with TensorBoard's own reader.

Needs the `tensorboard` package (pip install tensorboard; the pyenv python 3.11 on PATH).
Runs the C++ test "SummaryWriter writes a readable event file" with STRAND_KEEP_EVENTS_DIR
pointing at a temporary directory, then loads the file with EventAccumulator and compares
tags, steps and values with what the test writes:
  loss/train     = 1/(step+1)        for steps 0..9
  accuracy/valid = 0.5 + 0.04*step   for steps 0, 2, 4, 6, 8

Usage: python3 scripts/check_tensorboard.py [path/to/test_train]   (default build/tests/test_train)
"""
import math
import os
import re
import pathlib
import struct
import subprocess
import sys
import tempfile

from tensorboard.backend.event_processing import event_accumulator
from tensorboard.compat.proto import event_pb2

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEST_NAME = "SummaryWriter writes a readable event file"


def expected():
    loss = {s: 1.0 / (s + 1) for s in range(10)}
    acc = {s: 0.5 + 0.04 * s for s in range(0, 10, 2)}
    return {"loss/train": loss, "accuracy/valid": acc}


def main():
    binary = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build/tests/test_train"
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, STRAND_KEEP_EVENTS_DIR=tmp, STRAND_SOURCE_DIR=str(ROOT))
        run = subprocess.run([str(binary), f"--test-case={TEST_NAME}"], env=env, check=True,
                             capture_output=True, text=True)
        # doctest exits 0 when the filter matches nothing, so insist that one case ran.
        assert re.search(r"test cases: +1 \| +1 passed", run.stdout), run.stdout
        files = sorted(pathlib.Path(tmp).glob("events.out.tfevents.*"))
        assert len(files) == 1, f"expected one event file, found {files}"
        print(f"event file: {files[0].name} ({files[0].stat().st_size} bytes)")

        # 1) TensorBoard's loader (the one the TensorBoard UI uses).
        acc = event_accumulator.EventAccumulator(tmp)
        acc.Reload()
        tags = sorted(acc.Tags()["scalars"])
        want = expected()
        assert tags == sorted(want), f"tags {tags} != {sorted(want)}"
        for tag, values in want.items():
            events = acc.Scalars(tag)
            got = {e.step: e.value for e in events}
            assert sorted(got) == sorted(values), f"{tag}: steps {sorted(got)}"
            for step, v in values.items():
                # simple_value is float32.
                f32 = struct.unpack("<f", struct.pack("<f", v))[0]
                assert got[step] == f32, f"{tag} step {step}: {got[step]} != {f32}"
                assert math.isfinite(events[0].wall_time) and events[0].wall_time > 1.5e9
            print(f"{tag}: {len(events)} points OK, steps {sorted(got)}")

        # 2) Raw record reader with CRC verification, plus the first record's file_version.
        from tensorboard.backend.event_processing import event_file_loader
        loader = event_file_loader.RawEventFileLoader(str(files[0]))
        records = list(loader.Load())
        first = event_pb2.Event.FromString(records[0])
        assert first.file_version == "brain.Event:2", first
        print(f"records: {len(records)}, first file_version={first.file_version!r}")
    print("check_tensorboard: OK")


if __name__ == "__main__":
    main()
