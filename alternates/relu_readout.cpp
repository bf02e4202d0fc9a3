// ReluReadout (alternates/relu_readout.h): F per reference row, and per alternate the linear part,
// the crop sums of the residual, and the exact corrections of the units the screen leaves open.
#include "alternates/relu_readout.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "kernels/cpu/gemm.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace strand::alternates {
namespace {

#if defined(__AVX512F__)
// The sum of v's lanes (GCC 12 warns of uninitialised temporaries in _mm512_reduce_add_ps and
// the shuffles it is made of).
float sum_lanes(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float sum = 0.0F;
  for (const float lane : lanes) sum += lane;
  return sum;
}
#elif defined(__AVX2__) && defined(__FMA__)
float sum_lanes(__m256 v) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  float sum = 0.0F;
  for (const float lane : lanes) sum += lane;
  return sum;
}
#endif

// sum over i < n of a[i] * b[i].
float dot(const float* a, const float* b, int64_t n) {
  int64_t i = 0;
  float sum = 0.0F;
#if defined(__AVX512F__)
  __m512 acc = _mm512_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc);
  }
  sum = sum_lanes(acc);
#elif defined(__AVX2__) && defined(__FMA__)
  __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  for (; i + 16 <= n; i += 16) {
    acc[0] = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc[0]);
    acc[1] = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc[1]);
  }
  sum = sum_lanes(_mm256_add_ps(acc[0], acc[1]));
#endif
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// sum over rows r < rows and columns i < n of a[r * a_stride + i] * b[r * b_stride + i], with
// four chains of multiply-adds (one would wait on each add's latency).
float frobenius(const float* a, int64_t a_stride, const float* b, int64_t b_stride, int64_t rows,
                int64_t n) {
  float sum = 0.0F;
  int64_t done = 0;  // columns summed in vectors
#if defined(__AVX512F__)
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps()};
  done = n / 16 * 16;
  const auto tail = static_cast<__mmask16>((1U << (n - done)) - 1U);
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = a + r * a_stride;
    const float* y = b + r * b_stride;
    int64_t i = 0;
    for (; i + 64 <= done; i += 64) {
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        acc[q] = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16 * q), _mm512_loadu_ps(y + i + 16 * q),
                                 acc[q]);
      }
    }
    for (int q = 0; i < done; i += 16, ++q) {
      acc[q] = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), acc[q]);
    }
    if (tail != 0) {
      acc[3] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, x + done),
                               _mm512_maskz_loadu_ps(tail, y + done), acc[3]);
    }
  }
  sum = sum_lanes(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
  done = n;
#elif defined(__AVX2__) && defined(__FMA__)
  // The same with 8 lanes; the last n % 8 columns stay in the scalar loop below.
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                   _mm256_setzero_ps()};
  done = n / 8 * 8;
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = a + r * a_stride;
    const float* y = b + r * b_stride;
    int64_t i = 0;
    for (; i + 32 <= done; i += 32) {
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        acc[q] =
            _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8 * q), _mm256_loadu_ps(y + i + 8 * q), acc[q]);
      }
    }
    for (int q = 0; i < done; i += 8, ++q) {
      acc[q] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), acc[q]);
    }
  }
  sum = sum_lanes(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
#endif
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = done; i < n; ++i) sum += a[r * a_stride + i] * b[r * b_stride + i];
  }
  return sum;
}

