// Fused alternates of a Sequential (alternates/fused_sequential.h).
//
// The prefix's layers, in order, each map a range of changed input positions [a, b) to the
// output positions whose inputs meet it: for a convolution or pooling layer with kernel k,
// stride s, dilation d and left padding p, output t reads inputs t*s - p + j*d (j < k), so
// t ranges over [ceil((a + p - (k-1)d) / s), floor((b - 1 + p) / s)]. Those outputs are
// computed from a slice of the layer's input: the reference's, with the alternate values
// written over the changed part (and the padding's zeros, or N codes for the first layer,
// beyond the ends; the first layer reads the reference's codes with the alternate's letters
// written over them). Position-wise layers (BatchNorm1D in evaluation, ReLU, Sigmoid, Dropout
// in evaluation) run on the changed part alone.
#include "alternates/fused_sequential.h"

#include <algorithm>
#include <cstring>

#include "alternates/change_windows.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "data/encoding.h"
#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/channel_affine.h"
#include "layers/conv1d.h"
#include "layers/dropout.h"
#include "layers/fusion.h"
#include "layers/pooling.h"
#include "ops/conv1d.h"
#include "ops/pooling.h"

namespace strand::alternates {
namespace {

using detail::ceil_div;
using detail::floor_div;

// The changed output range of a spatial step for a changed input range (empty: begin >= end).
ColumnRange output_range(int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_left,
                         int64_t out_length, ColumnRange in) {
  if (in.begin >= in.end) return {0, 0};
  const int64_t first = ceil_div(in.begin + pad_left - (kernel - 1) * dilation, stride);
  const int64_t last = floor_div(in.end - 1 + pad_left, stride);
  const int64_t begin = std::max<int64_t>(first, 0);
  const int64_t end = std::min<int64_t>(last + 1, out_length);
  return begin < end ? ColumnRange{begin, end} : ColumnRange{0, 0};
}

// Rows `rows` and positions [begin, end) of (B, C, L) float `source`, as a new
// (rows.size(), C, end - begin) tensor; positions outside [0, L) are zero.
Tensor slice_positions(const Tensor& source, std::span<const int64_t> rows, int64_t begin,
                       int64_t end) {
  const int64_t channels = source.size(1), length = source.size(2), width = end - begin;
  const auto count = static_cast<int64_t>(rows.size());
  Tensor out = Tensor::zeros({count, channels, width});
  const float* in = source.data<float>();
  float* o = out.data<float>();
  const int64_t from = std::max<int64_t>(begin, 0), to = std::min<int64_t>(end, length);
  if (from >= to) return out;
  for (int64_t r = 0; r < count; ++r) {
    for (int64_t c = 0; c < channels; ++c) {
      std::memcpy(o + (r * channels + c) * width + (from - begin),
                  in + (rows[static_cast<size_t>(r)] * channels + c) * length + from,
                  static_cast<size_t>(to - from) * sizeof(float));
    }
  }
  return out;
}

// Writes (rows, C, range width) `patch` over positions [range) of (rows, C, L) `target`, which
// starts at position `offset` of the layer's input (target position = position - offset).
void write_positions(Tensor& target, int64_t offset, const Tensor& patch, ColumnRange range) {
  const int64_t rows = target.size(0), channels = target.size(1), length = target.size(2);
  const int64_t width = range.end - range.begin;
  const int64_t from = std::max<int64_t>(range.begin, offset);
  const int64_t to = std::min<int64_t>(range.end, offset + length);
  if (from >= to) return;
  const float* p = patch.data<float>();
  float* t = target.data<float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < channels; ++c) {
      std::memcpy(t + (r * channels + c) * length + (from - offset),
                  p + (r * channels + c) * width + (from - range.begin),
                  static_cast<size_t>(to - from) * sizeof(float));
    }
  }
}

// Positions [begin, end) of the batch's alternates ((M, end - begin) codes, N beyond the ends):
// reference row slots[m] of `codes` ((G, L)) with letters[m] written over [starts[m], starts[m] +
// W).
Tensor alternate_codes(const Tensor& codes, const AlternateBatch& batch, int64_t begin,
                       int64_t end) {
  const auto rows = static_cast<int64_t>(batch.slots.size());
  const int64_t length = codes.size(1), width = end - begin, w = batch.letters.size(1);
  Tensor out = Tensor::empty({rows, width}, DType::kUInt8);
  const uint8_t* in = codes.data<uint8_t>();
  const uint8_t* letters = batch.letters.data<uint8_t>();
  uint8_t* o = out.data<uint8_t>();
  std::memset(o, data::kCodeN, static_cast<size_t>(rows * width));
  const int64_t from = std::max<int64_t>(begin, 0), to = std::min<int64_t>(end, length);
  for (int64_t r = 0; from < to && r < rows; ++r) {
    const auto m = static_cast<size_t>(r);
    std::memcpy(o + r * width + (from - begin), in + batch.slots[m] * length + from,
                static_cast<size_t>(to - from));
    const int64_t lo = std::max(from, batch.starts[m]), hi = std::min(to, batch.starts[m] + w);
    if (hi > lo) {
      std::memcpy(o + r * width + (lo - begin), letters + r * w + (lo - batch.starts[m]),
                  static_cast<size_t>(hi - lo));
    }
  }
  return out;
}

