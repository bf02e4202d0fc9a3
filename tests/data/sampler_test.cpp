// Epoch plans (data/loader/sampler.h): an unshuffled, unbalanced plan keeps no list of samples
// (strand predict over millions of records), and its items are the ones a listed plan gives.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "data/data_error.h"
#include "data/loader/sampler.h"

namespace strand::data {
namespace {

// Every item of `plan`, in order.
std::vector<PlanItem> items_of(const EpochPlan& plan) {
  std::vector<PlanItem> items;
  for (int64_t i = 0; i < plan.size(); ++i) items.push_back(plan.item(i));
  return items;
}

TEST_CASE("sampler: an unshuffled plan lists nothing and visits rank r's every world-th sample") {
  for (const int world : {1, 3}) {
    for (int rank = 0; rank < world; ++rank) {
      for (const bool both : {false, true}) {
        SamplerOptions o;
        o.batch_size = 4;
        o.shuffle = false;
        o.rank = rank;
        o.world = world;
        o.both_strands = both;
        const EpochPlan plan = plan_epoch(10, {}, o, 0);
        CHECK(plan.samples.empty());
        const int64_t share = (10 + world - 1) / world;  // padded by wrapping to the start
        CHECK(plan.size() == share * (both ? 2 : 1));
        CHECK(plan.batch_size == 4 * (both ? 2 : 1));
        CHECK(plan.steps == (plan.size() + plan.batch_size - 1) / plan.batch_size);
        const std::vector<PlanItem> items = items_of(plan);
        for (int64_t i = 0; i < plan.size(); ++i) {
          const int64_t k = both ? i / 2 : i;
          CHECK(items[static_cast<size_t>(i)].index == (k * world + rank) % 10);
          const ItemStrand strand = !both        ? ItemStrand::kRandom
                                    : i % 2 == 0 ? ItemStrand::kForward
                                                 : ItemStrand::kReverse;
          CHECK(items[static_cast<size_t>(i)].strand == strand);
        }
        CHECK(plan.batch_end(plan.steps - 1) == plan.size());
      }
    }
  }
}

TEST_CASE("sampler: drop_last keeps whole batches, listed or not") {
  SamplerOptions o;
  o.batch_size = 4;
  o.drop_last = true;
  o.world = 2;
  for (const bool shuffle : {false, true}) {
    o.shuffle = shuffle;
    const EpochPlan plan = plan_epoch(19, {}, o, 1);  // 9 a rank, two batches of 4
    CHECK(plan.samples.empty() == !shuffle);
    CHECK(plan.size() == 8);
    CHECK(plan.steps == 2);
  }
  o.batch_size = 16;
  CHECK_THROWS_AS(plan_epoch(19, {}, o, 0), DataError);
}

TEST_CASE(
    "sampler: a shuffled plan lists each sample once, and an unshuffled one of a "
    "million samples costs no memory") {
  SamplerOptions o;
  o.batch_size = 7;
  o.seed = 5;
  const EpochPlan shuffled = plan_epoch(50, {}, o, 2);
  std::set<int64_t> seen;
  for (const PlanItem& item : items_of(shuffled)) seen.insert(item.index);
  CHECK(seen.size() == 50);
  CHECK(shuffled.samples.size() == 50);
  o.shuffle = false;
  const EpochPlan big = plan_epoch(1'000'000, {}, o, 0);
  CHECK(big.samples.capacity() == 0);
  CHECK(big.item(999'999).index == 999'999);
  CHECK(big.steps == (1'000'000 + 6) / 7);
}

}  // namespace
}  // namespace strand::data

namespace strand::data {
namespace {

TEST_CASE("sampler: a plan's batch sizes are the full batch's and a smaller last one's") {
  SamplerOptions o;
  o.batch_size = 32;
  o.shuffle = true;
  CHECK(plan_epoch(327, {}, o, 0).batch_sizes() == std::vector<int64_t>{32, 7});
  CHECK(plan_epoch(320, {}, o, 0).batch_sizes() == std::vector<int64_t>{32});
  CHECK(plan_epoch(5, {}, o, 0).batch_sizes() == std::vector<int64_t>{5});
  // Two ranks: each gets 164 of 327 (padded); both_strands doubles every batch's rows.
  o.world = 2;
  o.rank = 1;
  CHECK(plan_epoch(327, {}, o, 0).batch_sizes() == std::vector<int64_t>{32, 4});
  o.world = 1;
  o.rank = 0;
  o.shuffle = false;
  o.both_strands = true;
  CHECK(plan_epoch(327, {}, o, 0).batch_sizes() == std::vector<int64_t>{64, 14});
  // The same every epoch.
  o.both_strands = false;
  o.shuffle = true;
  CHECK(plan_epoch(327, {}, o, 5).batch_sizes() == plan_epoch(327, {}, o, 0).batch_sizes());
}

}  // namespace
}  // namespace strand::data
