// Forward passes over window pairs (variants/pair_forward.h).
#include "variants/pair_forward.h"

#include <cstring>

#include "core/error.h"
#include "data/encoding.h"
#include "train/code_inference.h"

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

PairForward::PairForward(Model& model, std::vector<PairOutput> outputs, int64_t control_tracks,
                         bool rc_average)
    : model_(&model),
      outputs_(std::move(outputs)),
      control_tracks_(control_tracks),
      rc_average_(rc_average) {}

std::vector<Tensor> PairForward::forward(const Tensor& codes) {
  std::vector<train::OutputRequest> requests;
  for (const PairOutput& output : outputs_) requests.push_back({output.index, !output.profile});
  return train::forward_codes(*model_, codes, requests, control_tracks_);
}

std::vector<Tensor> PairForward::forward_averaged(const Tensor& codes) {
  std::vector<Tensor> forward_values = forward(codes);
  if (!rc_average_) return forward_values;
  const std::vector<Tensor> reverse_values = forward(reverse_complement_rows(codes));
  for (size_t o = 0; o < outputs_.size(); ++o) {
    Tensor& f = forward_values[o];
    const Tensor& r = reverse_values[o];
    float* fv = f.data<float>();
    const float* rv = r.data<float>();
    if (!outputs_[o].profile) {
      for (int64_t i = 0; i < f.numel(); ++i) fv[i] = 0.5f * (fv[i] + rv[i]);
      continue;
    }
    STRAND_CHECK(f.dim() == 3, "rc average: profile output is {}, expected (B, S, Lp)",
                 f.describe());
    const int64_t batch = f.size(0), tracks = f.size(1), positions = f.size(2);
    const std::vector<int64_t>& reverse = outputs_[o].reverse_tracks;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t s = 0; s < tracks; ++s) {
        const int64_t mapped = reverse.empty() ? s : reverse[static_cast<size_t>(s)];
        float* row = fv + (b * tracks + s) * positions;
        const float* other = rv + (b * tracks + mapped) * positions;
        for (int64_t j = 0; j < positions; ++j) {
          row[j] = 0.5f * (row[j] + other[positions - 1 - j]);
        }
      }
    }
  }
  return forward_values;
}

PairPredictions PairForward::run(const Tensor& ref_codes, const Tensor& alt_codes) {
  STRAND_CHECK(ref_codes.shape() == alt_codes.shape(),
               "PairForward: ref windows {} and alt windows {} differ in shape",
               ref_codes.describe(), alt_codes.describe());
  const int64_t batch = ref_codes.size(0), length = ref_codes.size(1);
  // One pass over both: a batch twice the size runs the GEMMs closer to their peak.
  Tensor both = Tensor::empty({2 * batch, length}, DType::kUInt8);
  std::memcpy(both.data<uint8_t>(), ref_codes.contiguous().data<uint8_t>(),
              static_cast<size_t>(batch * length));
  std::memcpy(both.data<uint8_t>() + batch * length, alt_codes.contiguous().data<uint8_t>(),
              static_cast<size_t>(batch * length));
  const std::vector<Tensor> values = forward_averaged(both);
  PairPredictions predictions;
  for (const Tensor& value : values) {
    predictions.ref.push_back(value.slice(0, 0, batch).contiguous());
    predictions.alt.push_back(value.slice(0, batch, 2 * batch).contiguous());
  }
  return predictions;
}

}  // namespace strand::variants
