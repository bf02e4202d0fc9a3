// ISM: the path choice and the brute-force path.
#include "explain/ism.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "data/encoding.h"
#include "explain/fast_ism.h"
#include "explain/parallel_units.h"
#include "train/evaluation.h"

namespace strand::explain {
namespace {

// Checks the options against codes (N, L) and resolves end; returns {start, end}.
std::pair<int64_t, int64_t> position_range(const Tensor& codes, const IsmOptions& options) {
  STRAND_CHECK(codes.dim() == 2 && codes.dtype() == DType::kUInt8,
               "ism: expected base codes (N, L) uint8, got {}", codes.describe());
  STRAND_CHECK(options.batch_size >= 1, "ism: batch size must be >= 1, got {}", options.batch_size);
  const int64_t length = codes.size(1);
  const int64_t end = options.end < 0 ? length : options.end;
  STRAND_CHECK(options.start >= 0 && options.start < end && end <= length,
               "ism: positions {}-{} are not a range inside the sequences' {} bases", options.start,
               end, length);
  return {options.start, end};
}

}  // namespace

IsmResult ism_brute_force(Model& model, const Tensor& codes_in, const IsmOptions& options) {
  const auto [start, end] = position_range(codes_in, options);
  const Tensor codes = codes_in.to(Device::cpu()).contiguous();
  const int64_t n = codes.size(0), length = codes.size(1), positions = end - start;
  check_target(model, length, options.target);
  IsmResult result;
  result.prediction = predict_target(model, codes, options.target, options.batch_size);
  result.effects = Tensor::zeros({n, 4, positions}, DType::kFloat32);
  const uint8_t* x = codes.data<uint8_t>();
  const float* reference = result.prediction.data<float>();
  float* effects = result.effects.data<float>();
  // Every mutant, (sequence, position, letter) in order; each batch a unit of work
  // (explain/parallel_units.h) through the whole model.
  struct Mutant {
    int64_t sequence, position;
    uint8_t letter;
  };
  std::vector<Mutant> mutants;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* sequence = x + i * length;
    for (int64_t p = start; p < end; ++p) {
      if (sequence[p] >= data::kNumBases) continue;
      for (uint8_t c = 0; c < data::kNumBases; ++c) {
        if (c != sequence[p]) mutants.push_back({i, p, c});
      }
    }
  }
  const int64_t batch = options.batch_size;
  const auto total = static_cast<int64_t>(mutants.size());
  const bool was_training = model.is_training();
  model.eval();
  model.output_activation(options.target.output);  // a Graph's plan, made before the threads
  const DeviceUnits device_units(!train::model_device(model).is_cpu());
  try {
    for_each_unit((total + batch - 1) / batch, [&](int64_t unit) {
      NoGradGuard no_grad;  // grad mode is per thread
      const int64_t first = unit * batch;
      const int64_t count = std::min(batch, total - first);
      Tensor codes_batch = Tensor::empty({count, length}, DType::kUInt8);
      uint8_t* c = codes_batch.data<uint8_t>();
      for (int64_t q = 0; q < count; ++q) {
        const Mutant& mutant = mutants[static_cast<size_t>(first + q)];
        std::copy_n(x + mutant.sequence * length, length, c + q * length);
        c[q * length + mutant.position] = mutant.letter;
      }
      const Tensor values = target_values(model, Var(codes_batch), options.target)
                                .value()
                                .to(Device::cpu())
                                .contiguous();
      const float* f = values.data<float>();
      for (int64_t q = 0; q < count; ++q) {
        const Mutant& mutant = mutants[static_cast<size_t>(first + q)];
        effects[(mutant.sequence * 4 + mutant.letter) * positions + mutant.position - start] =
            f[q] - reference[mutant.sequence];
      }
    });
  } catch (...) {
    model.train(was_training);
    throw;
  }
  model.train(was_training);
  result.fast = false;
  return result;
}

IsmResult ism(Model& model, const Tensor& codes, const IsmOptions& options) {
  position_range(codes, options);
  if (options.path == IsmPath::kBruteForce) return ism_brute_force(model, codes, options);
  std::string why;
  if (auto plan = FastIsmPlan::make(model, codes.size(1), options.target, &why)) {
    return plan->run(model, codes, options);
  }
  STRAND_CHECK(options.path != IsmPath::kFast, "ism: the fast path does not cover this model: {}",
               why);
  return ism_brute_force(model, codes, options);
}

}  // namespace strand::explain
