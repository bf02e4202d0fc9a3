// One-hot (gather) Conv1D and fused Conv1D+ReLU+GlobalMaxPool CPU kernels.
#include "kernels/cpu/conv1d_onehot.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/conv1d.h"
#include "kernels/cpu/conv1d_columns.h"
#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {
namespace {

constexpr int64_t kCodes = 5;  // A, C, G, T, N

// The gather works on pairs of taps: a pair (tap 2q, tap 2q+1) sees one of 5 x 5 = 25 code
// combinations, so a table of the 25 pre-added weight sums halves the number of adds (the hot
// loop is bound by its loads, one table row per term). An odd kernel gets a virtual last tap
// whose weights are zero and whose input reads as N.
constexpr int64_t kPairCodes = kCodes * kCodes;

int64_t tap_pairs(const Conv1DGeometry& g) { return (g.kernel_size + 1) / 2; }

// table (pairs, 25, O): table[q][c1 * 5 + c2][o] = w[o, c1, 2q] + w[o, c2, 2q + 1], an N code
// or the virtual tap contributing zero. The O filters of one entry are contiguous, so the
// gather adds whole rows, which vectorises.
template <typename T>
std::vector<T> pair_table(const Conv1DGeometry& g, const T* w) {
  const int64_t n_out = g.out_channels;
  const int64_t pairs = tap_pairs(g);
  const auto weight = [&](int64_t o, int64_t base, int64_t k) {
    return base < 4 && k < g.kernel_size ? w[(o * 4 + base) * g.kernel_size + k] : T(0);
  };
  std::vector<T> table(static_cast<size_t>(pairs * kPairCodes * n_out));
  for (int64_t q = 0; q < pairs; ++q) {
    for (int64_t c1 = 0; c1 < kCodes; ++c1) {
      for (int64_t c2 = 0; c2 < kCodes; ++c2) {
        T* row = table.data() + (q * kPairCodes + c1 * kCodes + c2) * n_out;
        for (int64_t o = 0; o < n_out; ++o)
          row[o] = weight(o, c1, 2 * q) + weight(o, c2, 2 * q + 1);
      }
    }
  }
  return table;
}

// The codes of one sample with the padding made explicit as N, so the inner loops need no
// bounds checks: padded[j] is the code at input position j - pad_left. It extends one dilation
// past the last real tap for the virtual tap of an odd kernel.
void padded_codes(const Conv1DGeometry& g, const uint8_t* codes, std::vector<uint8_t>& padded) {
  const int64_t span = (g.out_length - 1) * g.stride + (2 * tap_pairs(g) - 1) * g.dilation + 1;
  padded.assign(static_cast<size_t>(std::max<int64_t>(span, 0)), kBaseN);
  // Only [first, last) maps into the input; a branch-free loop over it vectorises.
  const int64_t first = std::clamp<int64_t>(g.pad_left, 0, span);
  const int64_t last = std::clamp<int64_t>(g.pad_left + g.length, first, span);
  const uint8_t* source = codes - g.pad_left;
  uint8_t* target = padded.data();
  for (int64_t j = first; j < last; ++j) target[j] = std::min<uint8_t>(source[j], kBaseN);
}

// pair_codes[j] = padded[j] * 5 + padded[j + dilation]: the pair-table entry of the pair whose
// first tap reads input index j. Pair q of output t reads pair_codes[t * stride + 2q * dilation].
// Made once per sample; padded is scratch.
void pair_codes(const Conv1DGeometry& g, const uint8_t* codes, std::vector<uint8_t>& padded,
                std::vector<uint8_t>& pair_codes_out) {
  padded_codes(g, codes, padded);
  const int64_t span = static_cast<int64_t>(padded.size()) - g.dilation;
  pair_codes_out.resize(static_cast<size_t>(std::max<int64_t>(span, 0)));
  const uint8_t* first_tap = padded.data();
  const uint8_t* second_tap = padded.data() + g.dilation;
  uint8_t* target = pair_codes_out.data();
  for (int64_t j = 0; j < span; ++j) {
    target[j] = static_cast<uint8_t>(first_tap[j] * kCodes + second_tap[j]);
  }
}

// Accumulators for kBlock consecutive output positions and all O filters at once. With O a
// compile-time constant the compiler keeps them in vector registers (no load/store per term)
// and the kBlock positions give independent add chains; O = 0 stands for "O known only at run
// time" (the generic path, kBlock = 1, accumulators in memory).
template <typename T, int64_t O, int64_t kBlock>
struct GatherBlock {
  T acc[kBlock][O];
};

// The number of positions per block: enough accumulators to fill about eight vector registers.
template <typename T, int64_t O>
constexpr int64_t block_positions() {
#if defined(__AVX512F__)
  constexpr int64_t kVectorBytes = 64;
#else
  constexpr int64_t kVectorBytes = 32;
#endif
  constexpr int64_t lanes = 8 * kVectorBytes / static_cast<int64_t>(sizeof(T));
  return O >= lanes ? 1 : lanes / O;
}

// acc[p][o] = bias[o] + sum_q table[q][pair_codes[(t0 + p) * stride + 2q * dilation]][o].
template <typename T, int64_t O, int64_t kBlock>
inline void gather(const Conv1DGeometry& g, const T* table, const uint8_t* codes, int64_t t0,
                   const T* bias, T (&acc)[kBlock][O]) {
  for (int64_t p = 0; p < kBlock; ++p) {
#pragma omp simd
    for (int64_t o = 0; o < O; ++o) acc[p][o] = bias ? bias[o] : T(0);
  }
  const int64_t pairs = tap_pairs(g);
  const uint8_t* window = codes + t0 * g.stride;
  for (int64_t q = 0; q < pairs; ++q) {
    const T* table_q = table + q * kPairCodes * O;
    const uint8_t* window_q = window + 2 * q * g.dilation;
    for (int64_t p = 0; p < kBlock; ++p) {
      const T* row = table_q + window_q[p * g.stride] * O;
#pragma omp simd
      for (int64_t o = 0; o < O; ++o) acc[p][o] += row[o];
    }
  }
}

// Runtime-O version of gather() for one position (filter counts without a specialisation).
template <typename T>
inline void gather_dynamic(const Conv1DGeometry& g, const T* table, const uint8_t* codes, int64_t t,
                           const T* bias, T* acc) {
  const int64_t n_out = g.out_channels;
  if (bias) {
    std::copy(bias, bias + n_out, acc);
  } else {
    std::fill(acc, acc + n_out, T(0));
  }
  const uint8_t* window = codes + t * g.stride;
  for (int64_t q = 0; q < tap_pairs(g); ++q) {
    const T* row = table + (q * kPairCodes + window[2 * q * g.dilation]) * n_out;
#pragma omp simd
    for (int64_t o = 0; o < n_out; ++o) acc[o] += row[o];
  }
}

// Calls consume(t, acc) for every output position t of one sample, acc[o] being conv[o, t].
// Positions go in increasing order (the fused max relies on it to keep the first argmax).
template <typename T, int64_t O, typename Consume>
inline void for_each_position(const Conv1DGeometry& g, const T* table, const uint8_t* codes,
                              const T* bias, Consume&& consume) {
  constexpr int64_t kBlock = block_positions<T, O>();
  int64_t t = 0;
  for (; t + kBlock <= g.out_length; t += kBlock) {
    T acc[kBlock][O];
    gather<T, O, kBlock>(g, table, codes, t, bias, acc);
    for (int64_t p = 0; p < kBlock; ++p) consume(t + p, acc[p]);
  }
  for (; t < g.out_length; ++t) {
    T acc[1][O];
    gather<T, O, 1>(g, table, codes, t, bias, acc);
    consume(t, acc[0]);
  }
}

// Runs body.template operator()<O>() with O a compile-time filter count for the common sizes,
// or O = 0 for any other (the body then takes the runtime path).
template <typename Body>
void dispatch_filters(int64_t n_out, Body&& body) {
  switch (n_out) {
    case 8:
      return body.template operator()<8>();
    case 16:
      return body.template operator()<16>();
    case 32:
      return body.template operator()<32>();
    case 64:
      return body.template operator()<64>();
    default:
      return body.template operator()<0>();
  }
}

// Per-thread scratch for the codes of one sample, reused across calls so the batch loop does
// not allocate.
struct CodeScratch {
  std::vector<uint8_t> padded, pairs;
};
CodeScratch& code_scratch() {
  thread_local CodeScratch scratch;
  return scratch;
}

// Samples are handed to threads in small chunks on demand rather than in one static half each:
// on a shared machine a thread that loses its core for a time slice then delays the batch by
// one chunk, not by half the batch (each sample's result does not depend on the schedule).
constexpr int64_t kSamplesPerChunk = 4;

// Output positions transposed together on their way to the (O, L_out) output.
constexpr int64_t kTile = 16;

}  // namespace

