// ISM: the path choice and the brute-force path.
#include "explain/ism.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "alternates/parallel_units.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "data/encoding.h"
#include "explain/fast_ism.h"
#include "tensor/cuda_runtime.h"
#include "tensor/primitive_ops.h"
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

// One mutant: `letter` at `position` of sequence `sequence`.
struct Mutant {
  int64_t sequence, position;
  uint8_t letter;
};

// Every mutant of codes (N, L) over positions [start, end), (sequence, position, letter) in
// order; an N is not mutated.
std::vector<Mutant> mutants_of(const Tensor& codes, int64_t start, int64_t end) {
  const int64_t n = codes.size(0), length = codes.size(1);
  const uint8_t* x = codes.data<uint8_t>();
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
  return mutants;
}

// Host codes (count, L): on a GPU in pinned memory, whose upload then runs asynchronously (the
// copy keeps the block alive until it has landed), else ordinary memory.
Tensor host_codes(int64_t count, int64_t length, Device device) {
  if (!device.is_cuda()) return Tensor::empty({count, length}, DType::kUInt8);
  CudaRuntime& runtime = cuda_runtime();
  const auto bytes = static_cast<size_t>(count * length);
  return Tensor::from_blob(
      runtime.pinned_allocate(bytes, device), {count, length}, DType::kUInt8, Device::cpu(),
      [&runtime, bytes](void* block) { runtime.pinned_release(block, bytes); });
}

// Mutants [first, first + count) as codes (count, L): each its sequence with one letter changed;
// in pinned memory for a model on a GPU.
Tensor mutant_codes(const Tensor& codes, const std::vector<Mutant>& mutants, int64_t first,
                    int64_t count, Device device = Device::cpu()) {
  const int64_t length = codes.size(1);
  const uint8_t* x = codes.data<uint8_t>();
  Tensor batch = host_codes(count, length, device);
  uint8_t* c = batch.data<uint8_t>();
  for (int64_t q = 0; q < count; ++q) {
    const Mutant& mutant = mutants[static_cast<size_t>(first + q)];
    std::copy_n(x + mutant.sequence * length, length, c + q * length);
    c[q * length + mutant.position] = mutant.letter;
  }
  return batch;
}

// effects (N, 4, positions) of mutants [first, first + count) from their values f (count).
void write_effects(const std::vector<Mutant>& mutants, int64_t first, int64_t count, const float* f,
                   const float* reference, int64_t start, int64_t positions, float* effects) {
  for (int64_t q = 0; q < count; ++q) {
    const Mutant& mutant = mutants[static_cast<size_t>(first + q)];
    effects[(mutant.sequence * 4 + mutant.letter) * positions + mutant.position - start] =
        f[q] - reference[mutant.sequence];
  }
}

// The mutants' passes on a GPU, in batches of equal size (at most `batch`; one conv plan
// serves all of them), each queued before the previous one's values are read back, so that the
// device runs a pass while the host builds the next one.
void device_passes(Model& model, const Tensor& codes, const std::vector<Mutant>& mutants,
                   const IsmOptions& options, int64_t start, int64_t positions,
                   const float* reference, float* effects) {
  const Device device = train::model_device(model);
  const auto total = static_cast<int64_t>(mutants.size());
  if (total == 0) return;
  const int64_t passes = (total + options.batch_size - 1) / options.batch_size;
  const int64_t per_pass = (total + passes - 1) / passes;
  NoGradGuard no_grad;
  struct Pending {
    std::function<Tensor()> read;  // the pass's values, (count) on the host
    int64_t first = 0, count = 0;
  };
  Pending pending;
  const auto finish = [&](Pending& pass) {
    if (!pass.read) return;
    const Tensor values = pass.read().to(DType::kFloat32).contiguous();
    write_effects(mutants, pass.first, pass.count, values.data<float>(), reference, start,
                  positions, effects);
    pass.read = nullptr;
  };
  for (int64_t first = 0; first < total; first += per_pass) {
    const int64_t count = std::min(per_pass, total - first);
    const Var batch(mutant_codes(codes, mutants, first, count, device).to(device));
    const Tensor values = target_values(model, batch, options.target).value().contiguous();
    Pending next{dispatch<StartHostReadOp>(device, values), first, count};
    finish(pending);
    pending = std::move(next);
  }
  finish(pending);
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
  const float* reference = result.prediction.data<float>();
  float* effects = result.effects.data<float>();
  // Every mutant, (sequence, position, letter) in order; on the CPU each batch a unit of work
  // (alternates/parallel_units.h) through the whole model.
  const std::vector<Mutant> mutants = mutants_of(codes, start, end);
  const int64_t batch = options.batch_size;
  const auto total = static_cast<int64_t>(mutants.size());
  const bool was_training = model.is_training();
  model.eval();
  model.output_activation(options.target.output);  // a Graph's plan, made before the threads
  try {
    if (!train::model_device(model).is_cpu()) {
      device_passes(model, codes, mutants, options, start, positions, reference, effects);
    } else {
      alternates::for_each_unit((total + batch - 1) / batch, [&](int64_t unit) {
        NoGradGuard no_grad;  // grad mode is per thread
        const int64_t first = unit * batch;
        const int64_t count = std::min(batch, total - first);
        const Tensor values =
            target_values(model, Var(mutant_codes(codes, mutants, first, count)), options.target)
                .value()
                .to(Device::cpu())
                .contiguous();
        write_effects(mutants, first, count, values.data<float>(), reference, start, positions,
                      effects);
      });
    }
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
