// The fast ISM path (explain/fast_ism.h): a reference pass per group of sequences, then their
// mutants in batches through the alternates engine (alternates/alternate_forward.h).
#include "explain/fast_ism.h"

#include <algorithm>

#include "alternates/parallel_units.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "data/encoding.h"

namespace strand::explain {

FastIsmPlan::FastIsmPlan() = default;
FastIsmPlan::~FastIsmPlan() = default;

int64_t FastIsmPlan::windowed_steps() const { return forward_->windowed_steps(); }
int64_t FastIsmPlan::readouts() const { return forward_->readouts(); }

std::unique_ptr<FastIsmPlan> FastIsmPlan::make(Model& model, int64_t length, const Target& target,
                                               std::string* why) {
  auto forward = alternates::AlternateForward::make(model, length, {target.output},
                                                    alternates::Placement::kScattered, why);
  if (!forward) return nullptr;
  auto plan = std::unique_ptr<FastIsmPlan>(new FastIsmPlan());
  plan->forward_ = std::move(forward);
  plan->target_ = target;
  plan->length_ = length;
  plan->activation_ = model.output_activation(target.output);
  return plan;
}

IsmResult FastIsmPlan::run(Model& model, const Tensor& codes_in, const IsmOptions& options) const {
  const Tensor codes = codes_in.to(Device::cpu()).contiguous();
  STRAND_CHECK(codes.dim() == 2 && codes.size(1) == length_,
               "ism: the fast path was planned for {} bases, got {}", length_, codes.describe());
  const int64_t n = codes.size(0), length = length_;
  const int64_t start = options.start, end = options.end < 0 ? length : options.end;
  const int64_t positions = end - start;
  const bool was_training = model.is_training();
  model.eval();
  NoGradGuard no_grad;
  IsmResult result;
  result.fast = true;
  result.effects = Tensor::zeros({n, 4, positions});
  result.prediction = Tensor::empty({n});
  float* effects = result.effects.data<float>();
  const uint8_t* x = codes.data<uint8_t>();
  const auto target_of = [this](const Tensor& output) {
    return select_target(output_task_values(Var(output), activation_, target_), target_)
        .value()
        .contiguous();
  };
  // Sequences in groups whose mutants fill about one batch; each pass carries as many mutants
  // as keep its windows in cache.
  const int64_t group_size =
      std::clamp<int64_t>(options.batch_size / std::max<int64_t>(1, 3 * positions), 1, 64);
  const auto per_pass = static_cast<size_t>(
      std::min(options.batch_size, forward_->alternates_per_call(options.batch_size)));
  try {
    for (int64_t first = 0; first < n; first += group_size) {
      const int64_t g_count = std::min(group_size, n - first);
      const alternates::References ref = [&] {
        const alternates::SerialOps serial(g_count < omp_get_max_threads());
        return forward_->reference(codes.slice(0, first, first + g_count));
      }();
      const Tensor f_ref = target_of(forward_->reference_output(ref, 0));
      for (int64_t g = 0; g < g_count; ++g)
        result.prediction.data<float>()[first + g] = f_ref.data<float>()[g];
      // The group's mutants: (slot, position, letter), in order of position.
      struct Mutant {
        int64_t slot, position;
        uint8_t letter;
      };
      std::vector<Mutant> mutants;
      for (int64_t g = 0; g < g_count; ++g) {
        const uint8_t* sequence = x + (first + g) * length;
        for (int64_t p = start; p < end; ++p) {
          if (sequence[p] >= data::kNumBases) continue;
          for (uint8_t c = 0; c < data::kNumBases; ++c) {
            if (c != sequence[p]) mutants.push_back({g, p, c});
          }
        }
      }
      // Each pass is a unit of work of its own (alternates/parallel_units.h).
      const auto passes = static_cast<int64_t>((mutants.size() + per_pass - 1) / per_pass);
      alternates::for_each_unit(passes, [&](int64_t unit) {
        NoGradGuard unit_no_grad;  // grad mode is per thread
        const size_t b0 = static_cast<size_t>(unit) * per_pass;
        const size_t b1 = std::min(mutants.size(), b0 + per_pass);
        const auto m_count = static_cast<int64_t>(b1 - b0);
        std::vector<int64_t> slots, starts;
        Tensor letters = Tensor::empty({m_count, 1}, DType::kUInt8);
        for (size_t b = b0; b < b1; ++b) {
          slots.push_back(mutants[b].slot);
          starts.push_back(mutants[b].position);
          letters.data<uint8_t>()[b - b0] = mutants[b].letter;
        }
        const Tensor f = target_of(forward_->alternates(ref, {slots, starts, letters})[0]);
        for (size_t b = b0; b < b1; ++b) {
          const Mutant& mutant = mutants[b];
          effects[((first + mutant.slot) * 4 + mutant.letter) * positions + mutant.position -
                  start] = f.data<float>()[b - b0] - f_ref.data<float>()[mutant.slot];
        }
      });
    }
  } catch (...) {
    model.train(was_training);
    throw;
  }
  model.train(was_training);
  return result;
}

}  // namespace strand::explain
