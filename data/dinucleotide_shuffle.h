// Dinucleotide shuffles: random sequences that keep every dinucleotide count of a sequence
// (Altschul & Erickson 1985, the shuffle of fasta-shuffle-letters -kmer 2, uShuffle and
// tangermeme's dinucleotide_shuffle). They are the references of DeepLIFT/SHAP and the
// backgrounds of marginalisation and variant null distributions: a shuffle keeps a sequence's
// GC content and CpG frequency but destroys its motifs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "data/counter_rng.h"

namespace strand::data {

/// Writes to `out` (n bytes) a sequence drawn uniformly among those with exactly the
/// dinucleotide counts of `codes` (n bytes of base codes, N included as a fifth letter) and the
/// same first base (hence the same last base and base counts). Draws from `rng` only, so one
/// key gives one shuffle on every platform and thread. `out` must not overlap `codes`.
void dinucleotide_shuffle(const uint8_t* codes, size_t n, uint8_t* out, CounterRng& rng);

/// The shuffle of `codes` drawn with CounterRng(key).
std::basic_string<uint8_t> dinucleotide_shuffle(std::basic_string_view<uint8_t> codes,
                                                uint64_t key);

}  // namespace strand::data
