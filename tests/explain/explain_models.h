// Models the explain tests run: the presets as `strand train --model NAME` builds them, and small
// random graphs, all with every parameter and BatchNorm statistic drawn at random (a trained
// model's weights are not zero-biased or unit-variance), so every rule and window is exercised.
#pragma once

#include <memory>
#include <string>

#include "app/model_builder.h"
#include "app/run_config.h"
#include "layers/model.h"
#include "ops/elementwise.h"
#include "test_helpers.h"

namespace strand::testing {

/// Draws every parameter of `model` uniform in [-scale, scale) (running variances in
/// [0.5, 1.5)), seeded.
inline void randomize_parameters(Model& model, uint64_t seed, double scale = 0.2) {
  uint64_t k = seed;
  for (auto& [name, parameter] : model.named_parameters()) {
    Tensor& value = parameter.mutable_value();
    if (name.ends_with("num_batches_tracked")) continue;
    Tensor drawn = random_tensor(value.shape(), ++k, value.dtype());
    if (name.ends_with("running_var")) {
      drawn = ops::affine(drawn, 0.5, 1.0);
    } else {
      drawn = ops::affine(drawn, scale, 0.0);
    }
    value.copy_(drawn);
  }
}

/// The preset `name` for inputs of `dimensions`, with random parameters.
inline std::shared_ptr<Model> preset_model(const std::string& name,
                                           const app::DataDimensions& dimensions, uint64_t seed,
                                           double scale = 0.2) {
  const app::RunConfig config = app::parse_config(nlohmann::json{{"preset", name}});
  std::shared_ptr<Model> model = app::build_model(config.model, dimensions);
  randomize_parameters(*model, seed, scale);
  model->eval();
  return model;
}

/// Random base codes, shape (N, L); with `with_n` about 1 in 50 is an N.
inline Tensor sequences(int64_t n, int64_t length, uint64_t seed, bool with_n = true) {
  Generator generator(seed);
  std::vector<uint8_t> codes(static_cast<size_t>(n * length));
  for (auto& code : codes) {
    const uint64_t draw = generator.next_below(200);
    code = static_cast<uint8_t>(draw < 4 && with_n ? 4 : draw % 4);
  }
  return Tensor::from_vector(codes, {n, length});
}

}  // namespace strand::testing
