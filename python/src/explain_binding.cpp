// strand.explain's engine: in-silico saturation mutagenesis, DeepLIFT/SHAP, gradients and
// marginalisation (explain/) on a strand.Model, over the sequences Model.predict takes, with the
// target chosen as `strand explain` chooses it (app/explain_target.h) and the GIL released
// while the model runs. python/strand/explain.py is the public face of these functions.
#include <fmt/format.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/config_error.h"
#include "app/explain_target.h"
#include "app/pass_options.h"
#include "arrays.h"
#include "bindings.h"
#include "data/encoding.h"
#include "explain/deep_lift_shap.h"
#include "explain/gradient.h"
#include "explain/ism.h"
#include "explain/marginalize.h"
#include "explain/references.h"
#include "explain/target.h"
#include "python_model.h"
#include "threads.h"

namespace nb = nanobind;

namespace strand::python {
namespace {

// The sequences of one call as base codes, and the target resolved for the model.
struct Explained {
  std::optional<AnyArray> array;  // keeps a numpy input alive while `codes` views it
  SequenceBatchSource source;
  Tensor codes;  // (N, L) uint8
  app::ResolvedTarget resolved;
};

// Reads `x` and resolves output/task/activation as `strand explain` does, the errors naming
// the Python arguments.
Explained prepare(PythonModel& self, const nb::handle& x, const std::optional<std::string>& output,
                  const std::string& task, bool activation, const std::string& layout) {
  const app::TrainedModel& trained = self.trained();
  app::require_sequence_only(self.model(), "strand.explain");
  Explained out;
  out.source = read_sequences(x, trained.dimensions.length, layout, out.array);
  out.codes = sequence_codes(out.source);
  try {
    out.resolved = app::resolve_target(trained, output.value_or(""), task, false);
  } catch (const app::ConfigError& error) {
    throw python_argument_error(error, {{"--output", "output"}, {"--task", "task"}});
  }
  if (activation) {
    explain::Target target = out.resolved.target;
    target.activation = true;
    try {
      explain::check_target(self.model(), trained.dimensions.length, target);
    } catch (const Error& error) {
      throw app::ConfigError(fmt::format("activation: {}", error.what()));
    }
    out.resolved.target = target;
  }
  return out;
}

// A numpy array viewing a result tensor (made contiguous on the CPU; the array keeps it alive).
nb::object to_numpy(const Tensor& tensor) {
  auto kept = std::make_shared<Tensor>(tensor.to(Device::cpu()).contiguous());
  const std::vector<int64_t> shape(kept->shape().begin(), kept->shape().end());
  return numpy_view(kept->raw_data(), shape, kept->dtype(), kept);
}

// A numpy float32 array of zeros of `shape` (results for no sequences).
nb::object zeros(const std::vector<int64_t>& shape) {
  Shape dims(shape.begin(), shape.end());
  return to_numpy(Tensor::zeros(dims));
}

nb::dict ism(PythonModel& self, const nb::handle& x, const std::optional<std::string>& output,
             const std::string& task, bool activation, int64_t start, std::optional<int64_t> end,
             const std::string& path, int64_t batch_size, const std::string& layout,
             std::optional<int64_t> threads) {
  check_pass(batch_size, threads);
  explain::IsmOptions options;
  if (path == "auto") {
    options.path = explain::IsmPath::kAuto;
  } else if (path == "fast") {
    options.path = explain::IsmPath::kFast;
  } else if (path == "brute_force" || path == "brute") {
    options.path = explain::IsmPath::kBruteForce;
  } else {
    throw app::ConfigError(fmt::format("path: '{}' is not one of auto, fast, brute_force", path));
  }
  Explained in = prepare(self, x, output, task, activation, layout);
  const int64_t length = in.source.length;
  const int64_t stop = end.value_or(length);
  if (start < 0 || start >= length) {
    throw app::ConfigError(
        fmt::format("start: {} is not a position of sequences of {} bases (0 to {})", start, length,
                    length - 1));
  }
  if (stop <= start || stop > length) {
    throw app::ConfigError(
        fmt::format("end: {} is not in ({}, {}] (one past the last position mutated; start is {})",
                    stop, start, length, start));
  }
  options.target = in.resolved.target;
  options.start = start;
  options.end = stop;
  options.batch_size = batch_size;
  nb::dict out;
  if (in.source.count == 0) {
    out["effects"] = zeros({0, 4, stop - start});
    out["prediction"] = zeros({0});
    out["fast"] = false;
    return out;
  }
  explain::IsmResult result;
  {
    nb::gil_scoped_release no_gil;
    std::lock_guard<std::mutex> lock(self.mutex());
    LongCall call(threads);
    result = explain::ism(self.model(), in.codes, options);
  }
  out["effects"] = to_numpy(result.effects);
  out["prediction"] = to_numpy(result.prediction);
  out["fast"] = result.fast;
  return out;
}

// DeepLIFT/SHAP's references as Python gives them: a count of shuffles, or arrays of codes
// (N, R, L) uint8 or one-hot (N, R, 4, L) float32.
struct GivenReferences {
  int64_t count = 0;
  explain::ReferenceFunction function;  // empty: shuffles
  std::optional<AnyArray> array;
  SequenceBatchSource one_hot;  // one-hot references turned into codes
};

void read_references(const nb::handle& references, int64_t count, int64_t length,
                     GivenReferences& out) {
  if (nb::isinstance<nb::int_>(references) && !nb::isinstance<nb::bool_>(references)) {
    try {
      out.count = nb::cast<int64_t>(references);
    } catch (const nb::cast_error&) {
      out.count = -1;  // beyond int64: outside the range as well
    }
    if (!explain::kReferencesRange.contains(out.count)) {
      throw app::ConfigError(fmt::format(
          "references: DeepLIFT/SHAP takes {} dinucleotide shuffles per sequence, got {}",
          explain::kReferencesRange.text(), nb::str(references).c_str()));
    }
    return;
  }
  const char* expected =
      "a number of dinucleotide shuffles per sequence, uint8 base codes (N, R, L) or float32 "
      "one-hot (N, R, 4, L)";
  try {
    out.array = nb::cast<AnyArray>(references);
  } catch (const nb::cast_error&) {
    throw app::ConfigError(fmt::format("references: expected {}; got {}", expected,
                                       nb::inst_name(references).c_str()));
  }
  const AnyArray& a = *out.array;
  const bool codes = a.dtype() == nb::dtype<uint8_t>() && a.ndim() == 3;
  const bool one_hot = a.dtype() == nb::dtype<float>() && a.ndim() == 4;
  if (!codes && !one_hot) {
    throw app::ConfigError(fmt::format("references: expected {}; got {} {}", expected,
                                       dtype_text(a.dtype()), shape_text(a)));
  }
  require_contiguous_cpu(a, "references");
  const auto n = static_cast<int64_t>(a.shape(0)), r = static_cast<int64_t>(a.shape(1));
  const auto l = static_cast<int64_t>(a.shape(a.ndim() - 1));
  if (n != count || r < 1 || l != length || (one_hot && a.shape(2) != 4)) {
    throw app::ConfigError(
        fmt::format("references: {} {}; the {} sequences need {} (R >= 1 references each)",
                    dtype_text(a.dtype()), shape_text(a), count,
                    codes ? fmt::format("({}, R, {})", count, length)
                          : fmt::format("({}, R, 4, {})", count, length)));
  }
  out.count = r;
  Tensor tensor;
  if (codes) {
    const auto* values = static_cast<const uint8_t*>(a.data());
    const auto total = static_cast<size_t>(n * r * l);
    const auto bad =
        std::find_if(values, values + total, [](uint8_t code) { return code > data::kCodeN; });
    if (bad != values + total) {
      throw app::ConfigError(
          fmt::format("references: base code {}; codes are 0..4 (A, C, G, T, N)", *bad));
    }
    tensor = Tensor::from_blob(const_cast<uint8_t*>(values), {n, r, l}, DType::kUInt8);
  } else {
    out.one_hot.one_hot = static_cast<const float*>(a.data());
    out.one_hot.count = n * r;
    out.one_hot.length = l;
    tensor = sequence_codes(out.one_hot, "references").reshape({n, r, l});
  }
  out.function = explain::given_references(tensor);
}

nb::dict deep_lift_shap(PythonModel& self, const nb::handle& x, const nb::handle& references,
                        uint64_t seed, const std::optional<std::string>& output,
                        const std::string& task, bool activation, int64_t batch_size,
                        bool keep_references, const std::string& layout,
                        std::optional<int64_t> threads) {
  check_pass(batch_size, threads);
  Explained in = prepare(self, x, output, task, activation, layout);
  const int64_t count = in.source.count, length = in.source.length;
  GivenReferences given;
  read_references(references, count, length, given);
  explain::DeepLiftShapOptions options;
  options.target = in.resolved.target;
  options.references = given.count;
  options.seed = seed;
  options.reference_function = given.function;
  options.batch_size = batch_size;
  options.keep_references = keep_references;
  nb::dict out;
  if (count == 0) {
    for (const char* name : {"hypothetical", "actual"}) out[name] = zeros({0, 4, length});
    for (const char* name : {"prediction", "reference_mean", "deviation", "relative_deviation"}) {
      out[name] = zeros({0});
    }
    if (keep_references) {
      out["references"] = to_numpy(Tensor::zeros({0, given.count, length}, DType::kUInt8));
    }
    return out;
  }
  explain::DeepLiftShapResult result;
  Tensor actual;
  {
    nb::gil_scoped_release no_gil;
    std::lock_guard<std::mutex> lock(self.mutex());
    LongCall call(threads);
    result = explain::deep_lift_shap(self.model(), in.codes, options);
    actual = explain::actual_contributions(result.hypothetical, in.codes);
  }
  out["hypothetical"] = to_numpy(result.hypothetical);
  out["actual"] = to_numpy(actual);
  out["prediction"] = to_numpy(result.prediction);
  out["reference_mean"] = to_numpy(result.reference_mean);
  out["deviation"] = to_numpy(result.deviation);
  out["relative_deviation"] = to_numpy(result.relative_deviation);
  if (keep_references) out["references"] = to_numpy(result.references);
  return out;
}

nb::object gradient(PythonModel& self, const nb::handle& x,
                    const std::optional<std::string>& output, const std::string& task,
                    bool activation, int64_t batch_size, bool input_x_gradient,
                    const std::string& layout, std::optional<int64_t> threads) {
  check_pass(batch_size, threads);
  Explained in = prepare(self, x, output, task, activation, layout);
  if (in.source.count == 0) return zeros({0, 4, in.source.length});
  explain::GradientOptions options;
  options.target = in.resolved.target;
  options.batch_size = batch_size;
  Tensor scores;
  {
    nb::gil_scoped_release no_gil;
    std::lock_guard<std::mutex> lock(self.mutex());
    LongCall call(threads);
    scores = input_x_gradient ? explain::input_x_gradient(self.model(), in.codes, options)
                              : explain::gradient(self.model(), in.codes, options);
  }
  return to_numpy(scores);
}

// A motif's codes, the error naming `what`.
std::vector<uint8_t> motif_codes(const std::string& letters, const std::string& what) {
  try {
    return explain::motif_codes(letters);
  } catch (const Error& error) {
    throw app::ConfigError(fmt::format("{}: {}", what, error.what()));
  }
}

// The names of the target's columns: every task's with task "all", else the one task's.
std::vector<std::string> target_columns(const app::ResolvedTarget& resolved) {
  return resolved.target.task < 0 ? resolved.task_names
                                  : std::vector<std::string>{resolved.task_label};
}

nb::dict marginalize(PythonModel& self, const nb::handle& x, const std::vector<std::string>& motifs,
                     const std::vector<std::optional<int64_t>>& starts,
                     const std::optional<std::string>& output, const std::string& task,
                     bool activation, int64_t batch_size, const std::string& layout,
                     std::optional<int64_t> threads) {
  check_pass(batch_size, threads);
  if (motifs.empty()) throw app::ConfigError("motif: give at least one motif");
  if (starts.size() != motifs.size()) {
    throw app::ConfigError(fmt::format("start: {} start(s) for {} motif(s); give one per motif",
                                       starts.size(), motifs.size()));
  }
  Explained in = prepare(self, x, output, task, activation, layout);
  const int64_t length = in.source.length;
  std::vector<explain::Insertion> insertions;
  for (size_t i = 0; i < motifs.size(); ++i) {
    explain::Insertion insertion;
    insertion.codes = motif_codes(motifs[i], "motif");
    const auto width = static_cast<int64_t>(insertion.codes.size());
    if (width > length) {
      throw app::ConfigError(
          fmt::format("motif: '{}' has {} bases; the sequences have {}", motifs[i], width, length));
    }
    insertion.start = starts[i].value_or((length - width) / 2);
    if (insertion.start < 0 || insertion.start + width > length) {
      throw app::ConfigError(fmt::format(
          "start: {} does not place the {} bases of '{}' inside sequences of {} (0 to {})",
          insertion.start, width, motifs[i], length, length - width));
    }
    insertions.push_back(std::move(insertion));
  }
  const std::vector<std::string> columns = target_columns(in.resolved);
  explain::MarginalizeOptions options;
  options.target = in.resolved.target;
  options.batch_size = batch_size;
  nb::dict out;
  if (in.source.count == 0) {
    out["before"] = zeros({0, static_cast<int64_t>(columns.size())});
    out["after"] = zeros({0, static_cast<int64_t>(columns.size())});
  } else {
    explain::MarginalizeResult result;
    {
      nb::gil_scoped_release no_gil;
      std::lock_guard<std::mutex> lock(self.mutex());
      LongCall call(threads);
      result = explain::marginalize(self.model(), in.codes, insertions, options);
    }
    out["before"] = to_numpy(result.before);
    out["after"] = to_numpy(result.after);
  }
  out["tasks"] = columns;
  return out;
}

nb::dict marginalize_spacing(PythonModel& self, const nb::handle& x, const std::string& a,
                             const std::string& b, int64_t first, int64_t last,
                             const std::optional<std::string>& output, const std::string& task,
                             bool activation, int64_t batch_size, const std::string& layout,
                             std::optional<int64_t> threads) {
  check_pass(batch_size, threads);
  const std::vector<uint8_t> codes_a = motif_codes(a, "a");
  const std::vector<uint8_t> codes_b = motif_codes(b, "b");
  if (first > last) {
    throw app::ConfigError(fmt::format(
        "last: {} is before first ({}); the spacings are first..last inclusive", last, first));
  }
  Explained in = prepare(self, x, output, task, activation, layout);
  if (in.source.count == 0) {
    throw app::ConfigError("x: marginalize_spacing averages over backgrounds; give at least one");
  }
  // Every spacing must fit (the range's ends are the farthest apart); those at which the motifs
  // overlap are left out of the result.
  const int64_t length = in.source.length;
  const auto width_a = static_cast<int64_t>(codes_a.size());
  const auto width_b = static_cast<int64_t>(codes_b.size());
  const auto without_flag = [](const Error& error) {
    const std::string message = error.what();
    return message.starts_with("--spacing ") ? message.substr(10) : message;
  };
  for (const auto& [spacing, name] : {std::pair{first, "first"}, std::pair{last, "last"}}) {
    if (explain::pair_overlaps(length, width_a, width_b, spacing)) continue;
    try {
      explain::pair_starts(length, width_a, width_b, spacing);
    } catch (const Error& error) {
      throw app::ConfigError(fmt::format("{}: spacing {}", name, without_flag(error)));
    }
  }
  try {
    explain::pair_spacings(length, width_a, width_b, first, last);
  } catch (const Error& error) {
    throw app::ConfigError(fmt::format("first, last: spacing {}", without_flag(error)));
  }
  explain::MarginalizeOptions options;
  options.target = in.resolved.target;
  options.batch_size = batch_size;
  std::vector<explain::SpacingEffect> effects;
  {
    nb::gil_scoped_release no_gil;
    std::lock_guard<std::mutex> lock(self.mutex());
    LongCall call(threads);
    effects = explain::marginalize_spacing(self.model(), in.codes, codes_a, codes_b, first, last,
                                           options);
  }
  const std::vector<std::string> columns = target_columns(in.resolved);
  const auto spacings = static_cast<int64_t>(effects.size());
  const auto tasks = static_cast<int64_t>(columns.size());
  nb::dict out;
  auto spacing_values = std::make_shared<std::vector<int64_t>>();
  for (const explain::SpacingEffect& effect : effects) spacing_values->push_back(effect.spacing);
  out["spacing"] = numpy_view(spacing_values->data(), {spacings}, DType::kInt64, spacing_values);
  const std::pair<const char*, Tensor explain::SpacingEffect::*> fields[] = {
      {"background", &explain::SpacingEffect::background},
      {"a", &explain::SpacingEffect::a},
      {"b", &explain::SpacingEffect::b},
      {"both", &explain::SpacingEffect::both}};
  for (const auto& [name, field] : fields) {
    float* values = nullptr;
    nb::object array = new_float_array({spacings, tasks}, &values);
    for (int64_t s = 0; s < spacings; ++s) {
      const Tensor row = (effects[static_cast<size_t>(s)].*field)
                             .to(Device::cpu())
                             .to(DType::kFloat32)
                             .contiguous();
      std::copy(row.data<float>(), row.data<float>() + tasks, values + s * tasks);
    }
    out[name] = array;
  }
  out["tasks"] = columns;
  return out;
}

}  // namespace

void bind_explain(nb::module_& m) {
  m.def("_default_explain_batch", &app::default_explain_batch, nb::arg("method"),
        "The batch size of `method` (ism, deeplift_shap, gradient, input_x_gradient) when none is "
        "given: `strand explain`'s on the CPU, the default of strand.explain's batch_size.");
  m.def("_explain_ism", &ism, nb::arg("model"), nb::arg("x"), nb::arg("output").none(),
        nb::arg("task"), nb::arg("activation"), nb::arg("start"), nb::arg("end").none(),
        nb::arg("path"), nb::arg("batch_size"), nb::arg("layout"), nb::arg("threads").none(),
        "explain::ism(): {\"effects\": (N, 4, P), \"prediction\": (N,), \"fast\": bool} "
        "(strand.explain.ism is the public function).");
  m.def("_explain_deep_lift_shap", &deep_lift_shap, nb::arg("model"), nb::arg("x"),
        nb::arg("references"), nb::arg("seed"), nb::arg("output").none(), nb::arg("task"),
        nb::arg("activation"), nb::arg("batch_size"), nb::arg("keep_references"), nb::arg("layout"),
        nb::arg("threads").none(),
        "explain::deep_lift_shap(): its result's fields and the actual contributions as numpy "
        "arrays (strand.explain.deep_lift_shap is the public function).");
  m.def("_explain_gradient", &gradient, nb::arg("model"), nb::arg("x"), nb::arg("output").none(),
        nb::arg("task"), nb::arg("activation"), nb::arg("batch_size"), nb::arg("input_x_gradient"),
        nb::arg("layout"), nb::arg("threads").none(),
        "explain::gradient() or explain::input_x_gradient(): (N, 4, L) (strand.explain.gradient "
        "and strand.explain.input_x_gradient are the public functions).");
  m.def("_explain_marginalize", &marginalize, nb::arg("model"), nb::arg("x"), nb::arg("motifs"),
        nb::arg("starts"), nb::arg("output").none(), nb::arg("task"), nb::arg("activation"),
        nb::arg("batch_size"), nb::arg("layout"), nb::arg("threads").none(),
        "explain::marginalize(): {\"before\": (N, T), \"after\": (N, T), \"tasks\": [T names]} "
        "(strand.explain.marginalize is the public function).");
  m.def("_explain_marginalize_spacing", &marginalize_spacing, nb::arg("model"), nb::arg("x"),
        nb::arg("a"), nb::arg("b"), nb::arg("first"), nb::arg("last"), nb::arg("output").none(),
        nb::arg("task"), nb::arg("activation"), nb::arg("batch_size"), nb::arg("layout"),
        nb::arg("threads").none(),
        "explain::marginalize_spacing(): {\"spacing\": (S,), \"background\", \"a\", \"b\", "
        "\"both\": (S, T), \"tasks\"} (strand.explain.marginalize_spacing is the public "
        "function).");
}

}  // namespace strand::python
