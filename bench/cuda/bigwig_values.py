"""Every base's value of a bigWig file, with numpy and zlib alone: the GPU host has no pyBigWig
and no network (bench/cuda/peer_pytorch_gpu.py --model bpnet reads strand simulate's profile
tracks with it). Follows the bbi layout of UCSC's bigWig format (Kent et al. 2010): the header,
the chromosome B+ tree, the R-tree index of data blocks, each block a zlib-compressed section of
bedGraph, variableStep or fixedStep items. Bases with no item read 0, as in strand's
BigWigReader (data/signals/bigwig.h), and so do NaN values.

    python bench/cuda/bigwig_values.py FILE.bw [--check-pybigwig]   # per-contig sums

--check-pybigwig compares every base with pyBigWig's values (where pyBigWig is installed).
"""
import argparse
import struct
import sys
import zlib

import numpy as np

_MAGIC = 0x888FFC26
_CHROM_TREE_MAGIC = 0x78CA8C91
_RTREE_MAGIC = 0x2468ACE0


class BigWigError(ValueError):
    pass


def _chromosomes(data, endian, offset):
    """{chrom id: (name, length)} from the chromosome B+ tree at `offset`."""
    magic, _, key_size, _, _ = struct.unpack_from(endian + "IIIIQ", data, offset)
    if magic != _CHROM_TREE_MAGIC:
        raise BigWigError("bad chromosome tree magic")
    chroms = {}
    stack = [offset + 32]
    while stack:
        node = stack.pop()
        is_leaf, _, count = struct.unpack_from(endian + "BBH", data, node)
        item = node + 4
        for _ in range(count):
            key = data[item:item + key_size].split(b"\0", 1)[0].decode()
            if is_leaf:
                chrom_id, length = struct.unpack_from(endian + "II", data, item + key_size)
                chroms[chrom_id] = (key, length)
                item += key_size + 8
            else:
                (child,) = struct.unpack_from(endian + "Q", data, item + key_size)
                stack.append(child)
                item += key_size + 8
    return chroms


def _blocks(data, endian, offset):
    """(offset, size) of every data block, from the R-tree index at `offset`."""
    magic = struct.unpack_from(endian + "I", data, offset)[0]
    if magic != _RTREE_MAGIC:
        raise BigWigError("bad R-tree index magic")
    blocks, stack = [], [offset + 48]
    while stack:
        node = stack.pop()
        is_leaf, _, count = struct.unpack_from(endian + "BBH", data, node)
        item = node + 4
        for _ in range(count):
            if is_leaf:
                blocks.append(struct.unpack_from(endian + "QQ", data, item + 16))
                item += 32
            else:
                stack.append(struct.unpack_from(endian + "Q", data, item + 16)[0])
                item += 24
    return sorted(blocks)


def _fill(values, block, endian):
    """Writes one data block's sections into values[chrom id] (float32 arrays)."""
    position = 0
    while position + 24 <= len(block):
        chrom_id, start, _, step, span, kind, _, count = struct.unpack_from(
            endian + "IIIIIBBH", block, position)
        position += 24
        out = values[chrom_id]
        if kind == 1:  # bedGraph: start, end, value
            items = np.frombuffer(block, np.dtype([("s", endian + "u4"), ("e", endian + "u4"),
                                                   ("v", endian + "f4")]), count, position)
            position += 12 * count
            starts, ends, item_values = items["s"].astype(np.int64), items["e"], items["v"]
        elif kind == 2:  # variableStep: start, value; span from the section
            items = np.frombuffer(block, np.dtype([("s", endian + "u4"), ("v", endian + "f4")]),
                                  count, position)
            position += 8 * count
            starts, item_values = items["s"].astype(np.int64), items["v"]
            ends = starts + span
        elif kind == 3:  # fixedStep: value; start and span from the section
            item_values = np.frombuffer(block, endian + "f4", count, position)
            position += 4 * count
            starts = start + step * np.arange(count, dtype=np.int64)
            ends = starts + span
        else:
            raise BigWigError(f"unknown section type {kind}")
        ends = np.minimum(ends.astype(np.int64), len(out))
        lengths = np.maximum(ends - starts, 0)
        if lengths.size and lengths.max() == 1:
            keep = lengths == 1
            out[starts[keep]] = item_values[keep]
            continue
        # Each item's bases: starts repeated over their lengths plus 0, 1, ... within each.
        first = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        out[first + np.arange(int(lengths.sum()))] = np.repeat(item_values, lengths)


def read_bigwig(path):
    """{contig: float32 array of its length} for every contig of the bigWig file `path`."""
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) < 64:
        raise BigWigError(f"{path}: too short for a bigWig header")
    endian = "<" if struct.unpack_from("<I", data)[0] == _MAGIC else ">"
    if struct.unpack_from(endian + "I", data)[0] != _MAGIC:
        raise BigWigError(f"{path}: not a bigWig file (magic)")
    (_, _, _, chrom_tree, _, index, _, _, _, _, uncompressed, _) = struct.unpack_from(
        endian + "IHHQQQHHQQIQ", data)
    try:
        chroms = _chromosomes(data, endian, chrom_tree)
        values = {chrom: np.zeros(length, np.float32) for chrom, (_, length) in chroms.items()}
        for offset, size in _blocks(data, endian, index):
            block = data[offset:offset + size]
            _fill(values, zlib.decompress(block) if uncompressed else block, endian)
    except (struct.error, zlib.error, KeyError, IndexError) as error:
        raise BigWigError(f"{path}: unreadable bigWig ({error!r})") from error
    result = {}
    for chrom_id, (name, _) in chroms.items():
        result[name] = np.nan_to_num(values[chrom_id], nan=0.0)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--check-pybigwig", action="store_true")
    args = parser.parse_args()
    contigs = read_bigwig(args.path)
    for name, values in contigs.items():
        print(f"{name}\t{len(values)}\t{float(values.sum(dtype=np.float64)):.6g}")
    if args.check_pybigwig:
        import pyBigWig
        bw = pyBigWig.open(args.path)
        worst = 0.0
        for name, length in bw.chroms().items():
            theirs = np.nan_to_num(np.asarray(bw.values(name, 0, length, numpy=True), np.float32))
            worst = max(worst, float(np.max(np.abs(theirs - contigs[name]))))
        print(f"max |difference| against pyBigWig: {worst:g}")
        sys.exit(0 if worst == 0.0 else 1)


if __name__ == "__main__":
    main()
