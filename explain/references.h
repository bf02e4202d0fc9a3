// The references of DeepLIFT/SHAP: what each sequence's attributions are measured against.
// Seeded dinucleotide shuffles of the sequence itself (the field's default: a shuffle keeps the
// GC content and CpG frequency but breaks the motifs), or references given as codes (read from a
// FASTA by the command line, e.g. ones another tool drew).
#pragma once

#include <cstdint>
#include <functional>

#include "tensor/tensor.h"

namespace strand::explain {

/// Writes the `count` references of sequence `index` (its `length` codes at `sequence`) to `out`,
/// (count, length) codes.
using ReferenceFunction = std::function<void(int64_t index, const uint8_t* sequence, int64_t length,
                                             int64_t count, uint8_t* out)>;

/// Dinucleotide shuffles (data/dinucleotide_shuffle.h): reference k of sequence `index` is the
/// shuffle drawn with key mix_key(seed, index, k), the same whatever the batch or thread.
ReferenceFunction dinucleotide_shuffles(uint64_t seed);

/// The references in `codes` ((N, R, L) uint8): sequence i gets its R rows; asking for another
/// count, another length or a sequence past N throws naming the numbers.
ReferenceFunction given_references(Tensor codes);

}  // namespace strand::explain
