// The files `strand explain` streams its results to, a batch of sequences at a time: .npz (the
// hypothetical contributions, or ISM's effects, (N, 4, P) as "arr_0", the layout TF-MoDISco-lite
// reads, and the one-hot sequences in <stem>_onehot.npz beside it), .tsv (one row per base:
// name, chrom, start, end, base, the four letters' scores and the base's score) and .bw (a bigWig
// of each base's score). Each file is written atomically: nothing is published unless every
// batch was written and finish() succeeded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/intervals/intervals.h"
#include "tensor/tensor.h"

namespace strand::cli {

/// One batch of explained sequences. Each batch names its own samples, so a writer keeps no
/// per-sample list (memory stays flat over a million sequences).
struct AttributionBatch {
  int64_t first = 0;                    ///< the index of its first sample in the split
  std::vector<std::string> names;       ///< (B) each sample's name
  std::vector<data::Interval> windows;  ///< (B) the bases each sample's window covers
  Tensor codes;                         ///< (B, P) uint8: the bases at the positions explained
  Tensor scores;      ///< (B, 4, P) float: each letter's score (hypothetical, or ISM's effect)
  Tensor base_score;  ///< (B, P) float: each base's score (its contribution, or ISM's largest)
};

/// Where the positions explained lie in each sample's window.
struct AttributionLayout {
  int64_t samples = 0;     ///< N
  int64_t offset = 0;      ///< the first position explained within the window
  int64_t positions = 0;   ///< P
  int64_t owned_step = 0;  ///< tiles: each window owns its central step bases; 0: all of them
  std::string score_name;  ///< the TSV's last column: "contribution" or "max_effect"
};

/// A destination of batches.
class AttributionWriter {
 public:
  virtual ~AttributionWriter() = default;
  /// Writes one batch (batches arrive in sample order).
  virtual void write(const AttributionBatch& batch) = 0;
  /// Publishes the file(s); returns what was written, for the log.
  virtual std::string finish() = 0;
};

/// The writer for `path` by its extension (.npz, .tsv, .bw or .bigwig); `fasta` is the genome or
/// records file whose contigs a bigWig lists. Throws ConfigError naming --out for another
/// extension or a file that cannot be created.
std::unique_ptr<AttributionWriter> make_attribution_writer(const std::string& path,
                                                           const AttributionLayout& layout,
                                                           const std::string& fasta);

}  // namespace strand::cli