template <typename T>
void one_hot_from_codes(int64_t batch, int64_t length, const uint8_t* codes, T* one_hot) {
  std::fill(one_hot, one_hot + batch * 4 * length, T(0));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t p = 0; p < length; ++p) {
      const uint8_t base = codes[b * length + p];
      if (base < 4) one_hot[(b * 4 + base) * length + p] = T(1);
    }
  }
}

template <typename T>
void conv1d_onehot_forward_reference(const Conv1DGeometry& g, const uint8_t* codes, const T* w,
                                     const T* bias, T* out) {
  std::vector<T> one_hot(static_cast<size_t>(g.batch * 4 * g.length));
  one_hot_from_codes(g.batch, g.length, codes, one_hot.data());
  conv1d_forward_reference(g, one_hot.data(), w, bias, out);
}

template <typename T>
void conv1d_onehot_forward(const Conv1DGeometry& g, const uint8_t* codes, const T* w, const T* bias,
                           T* out, bool relu) {
  const std::vector<T> table = pair_table(g, w);
  const int64_t n_out = g.out_channels;
  const int64_t n_pos = g.out_length;
  // A fused ReLU clamps each value as it is written (the relu op's comparison); kRelu is a
  // constant so the plain conv's store loop stays as it was.
  const auto run = [&]<bool kRelu>() {
    const auto store = [](T value) { return kRelu && !(value > T(0)) ? T(0) : value; };
    dispatch_filters(n_out, [&]<int64_t O>() {
#pragma omp parallel for schedule(dynamic, kSamplesPerChunk)
      for (int64_t b = 0; b < g.batch; ++b) {
        CodeScratch& scratch = code_scratch();
        pair_codes(g, codes + b * g.length, scratch.padded, scratch.pairs);
        T* out_b = out + b * n_out * n_pos;
        if constexpr (O > 0) {
          // Positions arrive one at a time with all O filters; out is (O, L_out). Storing each
          // value straight to its row writes O streams an element at a time; a tile of
          // kTile positions transposed on its way out writes kTile-long runs of each row.
          alignas(64) T tile[kTile][O];
          const auto flush = [&](int64_t t0, int64_t count) {
            for (int64_t o = 0; o < O; ++o) {
              T* out_row = out_b + o * n_pos + t0;
#pragma omp simd
              for (int64_t p = 0; p < count; ++p) out_row[p] = tile[p][o];
            }
          };
          for_each_position<T, O>(g, table.data(), scratch.pairs.data(), bias,
                                  [&](int64_t t, const T* acc) {
                                    const int64_t slot = t % kTile;
#pragma omp simd
                                    for (int64_t o = 0; o < O; ++o) tile[slot][o] = store(acc[o]);
                                    if (slot == kTile - 1 || t == n_pos - 1) {
                                      flush(t - slot, slot + 1);
                                    }
                                  });
        } else {
          std::vector<T> acc(static_cast<size_t>(n_out));
          for (int64_t t = 0; t < n_pos; ++t) {
            gather_dynamic(g, table.data(), scratch.pairs.data(), t, bias, acc.data());
            for (int64_t o = 0; o < n_out; ++o) out_b[o * n_pos + t] = store(acc[o]);
          }
        }
      }
    });
  };
  if (relu) {
    run.template operator()<true>();
  } else {
    run.template operator()<false>();
  }
}

