// Batch normalisation CPU kernels (contracts and formulas: kernels/cpu/normalization.h).
#include "kernels/cpu/normalization.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {
namespace {

// Two per-row results (moments or gradient sums) of row (b, c), combined per channel.
struct RowPair {
  double first = 0.0;
  double second = 0.0;
};

// Scratch for B * C row results, shared by the threads of one call; owned by the calling thread
// and kept between calls (a training step then allocates nothing here).
RowPair* row_pairs(int64_t rows) {
  thread_local std::vector<RowPair> buffer;
  if (static_cast<int64_t>(buffer.size()) < rows) buffer.resize(static_cast<size_t>(rows));
  return buffer.data();
}

// (B, C) input: channels are handled in blocks of this many, vectorised across the block.
constexpr int64_t kChannelBlock = 64;

// Mean and sum of squared deviations of one row of n values. The row sits in L1, so the second
// pass is cheap; it also sums the deviations from the rough mean, which corrects that mean's
// rounding ("corrected two-pass"), so the float32 sums lose nothing that matters.
template <typename T>
RowPair row_moments(const T* row, int64_t n) {
  T sum = T(0);
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += row[i];
  const T rough = sum / static_cast<T>(n);
  T deviation = T(0), squares = T(0);
#pragma omp simd reduction(+ : deviation, squares)
  for (int64_t i = 0; i < n; ++i) {
    const T d = row[i] - rough;
    deviation += d;
    squares += d * d;
  }
  const double count = static_cast<double>(n);
  const double dev = static_cast<double>(deviation);
  return {static_cast<double>(rough) + dev / count,
          std::max(0.0, static_cast<double>(squares) - dev * dev / count)};
}

// mean[c] and biased var[c] of x (B, C, L) over (B, L), in double.
template <typename T>
void channel_moments(const BatchNormGeometry& g, const T* x, double* mean, double* var) {
  const int64_t channels = g.channels, length = g.length;
  const int64_t work = g.batch * channels * length;
  const double count = static_cast<double>(g.count());
  if (length == 1) {
    // (B, C): Welford's update over the batch, a block of channels side by side.
    const int64_t blocks = (channels + kChannelBlock - 1) / kChannelBlock;
#pragma omp parallel for schedule(static) if (work >= kParallelGrain && blocks > 1)
    for (int64_t block = 0; block < blocks; ++block) {
      const int64_t c0 = block * kChannelBlock;
      const int64_t width = std::min(kChannelBlock, channels - c0);
      double m[kChannelBlock] = {}, s[kChannelBlock] = {};
      for (int64_t b = 0; b < g.batch; ++b) {
        const T* xb = x + b * channels + c0;
        const double inverse = 1.0 / static_cast<double>(b + 1);
#pragma omp simd
        for (int64_t j = 0; j < width; ++j) {
          const double v = static_cast<double>(xb[j]);
          const double d = v - m[j];
          m[j] += d * inverse;
          s[j] += d * (v - m[j]);
        }
      }
      for (int64_t j = 0; j < width; ++j) {
        mean[c0 + j] = m[j];
        var[c0 + j] = s[j] / count;
      }
    }
    return;
  }
  const int64_t rows = g.batch * channels;
  RowPair* rows_moments = row_pairs(rows);
#pragma omp parallel if (work >= kParallelGrain)
  {
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) rows_moments[r] = row_moments(x + r * length, length);
      // Chan et al.'s combination of (count, mean, M2) pairs, in batch order.
#pragma omp for schedule(static)
    for (int64_t c = 0; c < channels; ++c) {
      double n = 0.0, m = 0.0, m2 = 0.0;
      const double row_count = static_cast<double>(length);
      for (int64_t b = 0; b < g.batch; ++b) {
        const RowPair& row = rows_moments[b * channels + c];
        const double total = n + row_count;
        const double delta = row.first - m;
        m += delta * row_count / total;
        m2 += row.second + delta * delta * n * row_count / total;
        n = total;
      }
      mean[c] = m;
      var[c] = m2 / count;
    }
  }
}

// out = (x - mean[c]) * scale[c] + bias[c] (then relu).
template <typename T, bool kRelu>
void normalize(const BatchNormGeometry& g, const T* x, const T* mean, const T* scale, const T* bias,
               T* out) {
  const int64_t channels = g.channels, length = g.length;
  const int64_t work = g.batch * channels * length;
  if (length == 1) {
#pragma omp parallel for schedule(static) if (work >= kParallelGrain && g.batch > 1)
    for (int64_t b = 0; b < g.batch; ++b) {
      const T* xb = x + b * channels;
      T* ob = out + b * channels;
#pragma omp simd
      for (int64_t c = 0; c < channels; ++c) {
        const T y = (xb[c] - mean[c]) * scale[c] + bias[c];
        ob[c] = kRelu ? (y > T(0) ? y : T(0)) : y;
      }
    }
    return;
  }
  const int64_t rows = g.batch * channels;
#pragma omp parallel for schedule(static) if (work >= kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t c = r % channels;
    const T m = mean[c], s = scale[c], shift = bias[c];
    const T* xr = x + r * length;
    T* orow = out + r * length;
#pragma omp simd
    for (int64_t l = 0; l < length; ++l) {
      const T y = (xr[l] - m) * s + shift;
      orow[l] = kRelu ? (y > T(0) ? y : T(0)) : y;
    }
  }
}

