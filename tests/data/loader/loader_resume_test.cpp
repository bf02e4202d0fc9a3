// DataLoader::start_epoch(epoch, first_step): a resumed epoch delivers exactly the batches the
// full epoch delivers from that step on, augmentation included, whatever the thread count.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "data/counter_rng.h"
#include "data/data_error.h"
#include "data/loader/data_loader.h"
#include "data/sources/array_source.h"

namespace strand::data {
namespace {

// 100 random 64-base sequences cropped to 48-base windows, every fifth labelled 1.
std::shared_ptr<ArraySource> make_source() {
  std::vector<uint8_t> codes(100 * 64);
  CounterRng rng(7);
  for (auto& c : codes) c = static_cast<uint8_t>(rng.below(5));
  std::vector<float> labels(100);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = i % 5 == 0 ? 1.0F : 0.0F;
  return std::make_shared<ArraySource>(std::move(codes), 64, std::move(labels), 1,
                                       std::vector<uint8_t>{}, 48);
}

// Every delivered batch as (sample indices, codes).
std::vector<std::pair<std::vector<int64_t>, std::vector<uint8_t>>> drain(DataLoader& loader) {
  std::vector<std::pair<std::vector<int64_t>, std::vector<uint8_t>>> out;
  while (auto batch = loader.next()) {
    out.emplace_back(
        std::vector<int64_t>(batch->sample_index, batch->sample_index + batch->size),
        std::vector<uint8_t>(batch->codes, batch->codes + batch->size * batch->length));
  }
  return out;
}

TEST_CASE("DataLoader: an epoch started at step k delivers the full epoch's batches from k on") {
  for (const int threads : {1, 3}) {
    LoaderOptions options;
    options.sampler.batch_size = 16;
    options.sampler.shuffle = true;
    options.sampler.seed = 11;
    options.augment.jitter = 5;
    options.augment.rc_probability = 0.5;
    options.loader_threads = threads;
    DataLoader loader(make_source(), options);
    REQUIRE(loader.steps_per_epoch() == 7);
    loader.start_epoch(3);
    const auto full = drain(loader);
    for (const int64_t first : {0, 1, 4, 6, 7}) {
      CAPTURE(threads);
      CAPTURE(first);
      loader.start_epoch(3, first);
      const auto rest = drain(loader);
      CHECK(rest == decltype(full)(full.begin() + first, full.end()));
    }
    CHECK_THROWS_AS(loader.start_epoch(3, 8), DataError);
    CHECK_THROWS_AS(loader.start_epoch(3, -1), DataError);
  }
}

}  // namespace
}  // namespace strand::data