template <typename T>
void onehot_columns(const Conv1DGeometry& g, const uint8_t* codes, T* col, int64_t ld) {
  thread_local std::vector<uint8_t> padded;
  padded_codes(g, codes, padded);
  // Row (base, k) written in one pass, a compare per entry (vectorised for stride 1), rather
  // than zero-filled and then scattered into.
  for (int64_t k = 0; k < g.kernel_size; ++k) {
    const uint8_t* taps = padded.data() + k * g.dilation;  // taps[t * stride]: tap k of output t
    for (uint8_t base = 0; base < 4; ++base) {
      T* row = col + (base * g.kernel_size + k) * ld;
      if (g.stride == 1) {
#pragma omp simd
        for (int64_t t = 0; t < g.out_length; ++t) row[t] = taps[t] == base ? T(1) : T(0);
      } else {
        for (int64_t t = 0; t < g.out_length; ++t) {
          row[t] = taps[t * g.stride] == base ? T(1) : T(0);
        }
      }
    }
  }
}

template <typename T>
void conv1d_onehot_backward_weight(const Conv1DGeometry& g, const T* grad_out, const uint8_t* codes,
                                   T* grad_w) {
  // grad_w (O, 4 * K) = sum over samples of grad_out[b] (O, L_out) @ onehot_col^T, where
  // onehot_col[(base * K + k), t] = 1 when tap k of output t reads `base`: a GEMM per sample
  // instead of a data-dependent scatter, and grad_w's (O, 4, K) layout is its row order.
  weight_gradient_from_columns<T>(
      g, 4 * g.kernel_size, grad_out,
      [&](int64_t b, T* col) { onehot_columns(g, codes + b * g.length, col, g.out_length); },
      grad_w);
}

