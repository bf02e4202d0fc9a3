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

/// A weight gradient sums over the batch. So that its bits do not depend on the thread count,
/// the batch is cut into slots fixed by the batch size alone: each slot sums its samples in
/// order into a partial of its own, threads take whole slots, and the partials are added in
/// slot order. kCount slots share evenly among 1, 2, 3, 4, 6 and 12 threads; each slot beyond
/// the first costs one weight-sized partial.
struct BatchSlots {
  static constexpr int64_t kCount = 12;
  int64_t batch;
  int64_t count;
  explicit BatchSlots(int64_t batch_size)
      : batch(batch_size), count(std::clamp<int64_t>(batch_size, 1, kCount)) {}
  /// The first sample of `slot` (slot == count: the batch size).
  int64_t first(int64_t slot) const { return batch * slot / count; }
  /// The most samples in one slot.
  int64_t largest() const { return (batch + count - 1) / count; }
  /// The threads worth starting for the slots, given `available`.
  int threads(int available) const {
    return static_cast<int>(std::clamp<int64_t>(available, 1, count));
  }
};

/// grad_w (O, rows) = sum over samples b of grad_out[b] (O, L_out) @ col_b^T (L_out, rows), with
/// fill_columns(b, col) writing col_b (rows, L_out); summed in BatchSlots, so the result is the
/// same at every thread count.
template <typename T, typename FillColumns>
void weight_gradient_from_columns(const Conv1DGeometry& g, int64_t rows, const T* grad_out,
                                  FillColumns fill_columns, T* grad_w) {
  const int64_t weights = g.out_channels * rows;
  const int64_t work = g.batch * g.out_channels * g.out_length * rows;
  const BatchSlots slots(g.batch);
  const int threads = work >= kParallelGrain && g.batch > 1 ? omp_get_max_threads() : 1;
  T* partials = conv_workspace<T, PartialsTag>(weights * (slots.count - 1)).data();
#pragma omp parallel num_threads(slots.threads(threads))
  {
    std::vector<T>& col = conv_workspace<T, ColumnsTag>(rows * g.out_length);
#pragma omp for schedule(static)
    for (int64_t slot = 0; slot < slots.count; ++slot) {
      T* sum = slot == 0 ? grad_w : partials + (slot - 1) * weights;
      std::fill(sum, sum + weights, T(0));
      for (int64_t b = slots.first(slot); b < slots.first(slot + 1); ++b) {
        fill_columns(b, col.data());
        gemm<T>(g.out_channels, rows, g.out_length, grad_out + b * g.out_channels * g.out_length,
                g.out_length, 1, col.data(), 1, g.out_length, T(1), sum, rows);
      }
    }
#pragma omp for schedule(static)
    for (int64_t i = 0; i < weights; ++i) {
      for (int64_t slot = 1; slot < slots.count; ++slot)
        grad_w[i] += partials[(slot - 1) * weights + i];
    }
  }
}

}  // namespace strand::kernels::cpu
