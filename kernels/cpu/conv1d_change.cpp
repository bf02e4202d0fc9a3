// The change convolution of explanations' windowed passes (contracts: kernels/cpu/conv1d_change.h).
#include "kernels/cpu/conv1d_change.h"

#include "kernels/cpu/change_blocks.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/float_vectors.h"

namespace strand::kernels::cpu {

ChangeConvTaps pack_change_conv_taps(const float* weight, int64_t out_channels, int64_t in_channels,
                                     int64_t taps) {
  ChangeConvTaps packed;
  packed.out_channels = out_channels;
  packed.in_channels = in_channels;
  packed.taps = taps;
  const int64_t blocks = (out_channels + kChangeConvRows - 1) / kChangeConvRows;
  packed.packed.assign(static_cast<size_t>(blocks * taps * in_channels * kChangeConvRows), 0.0F);
  for (int64_t o = 0; o < out_channels; ++o) {
    const int64_t block = o / kChangeConvRows, row = o % kChangeConvRows;
    for (int64_t k = 0; k < taps; ++k) {
      for (int64_t c = 0; c < in_channels; ++c) {
        packed.packed[static_cast<size_t>(((block * taps + k) * in_channels + c) * kChangeConvRows +
                                          row)] = weight[(o * in_channels + c) * taps + k];
      }
    }
  }
  packed.padded_out = (out_channels + 63) / 64 * 64;
  packed.by_column.assign(static_cast<size_t>(taps * in_channels * packed.padded_out), 0.0F);
  for (int64_t o = 0; o < out_channels; ++o) {
    for (int64_t k = 0; k < taps; ++k) {
      for (int64_t c = 0; c < in_channels; ++c) {
        packed.by_column[static_cast<size_t>((k * in_channels + c) * packed.padded_out + o)] =
            weight[(o * in_channels + c) * taps + k];
      }
    }
  }
  return packed;
}

namespace {

using change_blocks::BlockColumns;
using change_blocks::kBlockColumns;
using change_blocks::kLanes;
using change_blocks::kVectors;
using change_blocks::tap_columns;
using change_blocks::TapColumns;

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
namespace fv = float_vectors;
using fv::lanes;
using fv::Mask;
using fv::Vector;

// Columns at an end of a tap's range that go to accumulate_columns rather than a vector whose
// other lanes are masked off (4, 8 and 12 measured the same on BPNet ISM with AVX-512). Without
// free masked loads every partial vector goes there, so that the inner loop loads whole vectors.
constexpr int64_t kFewColumns = fv::kMaskedLoadsAreFree ? 4 : kLanes - 1;

using Accumulators = Vector[kChangeConvRows][kVectors];

// acc[.][kFirst, kEnd) += one tap's weights (C, rows) times the input rows at `row` (stride
// w_in), each vector's lanes masked by `masks` (all set without free masked loads: see
// kFewColumns). The vectors a tap does not reach are not multiplied.
// With kPrefetch (the first block of rows of a column block), the same columns of the next
// column block are fetched meanwhile: the rows lie w_in apart, too many streams for the
// hardware's prefetchers, and every other block of rows finds them in cache.
template <int kFirst, int kEnd, bool kPrefetch>
inline void accumulate_tap(Accumulators& acc, const float* w, const float* row, int64_t c_count,
                           int64_t w_in, const Mask* masks) {
  for (int64_t c = 0; c < c_count; ++c, row += w_in, w += kChangeConvRows) {
    if constexpr (kPrefetch) {
#pragma GCC unroll 3
      for (int v = kFirst; v < kEnd; ++v) {
        _mm_prefetch(reinterpret_cast<const char*>(row + kBlockColumns + v * kLanes), _MM_HINT_T0);
      }
    }
    Vector b[kVectors];
#pragma GCC unroll 3
    for (int v = kFirst; v < kEnd; ++v) {
      if constexpr (fv::kMaskedLoadsAreFree) {
        b[v] = fv::load(masks[v], row + v * kLanes);
      } else {
        b[v] = fv::load(row + v * kLanes);
      }
    }
#pragma GCC unroll 8
    for (int64_t r = 0; r < kChangeConvRows; ++r) {
      const Vector weight = fv::broadcast(w[r]);
#pragma GCC unroll 3
      for (int v = kFirst; v < kEnd; ++v) acc[r][v] = fv::fmadd(weight, b[v], acc[r][v]);
    }
  }
}

// accumulate_tap over vectors [first, end) of the block.
template <bool kPrefetch>
void accumulate_reached(int64_t first, int64_t end, Accumulators& acc, const float* w,
                        const float* row, int64_t c_count, int64_t w_in, const Mask* masks) {
  change_blocks::with_vector_range(first, end, [&](auto from, auto to) {
    accumulate_tap<decltype(from)::value, decltype(to)::value, kPrefetch>(acc, w, row, c_count,
                                                                          w_in, masks);
  });
}

// A few columns at either end of a tap's range, each of which would cost a whole vector of
// multiply-adds per block of rows (a residual block's window is 16m + 1 columns wide, so every
// tap ends one column into a vector): for every output channel at once, vectorised over the
// channels, and added to `ends`, which each block of rows adds as it writes.
struct EndColumns {
  float* sums;           // (padded_out, 48): per output channel, the block's columns
  uint64_t written = 0;  // bit j: column j holds a sum (the others are not zeroed)
};

void accumulate_columns(const ChangeConvTaps& taps, int64_t k, const float* row, int64_t w_in,
                        int64_t lo, int64_t hi, EndColumns& ends) {
  const int64_t c_count = taps.in_channels, o_pad = taps.padded_out;
  const float* weights = taps.by_column.data() + k * c_count * o_pad;  // (C, padded_out)
  for (int64_t j = lo; j < hi; ++j) {
    const float* x = row + j;  // x[c * w_in]: input channel c at this column
    for (int64_t o = 0; o < o_pad; o += 4 * kLanes) {  // padded_out is a multiple of 64
      // Two sets of four accumulators (even and odd channels), so that eight chains of
      // multiply-adds run at once.
      Vector sums[8];
#pragma GCC unroll 8
      for (auto& sum : sums) sum = fv::zero();
      const float* w = weights + o;
      int64_t c = 0;
      for (; c + 2 <= c_count; c += 2, w += 2 * o_pad) {
        const Vector even = fv::broadcast(x[c * w_in]), odd = fv::broadcast(x[(c + 1) * w_in]);
#pragma GCC unroll 4
        for (int64_t v = 0; v < 4; ++v) {
          sums[v] = fv::fmadd(even, fv::load(w + v * kLanes), sums[v]);
          sums[4 + v] = fv::fmadd(odd, fv::load(w + o_pad + v * kLanes), sums[4 + v]);
        }
      }
      if (c < c_count) {
        const Vector last = fv::broadcast(x[c * w_in]);
#pragma GCC unroll 4
        for (int64_t v = 0; v < 4; ++v)
          sums[v] = fv::fmadd(last, fv::load(w + v * kLanes), sums[v]);
      }
      alignas(64) float column[4 * kLanes];
#pragma GCC unroll 4
      for (int64_t v = 0; v < 4; ++v) fv::store(column + v * kLanes, fv::add(sums[v], sums[4 + v]));
      float* to = ends.sums + o * kBlockColumns + j;
      if ((ends.written >> j & 1U) != 0) {
        for (int64_t r = 0; r < 4 * kLanes; ++r) to[r * kBlockColumns] += column[r];
      } else {
        for (int64_t r = 0; r < 4 * kLanes; ++r) to[r * kBlockColumns] = column[r];
      }
    }
    ends.written |= uint64_t{1} << j;
  }
}

// One tap's work in a column block: vectors [first, end) over columns [lo, hi), read from
// `row`; the columns [t.lo, lo) and [hi, t.hi) at its ends go to accumulate_columns.
struct TapPlan {
  int64_t tap;
  const float* row;
  int64_t first, end;
  Mask masks[kVectors];
};

// The taps' plans for block b (those with vector work), written to `plans`; returns how many,
// and adds the end columns of every tap to `ends`.
int64_t plan_block(const ChangeConvTaps& taps, const ChangeConvWindow& window,
                   const BlockColumns& b, TapPlan* plans, EndColumns& ends) {
  int64_t count = 0;
  ends.written = 0;
  for (int64_t k = 0; k < taps.taps; ++k) {
    const TapColumns t = tap_columns(b, window.shift0 - k * window.dilation, window.w_in);
    if (t.hi <= t.lo) continue;
    // Masked-off lanes are never read, so the row may start before d or end after it.
    const float* row = window.d + t.first_input;
    int64_t first = t.lo / kLanes, end = (t.hi + kLanes - 1) / kLanes;
    if ((first + 1) * kLanes - t.lo <= kFewColumns) ++first;
    if (end > first && t.hi - (end - 1) * kLanes <= kFewColumns) --end;
    const int64_t lo = std::max(t.lo, first * kLanes), hi = std::min(t.hi, end * kLanes);
    if (lo > t.lo || hi < t.hi) {
      accumulate_columns(taps, k, row, window.w_in, t.lo, std::min(lo, t.hi), ends);
      accumulate_columns(taps, k, row, window.w_in, std::max(hi, lo), t.hi, ends);
    }
    if (hi <= lo) continue;
    plans[count++] = {
        k,
        row,
        first,
        end,
        {lanes(lo, hi), lanes(lo - kLanes, hi - kLanes), lanes(lo - 2 * kLanes, hi - 2 * kLanes)}};
  }
  return count;
}

// The epilogue of rows [o0, o0 + kChangeConvRows) and a block's columns: keep the valid lanes,
// apply the ReLU and the residual input, write.
void write_block(const Accumulators& acc, const EndColumns& ends, const ChangeConvTaps& taps,
                 const ChangeConvWindow& window, const ChangeConvEpilogue& epilogue, int64_t o0,
                 const BlockColumns& b) {
  const int64_t rows = std::min(kChangeConvRows, taps.out_channels - o0);
  const Vector zero = fv::zero();
#pragma GCC unroll 3
  for (int64_t v = 0; v < kVectors; ++v) {
    const Mask keep = lanes(b.lo - v * kLanes, b.hi - v * kLanes);
    if (fv::none(keep)) continue;
    // Whole vectors are stored unmasked where masked stores cost more (AVX2's vmaskmovps).
    const bool whole = !fv::kMaskedLoadsAreFree && fv::full(keep);
    const int64_t j = b.j0 + v * kLanes, i = j - epilogue.input_shift;  // i: the input's column
    const Mask inside =
        epilogue.add_input ? fv::both(keep, lanes(-i, window.w_in - i)) : lanes(0, 0);
    const Mask written = fv::from_bits(ends.written >> (v * kLanes));
#pragma GCC unroll 8
    for (int64_t r = 0; r < kChangeConvRows; ++r) {
      if (r >= rows) break;
      const int64_t o = o0 + r;
      Vector x = acc[r][v];
      if (!fv::none(written)) {
        x = fv::add(x, fv::load(written, ends.sums + o * kBlockColumns + v * kLanes));
      }
      if (epilogue.relu_reference != nullptr) {
        const Vector ref =
            fv::load(keep, epilogue.relu_reference + o * epilogue.reference_stride + j);
        x = fv::sub(fv::max(fv::add(ref, x), zero), fv::max(ref, zero));
      }
      // Masked-off lanes are never read (the address may lie outside d).
      if (!fv::none(inside)) x = fv::add(x, fv::load(inside, window.d + o * window.w_in + i));
      if (whole) {
        fv::store(window.out + o * window.w_out + j, x);
      } else {
        fv::store(window.out + o * window.w_out + j, keep, x);
      }
    }
  }
}

// The rows the epilogue of a block will read, fetched while its multiply-adds run: they are
// read once per block, so they are not in cache, and waiting for them cost a third of the
// block's time.
void prefetch_epilogue(const ChangeConvWindow& window, const ChangeConvEpilogue& epilogue,
                       int64_t o0, int64_t j0) {
  const auto fetch = [](const float* p) {
    _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
  };
  for (int64_t r = 0; r < kChangeConvRows; ++r) {
    for (int64_t v = 0; v < kVectors; ++v) {
      const int64_t j = j0 + v * kLanes;
      if (epilogue.relu_reference != nullptr) {
        fetch(epilogue.relu_reference + (o0 + r) * epilogue.reference_stride + j);
      }
      const int64_t i = j - epilogue.input_shift;
      if (epilogue.add_input && i >= 0 && i < window.w_in) {
        fetch(window.d + (o0 + r) * window.w_in + i);
      }
    }
  }
}

// Output rows [o0, o0 + kChangeConvRows) and the columns of block b (at most kBlockColumns):
// the rows by three vectors of multiply-adds in registers over every planned tap and input
// channel, then written once. `a` is the block's packed taps (K, C, kChangeConvRows); `ends` the
// end columns' sums.
void change_block(const ChangeConvTaps& taps, const float* a, const ChangeConvWindow& window,
                  const ChangeConvEpilogue& epilogue, int64_t o0, const BlockColumns& b,
                  const TapPlan* plans, int64_t plan_count, const EndColumns& ends) {
  const int64_t c_count = taps.in_channels, w_in = window.w_in;
  // Every index into acc is a constant once the loops are unrolled, so that it lives in 24
  // (AVX-512) or 12 (AVX2) registers rather than on the stack.
  Accumulators acc;
#pragma GCC unroll 8
  for (int64_t r = 0; r < kChangeConvRows; ++r) {
#pragma GCC unroll 3
    for (int64_t v = 0; v < kVectors; ++v) acc[r][v] = fv::zero();
  }
  prefetch_epilogue(window, epilogue, o0, b.j0);
  for (int64_t p = 0; p < plan_count; ++p) {
    const TapPlan& plan = plans[p];
    const float* w = a + plan.tap * c_count * kChangeConvRows;
    if (o0 == 0) {
      accumulate_reached<true>(plan.first, plan.end, acc, w, plan.row, c_count, w_in, plan.masks);
    } else {
      accumulate_reached<false>(plan.first, plan.end, acc, w, plan.row, c_count, w_in, plan.masks);
    }
  }
  write_block(acc, ends, taps, window, epilogue, o0, b);
}
#endif

}  // namespace

void conv1d_change(const ChangeConvTaps& taps, const ChangeConvWindow& window,
                   const ChangeConvEpilogue& epilogue) {
  const int64_t o_count = taps.out_channels, c_count = taps.in_channels;
  const int64_t block_floats = taps.taps * c_count * kChangeConvRows;
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  // Per thread, kept between calls: the taps' plans and the end columns' sums of a block.
  thread_local std::vector<TapPlan> plans;
  thread_local std::vector<float> extra;
  plans.resize(static_cast<size_t>(taps.taps));
  extra.resize(static_cast<size_t>(taps.padded_out * kBlockColumns));
  const int64_t origin = change_blocks::vector_grid_origin(
      taps.taps, window.dilation, window.shift0, window.w_in, window.w_out);
  for (int64_t j0 = origin; j0 < window.w_out; j0 += kBlockColumns) {
    const BlockColumns b{j0, std::max<int64_t>(0, -j0), std::min(kBlockColumns, window.w_out - j0)};
    EndColumns ends{extra.data()};
    const int64_t plan_count = plan_block(taps, window, b, plans.data(), ends);
    for (int64_t o0 = 0; o0 < o_count; o0 += kChangeConvRows) {
      change_block(taps, taps.packed.data() + (o0 / kChangeConvRows) * block_floats, window,
                   epilogue, o0, b, plans.data(), plan_count, ends);
    }
  }
#else
  // Portable: tap by tap over each tap's columns inside d, then the epilogue.
  const int64_t w_in = window.w_in, w_out = window.w_out;
  std::fill(window.out, window.out + o_count * w_out, 0.0F);
  for (int64_t o = 0; o < o_count; ++o) {
    const float* a =
        taps.packed.data() + (o / kChangeConvRows) * block_floats + o % kChangeConvRows;
    float* row = window.out + o * w_out;
    for (int64_t k = 0; k < taps.taps; ++k) {
      const TapColumns t = tap_columns({0, 0, w_out}, window.shift0 - k * window.dilation, w_in);
      for (int64_t c = 0; c < c_count; ++c) {
        const float weight = a[(k * c_count + c) * kChangeConvRows];
        const float* from = window.d + c * w_in + t.first_input;
#pragma omp simd
        for (int64_t j = t.lo; j < t.hi; ++j) row[j] += weight * from[j];
      }
    }
    if (epilogue.relu_reference != nullptr) {
      const float* ref = epilogue.relu_reference + o * epilogue.reference_stride;
      for (int64_t j = 0; j < w_out; ++j) {
        row[j] = std::max(ref[j] + row[j], 0.0F) - std::max(ref[j], 0.0F);
      }
    }
    if (epilogue.add_input) {
      const TapColumns t = tap_columns({0, 0, w_out}, epilogue.input_shift, w_in);
      const float* from = window.d + o * w_in + t.first_input;
      for (int64_t j = t.lo; j < t.hi; ++j) row[j] += from[j];
    }
  }
#endif
}

}  // namespace strand::kernels::cpu
