// Conv1D as GEMM over "columns" (im2col), shared by the dense and the one-hot Conv1D kernels:
// per sample, a (rows, L_out) matrix whose row r holds what tap r of every output position
// reads. Dense input: rows = C * K, col[(c * K + k), t] = x[c, t * stride + k * dilation -
// pad_left] (zero outside). Base codes: rows = 4 * K, col[(base * K + k), t] = 1 where that
// input position holds `base`. The weight gradient is then a sum of GEMMs over the batch.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/conv1d_geometry.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/strided_loop.h"

namespace strand::kernels::cpu {

/// Per-thread scratch of `Tag`'s kind, kept between calls so that a training step allocates
/// nothing once the largest layer has run.
template <typename T, typename Tag>
std::vector<T>& conv_workspace(int64_t elements) {
  thread_local std::vector<T> buffer;
  if (static_cast<int64_t>(buffer.size()) < elements) buffer.resize(static_cast<size_t>(elements));
  return buffer;
}
struct ColumnsTag {};
struct PartialsTag {};
struct BiasPartialsTag {};
struct MaskedGradientTag {};
struct ProductTag {};

/// The one-hot columns of one sample: col (4 * K, L_out) with row stride ld (>= L_out),
/// col[(base * K + k) * ld + t] = 1 where tap k of output t reads `base`, else 0. codes: (L).
/// Defined beside the one-hot kernels (conv1d_onehot.cpp), which share its padding of the codes.
template <typename T>
void onehot_columns(const Conv1DGeometry& g, const uint8_t* codes, T* col, int64_t ld);

/// One-hot float (B, 4, L) from codes (B, L); N (code >= 4) becomes all zeros (the oracles'
/// dense form of a one-hot input). Defined in conv1d_onehot.cpp.
template <typename T>
void one_hot_from_codes(int64_t batch, int64_t length, const uint8_t* codes, T* one_hot);

/// Runs body(b, col) for every sample b, samples split across threads (when the work is large
/// enough), each thread with its own column buffer of rows * L_out elements.
template <typename T, typename Body>
void for_each_sample_with_columns(const Conv1DGeometry& g, int64_t rows, Body body) {
  const int64_t work = g.batch * g.out_channels * g.out_length * rows;
#pragma omp parallel if (work >= kParallelGrain && g.batch > 1)
  {
    T* col = conv_workspace<T, ColumnsTag>(rows * g.out_length).data();
#pragma omp for schedule(static)
    for (int64_t b = 0; b < g.batch; ++b) body(b, col);
  }
}

/// grad_w (O, rows) = sum over samples b of grad_out[b] (O, L_out) @ col_b^T (L_out, rows), with
/// fill_columns(b, col) writing col_b (rows, L_out). Each thread sums a fixed contiguous chunk
/// of the batch into its own partial; the partials are added in thread order, so a result
/// depends on the thread count only, never on timing.
template <typename T, typename FillColumns>
void weight_gradient_from_columns(const Conv1DGeometry& g, int64_t rows, const T* grad_out,
                                  FillColumns fill_columns, T* grad_w) {
  const int64_t weights = g.out_channels * rows;
  const int64_t work = g.batch * g.out_channels * g.out_length * rows;
  const int threads = work >= kParallelGrain && g.batch > 1 ? omp_get_max_threads() : 1;
  std::vector<T>& partials = conv_workspace<T, PartialsTag>(weights * (threads - 1));
  T* partial_data = partials.data();
#pragma omp parallel num_threads(threads)
  {
    const int thread = omp_get_thread_num();
    const int team = omp_get_num_threads();
    T* sum = thread == 0 ? grad_w : partial_data + (thread - 1) * weights;
    std::fill(sum, sum + weights, T(0));
    std::vector<T>& col = conv_workspace<T, ColumnsTag>(rows * g.out_length);
    const int64_t first = g.batch * thread / team, last = g.batch * (thread + 1) / team;
    for (int64_t b = first; b < last; ++b) {
      fill_columns(b, col.data());
      gemm<T>(g.out_channels, rows, g.out_length, grad_out + b * g.out_channels * g.out_length,
              g.out_length, 1, col.data(), 1, g.out_length, T(1), sum, rows);
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (int64_t i = 0; i < weights; ++i) {
      for (int other = 1; other < team; ++other) {
        grad_w[i] += partial_data[(other - 1) * weights + i];
      }
    }
  }
}

}  // namespace strand::kernels::cpu