#if defined(__AVX512F__)
// The (W, C) transpose of a (C, W) change into `out`, in 16 x 16 tiles of registers: the open
// units' dots then read each column's channels contiguously (gathering them, 16 cache lines a
// vector, was most of the readout's own time).
void transpose_change(const float* in, int64_t rows, int64_t width, float* out) {
  const auto mask_of = [](int64_t n) {
    return static_cast<__mmask16>(n >= 16 ? 0xFFFFU : (1U << n) - 1U);
  };
  for (int64_t c0 = 0; c0 < rows; c0 += 16) {
    const int64_t tile_rows = std::min<int64_t>(16, rows - c0);
    for (int64_t j0 = 0; j0 < width; j0 += 16) {
      const int64_t tile_columns = std::min<int64_t>(16, width - j0);
      const __mmask16 columns = mask_of(tile_columns);
      __m512 r[16], t[16], u[16];
      for (int64_t i = 0; i < 16; ++i) {
        r[i] = i < tile_rows ? _mm512_maskz_loadu_ps(columns, in + (c0 + i) * width + j0)
                             : _mm512_setzero_ps();
      }
      // Pairs of rows interleaved, then pairs of pairs: u[4i + q] holds, in each 128-bit lane
      // L, rows 4i..4i+3 of column 4L + q.
      for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_maskz_unpacklo_ps(0xFFFF, r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_maskz_unpackhi_ps(0xFFFF, r[2 * i], r[2 * i + 1]);
      }
      for (int i = 0; i < 4; ++i) {
        const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
        const __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
        u[4 * i] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(0xFF, a, c));
        u[4 * i + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(0xFF, a, c));
        u[4 * i + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(0xFF, b, d));
        u[4 * i + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(0xFF, b, d));
      }
      // The four 128-bit lanes of rows 0-3, 4-7, 8-11 and 12-15 gathered per column.
      const __mmask16 channels = mask_of(tile_rows);
      for (int q = 0; q < 4; ++q) {
        const __m512 low_ab = _mm512_maskz_shuffle_f32x4(0xFFFF, u[q], u[4 + q], 0x44);
        const __m512 high_ab = _mm512_maskz_shuffle_f32x4(0xFFFF, u[q], u[4 + q], 0xEE);
        const __m512 low_cd = _mm512_maskz_shuffle_f32x4(0xFFFF, u[8 + q], u[12 + q], 0x44);
        const __m512 high_cd = _mm512_maskz_shuffle_f32x4(0xFFFF, u[8 + q], u[12 + q], 0xEE);
        const __m512 column[4] = {_mm512_maskz_shuffle_f32x4(0xFFFF, low_ab, low_cd, 0x88),
                                  _mm512_maskz_shuffle_f32x4(0xFFFF, low_ab, low_cd, 0xDD),
                                  _mm512_maskz_shuffle_f32x4(0xFFFF, high_ab, high_cd, 0x88),
                                  _mm512_maskz_shuffle_f32x4(0xFFFF, high_ab, high_cd, 0xDD)};
        for (int lane = 0; lane < 4; ++lane) {
          const int64_t j = 4 * lane + q;
          if (j < tile_columns) {
            _mm512_mask_storeu_ps(out + (j0 + j) * rows + c0, channels, column[lane]);
          }
        }
      }
    }
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
// The same in 8 x 8 tiles (unpack, shuffle, then swap the 128-bit halves); the ragged edges
// element by element.
void transpose_change(const float* in, int64_t rows, int64_t width, float* out) {
  const int64_t rows8 = rows / 8 * 8, width8 = width / 8 * 8;
  for (int64_t c0 = 0; c0 < rows8; c0 += 8) {
    for (int64_t j0 = 0; j0 < width8; j0 += 8) {
      __m256 r[8], t[8], s[8];
      for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + (c0 + i) * width + j0);
      for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
      }
      for (int i = 0; i < 8; i += 4) {
        s[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        s[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        s[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        s[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
      }
      for (int i = 0; i < 4; ++i) {
        _mm256_storeu_ps(out + (j0 + i) * rows + c0, _mm256_permute2f128_ps(s[i], s[i + 4], 0x20));
        _mm256_storeu_ps(out + (j0 + i + 4) * rows + c0,
                         _mm256_permute2f128_ps(s[i], s[i + 4], 0x31));
      }
    }
  }
  for (int64_t c = 0; c < rows; ++c) {
    for (int64_t j = c < rows8 ? width8 : 0; j < width; ++j) out[j * rows + c] = in[c * width + j];
  }
}
#else
void transpose_change(const float* in, int64_t rows, int64_t width, float* out) {
  for (int64_t c = 0; c < rows; ++c) {
    for (int64_t j = 0; j < width; ++j) out[j * rows + c] = in[c * width + j];
  }
}
#endif

}  // namespace

struct ReluReadout::Scratch {
  std::vector<uint32_t> pairs;     // the change in bfloat16 or integer pairs: (ceil(C / 2), W)
  std::vector<float> norms;        // (W)
  std::vector<float> columns;      // the change transposed, (W, C), for the open units' dots
  std::vector<int32_t> open;       // the units the screen leaves undecided
  std::vector<float> per_channel;  // (O): crop sums of the residual plus the corrections
};

ReluReadout::ReluReadout(const Tensor& weight, const Conv1DParams& params, int64_t in_length,
                         int64_t out_length, const Tensor& readout, int64_t crop_lo,
                         int64_t crop_hi)
    : params_(params),
      kernel_(weight.size(2)),
      in_length_(in_length),
      out_length_(out_length),
      crop_lo_(crop_lo),
      crop_hi_(crop_hi) {
  STRAND_CHECK(weight.dim() == 3 && weight.dtype() == DType::kFloat32 &&
                   weight.size(0) == weight.size(1) && params.stride == 1 && readout.dim() == 2 &&
                   readout.size(1) == weight.size(0) && readout.dtype() == DType::kFloat32 &&
                   0 <= crop_lo && crop_lo < crop_hi && crop_hi <= out_length,
               "relu readout: a float32 (C, C, K) stride-1 convolution and a (T, C) readout over "
               "columns [{}, {}) of {}, got {} and {}",
               crop_lo, crop_hi, out_length, weight.describe(), readout.describe());
  const Tensor w = weight.contiguous();
  screen_ = kernels::cpu::pack_change_screen_taps(w.data<float>(), w.size(0), w.size(1), kernel_);
  taps_ = w.transpose(0, 2).transpose(1, 2).contiguous();  // (K, O, C)
  readout_ = readout.contiguous();
}

int64_t ReluReadout::bytes_per_row() const {
  return readout_.size(0) * taps_.size(2) * in_length_ * 4;
}

Tensor ReluReadout::functional(const Tensor& pre) const {
  const int64_t o_count = taps_.size(1), c_count = taps_.size(2), t_count = readout_.size(0);
  STRAND_CHECK(
      pre.dim() == 3 && pre.size(1) == o_count && pre.size(2) == out_length_ && pre.is_contiguous(),
      "relu readout: pre-activations (G, {}, {}) expected, got {}", o_count, out_length_,
      pre.describe());
  const int64_t rows = pre.size(0), width = crop_hi_ - crop_lo_;
  Tensor functional = Tensor::zeros({rows, t_count, c_count, in_length_});
  std::vector<float> u(static_cast<size_t>(o_count * width));  // V_t * m over the crop: (O, Lc)
  for (int64_t g = 0; g < rows; ++g) {
    for (int64_t t = 0; t < t_count; ++t) {
      for (int64_t o = 0; o < o_count; ++o) {
        const float v = readout_.data<float>()[t * o_count + o];
        const float* a = pre.data<float>() + (g * o_count + o) * out_length_ + crop_lo_;
        for (int64_t j = 0; j < width; ++j) {
          u[static_cast<size_t>(o * width + j)] = a[j] > 0.0F ? v : 0.0F;
        }
      }
      float* out = functional.data<float>() + (g * t_count + t) * c_count * in_length_;
      // Output column j reads input column j - pad + k * dilation through tap k, so
      // F[:, i] += W_k^T u[:, i + pad - k * dilation].
      for (int64_t k = 0; k < kernel_; ++k) {
        const int64_t shift = k * params_.dilation - params_.pad_left;
        const int64_t i0 = std::max<int64_t>(0, crop_lo_ + shift);
        const int64_t i1 = std::min(in_length_, crop_hi_ + shift);
        if (i1 <= i0) continue;
        kernels::cpu::gemm<float>(
            c_count, i1 - i0, o_count, taps_.data<float>() + k * o_count * c_count, 1, c_count,
            u.data() + (i0 - shift - crop_lo_), width, 1, 1.0F, out + i0, in_length_);
      }
    }
  }
  return functional;
}

void ReluReadout::add_changes(const Tensor& pre, const Tensor& functional,
                              std::span<const int64_t> slots, const Tensor& change,
                              std::span<const int64_t> starts, float* out) const {
  const int64_t c_count = taps_.size(2), t_count = readout_.size(0);
  const int64_t m_count = change.size(0), width = change.size(2);
  STRAND_CHECK(change.dim() == 3 && change.size(1) == c_count && change.is_contiguous() &&
                   static_cast<int64_t>(slots.size()) == m_count &&
                   static_cast<int64_t>(starts.size()) == m_count,
               "relu readout: changes (M, {}, W) for {} alternates expected, got {}", c_count,
               slots.size(), change.describe());
  thread_local Scratch scratch;
  for (int64_t m = 0; m < m_count; ++m) {
    const int64_t slot = slots[static_cast<size_t>(m)];
    add_change(pre.data<float>() + slot * taps_.size(1) * out_length_,
               functional.data<float>() + slot * t_count * c_count * in_length_,
               change.data<float>() + m * c_count * width, width, starts[static_cast<size_t>(m)],
               scratch, out + m * t_count);
  }
}

void ReluReadout::add_change(const float* pre, const float* functional, const float* dx,
                             int64_t width, int64_t start, Scratch& scratch, float* y) const {
  const int64_t o_count = taps_.size(1), c_count = taps_.size(2), t_count = readout_.size(0);
  const int64_t pad = params_.pad_left, dilation = params_.dilation;
  // The linear part: F_t . dx over the change's columns.
  for (int64_t t = 0; t < t_count; ++t) {
    y[t] += frobenius(functional + t * c_count * in_length_ + start, in_length_, dx, width, c_count,
                      width);
  }
  // The residual: the crop sums of dx itself.
  std::vector<float>& per_channel = scratch.per_channel;
  per_channel.assign(static_cast<size_t>(o_count), 0.0F);
  const int64_t r0 = std::max(start, crop_lo_) - start,
                r1 = std::min(start + width, crop_hi_) - start;
  for (int64_t o = 0; o < o_count && r1 > r0; ++o) {
    float sum = 0.0F;
    const float* row = dx + o * width;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = r0; i < r1; ++i) sum += row[i];
    per_channel[static_cast<size_t>(o)] = sum;
  }
  // The units that may switch: over the crop columns the change reaches.
  const int64_t j0 = std::max(crop_lo_, start + pad - (kernel_ - 1) * dilation);
  const int64_t j1 = std::min(crop_hi_, start + width + pad);
  if (j1 > j0) {
    scratch.pairs.resize(static_cast<size_t>((c_count + 1) / 2 * width));
    scratch.norms.resize(static_cast<size_t>(width));
    kernels::cpu::ChangeScreenWindow window;
    window.input_step = kernels::cpu::pack_change_screen_input(
        screen_, dx, width, scratch.pairs.data(), scratch.norms.data());
    window.dilation = dilation;
    window.pairs = scratch.pairs.data();
    window.norms = scratch.norms.data();
    window.w_in = width;
    window.shift0 = start + pad - j0;
    window.reference = pre + j0;
    window.reference_stride = out_length_;
    window.w_out = j1 - j0;
    scratch.open.clear();
    kernels::cpu::screen_relu_crossings(screen_, window, scratch.open);
    if (!scratch.open.empty()) {
      scratch.columns.resize(static_cast<size_t>(width * c_count));
      transpose_change(dx, c_count, width, scratch.columns.data());
    }
    for (const int32_t unit : scratch.open) {
      const int64_t o = unit / window.w_out, j = unit % window.w_out;
      float d = 0.0F;
      for (int64_t k = 0; k < kernel_; ++k) {
        const int64_t i = j - (window.shift0 - k * dilation);
        if (i < 0 || i >= width) continue;
        d += dot(taps_.data<float>() + (k * o_count + o) * c_count,
                 scratch.columns.data() + i * c_count, c_count);
      }
      const float a = pre[o * out_length_ + j0 + j];
      const float linear = a > 0.0F ? d : 0.0F;
      per_channel[static_cast<size_t>(o)] += std::max(a + d, 0.0F) - std::max(a, 0.0F) - linear;
    }
  }
  for (int64_t t = 0; t < t_count; ++t) {
    y[t] += dot(readout_.data<float>() + t * o_count, per_channel.data(), o_count);
  }
}

}  // namespace strand::alternates
