// DeepLIFT/SHAP: references, the two forward passes of the attribution rules, the backward pass,
// and the hypothetical contributions averaged per sequence.
#include "explain/deep_lift_shap.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "alternates/parallel_units.h"
#include "autograd/attribution.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "data/encoding.h"
#include "ops/conv1d.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "ops/softmax.h"
#include "train/evaluation.h"

namespace strand::explain {
namespace {

// Grad mode on for the scope (the attribution rules take part only with it), then restored.
class GradModeOn {
 public:
  GradModeOn() : previous_(grad_enabled()) { set_grad_enabled(true); }
  ~GradModeOn() { set_grad_enabled(previous_); }
  GradModeOn(const GradModeOn&) = delete;
  GradModeOn& operator=(const GradModeOn&) = delete;

 private:
  bool previous_;
};

// Row rows[i] of `t` for each i: (rows.size(), ...).
Tensor rows_of(const Tensor& t, const std::vector<int64_t>& rows) {
  std::vector<Tensor> parts;
  for (const int64_t row : rows) parts.push_back(t.slice(0, row, row + 1));
  return ops::concat(parts, 0);
}

}  // namespace

Tensor actual_contributions(const Tensor& hypothetical, const Tensor& codes) {
  STRAND_CHECK(hypothetical.dim() == 3 && codes.dim() == 2 &&
                   hypothetical.size(0) == codes.size(0) && hypothetical.size(1) == 4 &&
                   hypothetical.size(2) == codes.size(1),
               "actual_contributions: hypothetical {} does not fit codes {}",
               hypothetical.describe(), codes.describe());
  const Tensor h = hypothetical.to(Device::cpu()).to(DType::kFloat32).contiguous();
  const Tensor c = codes.to(Device::cpu()).contiguous();
  Tensor out = Tensor::zeros(h.shape(), DType::kFloat32);
  const int64_t n = c.size(0), length = c.size(1);
  const float* in = h.data<float>();
  const uint8_t* base = c.data<uint8_t>();
  float* o = out.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t l = 0; l < length; ++l) {
      const uint8_t b = base[i * length + l];
      if (b < data::kNumBases) {
        const int64_t at = (i * 4 + b) * length + l;
        o[at] = in[at];
      }
    }
  }
  return out;
}

namespace {

// Per-sequence sums over the sequence's reference pairs, (N) each.
struct PairSums {
  explicit PairSums(int64_t n)
      : prediction(static_cast<size_t>(n), 0.0),
        reference_sum(static_cast<size_t>(n), 0.0),
        attribution_sum(static_cast<size_t>(n), 0.0),
        difference_scale(static_cast<size_t>(n), 0.0) {}
  std::vector<double> prediction;
  std::vector<double> reference_sum;
  std::vector<double> attribution_sum;   // sum over pairs of (x-r).m
  std::vector<double> difference_scale;  // sum of |f(x) - f(r)|
};

// The references of every sequence: (N, R, L) codes, from `references_of`.
Tensor draw_references(const ReferenceFunction& references_of, const Tensor& codes, int64_t r,
                       int64_t first_index) {
  const int64_t n = codes.size(0), length = codes.size(1);
  Tensor references;
  try {
    references = Tensor::empty({n, r, length}, DType::kUInt8);
  } catch (const Error& error) {
    throw Error(fmt::format(
        "references: {} references for each of {} sequences of {} bases need {:.0f} bytes "
        "({}); lower references or explain fewer sequences per call",
        r, n, length, static_cast<double>(n) * static_cast<double>(r) * static_cast<double>(length),
        error.what()));
  }
  const uint8_t* x_codes = codes.data<uint8_t>();
  uint8_t* r_codes = references.data<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    references_of(first_index + i, x_codes + i * length, length, r, r_codes + i * r * length);
  }
  return references;
}

