// Epoch plans: which samples each rank sees, in which order, for one epoch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace strand::data {

/// Strand of a planned item.
enum class ItemStrand : uint8_t {
  kRandom,   ///< reverse complement with the loader's rc probability
  kForward,  ///< both_strands evaluation: forward copy
  kReverse,  ///< both_strands evaluation: reverse-complement copy
};

/// One planned sample.
struct PlanItem {
  int64_t index = 0;                        ///< sample index in the source
  ItemStrand strand = ItemStrand::kRandom;  ///< which strand to emit
};

/// Settings of plan_epoch().
struct SamplerOptions {
  int64_t batch_size = 64;  ///< samples per batch (> 0)
  uint64_t seed = 0;        ///< seeds shuffling and balanced draws
  bool shuffle = true;      ///< shuffle the order, differently every epoch
  /// Equal count per class in every batch (classes from sample_class); batch_size must be
  /// even. The majority class is covered once per epoch; the minority is drawn with
  /// replacement.
  bool balanced = false;
  int rank = 0;   ///< this rank, in [0, world)
  int world = 1;  ///< number of ranks
  /// Without drop_last a rank's share is padded by wrapping to the start of the shuffled
  /// order, so ranks see the same number of samples; with it, shares are strictly disjoint and
  /// incomplete batches are dropped.
  bool drop_last = false;
  /// Emit every sample twice in a row, forward then reverse complement (evaluation).
  bool both_strands = false;
};

/// The items of one rank for one epoch, batch after batch.
struct EpochPlan {
  int64_t batch_size = 0;  ///< rows per batch (items of a both_strands batch included)
  int64_t steps = 0;       ///< batches; every rank gets the same number

  /// This rank's samples in order; empty when they are every world-th sample from `rank` on
  /// (an unshuffled, unbalanced epoch), so that a plan over millions of samples (strand predict
  /// over a FASTA's records) holds no list.
  std::vector<int64_t> samples;
  int64_t count = 0;          ///< this rank's samples (samples.size() when listed)
  int64_t num_samples = 0;    ///< N
  int rank = 0, world = 1;    ///< the unlisted order's stride
  bool both_strands = false;  ///< each sample twice in a row, forward then reverse

  /// The number of items: every batch's rows back to back.
  int64_t size() const { return both_strands ? 2 * count : count; }
  /// Item i of the epoch.
  PlanItem item(int64_t i) const {
    const int64_t k = both_strands ? i / 2 : i;
    const int64_t index =
        samples.empty() ? (k * world + rank) % num_samples : samples[static_cast<size_t>(k)];
    const ItemStrand strand = !both_strands ? ItemStrand::kRandom
                              : i % 2 == 0  ? ItemStrand::kForward
                                            : ItemStrand::kReverse;
    return {index, strand};
  }
  /// Items [begin, end) of batch `step`: begin.
  int64_t batch_begin(int64_t step) const { return step * batch_size; }
  /// Items [begin, end) of batch `step`: end (the last batch may be shorter).
  int64_t batch_end(int64_t step) const {
    return std::min<int64_t>((step + 1) * batch_size, size());
  }
  /// The distinct batch sizes: the first batch's, then the last one's where it is smaller.
  std::vector<int64_t> batch_sizes() const {
    std::vector<int64_t> sizes;
    if (steps <= 0) return sizes;
    sizes.push_back(batch_end(0) - batch_begin(0));
    const int64_t last = batch_end(steps - 1) - batch_begin(steps - 1);
    if (last != sizes.front()) sizes.push_back(last);
    return sizes;
  }
};

/// Plans an epoch over N samples with binary classes `classes` (needed only when balanced;
/// one entry per sample). Depends only on (options, epoch, classes). Throws DataError when
/// the options cannot give every rank at least one batch.
EpochPlan plan_epoch(int64_t num_samples, const std::vector<uint8_t>& classes,
                     const SamplerOptions& options, uint64_t epoch);

}  // namespace strand::data
