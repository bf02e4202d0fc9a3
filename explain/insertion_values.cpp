// Values of backgrounds with motifs written in (explain/insertion_values.h).
#include "explain/insertion_values.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "alternates/alternate_forward.h"
#include "alternates/parallel_units.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "train/evaluation.h"

namespace strand::explain {
namespace {

// Every task's value (N, T), or the target's (N, 1), through whole passes.
Tensor whole_values(Model& model, const Tensor& codes, const MarginalizeOptions& options) {
  const Tensor values = predict_target(model, codes, options.target, options.batch_size, true);
  return values.dim() == 1 ? values.reshape({values.size(0), 1}) : values;
}

// One set of insertions as alternates of every background: the columns [start, start + W) its
// motifs cover and each background's letters there (N, W).
struct InsertedWindow {
  int64_t start = 0;
  Tensor letters;
};

InsertedWindow inserted_window(const Tensor& codes, const std::vector<Insertion>& insertions) {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (const Insertion& insertion : insertions) {
    lo = std::min(lo, insertion.start);
    hi = std::max(hi, insertion.start + static_cast<int64_t>(insertion.codes.size()));
  }
  const Tensor written = with_insertions(codes, insertions);
  if (insertions.empty()) lo = 0, hi = 1;  // no change: one column of the background's own
  return {lo, written.slice(1, lo, hi).contiguous()};
}

// The engine's run over every background and set.
class EngineValues {
 public:
  EngineValues(Model& model, const alternates::AlternateForward& engine,
               const MarginalizeOptions& options)
      : engine_(engine),
        options_(options),
        activation_(model.output_activation(options.target.output)) {}

  InsertionValues run(const Tensor& codes, const std::vector<InsertedWindow>& windows) const {
    const int64_t n = codes.size(0);
    constexpr int64_t kReferenceBudget = int64_t{64} << 20;
    const int64_t group = engine_.references_per_pass(n, kReferenceBudget);
    InsertionValues result;
    result.inserted.resize(windows.size());
    for (int64_t g0 = 0; g0 < n; g0 += group) {
      const int64_t g1 = std::min(n, g0 + group);
      const alternates::References references = [&] {
        const alternates::SerialOps serial(g1 - g0 < omp_get_max_threads());
        return engine_.reference(codes.slice(0, g0, g1).contiguous());
      }();
      place(task_values(engine_.reference_output(references, 0)), g0, n, result.background);
      run_group(references, g0, g1, windows, result.inserted);
    }
    return result;
  }

 private:
  // (M, T) values from an output's (M, ...) value before its final activation.
  Tensor task_values(const Tensor& output) const {
    const Var tasks = output_task_values(Var(output), activation_, options_.target);
    if (options_.target.task < 0) return tasks.value().contiguous();
    const Tensor one = select_target(tasks, options_.target).value();
    return one.reshape({one.size(0), 1}).contiguous();
  }

  // Rows [g0, g0 + M) of the (N, T) `into` (made on first use) from `values` (M, T).
  static void place(const Tensor& values, int64_t g0, int64_t n, Tensor& into) {
    if (!into.defined()) into = Tensor::empty({n, values.size(1)});
    std::memcpy(into.data<float>() + g0 * values.size(1), values.data<float>(),
                static_cast<size_t>(values.numel()) * sizeof(float));
  }

  // Every set's alternates of backgrounds [g0, g1), in chunks; each (set, chunk) a unit of work
  // (alternates/parallel_units.h).
  void run_group(const alternates::References& references, int64_t g0, int64_t g1,
                 const std::vector<InsertedWindow>& windows, std::vector<Tensor>& inserted) const {
    const int64_t rows = g1 - g0;
    const int64_t per_call = std::min(options_.batch_size, engine_.alternates_per_call(rows));
    const int64_t chunks = (rows + per_call - 1) / per_call;
    const int64_t n = windows.empty() ? 0 : windows[0].letters.size(0);
    std::vector<Tensor> parts(windows.size() * static_cast<size_t>(chunks));
    alternates::for_each_unit(static_cast<int64_t>(parts.size()), [&](int64_t unit) {
      NoGradGuard no_grad;  // grad mode is per thread
      const InsertedWindow& window = windows[static_cast<size_t>(unit / chunks)];
      const int64_t first = g0 + (unit % chunks) * per_call;
      const int64_t last = std::min(g1, first + per_call);
      std::vector<int64_t> slots(static_cast<size_t>(last - first));
      for (int64_t i = first; i < last; ++i) slots[static_cast<size_t>(i - first)] = i - g0;
      const std::vector<int64_t> starts(slots.size(), window.start);
      const Tensor letters = window.letters.slice(0, first, last).contiguous();
      parts[static_cast<size_t>(unit)] =
          task_values(engine_.alternates(references, {slots, starts, letters})[0]);
    });
    for (size_t s = 0; s < windows.size(); ++s) {
      for (int64_t c = 0; c < chunks; ++c) {
        place(parts[s * static_cast<size_t>(chunks) + static_cast<size_t>(c)], g0 + c * per_call, n,
              inserted[s]);
      }
    }
  }

  const alternates::AlternateForward& engine_;
  const MarginalizeOptions& options_;
  Activation activation_;
};

}  // namespace

Tensor with_insertions(const Tensor& backgrounds, const std::vector<Insertion>& insertions) {
  Tensor out = backgrounds.to(Device::cpu()).contiguous().clone();
  const int64_t n = out.size(0), length = out.size(1);
  uint8_t* codes = out.data<uint8_t>();
  for (const Insertion& insertion : insertions) {
    const auto width = static_cast<int64_t>(insertion.codes.size());
    STRAND_CHECK(insertion.start >= 0 && insertion.start + width <= length,
                 "marginalize: a motif of {} bases at {} does not fit in sequences of {} bases",
                 width, insertion.start + 1, length);
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(codes + i * length + insertion.start, insertion.codes.data(),
                  static_cast<size_t>(width));
    }
  }
  return out;
}

InsertionValues insertion_values(Model& model, const Tensor& backgrounds,
                                 const std::vector<std::vector<Insertion>>& sets,
                                 const MarginalizeOptions& options) {
  const Tensor codes = backgrounds.to(Device::cpu()).contiguous();
  // Every insertion is checked to fit before any work.
  std::vector<InsertedWindow> windows;
  for (const std::vector<Insertion>& set : sets) windows.push_back(inserted_window(codes, set));
  std::unique_ptr<alternates::AlternateForward> engine;
  if (options.alternates && codes.size(0) > 0 && train::model_device(model).is_cpu()) {
    engine = alternates::AlternateForward::make(model, codes.size(1), {options.target.output},
                                                alternates::Placement::kShared, nullptr);
  }
  if (!engine) {
    InsertionValues result;
    result.background = whole_values(model, codes, options);
    for (const std::vector<Insertion>& set : sets) {
      result.inserted.push_back(whole_values(model, with_insertions(codes, set), options));
    }
    return result;
  }
  const bool was_training = model.is_training();
  model.eval();
  try {
    InsertionValues result = EngineValues(model, *engine, options).run(codes, windows);
    model.train(was_training);
    return result;
  } catch (...) {
    model.train(was_training);
    throw;
  }
}

}  // namespace strand::explain