// The columns the batch's alternates may differ in: the union of their changed ranges (or of
// their windows), clipped to [0, length).
ColumnRange changed_columns(const AlternateBatch& batch, int64_t length) {
  ColumnRange all{0, 0};
  bool any = false;
  for (size_t m = 0; m < batch.slots.size(); ++m) {
    const ColumnRange r =
        batch.changed.empty()
            ? ColumnRange{batch.starts[m], batch.starts[m] + batch.letters.size(1)}
            : batch.changed[m];
    if (r.begin >= r.end) continue;
    all = any ? ColumnRange{std::min(all.begin, r.begin), std::max(all.end, r.end)} : r;
    any = true;
  }
  return {std::max<int64_t>(all.begin, 0), std::min<int64_t>(all.end, length)};
}

// Whether a layer is position-wise: its output at a position depends on its input there only
// (in evaluation mode).
bool pointwise(const Layer& layer) {
  return dynamic_cast<const BatchNorm1D*>(&layer) != nullptr ||
         dynamic_cast<const ReLU*>(&layer) != nullptr ||
         dynamic_cast<const Sigmoid*>(&layer) != nullptr ||
         dynamic_cast<const Dropout*>(&layer) != nullptr;
}

// Runs layers [begin, end) of `model` on `x`, fusing runs as Sequential does.
Var run_layers(const Sequential& model, size_t begin, size_t end, Var x) {
  std::vector<Layer*> run;
  for (size_t i = begin; i < end; ++i) run.push_back(model.layer(i).get());
  for (size_t i = 0; i < run.size();) {
    const std::span<Layer* const> rest(run.data() + i, run.size() - i);
    const size_t length = model.fusion() ? fused_run_length(rest) : 1;
    x = forward_fused_run(rest, length, x);
    i += length;
  }
  return x;
}

}  // namespace

FusedSequential::FusedSequential(Sequential& model, std::vector<Step> steps, size_t split,
                                 size_t end, int64_t length)
    : model_(&model), steps_(std::move(steps)), split_(split), end_(end), length_(length) {}

std::optional<FusedSequential> FusedSequential::plan(Model& model, int64_t length) {
  auto* sequential = dynamic_cast<Sequential*>(&model);
  if (sequential == nullptr || sequential->size() < 2) return std::nullopt;
  const std::vector<Var> parameters = model.parameters();
  if (!parameters.empty() && parameters.front().device() != Device::cpu()) return std::nullopt;
  if (dynamic_cast<const Conv1D*>(sequential->layer(0).get()) == nullptr) return std::nullopt;
  std::vector<Step> steps;
  Shape shape = {length};
  size_t split = 0;
  int spatial = 0;
  for (; split < sequential->size(); ++split) {
    Layer& layer = *sequential->layer(split);
    Step step;
    step.layer = &layer;
    step.in_length = shape.back();
    if (const auto* conv = dynamic_cast<const Conv1D*>(&layer)) {
      const Conv1DParams params = conv->params_for_length(step.in_length);
      step.kind = StepKind::kConv;
      step.kernel = conv->kernel_size();
      step.stride = params.stride;
      step.dilation = params.dilation;
      step.pad_left = params.pad_left;
    } else if (const auto* max_pool = dynamic_cast<const MaxPool1D*>(&layer)) {
      step.kind = StepKind::kMaxPool;
      step.kernel = max_pool->params().kernel;
      step.stride = max_pool->params().stride;
    } else if (const auto* avg_pool = dynamic_cast<const AvgPool1D*>(&layer)) {
      step.kind = StepKind::kAvgPool;
      step.kernel = avg_pool->params().kernel;
      step.stride = avg_pool->params().stride;
    } else if (!pointwise(layer)) {
      break;  // the first position-mixing layer
    }
    try {
      shape = layer.output_shape(shape);
    } catch (const Error&) {
      return std::nullopt;
    }
    if (shape.size() != 2) return std::nullopt;
    step.out_length = shape.back();
    if (step.kind != StepKind::kPointwise) step.spatial_index = spatial++;
    steps.push_back(step);
  }
  if (split == sequential->size() || spatial < 2) return std::nullopt;
  // Convolution -> BatchNorm1D (-> ReLU): the normalisation folds into the convolution's weights
  // and the ReLU into its bias pass, one pass over the activation instead of three. A
  // convolution -> ReLU fuses the ReLU alone.
  int folds = 0;
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    if (steps[i].kind != StepKind::kConv) continue;
    size_t next = i + 1;
    if (dynamic_cast<const BatchNorm1D*>(steps[next].layer) != nullptr) {
      steps[i].fold = folds++;
      steps[next].absorbed = true;
      ++next;
    }
    if (next < steps.size() && dynamic_cast<const ReLU*>(steps[next].layer) != nullptr) {
      steps[i].relu = true;
      steps[next].absorbed = true;
    }
  }
  const bool final = sequential->output_activation(0) != Activation::kIdentity;
  const size_t end = final ? sequential->size() - 1 : sequential->size();
  if (split >= end) return std::nullopt;
  return FusedSequential(*sequential, std::move(steps), split, end, length);
}