// Adds a batch of `count` pairs from pair `first` on (r references per sequence; codes x_batch
// and r_batch (count, L), multipliers m (count, 4, L), f(x) and f(r) (count)) to the
// hypothetical scores (N, 4, L) and the sums.
void add_pairs(int64_t first, int64_t count, int64_t r, int64_t length, const uint8_t* x_batch,
               const uint8_t* r_batch, const float* m, const double* fxv, const double* frv,
               float* hypothetical, PairSums& sums) {
  for (int64_t q = 0; q < count; ++q) {
    const int64_t pair = first + q, i = pair / r;
    const uint8_t* xb = x_batch + q * length;
    const uint8_t* rb = r_batch + q * length;
    const float* mq = m + q * 4 * length;
    float* h = hypothetical + i * 4 * length;
    double dot = 0.0;  // the pair's actual contributions: (x - r) . m where x has a letter
    for (int64_t l = 0; l < length; ++l) {
      // sum_c r[c, l] m[c, l]: the multiplier of the reference's letter (0 for N).
      const float at_reference = rb[l] < data::kNumBases ? mq[rb[l] * length + l] : 0.0F;
      if (xb[l] < data::kNumBases) {
        dot += static_cast<double>(mq[xb[l] * length + l]) - static_cast<double>(at_reference);
      }
      for (int64_t c = 0; c < 4; ++c) {
        h[c * length + l] += (mq[c * length + l] - at_reference) / static_cast<float>(r);
      }
    }
    sums.prediction[static_cast<size_t>(i)] = fxv[q];
    sums.reference_sum[static_cast<size_t>(i)] += frv[q];
    sums.attribution_sum[static_cast<size_t>(i)] += dot;
    sums.difference_scale[static_cast<size_t>(i)] += std::abs(fxv[q] - frv[q]);
  }
}

// The task values of the references' outputs z_r, reference q of the input at row
// input_rows[q] of the inputs' outputs z_x.
Var reference_task_values(const Var& z_x, const Var& z_r, Activation activation,
                          const Target& target, const std::vector<int64_t>& input_rows) {
  if (z_r.dim() == 3 && activation == Activation::kSoftmax) {
    // A profile's summary with the input's softmax weights held constant (the field's
    // wrapper): the references weighed as their inputs are.
    const Var weights(rows_of(ops::softmax(z_x.value(), 2), input_rows));
    return sum(mul(sub(z_r, mean(z_r, {2}, /*keepdim=*/true)), weights), {2});
  }
  return output_task_values(z_r, activation, target);
}

// The result's per-sequence figures from the sums over its r references.
void summarise(const PairSums& sums, int64_t n, int64_t r, DeepLiftShapResult& result) {
  result.prediction = Tensor::empty({n}, DType::kFloat32);
  result.reference_mean = Tensor::empty({n}, DType::kFloat32);
  result.deviation = Tensor::empty({n}, DType::kFloat32);
  result.relative_deviation = Tensor::empty({n}, DType::kFloat32);
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    const double mean_reference = sums.reference_sum[k] / static_cast<double>(r);
    const double deviation = std::abs(sums.attribution_sum[k] / static_cast<double>(r) -
                                      (sums.prediction[k] - mean_reference));
    const double scale = sums.difference_scale[k] / static_cast<double>(r);
    result.prediction.data<float>()[i] = static_cast<float>(sums.prediction[k]);
    result.reference_mean.data<float>()[i] = static_cast<float>(mean_reference);
    result.deviation.data<float>()[i] = static_cast<float>(deviation);
    result.relative_deviation.data<float>()[i] =
        static_cast<float>(scale > 0.0 ? deviation / scale : 0.0);
  }
}

}  // namespace

