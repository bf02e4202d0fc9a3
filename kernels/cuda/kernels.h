// Launchers of strand's CUDA kernels: raw device pointers, extents and strides in elements,
// and the stream to run on (kernels/ knows no Tensor; the CUDA sections of ops/ translate). Every
// launcher checks the launch through STRAND_CUDA_CHECK_LAUNCH. Contracts mirror kernels/cpu/*.h:
// same shapes, same first-argmax rule, code >= 4 is N.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/conv1d_geometry.h"
#include "kernels/optimizer_math.h"
#include "kernels/unary_math.h"

namespace strand::kernels::cuda {

/// Most dimensions a strided kernel handles (adapters merge or reject beyond this).
inline constexpr int kMaxRank = 8;

/// An N-d index space walked in row-major order.
struct IndexSpace {
  int rank = 0;
  int64_t extent[kMaxRank] = {};
  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= extent[d];
    return n;
  }
};
/// One operand's strides over an IndexSpace, in elements.
struct StrideSet {
  int64_t stride[kMaxRank] = {};
};

// ---- Memory -------------------------------------------------------------------------
void fill(DType dtype, void* out, const IndexSpace& space, const StrideSet& out_strides,
          double value, cudaStream_t stream);
/// out[i] = static_cast<Out>(in[i]) between any two dtypes, any strides (both on the device).
void copy_convert(DType out_dtype, void* out, const StrideSet& out_strides, DType in_dtype,
                  const void* in, const StrideSet& in_strides, const IndexSpace& space,
                  cudaStream_t stream);

// ---- Elementwise (float32 / float64) --------------------------------------------------
/// out = f(x), f the formula of `kind` in kernels/unary_math.h.
void unary(DType dtype, UnaryKind kind, const void* x, const StrideSet& x_strides, void* out,
           const StrideSet& out_strides, const IndexSpace& space, cudaStream_t stream);
/// out = x * scale + shift.
void affine(DType dtype, const void* x, const StrideSet& x_strides, void* out,
            const StrideSet& out_strides, const IndexSpace& space, double scale, double shift,
            cudaStream_t stream);
enum class Binary : int {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMaximum,
  kGreater,
  kReluBackward,
  kSigmoidBackward
};
/// out = a (op) b; broadcasting is stride 0. kReluBackward: a * (b > 0); kSigmoidBackward:
/// a * b * (1 - b). out may alias a (same strides).
void binary(DType dtype, Binary kind, const void* a, const StrideSet& a_strides, const void* b,
            const StrideSet& b_strides, void* out, const StrideSet& out_strides,
            const IndexSpace& space, cudaStream_t stream);

// ---- Reductions -------------------------------------------------------------------------
/// out[o] (contiguous over the outer space) = sum over the inner space; float64 accumulation
/// in an order fixed by the shapes (bit-identical repeats). `workspace`: sum_workspace()
/// float64 elements of device memory (null when that is 0).
void sum(DType dtype, const void* x, const IndexSpace& outer, const StrideSet& outer_strides,
         const IndexSpace& inner, const StrideSet& inner_strides, void* out, double* workspace,
         cudaStream_t stream);
/// The float64 elements of workspace sum() needs for these spaces (0: none).
int64_t sum_workspace(const IndexSpace& outer, const StrideSet& outer_strides,
                      const IndexSpace& inner, const StrideSet& inner_strides);
/// *out (device float64) = sum of x[i]^2 over n contiguous float elements, accumulated in
/// float64 (no float64 copy of x); fixed order. `workspace`: sum_of_squares_workspace(n).
void sum_of_squares(DType dtype, int64_t n, const void* x, double* out, double* workspace,
                    cudaStream_t stream);
int64_t sum_of_squares_workspace(int64_t n);
/// For each line (outer space, row-major): values/indices = max and first argmax over `count`
/// elements `stride` apart; a NaN wins (as on the CPU).
void max(DType dtype, const void* x, const IndexSpace& outer, const StrideSet& outer_strides,
         int64_t count, int64_t stride, void* values, int64_t* indices, cudaStream_t stream);
