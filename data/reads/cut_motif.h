// The check of a cut track's shift, after chrombpnet's build_pwm_from_bigwig: the base
// composition of a window around every cut, weighted by its count, per strand. An enzyme's
// sequence preference (Tn5's, DNase I's) shows as a motif at a fixed place around the cut; with
// a wrong shift it sits off centre, and for Tn5 the motifs of + and - strand cuts no longer
// line up (an unshifted BAM puts them 8 bp apart), which strand_offset measures.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "data/fasta/fasta_reader.h"
#include "data/reads/cut_counter.h"
#include "data/simulation/motif_library.h"

namespace strand::data {

/// The strands of a cut motif: every cut, + strand reads' cuts, - strand reads' cuts.
inline constexpr std::array<const char*, 3> kCutMotifStrands = {"all", "plus", "minus"};

/// Base frequencies around cuts. Window position i covers the base i - width/2 from the cut
/// (chrombpnet's seq[cut - width/2 : cut + width/2]); the cut base is at i = width/2.
struct CutMotif {
  int width = 0;
  std::array<double, 3> cuts{};  ///< cuts counted, per strand (all, plus, minus)
  /// Per strand, `width` rows of A, C, G, T frequencies (N bases left out); empty without cuts.
  std::array<std::vector<std::array<double, 4>>, 3> rows;
  std::array<double, 4> background{};  ///< base frequencies over all windows
  /// Bases the - strand motif sits from the + strand one: p_plus[i] ~ p_minus[i + offset].
  /// 0 when both strands' cuts mark the same base of each insertion; none without cuts of
  /// both strands.
  std::optional<int> strand_offset;

  /// Information (bits) of each row of `strand` relative to the background.
  std::vector<double> information(size_t strand) const;
  /// The likeliest base of each row of `strand`, upper case where the row holds >= min_bits.
  std::string consensus(size_t strand, double min_bits = 0.1) const;
};

/// Accumulates the windows of cut chunks (CutCounter's sink) against the genome.
class CutMotifCounter {
 public:
  /// `width`: even, in [2, 1000].
  CutMotifCounter(const FastaReader& genome, int width);
  /// Adds the window of every base of `chunk` with cuts, weighted by its counts; windows
  /// reaching past the contig's ends are left out.
  void add(const CutChunk& chunk);
  /// The frequencies so far.
  CutMotif motif() const;

 private:
  const FastaReader& genome_;
  int width_;
  // counts_[strand][i][base]: + and - strand cuts (0, 1) by window position and base.
  std::array<std::vector<std::array<double, 4>>, 2> counts_;
  std::array<double, 2> cuts_{};
};

/// A short text: the consensus of each strand's motif and its information per position, the
/// strand offset and how to read it.
std::string cut_motif_report(const CutMotif& motif);

/// The motifs of `motif` (all, plus, minus) named "<name>_<strand>" for write_meme(); strands
/// without cuts are left out.
std::vector<Motif> cut_motif_matrices(const CutMotif& motif, const std::string& name);

}  // namespace strand::data