DeepLiftShapResult deep_lift_shap(Model& model, const Tensor& codes_in,
                                  const DeepLiftShapOptions& options) {
  STRAND_CHECK(codes_in.dim() == 2 && codes_in.dtype() == DType::kUInt8,
               "deep_lift_shap: expected base codes (N, L) uint8, got {}", codes_in.describe());
  STRAND_CHECK(kReferencesRange.contains(options.references),
               "references: must be in {} references per sequence, got {}", kReferencesRange.text(),
               options.references);
  STRAND_CHECK(options.batch_size >= 1, "deep_lift_shap: batch size must be >= 1, got {}",
               options.batch_size);
  const Tensor codes = codes_in.to(Device::cpu()).contiguous();
  const int64_t n = codes.size(0), length = codes.size(1), r = options.references;
  check_target(model, length, options.target);
  const ReferenceFunction references_of =
      options.reference_function ? options.reference_function : dinucleotide_shuffles(options.seed);
  // The references of every sequence: (N, R, L) codes.
  const Tensor references = draw_references(references_of, codes, r, options.first_index);
  const uint8_t* x_codes = codes.data<uint8_t>();
  const uint8_t* r_codes = references.data<uint8_t>();

  ExplainScope scope(model);
  GradModeOn grad_on;
  const Activation activation = model.output_activation(options.target.output);
  const Device device = train::model_device(model);
  DeepLiftShapResult result;
  result.hypothetical = Tensor::zeros({n, 4, length}, DType::kFloat32);
  PairSums sums(n);
  float* hypothetical = result.hypothetical.data<float>();
  // Units of work (alternates/parallel_units.h): groups of sequences with all their references,
  // about one batch of pairs each, so that every sequence's sums are made in one thread, in
  // order (the results do not depend on the thread count).
  // At least one unit per thread when there are enough sequences.
  const alternates::DeviceUnits device_units(!device.is_cpu());
  const int64_t threads = std::max(1, omp_get_max_threads());
  const int64_t group = std::clamp<int64_t>(options.batch_size / r, 1,
                                            std::max<int64_t>(1, (n + threads - 1) / threads));
  model.output_activation(options.target.output);  // a Graph's plan, made before the threads
  alternates::for_each_unit((n + group - 1) / group, [&](int64_t unit) {
    GradModeOn unit_grad_on;  // grad mode is per thread
    const int64_t pairs_begin = unit * group * r;
    const int64_t pairs_end = std::min(n, (unit + 1) * group) * r;
    std::vector<uint8_t> x_batch, r_batch;
    for (int64_t first = pairs_begin; first < pairs_end; first += options.batch_size) {
      const int64_t count = std::min(pairs_end - first, options.batch_size);
      // The batch's sequences once each (the inputs' pass), and for each pair the row of its
      // sequence (autograd/attribution.h).
      const int64_t first_sequence = first / r, last_sequence = (first + count - 1) / r;
      const int64_t unique = last_sequence - first_sequence + 1;
      std::vector<int64_t> input_rows(static_cast<size_t>(count));
      x_batch.resize(static_cast<size_t>(count * length));
      r_batch.resize(static_cast<size_t>(count * length));
      for (int64_t q = 0; q < count; ++q) {
        const int64_t pair = first + q, i = pair / r;
        input_rows[static_cast<size_t>(q)] = i - first_sequence;
        std::copy_n(x_codes + i * length, length, x_batch.data() + q * length);
        std::copy_n(r_codes + pair * length, length, r_batch.data() + q * length);
      }
      const Tensor x_onehot =
          ops::one_hot(Tensor::from_blob(const_cast<uint8_t*>(x_codes) + first_sequence * length,
                                         {unique, length}, DType::kUInt8)
                           .clone());
      const Tensor r_onehot =
          ops::one_hot(Tensor::from_blob(r_batch.data(), {count, length}, DType::kUInt8).clone());

      AttributionPass pass;
      ModelInputs inputs_in;
      inputs_in.sequence = Var(x_onehot.to(device));
      const Var z_x = model.forward_outputs(inputs_in)[options.target.output];
      // The task values run inside the pass too: a final activation saves its values.
      const Tensor f_x_unique =
          select_target(output_task_values(z_x, activation, options.target), options.target)
              .value();
      pass.begin_references(input_rows);
      Var reference_input(r_onehot.to(device), /*requires_grad=*/true);
      ModelInputs references_in;
      references_in.sequence = reference_input;
      const Var z_r = model.forward_outputs(references_in)[options.target.output];
      const Var f_r_var = select_target(
          reference_task_values(z_x, z_r, activation, options.target, input_rows), options.target);
      f_r_var.backward(Tensor::ones(f_r_var.shape(), f_r_var.dtype(), f_r_var.device()));
      pass.finish();
      const Tensor f_r = f_r_var.value().to(Device::cpu()).to(DType::kFloat64).contiguous();
      const Tensor fx =
          rows_of(f_x_unique, input_rows).to(Device::cpu()).to(DType::kFloat64).contiguous();
      const Tensor multipliers =
          reference_input.grad().to(Device::cpu()).to(DType::kFloat32).contiguous();
      const float* m = multipliers.data<float>();
      const double* fxv = fx.data<double>();
      const double* frv = f_r.data<double>();
      add_pairs(first, count, r, length, x_batch.data(), r_batch.data(), m, fxv, frv, hypothetical,
                sums);
    }
  });
  summarise(sums, n, r, result);
  if (options.keep_references) result.references = references;
  return result;
}

}  // namespace strand::explain
