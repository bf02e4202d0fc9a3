// ISM: the path choice and the brute-force path.
#include "explain/ism.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "data/encoding.h"
#include "explain/fast_ism.h"

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
  // Mutants in batches across sequences: (sequence, position, letter) in order.
  struct Mutant {
    int64_t sequence, position;
    uint8_t letter;
  };
  std::vector<Mutant> batch;
  std::vector<uint8_t> batch_codes;
  const auto flush = [&]() {
    if (batch.empty()) return;
    const auto count = static_cast<int64_t>(batch.size());
    const Tensor mutants =
        Tensor::from_blob(batch_codes.data(), {count, length}, DType::kUInt8).clone();
    const Tensor values = predict_target(model, mutants, options.target, count);
    const float* f = values.data<float>();
    for (int64_t q = 0; q < count; ++q) {
      const Mutant& mutant = batch[static_cast<size_t>(q)];
      effects[(mutant.sequence * 4 + mutant.letter) * positions + mutant.position - start] =
          f[q] - reference[mutant.sequence];
    }
    batch.clear();
    batch_codes.clear();
  };
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* sequence = x + i * length;
    for (int64_t p = start; p < end; ++p) {
      if (sequence[p] >= data::kNumBases) continue;
      for (uint8_t c = 0; c < data::kNumBases; ++c) {
        if (c == sequence[p]) continue;
        batch.push_back({i, p, c});
        batch_codes.insert(batch_codes.end(), sequence, sequence + length);
        batch_codes[batch_codes.size() - static_cast<size_t>(length - p)] = c;
        if (static_cast<int64_t>(batch.size()) == options.batch_size) flush();
      }
    }
  }
  flush();
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