namespace {
// relu(max) and first argmax over each (b, o) row of a conv output (B, O, L_out).
template <typename T>
void relu_max_rows(const Conv1DGeometry& g, const T* conv, T* out, int64_t* argmax) {
  for (int64_t row = 0; row < g.batch * g.out_channels; ++row) {
    const T* values = conv + row * g.out_length;
    int64_t best = 0;
    for (int64_t t = 1; t < g.out_length; ++t) {
      if (values[t] > values[best]) best = t;
    }
    out[row] = std::max(values[best], T(0));
    argmax[row] = best;
  }
}
}  // namespace

template <typename T>
void conv1d_relu_max_onehot_reference(const Conv1DGeometry& g, const uint8_t* codes, const T* w,
                                      const T* bias, T* out, int64_t* argmax) {
  std::vector<T> conv(static_cast<size_t>(g.batch * g.out_channels * g.out_length));
  conv1d_onehot_forward_reference(g, codes, w, bias, conv.data());
  relu_max_rows(g, conv.data(), out, argmax);
}

// Running max and first argmax of one sample's O filters. Index has the width of T so the
// compare-and-select vectorises lane for lane.
template <typename T, int64_t O>
struct RunningMax {
  using Index = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  T best[O];
  Index best_t[O];

  RunningMax() {
    std::fill(best, best + O, -std::numeric_limits<T>::infinity());
    std::fill(best_t, best_t + O, Index(0));
  }
  // Strictly greater keeps the first position of the max, as the oracle does.
  void update(int64_t t, const T* acc) {
#pragma omp simd
    for (int64_t o = 0; o < O; ++o) {
      const bool better = acc[o] > best[o];
      best[o] = better ? acc[o] : best[o];
      best_t[o] = better ? static_cast<Index>(t) : best_t[o];
    }
  }
};