Tensor FusedSequential::run_suffix(const Tensor& split) const {
  return run_layers(*model_, split_, end_, Var(split)).value().to(DType::kFloat32).contiguous();
}

Tensor FusedSequential::convolve(const Step& step, const Tensor& x, const Conv1DParams& params,
                                 const SequentialReference& kept) const {
  const auto* conv = static_cast<const Conv1D*>(step.layer);
  Tensor weight = conv->weight().value();
  Tensor bias = conv->bias().defined() ? conv->bias().value() : Tensor();
  if (step.fold >= 0) {
    weight = kept.folded_weights[static_cast<size_t>(step.fold)];
    bias = kept.folded_biases[static_cast<size_t>(step.fold)];
  }
  // Base codes through their one-hot floats: an im2col + GEMM convolution, which for a first
  // layer of many filters (Basset's 300, BPNet's 64) is several times faster than the one-hot
  // gather (same values: N is an all-zero column in both).
  const Tensor input = x.dtype() == DType::kUInt8 ? ops::one_hot(x, weight.dtype()) : x;
  return step.relu ? ops::conv1d_relu(input, weight, bias, params)
                   : ops::conv1d(input, weight, bias, params);
}

// The folded weights: BatchNorm1D in evaluation is y = a x + c per channel, read off the layer at
// x = 0 and x = 1; the convolution before it becomes (a W) x + (a b + c).
void FusedSequential::fold_batch_norms(SequentialReference& kept) const {
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i].fold < 0) continue;
    const auto* conv = static_cast<const Conv1D*>(steps_[i].layer);
    const int64_t channels = conv->out_channels(), taps = conv->in_channels() * conv->kernel_size();
    const ChannelAffine affine = channel_affine(*steps_[i + 1].layer, channels);
    Tensor weight = conv->weight().value().contiguous().clone();
    Tensor bias = Tensor::zeros({channels});
    const Tensor original_bias =
        conv->bias().defined() ? conv->bias().value().contiguous() : Tensor();
    for (int64_t c = 0; c < channels; ++c) {
      const float shift = affine.shift.data<float>()[c];
      const float scale = affine.scale.data<float>()[c];
      float* w = weight.data<float>() + c * taps;
      for (int64_t k = 0; k < taps; ++k) w[k] *= scale;
      const float b = original_bias.defined() ? original_bias.data<float>()[c] : 0.0f;
      bias.data<float>()[c] = b * scale + shift;
    }
    kept.folded_weights.push_back(weight);
    kept.folded_biases.push_back(bias);
  }
}

SequentialReference FusedSequential::reference(const Tensor& codes) const {
  NoGradGuard no_grad;
  // Only a model in training mode is switched (and back): callers that run alternates in
  // parallel units hand over a model in evaluation mode, which then is only read.
  const bool was_training = model_->is_training();
  if (was_training) model_->eval();
  SequentialReference kept;
  kept.batch = codes.size(0);
  fold_batch_norms(kept);
  Var h(codes.contiguous());
  // Segments start at each spatial layer (whose input is kept) and run fused.
  size_t begin = 0;
  while (begin < split_) {
    size_t end = begin + 1;
    while (end < split_ && steps_[end].kind == StepKind::kPointwise) ++end;
    if (steps_[begin].spatial_index >= 0) kept.inputs.push_back(h.value());
    size_t rest = begin;
    if (steps_[begin].kind == StepKind::kConv &&
        (begin == 0 || steps_[begin].fold >= 0 || steps_[begin].relu)) {
      const Step& step = steps_[begin];
      h = Var(convolve(step, h.value(),
                       static_cast<const Conv1D*>(step.layer)->params_for_length(step.in_length),
                       kept));
      rest = begin + 1;
      while (rest < end && steps_[rest].absorbed) ++rest;
    }
    h = run_layers(*model_, rest, end, h);
    begin = end;
  }
  kept.split = h.value().contiguous();
  kept.output = run_suffix(kept.split);
  if (was_training) model_->train(true);
  return kept;
}

