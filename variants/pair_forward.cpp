// Forward passes over window pairs (variants/pair_forward.h).
#include "variants/pair_forward.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "alternates/parallel_units.h"
#include "core/error.h"
#include "data/encoding.h"
#include "layers/sequential.h"
#include "train/code_inference.h"
#include "train/reverse_complement_average.h"

namespace strand::variants {

Tensor reverse_complement_rows(const Tensor& codes) {
  const Tensor source = codes.contiguous();
  Tensor out = Tensor::empty(source.shape(), DType::kUInt8);
  const int64_t rows = source.size(0), length = source.size(1);
  const uint8_t* in = source.data<uint8_t>();
  uint8_t* o = out.data<uint8_t>();
  std::memcpy(o, in, static_cast<size_t>(rows * length));
  for (int64_t r = 0; r < rows; ++r)
    data::reverse_complement(o + r * length, static_cast<size_t>(length));
  return out;
}

namespace {

// Rows `order` of (B, ...) `source`, as a new contiguous tensor.
Tensor gather_rows(const Tensor& source, const std::vector<int64_t>& order) {
  const Tensor in = source.contiguous();
  Shape shape = in.shape();
  shape[0] = static_cast<int64_t>(order.size());
  Tensor out = Tensor::empty(shape, in.dtype());
  const size_t row_bytes = static_cast<size_t>(in.numel() / in.size(0)) * dtype_size(in.dtype());
  const auto* from = static_cast<const uint8_t*>(in.raw_data());
  auto* to = static_cast<uint8_t*>(out.raw_data());
  for (size_t r = 0; r < order.size(); ++r) {
    std::memcpy(to + r * row_bytes, from + static_cast<size_t>(order[r]) * row_bytes, row_bytes);
  }
  return out;
}

// The distinct rows of (B, L) codes: `rows` the first row of each, `of_row` (B) which of them
// each row equals. A multi-allelic record's ALTs share their ref window.
struct DistinctRows {
  std::vector<int64_t> rows;
  std::vector<int64_t> of_row;
};

DistinctRows distinct_rows(const Tensor& codes) {
  const Tensor in = codes.contiguous();
  const int64_t batch = in.size(0), length = in.size(1);
  const auto* data = in.data<uint8_t>();
  std::unordered_map<std::string_view, int64_t> seen;
  DistinctRows distinct;
  for (int64_t r = 0; r < batch; ++r) {
    const std::string_view row(reinterpret_cast<const char*>(data + r * length),
                               static_cast<size_t>(length));
    const auto [it, added] = seen.emplace(row, static_cast<int64_t>(distinct.rows.size()));
    if (added) distinct.rows.push_back(r);
    distinct.of_row.push_back(it->second);
  }
  return distinct;
}

// A change of a few positions (SNVs, MNVs), as opposed to an indel's, from the centre to the end.
bool narrow_change(ChangedRange r, int64_t length) { return r.end - r.begin <= length / 4; }

// `r` in the reverse complement's columns.
ChangedRange mirrored(ChangedRange r, int64_t length) {
  return r.begin >= r.end ? r : ChangedRange{length - r.end, length - r.begin};
}

// Rows `rows` of `to` ((B, ...)) from the rows of `from` ((rows.size(), ...)), in order.
void scatter_rows(const Tensor& from, Tensor& to, std::span<const int64_t> rows) {
  const int64_t row = from.numel() / std::max<int64_t>(1, from.size(0));
  for (size_t i = 0; i < rows.size(); ++i) {
    std::memcpy(to.data<float>() + rows[i] * row,
                from.data<float>() + static_cast<int64_t>(i) * row, static_cast<size_t>(row) * 4);
  }
}

}  // namespace

PairForward::PairForward(Model& model, std::vector<PairOutput> outputs, int64_t control_tracks,
                         bool rc_average, int64_t length, bool incremental)
    : model_(&model),
      outputs_(std::move(outputs)),
      control_tracks_(control_tracks),
      rc_average_(rc_average) {
  // The alternates engine (alternates/alternate_forward.h) takes a Sequential's one (B, T)
  // output through its fused strategy, or declines it (cheaper whole), and a graph's outputs
  // through its windowed one.
  const bool sequential_profile =
      dynamic_cast<Sequential*>(&model) != nullptr &&
      std::any_of(outputs_.begin(), outputs_.end(), [](const PairOutput& o) { return o.profile; });
  if (incremental && control_tracks_ == 0 && !sequential_profile) {
    std::vector<size_t> indices;
    for (const PairOutput& output : outputs_) indices.push_back(output.index);
    engine_ = alternates::AlternateForward::make(model, length, indices,
                                                 alternates::Placement::kShared, nullptr);
  }
}

std::vector<Tensor> PairForward::forward(const Tensor& codes) {
  std::vector<train::OutputRequest> requests;
  for (const PairOutput& output : outputs_) requests.push_back({output.index, !output.profile});
  return train::forward_codes(*model_, codes, requests, control_tracks_);
}

std::vector<Tensor> PairForward::forward_averaged(const Tensor& codes) {
  std::vector<Tensor> forward_values = forward(codes);
  if (rc_average_) average_with_reverse(forward_values, forward(reverse_complement_rows(codes)));
  return forward_values;
}

void PairForward::average_with_reverse(std::vector<Tensor>& forward_values,
                                       const std::vector<Tensor>& reverse_values) const {
  for (size_t o = 0; o < outputs_.size(); ++o) {
    Tensor& f = forward_values[o];
    const Tensor& r = reverse_values[o];
    const bool profile = outputs_[o].profile;
    STRAND_CHECK(f.dim() == (profile ? 3 : 2) && f.shape() == r.shape() && f.is_contiguous() &&
                     r.is_contiguous(),
                 "rc average: output {} is {} and its reverse complement's {}, expected {}", o,
                 f.describe(), r.describe(), profile ? "(B, S, Lp)" : "(B, T)");
    train::average_with_reverse_complement(f.data<float>(), r.data<float>(), f.size(0), f.size(1),
                                           profile ? f.size(2) : 1, outputs_[o].reverse_tracks);
  }
}

std::pair<std::vector<Tensor>, std::vector<Tensor>> PairForward::predict_alternates(
    const Tensor& ref, const Tensor& alt, std::span<const int64_t> of_ref,
    std::span<const ChangedRange> changed, bool mirror) {
  const int64_t batch = alt.size(0), length = alt.size(1), refs = ref.size(0);
  // Each alt window's changed columns on this strand. Narrow changes (SNVs, MNVs) go through the
  // engine, all of one width; wide ones (indels) too where its strategy computes them cheaper
  // than a whole pass, else they run whole.
  std::vector<ChangedRange> ranges;
  std::vector<int64_t> narrow, wide;
  int64_t narrow_width = 1, wide_width = 1;
  for (int64_t i = 0; i < batch; ++i) {
    const ChangedRange c = changed[static_cast<size_t>(i)];
    ranges.push_back(mirror ? mirrored(c, length) : c);
    const bool is_narrow = narrow_change(c, length);
    (is_narrow ? narrow : wide).push_back(i);
    int64_t& width = is_narrow ? narrow_width : wide_width;
    width = std::max(width, c.end - c.begin);
  }
  const bool wide_through_engine = engine_->computes_wide_changes();
  // The ref windows in groups whose kept activations fit in about 64 MiB (BPNet keeps ~10 MB a
  // window), each group's alt windows in chunks, a unit of work each
  // (alternates/parallel_units.h).
  constexpr int64_t kReferenceBudget = int64_t{64} << 20;
  const int64_t group = engine_->references_per_pass(refs, kReferenceBudget);
  std::vector<Tensor> ref_values(outputs_.size()), alt_values(outputs_.size());
  for (int64_t g0 = 0; g0 < refs; g0 += group) {
    const int64_t g1 = std::min(refs, g0 + group);
    const alternates::References reference = engine_->reference(ref.slice(0, g0, g1).contiguous());
    std::vector<int64_t> group_rows(static_cast<size_t>(g1 - g0));
    std::iota(group_rows.begin(), group_rows.end(), g0);
    for (size_t k = 0; k < outputs_.size(); ++k) {
      const Tensor& value = engine_->reference_output(reference, k);
      if (g0 == 0) {
        Shape shape = value.shape();
        shape[0] = refs;
        ref_values[k] = Tensor::empty(shape);
        shape[0] = batch;
        alt_values[k] = Tensor::empty(shape);
      }
      scatter_rows(value, ref_values[k], group_rows);
    }
    // The alt rows of this group's refs.
    const auto rows_here = [&](const std::vector<int64_t>& rows) {
      std::vector<int64_t> here;
      for (const int64_t i : rows) {
        const int64_t r = of_ref[static_cast<size_t>(i)];
        if (r >= g0 && r < g1) here.push_back(i);
      }
      return here;
    };
    engine_rows(reference, g0, alt, of_ref, ranges, rows_here(narrow), narrow_width, alt_values);
    if (wide_through_engine) {
      engine_rows(reference, g0, alt, of_ref, ranges, rows_here(wide), wide_width, alt_values);
    }
  }
  if (!wide.empty() && !wide_through_engine) {
    std::vector<train::OutputRequest> requests;
    for (const PairOutput& output : outputs_) requests.push_back({output.index, false});
    const std::vector<Tensor> values =
        train::forward_codes(*model_, gather_rows(alt, wide), requests, control_tracks_);
    for (size_t k = 0; k < outputs_.size(); ++k) scatter_rows(values[k], alt_values[k], wide);
  }
  // (B, T) outputs through their final activation, as forward() gives them.
  for (size_t k = 0; k < outputs_.size(); ++k) {
    if (outputs_[k].profile) continue;
    const Activation activation = model_->output_activation(outputs_[k].index);
    ref_values[k] = apply_activation(activation, Var(ref_values[k])).value().contiguous();
    alt_values[k] = apply_activation(activation, Var(alt_values[k])).value().contiguous();
  }
  return {ref_values, alt_values};
}

void PairForward::engine_rows(const alternates::References& references, int64_t first_ref,
                              const Tensor& alt, std::span<const int64_t> of_ref,
                              const std::vector<ChangedRange>& ranges,
                              const std::vector<int64_t>& rows_here, int64_t width,
                              std::vector<Tensor>& values) const {
  const int64_t length = alt.size(1);
  const auto count_here = static_cast<int64_t>(rows_here.size());
  const int64_t per_call = engine_->alternates_per_call(count_here);
  const uint8_t* alt_codes = alt.data<uint8_t>();
  alternates::for_each_unit((count_here + per_call - 1) / per_call, [&](int64_t unit) {
    const int64_t first = unit * per_call, count = std::min(per_call, count_here - first);
    const std::span<const int64_t> rows(rows_here.data() + first, static_cast<size_t>(count));
    std::vector<int64_t> slots, starts;
    std::vector<ChangedRange> changed;
    Tensor letters = Tensor::empty({count, width}, DType::kUInt8);
    for (int64_t j = 0; j < count; ++j) {
      const int64_t i = rows[static_cast<size_t>(j)];
      const ChangedRange r = ranges[static_cast<size_t>(i)];
      // An empty range (an alt equal to its ref) reads the centre; its change is 0.
      const int64_t start =
          std::clamp<int64_t>(r.begin < r.end ? r.begin : length / 2, 0, length - width);
      slots.push_back(of_ref[static_cast<size_t>(i)] - first_ref);
      starts.push_back(start);
      changed.push_back(r);
      std::memcpy(letters.data<uint8_t>() + j * width, alt_codes + i * length + start,
                  static_cast<size_t>(width));
    }
    const std::vector<Tensor> unit_values =
        engine_->alternates(references, {slots, starts, letters, changed});
    for (size_t k = 0; k < outputs_.size(); ++k) scatter_rows(unit_values[k], values[k], rows);
  });
}

PairPredictions PairForward::run_alternates(const Tensor& ref_codes, const Tensor& alt_codes,
                                            std::span<const ChangedRange> changed) {
  const DistinctRows distinct = distinct_rows(ref_codes);
  const Tensor ref = gather_rows(ref_codes, distinct.rows);
  const Tensor alt = alt_codes.contiguous();
  const bool was_training = model_->is_training();
  model_->eval();
  std::pair<std::vector<Tensor>, std::vector<Tensor>> values;
  try {
    values = predict_alternates(ref, alt, distinct.of_row, changed, false);
    if (rc_average_) {
      const auto reverse =
          predict_alternates(reverse_complement_rows(ref), reverse_complement_rows(alt),
                             distinct.of_row, changed, true);
      average_with_reverse(values.first, reverse.first);
      average_with_reverse(values.second, reverse.second);
    }
  } catch (...) {
    model_->train(was_training);
    throw;
  }
  model_->train(was_training);
  PairPredictions predictions;
  for (size_t k = 0; k < outputs_.size(); ++k) {
    predictions.ref.push_back(gather_rows(values.first[k], distinct.of_row));
    predictions.alt.push_back(values.second[k]);
  }
  return predictions;
}

PairPredictions PairForward::run(const Tensor& ref_codes, const Tensor& alt_codes,
                                 std::span<const ChangedRange> changed) {
  STRAND_CHECK(ref_codes.shape() == alt_codes.shape(),
               "PairForward: ref windows {} and alt windows {} differ in shape",
               ref_codes.describe(), alt_codes.describe());
  if (engine_ && ref_codes.size(0) > 0 &&
      static_cast<int64_t>(changed.size()) == ref_codes.size(0)) {
    return run_alternates(ref_codes, alt_codes, changed);
  }
  const int64_t batch = ref_codes.size(0), length = ref_codes.size(1);
  const DistinctRows distinct = distinct_rows(ref_codes);
  const auto refs = static_cast<int64_t>(distinct.rows.size());
  // One pass over the distinct ref windows and the alt windows: a larger batch runs the GEMMs
  // closer to their peak.
  Tensor both = Tensor::empty({refs + batch, length}, DType::kUInt8);
  std::memcpy(both.data<uint8_t>(), gather_rows(ref_codes, distinct.rows).data<uint8_t>(),
              static_cast<size_t>(refs * length));
  std::memcpy(both.data<uint8_t>() + refs * length, alt_codes.contiguous().data<uint8_t>(),
              static_cast<size_t>(batch * length));
  const std::vector<Tensor> values = forward_averaged(both);
  PairPredictions predictions;
  for (const Tensor& value : values) {
    predictions.ref.push_back(gather_rows(value.slice(0, 0, refs).contiguous(), distinct.of_row));
    predictions.alt.push_back(value.slice(0, refs, refs + batch).contiguous());
  }
  return predictions;
}

}  // namespace strand::variants
