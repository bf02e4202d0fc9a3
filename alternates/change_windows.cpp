// Windows of changes (alternates/change_windows.h): placing them and copying between them.
#include "alternates/change_windows.h"

#include <cstring>

namespace strand::alternates::detail {

void place(const std::vector<int64_t>& a, const std::vector<int64_t>& b, Range need, Value& out) {
  int64_t width = 1;
  for (size_t m = 0; m < a.size(); ++m) {
    width = std::max(width, std::min(b[m], need.hi) - std::max(a[m], need.lo));
  }
  width = std::min(width, need.hi - need.lo);
  out.local = true;
  out.width = width;
  out.starts.resize(a.size());
  for (size_t m = 0; m < a.size(); ++m) {
    out.starts[m] = std::clamp(std::max(a[m], need.lo), need.lo, need.hi - width);
  }
}

Tensor rewindow(const Tensor& change, const std::vector<int64_t>& from,
                const std::vector<int64_t>& to, int64_t width) {
  const int64_t m_count = change.size(0), channels = change.size(1), w_from = change.size(2);
  if (width == w_from && to == from) return change;
  Tensor out = Tensor::empty({m_count, channels, width});
  const float* in = change.data<float>();
  float* o = out.data<float>();
#pragma omp parallel for schedule(static) if (m_count * channels * width >= 65536)
  for (int64_t m = 0; m < m_count; ++m) {
    const auto k = static_cast<size_t>(m);
    const int64_t lo = std::clamp<int64_t>(from[k] - to[k], 0, width);
    const int64_t hi = std::clamp<int64_t>(from[k] + w_from - to[k], lo, width);
    for (int64_t c = 0; c < channels; ++c) {
      float* row = o + (m * channels + c) * width;
      std::fill(row, row + lo, 0.0F);
      if (hi > lo) {
        std::memcpy(row + lo, in + (m * channels + c) * w_from + (to[k] + lo - from[k]),
                    static_cast<size_t>(hi - lo) * 4);
      }
      std::fill(row + hi, row + width, 0.0F);
    }
  }
  return out;
}

Tensor rewindow(const Value& v, const std::vector<int64_t>& to, int64_t width) {
  return rewindow(v.change, v.starts, to, width);
}

Tensor values_over(const Tensor& ref, std::span<const int64_t> slots,
                   const std::vector<int64_t>& starts, int64_t width, const Value* change) {
  const int64_t channels = ref.size(1), length = ref.size(2);
  const auto m_count = static_cast<int64_t>(slots.size());
  Tensor out = Tensor::empty({m_count, channels, width});
  const float* r = ref.data<float>();
  float* o = out.data<float>();
#pragma omp parallel for schedule(static) if (m_count * channels * width >= 65536)
  for (int64_t m = 0; m < m_count; ++m) {
    const auto k = static_cast<size_t>(m);
    const int64_t start = starts[k];
    const int64_t lo = std::clamp<int64_t>(-start, 0, width);
    const int64_t hi = std::clamp<int64_t>(length - start, lo, width);
    int64_t c_lo = 0, c_hi = 0;  // the change's columns in this window
    if (change != nullptr) {
      c_lo = std::clamp<int64_t>(change->starts[k] - start, 0, width);
      c_hi = std::clamp<int64_t>(change->starts[k] + change->width - start, c_lo, width);
    }
    for (int64_t c = 0; c < channels; ++c) {
      float* row = o + (m * channels + c) * width;
      const float* ref_row = r + (slots[k] * channels + c) * length + start;
      std::fill(row, row + lo, 0.0F);
      if (hi > lo) std::memcpy(row + lo, ref_row + lo, static_cast<size_t>(hi - lo) * 4);
      std::fill(row + hi, row + width, 0.0F);
      if (c_hi > c_lo) {
        const float* d = change->change.data<float>() + (m * channels + c) * change->width +
                         (start + c_lo - change->starts[k]);
#pragma omp simd
        for (int64_t j = 0; j < c_hi - c_lo; ++j) row[c_lo + j] += d[j];
      }
    }
  }
  return out;
}

void subtract_reference(Tensor& values, const Tensor& ref, std::span<const int64_t> slots,
                        const std::vector<int64_t>& starts) {
  const int64_t m_count = values.size(0), channels = values.size(1), width = values.size(2);
  const int64_t length = ref.size(2);
  float* o = values.data<float>();
  const float* r = ref.data<float>();
#pragma omp parallel for schedule(static) if (m_count * channels * width >= 65536)
  for (int64_t m = 0; m < m_count; ++m) {
    const auto k = static_cast<size_t>(m);
    for (int64_t c = 0; c < channels; ++c) {
      float* row = o + (m * channels + c) * width;
      const float* ref_row = r + (slots[k] * channels + c) * length + starts[k];
#pragma omp simd
      for (int64_t j = 0; j < width; ++j) row[j] -= ref_row[j];
    }
  }
}

Tensor materialize(const Value& v, const Tensor& ref, std::span<const int64_t> slots) {
  const std::vector<int64_t> zero(slots.size(), 0);
  return values_over(ref, slots, zero, ref.size(2), &v);
}

Tensor reference_rows(const Tensor& ref, std::span<const int64_t> slots) {
  Shape shape = ref.shape();
  const int64_t row = ref.numel() / shape[0];
  shape[0] = static_cast<int64_t>(slots.size());
  Tensor out = Tensor::empty(shape);
  for (size_t m = 0; m < slots.size(); ++m) {
    std::memcpy(out.data<float>() + static_cast<int64_t>(m) * row,
                ref.data<float>() + slots[m] * row, static_cast<size_t>(row) * 4);
  }
  return out;
}

void grown_windows(const Value& v, int64_t pad, int64_t span, int64_t stride,
                   std::vector<int64_t>& a, std::vector<int64_t>& b) {
  a.resize(v.starts.size());
  b.resize(v.starts.size());
  for (size_t m = 0; m < v.starts.size(); ++m) {
    a[m] = ceil_div(v.starts[m] + pad - span, stride);
    b[m] = floor_div(v.starts[m] + v.width - 1 + pad, stride) + 1;
  }
}

}  // namespace strand::alternates::detail
