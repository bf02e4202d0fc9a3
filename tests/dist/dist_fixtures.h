// Shared by the dist tests: a small DNA model in float64 (so equivalence checks can be tight)
// and a deterministic labelled dataset split into per-rank loaders.
#pragma once

#include <memory>
#include <vector>

#include "data/loader/data_loader.h"
#include "data/sources/array_source.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/sequential.h"
#include "tensor/generator.h"

namespace strand::dist::testing {

/// Conv1D(4->6, k=5) -> ReLU -> GlobalMaxPool1D -> Dense(6->1) -> Sigmoid, float64.
inline Sequential make_small_model(uint64_t seed) {
  Generator generator(seed);
  Sequential model;
  model.add(Conv1D(4, 6, 5, {}, generator));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(6, 1, true, generator));
  model.add(Sigmoid());
  for (Var& parameter : model.parameters()) {
    parameter.mutable_value() = parameter.value().to(DType::kFloat64);
  }
  return model;
}

/// N random sequences of length 40; the label says whether "GA" occurs in the first half,
/// which the conv model can learn. `flip_labels` inverts them (a shard that disagrees).
inline std::shared_ptr<data::ArraySource> make_source(int64_t n, uint64_t seed,
                                                      bool flip_labels = false) {
  const int64_t length = 40;
  Generator generator(seed);
  std::vector<uint8_t> codes(static_cast<size_t>(n * length));
  std::vector<float> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    bool found = false;
    for (int64_t j = 0; j < length; ++j) {
      codes[i * length + j] = static_cast<uint8_t>(generator.next_below(4));
      if (j > 0 && j < length / 2 && codes[i * length + j - 1] == 2 && codes[i * length + j] == 0) {
        found = true;
      }
    }
    labels[i] = (found != flip_labels) ? 1.0f : 0.0f;
  }
  return std::make_shared<data::ArraySource>(std::move(codes), length, std::move(labels), 1);
}

inline std::unique_ptr<data::DataLoader> make_loader(std::shared_ptr<data::ArraySource> source,
                                                     int64_t batch_size, int rank, int world,
                                                     bool shuffle = true) {
  data::LoaderOptions options;
  options.sampler.batch_size = batch_size;
  options.sampler.seed = 11;
  options.sampler.shuffle = shuffle;
  options.sampler.rank = rank;
  options.sampler.world = world;
  options.loader_threads = 1;
  return std::make_unique<data::DataLoader>(std::move(source), options);
}

}  // namespace strand::dist::testing
