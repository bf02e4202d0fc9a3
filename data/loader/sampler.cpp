// plan_epoch: seeded shuffling, class balancing and sharding by rank.
#include "data/loader/sampler.h"

#include <numeric>

#include "data/counter_rng.h"
#include "data/data_error.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

constexpr uint64_t kShuffleStream = 0x5348554646ULL;  // separates shuffle draws from others
constexpr uint64_t kMinorityStream = 0x4D494E4FULL;

void shuffle(std::vector<int64_t>& v, uint64_t seed, uint64_t epoch, uint64_t stream) {
  CounterRng rng(mix_key(seed, epoch, stream));
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

std::vector<int64_t> balanced_order(const std::vector<uint8_t>& classes, const SamplerOptions& o,
                                    uint64_t epoch) {
  std::vector<int64_t> members[2];
  for (size_t i = 0; i < classes.size(); ++i) members[classes[i] != 0 ? 1 : 0].push_back(i);
  if (members[0].empty() || members[1].empty()) {
    throw DataError(fmt::format(
        "balanced sampling needs both classes, but {} samples are negative and {} positive "
        "(class = any valid label > 0.5)",
        members[0].size(), members[1].size()));
  }
  const int major = members[0].size() >= members[1].size() ? 0 : 1;
  std::vector<int64_t>& majority = members[major];
  const std::vector<int64_t>& minority = members[1 - major];
  if (o.shuffle) shuffle(majority, o.seed, epoch, kShuffleStream);
  const int64_t half = o.batch_size / 2;
  const auto n_major = static_cast<int64_t>(majority.size());
  const int64_t batches = (n_major + half - 1) / half;
  CounterRng rng(mix_key(o.seed, epoch, kMinorityStream));
  std::vector<int64_t> order;
  order.reserve(static_cast<size_t>(batches * o.batch_size));
  for (int64_t b = 0; b < batches; ++b) {
    const size_t first = order.size();
    for (int64_t k = 0; k < half; ++k) {
      order.push_back(majority[static_cast<size_t>((b * half + k) % n_major)]);
      order.push_back(minority[rng.below(minority.size())]);
    }
    // Mix the two classes inside the batch so row position says nothing about class.
    for (size_t i = order.size(); i > first + 1; --i) {
      std::swap(order[i - 1], order[first + rng.below(i - first)]);
    }
  }
  return order;
}

}  // namespace

EpochPlan plan_epoch(int64_t num_samples, const std::vector<uint8_t>& classes,
                     const SamplerOptions& o, uint64_t epoch) {
  if (o.batch_size <= 0 || o.world <= 0 || o.rank < 0 || o.rank >= o.world) {
    throw DataError(
        fmt::format("sampler: need batch_size > 0 and 0 <= rank < world, got "
                    "batch_size {}, rank {}, world {}",
                    o.batch_size, o.rank, o.world));
  }
  if (num_samples <= 0) throw DataError("sampler: the dataset has no samples");
  EpochPlan plan;
  plan.num_samples = num_samples;
  plan.rank = o.rank;
  plan.world = o.world;
  plan.both_strands = o.both_strands;
  if (o.balanced) {
    if (o.batch_size % 2 != 0) {
      throw DataError(
          fmt::format("balanced sampling needs an even batch_size, got {}", o.batch_size));
    }
    if (static_cast<int64_t>(classes.size()) != num_samples) {
      throw DataError("balanced sampling: one class per sample is required");
    }
    // Whole global batches go to ranks round-robin; each rank gets floor(batches / world).
    const std::vector<int64_t> order = balanced_order(classes, o, epoch);
    const int64_t batches = static_cast<int64_t>(order.size()) / o.batch_size;
    const int64_t steps = batches / o.world;
    if (steps == 0) {
      throw DataError(
          fmt::format("balanced sampling gives {} batches of {}, fewer than the {} "
                      "ranks",
                      batches, o.batch_size, o.world));
    }
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t b = s * o.world + o.rank;
      plan.samples.insert(plan.samples.end(), order.begin() + b * o.batch_size,
                          order.begin() + (b + 1) * o.batch_size);
    }
    plan.count = static_cast<int64_t>(plan.samples.size());
  } else {
    // Rank r's k-th sample is order[(k * world + r) % N]; unshuffled, that is the index itself
    // and no list is kept.
    const int64_t share =
        o.drop_last ? num_samples / o.world : (num_samples + o.world - 1) / o.world;
    plan.count = o.drop_last ? share / o.batch_size * o.batch_size : share;
    if (plan.count == 0) {
      throw DataError(
          fmt::format("{} samples over {} ranks leave no full batch of {} "
                      "(drop_last)",
                      num_samples, o.world, o.batch_size));
    }
    if (o.shuffle) {
      std::vector<int64_t> order(static_cast<size_t>(num_samples));
      std::iota(order.begin(), order.end(), 0);
      shuffle(order, o.seed, epoch, kShuffleStream);
      plan.samples.resize(static_cast<size_t>(plan.count));
      for (int64_t k = 0; k < plan.count; ++k) {
        plan.samples[static_cast<size_t>(k)] =
            order[static_cast<size_t>((k * o.world + o.rank) % num_samples)];
      }
    }
  }
  plan.batch_size = o.batch_size * (o.both_strands ? 2 : 1);
  plan.steps = (plan.size() + plan.batch_size - 1) / plan.batch_size;
  return plan;
}

}  // namespace strand::data