template <typename T>
void conv1d_relu_max_onehot(const Conv1DGeometry& g, const uint8_t* codes, const T* w,
                            const T* bias, T* out, int64_t* argmax) {
  const std::vector<T> table = pair_table(g, w);
  const int64_t n_out = g.out_channels;
  dispatch_filters(n_out, [&]<int64_t O>() {
#pragma omp parallel for schedule(dynamic, kSamplesPerChunk)
    for (int64_t b = 0; b < g.batch; ++b) {
      CodeScratch& scratch = code_scratch();
      pair_codes(g, codes + b * g.length, scratch.padded, scratch.pairs);
      if constexpr (O > 0) {
        RunningMax<T, O> running;
        for_each_position<T, O>(g, table.data(), scratch.pairs.data(), bias,
                                [&](int64_t t, const T* acc) { running.update(t, acc); });
        for (int64_t o = 0; o < O; ++o) {
          out[b * O + o] = std::max(running.best[o], T(0));
          argmax[b * O + o] = running.best_t[o];
        }
      } else {
        std::vector<T> acc(static_cast<size_t>(n_out));
        std::vector<T> best(static_cast<size_t>(n_out), -std::numeric_limits<T>::infinity());
        std::vector<int64_t> best_t(static_cast<size_t>(n_out), 0);
        for (int64_t t = 0; t < g.out_length; ++t) {
          gather_dynamic(g, table.data(), scratch.pairs.data(), t, bias, acc.data());
          for (int64_t o = 0; o < n_out; ++o) {
            if (acc[o] > best[o]) {  // strictly greater: first argmax, as the oracle
              best[o] = acc[o];
              best_t[o] = t;
            }
          }
        }
        for (int64_t o = 0; o < n_out; ++o) {
          out[b * n_out + o] = std::max(best[o], T(0));
          argmax[b * n_out + o] = best_t[o];
        }
      }
    }
  });
}

template <typename T>
void conv1d_relu_max_dense_reference(const Conv1DGeometry& g, const T* x, const T* w, const T* bias,
                                     T* out, int64_t* argmax) {
  std::vector<T> conv(static_cast<size_t>(g.batch * g.out_channels * g.out_length));
  conv1d_forward_reference(g, x, w, bias, conv.data());
  relu_max_rows(g, conv.data(), out, argmax);
}

template <typename T>
void conv1d_relu_max_dense(const Conv1DGeometry& g, const T* x, const T* w, const T* bias, T* out,
                           int64_t* argmax) {
  // One sample at a time through the fast dense conv keeps the activation map to (O, L_out).
  // Threads split the samples: one parallel region for the batch, instead of one per sample
  // inside conv1d_forward (which then runs single-threaded, nested), each thread with its own
  // activation buffer.
  Conv1DGeometry one = g;
  one.batch = 1;
#pragma omp parallel
  {
    std::vector<T> conv(static_cast<size_t>(g.out_channels * g.out_length));
#pragma omp for schedule(dynamic, kSamplesPerChunk)
    for (int64_t b = 0; b < g.batch; ++b) {
      conv1d_forward(one, x + b * g.in_channels * g.length, w, bias, conv.data());
      relu_max_rows(one, conv.data(), out + b * g.out_channels, argmax + b * g.out_channels);
    }
  }
}