template <typename T>
void normalize_with(const BatchNormGeometry& g, const T* x, const T* weight, const T* bias,
                    const T* mean, const T* invstd, bool relu, T* out) {
  std::vector<T> scale(static_cast<size_t>(g.channels));
  for (int64_t c = 0; c < g.channels; ++c) scale[static_cast<size_t>(c)] = weight[c] * invstd[c];
  if (relu) {
    normalize<T, true>(g, x, mean, scale.data(), bias, out);
  } else {
    normalize<T, false>(g, x, mean, scale.data(), bias, out);
  }
}

// sum_dy[c] = sum dy', sum_dy_centered[c] = sum dy' * (x - mean[c]), dy' = dy masked by out > 0
// when kRelu. In double, combined in batch order.
template <typename T, bool kRelu>
void gradient_sums(const BatchNormGeometry& g, const T* grad_out, const T* x, const T* out,
                   const T* mean, double* sum_dy, double* sum_dy_centered) {
  const int64_t channels = g.channels, length = g.length;
  const int64_t work = g.batch * channels * length;
  if (length == 1) {
    const int64_t blocks = (channels + kChannelBlock - 1) / kChannelBlock;
#pragma omp parallel for schedule(static) if (work >= kParallelGrain && blocks > 1)
    for (int64_t block = 0; block < blocks; ++block) {
      const int64_t c0 = block * kChannelBlock;
      const int64_t width = std::min(kChannelBlock, channels - c0);
      double dy_total[kChannelBlock] = {}, centered_total[kChannelBlock] = {};
      for (int64_t b = 0; b < g.batch; ++b) {
        const int64_t offset = b * channels + c0;
#pragma omp simd
        for (int64_t j = 0; j < width; ++j) {
          const T dy =
              kRelu ? (out[offset + j] > T(0) ? grad_out[offset + j] : T(0)) : grad_out[offset + j];
          dy_total[j] += static_cast<double>(dy);
          centered_total[j] += static_cast<double>(dy * (x[offset + j] - mean[c0 + j]));
        }
      }
      for (int64_t j = 0; j < width; ++j) {
        sum_dy[c0 + j] = dy_total[j];
        sum_dy_centered[c0 + j] = centered_total[j];
      }
    }
    return;
  }
  const int64_t rows = g.batch * channels;
  RowPair* row_sums = row_pairs(rows);
#pragma omp parallel if (work >= kParallelGrain)
  {
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      const T m = mean[r % channels];
      const T* dyr = grad_out + r * length;
      const T* xr = x + r * length;
      const T* orow = kRelu ? out + r * length : nullptr;
      T dy_total = T(0), centered_total = T(0);
#pragma omp simd reduction(+ : dy_total, centered_total)
      for (int64_t l = 0; l < length; ++l) {
        const T dy = kRelu ? (orow[l] > T(0) ? dyr[l] : T(0)) : dyr[l];
        dy_total += dy;
        centered_total += dy * (xr[l] - m);
      }
      row_sums[r] = {static_cast<double>(dy_total), static_cast<double>(centered_total)};
    }
#pragma omp for schedule(static)
    for (int64_t c = 0; c < channels; ++c) {
      double dy_total = 0.0, centered_total = 0.0;
      for (int64_t b = 0; b < g.batch; ++b) {
        dy_total += row_sums[b * channels + c].first;
        centered_total += row_sums[b * channels + c].second;
      }
      sum_dy[c] = dy_total;
      sum_dy_centered[c] = centered_total;
    }
  }
}

