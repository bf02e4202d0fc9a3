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
  std::vector<PlanItem> items;  ///< all batches' items back to back
  int64_t batch_size = 0;       ///< rows per batch (items of a both_strands batch included)
  int64_t steps = 0;            ///< batches; every rank gets the same number

  /// Items [begin, end) of batch `step`: begin.
  int64_t batch_begin(int64_t step) const { return step * batch_size; }
  /// Items [begin, end) of batch `step`: end (the last batch may be shorter).
  int64_t batch_end(int64_t step) const {
    return std::min<int64_t>((step + 1) * batch_size, static_cast<int64_t>(items.size()));
  }
};

/// Plans an epoch over N samples with binary classes `classes` (needed only when balanced;
/// one entry per sample). Depends only on (options, epoch, classes). Throws DataError when
/// the options cannot give every rank at least one batch.
EpochPlan plan_epoch(int64_t num_samples, const std::vector<uint8_t>& classes,
                     const SamplerOptions& options, uint64_t epoch);

}  // namespace strand::data