template <typename T>
void conv1d_relu_max_backward(const Conv1DGeometry& g, const T* grad_out, const uint8_t* codes,
                              const T* x, const T* w, const T* out, const int64_t* argmax,
                              T* grad_x, T* grad_w, T* grad_bias) {
  const int64_t n_out = g.out_channels;
  const int64_t n_in = g.in_channels;
  const int64_t taps = g.kernel_size;
  // grad_w and grad_bias: filter o owns its rows. Codes add one term per tap, dense input one
  // per channel and tap; below the grain a parallel region costs more than it saves (and far
  // more when other processes compete for the cores).
  const int64_t weight_work = g.batch * n_out * taps * (codes ? 1 : n_in);
#pragma omp parallel for schedule(static) if (weight_work >= kParallelGrain)
  for (int64_t o = 0; o < n_out; ++o) {
    T* gw = grad_w + o * n_in * taps;
    std::fill(gw, gw + n_in * taps, T(0));
    T bias_total = T(0);
    for (int64_t b = 0; b < g.batch; ++b) {
      const int64_t row = b * n_out + o;
      if (!(out[row] > T(0))) continue;  // relu closed: no gradient
      const T upstream = grad_out[row];
      bias_total += upstream;
      for (int64_t k = 0; k < taps; ++k) {
        const int64_t p = g.input_position(argmax[row], k);
        if (p < 0 || p >= g.length) continue;
        if (codes) {
          const uint8_t base = codes[b * g.length + p];
          if (base < 4) gw[base * taps + k] += upstream;
        } else {
          for (int64_t c = 0; c < n_in; ++c)
            gw[c * taps + k] += upstream * x[(b * n_in + c) * g.length + p];
        }
      }
    }
    if (grad_bias) grad_bias[o] = bias_total;
  }
  if (grad_x == nullptr) return;
    // grad_x: sample b owns its rows.
#pragma omp parallel for schedule(static) if (g.batch * n_out * n_in * taps >= kParallelGrain)
  for (int64_t b = 0; b < g.batch; ++b) {
    T* gx = grad_x + b * n_in * g.length;
    std::fill(gx, gx + n_in * g.length, T(0));
    for (int64_t o = 0; o < n_out; ++o) {
      const int64_t row = b * n_out + o;
      if (!(out[row] > T(0))) continue;
      const T upstream = grad_out[row];
      for (int64_t k = 0; k < taps; ++k) {
        const int64_t p = g.input_position(argmax[row], k);
        if (p < 0 || p >= g.length) continue;
        for (int64_t c = 0; c < n_in; ++c)
          gx[c * g.length + p] += upstream * w[(o * n_in + c) * taps + k];
      }
    }
  }
}

#define STRAND_INSTANTIATE_ONEHOT(T)                                                              \
  template void one_hot_from_codes<T>(int64_t, int64_t, const uint8_t*, T*);                      \
  template void conv1d_onehot_forward_reference<T>(const Conv1DGeometry&, const uint8_t*,         \
                                                   const T*, const T*, T*);                       \
  template void conv1d_onehot_forward<T>(const Conv1DGeometry&, const uint8_t*, const T*,         \
                                         const T*, T*, bool);                                     \
  template void conv1d_onehot_backward_weight<T>(const Conv1DGeometry&, const T*, const uint8_t*, \
                                                 T*);                                             \
  template void onehot_columns<T>(const Conv1DGeometry&, const uint8_t*, T*, int64_t);            \
  template void conv1d_relu_max_onehot_reference<T>(const Conv1DGeometry&, const uint8_t*,        \
                                                    const T*, const T*, T*, int64_t*);            \
  template void conv1d_relu_max_onehot<T>(const Conv1DGeometry&, const uint8_t*, const T*,        \
                                          const T*, T*, int64_t*);                                \
  template void conv1d_relu_max_dense_reference<T>(const Conv1DGeometry&, const T*, const T*,     \
                                                   const T*, T*, int64_t*);                       \
  template void conv1d_relu_max_dense<T>(const Conv1DGeometry&, const T*, const T*, const T*, T*, \
                                         int64_t*);                                               \
  template void conv1d_relu_max_backward<T>(const Conv1DGeometry&, const T*, const uint8_t*,      \
                                            const T*, const T*, const T*, const int64_t*, T*, T*, \
                                            T*);
STRAND_INSTANTIATE_ONEHOT(float)
STRAND_INSTANTIATE_ONEHOT(double)
#undef STRAND_INSTANTIATE_ONEHOT

}  // namespace strand::kernels::cpu