// grad_x = scale[c] * (dy' - shift[c] - (x - mean[c]) * slope[c]).
template <typename T, bool kRelu>
void input_gradient(const BatchNormGeometry& g, const T* grad_out, const T* x, const T* out,
                    const T* mean, const T* scale, const T* shift, const T* slope, T* grad_x) {
  const int64_t channels = g.channels, length = g.length;
  const int64_t work = g.batch * channels * length;
  if (length == 1) {
#pragma omp parallel for schedule(static) if (work >= kParallelGrain && g.batch > 1)
    for (int64_t b = 0; b < g.batch; ++b) {
      const int64_t offset = b * channels;
#pragma omp simd
      for (int64_t c = 0; c < channels; ++c) {
        const T dy =
            kRelu ? (out[offset + c] > T(0) ? grad_out[offset + c] : T(0)) : grad_out[offset + c];
        grad_x[offset + c] = scale[c] * (dy - shift[c] - (x[offset + c] - mean[c]) * slope[c]);
      }
    }
    return;
  }
  const int64_t rows = g.batch * channels;
#pragma omp parallel for schedule(static) if (work >= kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t c = r % channels;
    const T m = mean[c], a = scale[c], k1 = shift[c], k2 = slope[c];
    const T* dyr = grad_out + r * length;
    const T* xr = x + r * length;
    const T* orow = kRelu ? out + r * length : nullptr;
    T* gx = grad_x + r * length;
#pragma omp simd
    for (int64_t l = 0; l < length; ++l) {
      const T dy = kRelu ? (orow[l] > T(0) ? dyr[l] : T(0)) : dyr[l];
      gx[l] = a * (dy - k1 - (xr[l] - m) * k2);
    }
  }
}

template <typename T, bool kRelu>
void backward_with(const BatchNormGeometry& g, const T* grad_out, const T* x, const T* out,
                   const T* weight, const T* mean, const T* invstd, bool training, T* grad_x,
                   T* grad_weight, T* grad_bias) {
  const auto channels = static_cast<size_t>(g.channels);
  std::vector<double> sum_dy(channels), sum_dy_centered(channels);
  gradient_sums<T, kRelu>(g, grad_out, x, out, mean, sum_dy.data(), sum_dy_centered.data());
  // Per channel: scale = weight * invstd; in training also the batch terms' coefficients,
  // shift = sum dy' / N and slope = invstd * grad_weight / N (xhat * grad_weight / N =
  // (x - mean) * slope).
  std::vector<T> scale(channels), shift(channels), slope(channels);
  const double count = static_cast<double>(g.count());
  for (size_t c = 0; c < channels; ++c) {
    const double inv = static_cast<double>(invstd[c]);
    const double dweight = sum_dy_centered[c] * inv;
    grad_weight[c] = static_cast<T>(dweight);
    grad_bias[c] = static_cast<T>(sum_dy[c]);
    scale[c] = static_cast<T>(static_cast<double>(weight[c]) * inv);
    shift[c] = training ? static_cast<T>(sum_dy[c] / count) : T(0);
    slope[c] = training ? static_cast<T>(inv * dweight / count) : T(0);
  }
  input_gradient<T, kRelu>(g, grad_out, x, out, mean, scale.data(), shift.data(), slope.data(),
                           grad_x);
}

}  // namespace

template <typename T>
void batch_norm_forward_training(const BatchNormGeometry& g, const T* x, const T* weight,
                                 const T* bias, double momentum, double eps, bool relu,
                                 T* running_mean, T* running_var, T* out, T* mean, T* invstd) {
  const auto channels = static_cast<size_t>(g.channels);
  std::vector<double> batch_mean(channels), batch_var(channels);
  channel_moments(g, x, batch_mean.data(), batch_var.data());
  const double count = static_cast<double>(g.count());
  const double unbiased = count / (count - 1.0);
  for (size_t c = 0; c < channels; ++c) {
    mean[c] = static_cast<T>(batch_mean[c]);
    invstd[c] = static_cast<T>(1.0 / std::sqrt(batch_var[c] + eps));
    running_mean[c] = static_cast<T>((1.0 - momentum) * static_cast<double>(running_mean[c]) +
                                     momentum * batch_mean[c]);
    running_var[c] = static_cast<T>((1.0 - momentum) * static_cast<double>(running_var[c]) +
                                    momentum * unbiased * batch_var[c]);
  }
  normalize_with(g, x, weight, bias, mean, invstd, relu, out);
}

template <typename T>
void batch_norm_forward_inference(const BatchNormGeometry& g, const T* x, const T* weight,
                                  const T* bias, const T* running_mean, const T* running_var,
                                  double eps, bool relu, T* out, T* mean, T* invstd) {
  for (int64_t c = 0; c < g.channels; ++c) {
    mean[c] = running_mean[c];
    invstd[c] = static_cast<T>(1.0 / std::sqrt(static_cast<double>(running_var[c]) + eps));
  }
  normalize_with(g, x, weight, bias, mean, invstd, relu, out);
}

template <typename T>
void batch_norm_backward(const BatchNormGeometry& g, const T* grad_out, const T* x, const T* out,
                         const T* weight, const T* mean, const T* invstd, bool training, bool relu,
                         T* grad_x, T* grad_weight, T* grad_bias) {
  if (relu) {
    backward_with<T, true>(g, grad_out, x, out, weight, mean, invstd, training, grad_x, grad_weight,
                           grad_bias);
  } else {
    backward_with<T, false>(g, grad_out, x, out, weight, mean, invstd, training, grad_x,
                            grad_weight, grad_bias);
  }
}

