// The model's input windows of a variant's two alleles, by chrombpnet's rule (variant-scorer's
// VariantGenerator): the window's first L/2 bases are the genome's bases before the variant,
// then the allele, then the genome's bases after REF, as many as fill the window. So REF and
// ALT both start at the window's centre (position L/2, 0-based), an insertion pushes the right
// flank out of the window and a deletion pulls more of it in.
//
//   source = genome[p - L/2, p - L/2 + L + max(0, |REF| - |ALT|))     p: 0-based REF start
//   ref    = source[0, L/2) + REF + source[L/2 + |REF|, L)
//   alt    = source[0, L/2) + ALT + source[L/2 + |REF|, L + |REF| - |ALT|)
//
// For a SNV or MNV (|REF| = |ALT|) the ref window is the genome's and the alt window differs
// from it at the allele only. Bases beyond a contig's ends are N.
#pragma once

#include <cstdint>
#include <string_view>

#include "alternates/alternate_batch.h"

namespace strand::variants {

/// The genome bases a variant's windows are cut from.
struct AlleleSource {
  int64_t start = 0;   ///< 0-based genome position of source[0] (negative near a contig start)
  int64_t length = 0;  ///< L + max(0, |REF| - |ALT|)
};

/// The bases of the variant at 1-based `position` with alleles `ref` and `alt` that its
/// windows of `length` bases are cut from.
AlleleSource allele_source(int64_t position, int64_t length, std::string_view ref,
                           std::string_view alt);

/// Whether both alleles fit in a window of `length` bases: each is at most L - L/2 bases (the
/// window from its centre to its end).
bool alleles_fit(int64_t length, std::string_view ref, std::string_view alt);

/// Writes the ref and alt windows (`length` codes each) from `source` (AlleleSource::length
/// codes). The alleles are text (A, C, G, T, N in either case) and must fit (alleles_fit()).
void build_allele_windows(const uint8_t* source, int64_t length, std::string_view ref,
                          std::string_view alt, uint8_t* ref_window, uint8_t* alt_window);

/// The bases [begin, end) of `length`-base windows where the alt window may differ from the
/// ref window: the allele for a SNV or MNV, from the centre to the end for an indel.
using ChangedRange = alternates::ColumnRange;
ChangedRange changed_range(int64_t length, std::string_view ref, std::string_view alt);

}  // namespace strand::variants