/// grad_in[line offset + indices[line] * stride] += grad[line]; grad, indices contiguous.
void max_backward(DType dtype, const void* grad, const int64_t* indices, const IndexSpace& outer,
                  const StrideSet& grad_in_strides, int64_t stride, void* grad_in,
                  cudaStream_t stream);

// ---- Convolution (contiguous operands; see kernels/cpu/conv1d*.h) ---------------------
void conv1d_forward(DType dtype, const Conv1DGeometry& g, const void* x, const void* w,
                    const void* bias, void* out, cudaStream_t stream);
void conv1d_backward_input(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                           const void* w, void* grad_x, cudaStream_t stream);
void conv1d_backward_weight(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                            const void* x, void* grad_w, cudaStream_t stream);
/// out (B, O, L_out) += bias[o] (for library convolutions that leave the bias out).
void add_channel_bias(DType dtype, int64_t batch, int64_t channels, int64_t length,
                      const void* bias, void* out, cudaStream_t stream);
void conv1d_onehot_forward(DType dtype, const Conv1DGeometry& g, const uint8_t* codes,
                           const void* w, const void* bias, void* out, cudaStream_t stream);
void conv1d_onehot_backward_weight(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                                   const uint8_t* codes, void* grad_w, cudaStream_t stream);
/// Fused relu(max_t conv): codes != null selects the one-hot form (x unused).
void conv1d_relu_max(DType dtype, const Conv1DGeometry& g, const uint8_t* codes, const void* x,
                     const void* w, const void* bias, void* out, int64_t* argmax,
                     cudaStream_t stream);
void conv1d_relu_max_backward(DType dtype, const Conv1DGeometry& g, const void* grad_out,
                              const uint8_t* codes, const void* x, const void* w, const void* out,
                              const int64_t* argmax, void* grad_x, void* grad_w, void* grad_bias,
                              cudaStream_t stream);

// ---- Losses -----------------------------------------------------------------------------
void bce_with_logits_forward(DType dtype, int64_t n, const void* logits, const void* targets,
                             void* out, cudaStream_t stream);
void bce_with_logits_backward(DType dtype, int64_t n, const void* grad_out, const void* logits,
                              const void* targets, void* grad, cudaStream_t stream);

// ---- Optimizer updates (contiguous, in place; double arithmetic as on the CPU) ----------
// schedule: null, or the device float64 [lr, step] of the step (already advanced): the kernel
// then reads the learning rate (and Adam the step) there instead of taking the host values,
// so a captured CUDA graph replays with the current values, not frozen kernel arguments.
void adam_update(DType dtype, int64_t n, void* param, const void* grad, void* exp_avg,
                 void* exp_avg_sq, const AdamHyperParameters& hyper, int64_t step,
                 const double* schedule, cudaStream_t stream);
void sgd_update(DType dtype, int64_t n, void* param, const void* grad, void* buffer, double lr,
                double momentum, double dampening, double weight_decay, bool nesterov,
                bool first_step, const double* schedule, cudaStream_t stream);
void rmsprop_update(DType dtype, int64_t n, void* param, const void* grad, void* square_avg,
                    void* grad_avg, void* buffer, double lr, double alpha, double eps,
                    double weight_decay, double momentum, bool centered, const double* schedule,
                    cudaStream_t stream);
/// schedule[1] += 1 (device float64 [lr, step]).
void advance_schedule(double* schedule, cudaStream_t stream);

/// Multi-tensor Adam: one launch updates up to kMultiTensorMax float32 tensors.
inline constexpr int kMultiTensorMax = 48;
struct MultiTensorAdamArgs {
  int count = 0;
  float* param[kMultiTensorMax];
  const float* grad[kMultiTensorMax];
  float* exp_avg[kMultiTensorMax];
  float* exp_avg_sq[kMultiTensorMax];
  int64_t numel[kMultiTensorMax];
};
void adam_update_multi(const MultiTensorAdamArgs& args, const AdamHyperParameters& hyper,
                       int64_t step, cudaStream_t stream);
/// As adam_update_multi, with the learning rate and step read from the device schedule
/// (hyper.learning_rate is not used).
void adam_update_multi_scheduled(const MultiTensorAdamArgs& args, const double* schedule,
                                 const AdamHyperParameters& hyper, cudaStream_t stream);

}  // namespace strand::kernels::cuda