// ---- Oracles: one channel at a time, the formulas as written, plain double sums -------------

template <typename T>
void batch_norm_forward_training_reference(const BatchNormGeometry& g, const T* x, const T* weight,
                                           const T* bias, double momentum, double eps, bool relu,
                                           T* running_mean, T* running_var, T* out, T* mean,
                                           T* invstd) {
  const double count = static_cast<double>(g.count());
  for (int64_t c = 0; c < g.channels; ++c) {
    const auto at = [&](int64_t b, int64_t l) { return (b * g.channels + c) * g.length + l; };
    double total = 0.0;
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t l = 0; l < g.length; ++l) total += static_cast<double>(x[at(b, l)]);
    }
    const double m = total / count;
    double squares = 0.0;
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t l = 0; l < g.length; ++l) {
        const double d = static_cast<double>(x[at(b, l)]) - m;
        squares += d * d;
      }
    }
    const double var = squares / count;
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t l = 0; l < g.length; ++l) {
        const double y =
            (static_cast<double>(x[at(b, l)]) - m) * inv * static_cast<double>(weight[c]) +
            static_cast<double>(bias[c]);
        out[at(b, l)] = static_cast<T>(relu ? std::max(y, 0.0) : y);
      }
    }
    mean[c] = static_cast<T>(m);
    invstd[c] = static_cast<T>(inv);
    running_mean[c] =
        static_cast<T>((1.0 - momentum) * static_cast<double>(running_mean[c]) + momentum * m);
    running_var[c] = static_cast<T>((1.0 - momentum) * static_cast<double>(running_var[c]) +
                                    momentum * var * count / (count - 1.0));
  }
}

template <typename T>
void batch_norm_backward_reference(const BatchNormGeometry& g, const T* grad_out, const T* x,
                                   const T* out, const T* weight, const T* mean, const T* invstd,
                                   bool training, bool relu, T* grad_x, T* grad_weight,
                                   T* grad_bias) {
  const double count = static_cast<double>(g.count());
  for (int64_t c = 0; c < g.channels; ++c) {
    const auto at = [&](int64_t b, int64_t l) { return (b * g.channels + c) * g.length + l; };
    const auto masked = [&](int64_t i) {
      return relu && !(out[i] > T(0)) ? 0.0 : static_cast<double>(grad_out[i]);
    };
    const auto xhat = [&](int64_t i) {
      return (static_cast<double>(x[i]) - static_cast<double>(mean[c])) *
             static_cast<double>(invstd[c]);
    };
    double dbias = 0.0, dweight = 0.0;
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t l = 0; l < g.length; ++l) {
        dbias += masked(at(b, l));
        dweight += masked(at(b, l)) * xhat(at(b, l));
      }
    }
    const double scale = static_cast<double>(weight[c]) * static_cast<double>(invstd[c]);
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t l = 0; l < g.length; ++l) {
        const int64_t i = at(b, l);
        const double dx = training ? scale / count * (count * masked(i) - dbias - xhat(i) * dweight)
                                   : scale * masked(i);
        grad_x[i] = static_cast<T>(dx);
      }
    }
    grad_weight[c] = static_cast<T>(dweight);
    grad_bias[c] = static_cast<T>(dbias);
  }
}

#define STRAND_INSTANTIATE_BATCH_NORM(T)                                                           \
  template void batch_norm_forward_training<T>(const BatchNormGeometry&, const T*, const T*,       \
                                               const T*, double, double, bool, T*, T*, T*, T*,     \
                                               T*);                                                \
  template void batch_norm_forward_inference<T>(const BatchNormGeometry&, const T*, const T*,      \
                                                const T*, const T*, const T*, double, bool, T*,    \
                                                T*, T*);                                           \
  template void batch_norm_backward<T>(const BatchNormGeometry&, const T*, const T*, const T*,     \
                                       const T*, const T*, const T*, bool, bool, T*, T*, T*);      \
  template void batch_norm_forward_training_reference<T>(const BatchNormGeometry&, const T*,       \
                                                         const T*, const T*, double, double, bool, \
                                                         T*, T*, T*, T*, T*);                      \
  template void batch_norm_backward_reference<T>(const BatchNormGeometry&, const T*, const T*,     \
                                                 const T*, const T*, const T*, const T*, bool,     \
                                                 bool, T*, T*, T*);
STRAND_INSTANTIATE_BATCH_NORM(float)
STRAND_INSTANTIATE_BATCH_NORM(double)
#undef STRAND_INSTANTIATE_BATCH_NORM

}  // namespace strand::kernels::cpu