Tensor FusedSequential::step_values(const Step& step, const SequentialReference& kept,
                                    const AlternateBatch& batch, const Tensor& patch,
                                    ColumnRange range, ColumnRange out) const {
  const int64_t need_begin = out.begin * step.stride - step.pad_left;
  const int64_t need_end =
      (out.end - 1) * step.stride - step.pad_left + (step.kernel - 1) * step.dilation + 1;
  if (step.spatial_index == 0) {
    // The first layer reads the alternates' codes (N, a zero column, beyond the ends).
    Conv1DParams params = static_cast<const Conv1D*>(step.layer)->params_for_length(step.in_length);
    params.pad_left = params.pad_right = 0;
    return convolve(step, alternate_codes(kept.inputs[0], batch, need_begin, need_end), params,
                    kept);
  }
  Tensor input = slice_positions(kept.inputs[static_cast<size_t>(step.spatial_index)], batch.slots,
                                 need_begin, need_end);
  write_positions(input, need_begin, patch, range);
  if (step.kind == StepKind::kConv) {
    Conv1DParams params = static_cast<const Conv1D*>(step.layer)->params_for_length(step.in_length);
    params.pad_left = params.pad_right = 0;
    return convolve(step, input, params, kept);
  }
  if (step.kind == StepKind::kMaxPool) {
    return ops::max_pool1d(input, static_cast<const MaxPool1D*>(step.layer)->params()).first;
  }
  return ops::avg_pool1d(input, static_cast<const AvgPool1D*>(step.layer)->params());
}

Tensor FusedSequential::alternates(const SequentialReference& kept,
                                   const AlternateBatch& batch) const {
  NoGradGuard no_grad;
  // Only a model in training mode is switched (and back): callers that run alternates in
  // parallel units hand over a model in evaluation mode, which then is only read.
  const bool was_training = model_->is_training();
  if (was_training) model_->eval();
  STRAND_CHECK(batch.letters.dim() == 2 && batch.letters.dtype() == DType::kUInt8 &&
                   batch.letters.size(0) == static_cast<int64_t>(batch.slots.size()) &&
                   batch.starts.size() == batch.slots.size() &&
                   (batch.changed.empty() || batch.changed.size() == batch.slots.size()),
               "fused alternates: {} alternates need (M, W) letters, got {}", batch.slots.size(),
               batch.letters.describe());
  const int64_t width = batch.letters.size(1);
  for (size_t m = 0; m < batch.slots.size(); ++m) {
    STRAND_CHECK(batch.slots[m] >= 0 && batch.slots[m] < kept.batch && batch.starts[m] >= 0 &&
                     batch.starts[m] + width <= length_,
                 "fused alternates: alternate {} (row {}, columns {}-{}) is outside the {} "
                 "references of {} bases",
                 m, batch.slots[m], batch.starts[m], batch.starts[m] + width, kept.batch, length_);
  }
  ColumnRange range = changed_columns(batch, length_);
  Tensor patch;  // (rows, C, range width) alternate values on `range` of the current layer
  for (const Step& step : steps_) {
    if (range.begin >= range.end) break;  // nothing differs from here on
    if (step.kind == StepKind::kPointwise) {
      if (!step.absorbed) patch = step.layer->forward(Var(patch)).value();
      continue;
    }
    const ColumnRange out = output_range(step.kernel, step.stride, step.dilation, step.pad_left,
                                         step.out_length, range);
    if (out.begin >= out.end) {
      range = out;
      break;
    }
    const Tensor values = step_values(step, kept, batch, patch, range, out);
    STRAND_CHECK(values.size(2) == out.end - out.begin,
                 "fused alternates: layer {} gave {} positions for a range of {}",
                 step.layer->type_name(), values.size(2), out.end - out.begin);
    patch = values.contiguous();
    range = out;
  }
  const int64_t split_length = kept.split.size(2);
  Tensor split = slice_positions(kept.split, batch.slots, 0, split_length);
  if (range.begin < range.end) write_positions(split, 0, patch.contiguous(), range);
  Tensor out = run_suffix(split);
  if (was_training) model_->train(true);
  return out;
}

}  // namespace strand::alternates
