// A header-only custom op, registered without touching strand's sources: swish(x) =
// x * sigmoid(x), with its own forward and backward kernels (one fused loop each instead of
// the three ops and three temporaries the composed version makes).
//
// The four parts of an op, all in this header:
//   1. STRAND_DECLARE_OP for the forward and the backward kernel signatures;
//   2. CPU kernels (contiguous float32/float64 in, preallocated contiguous out);
//   3. an inline static registrar that puts them into strand's op registry at start-up;
//   4. the Var-level function: checks arguments, dispatches, and records the gradient rule
//      with make_result.
#pragma once

#include <strand/autograd.h>
#include <strand/tensor.h>
#include <cmath>
#include <cstdint>
#include <vector>

namespace my_ops {

// ---- 1. The ops: names and kernel signatures ----------------------------------------------
// out = x * sigmoid(x); x and out contiguous, same shape and dtype
STRAND_DECLARE_OP(SwishOp, "my_ops.swish", void(const strand::Tensor& x, strand::Tensor& out));
// grad_in = grad_out * s * (1 + x * (1 - s)), s = sigmoid(x)
STRAND_DECLARE_OP(SwishBackwardOp, "my_ops.swish_backward",
                  void(const strand::Tensor& grad_out, const strand::Tensor& x,
                       strand::Tensor& grad_in));

// ---- 2. CPU kernels -----------------------------------------------------------------------
namespace cpu {

template <typename T>
T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

inline void swish_forward(const strand::Tensor& x, strand::Tensor& out) {
  strand::dispatch_floating(x.dtype(), SwishOp::kName, [&]<typename T>() {
    const T* in = x.data<T>();
    T* y = out.data<T>();
    const int64_t n = x.numel();
#pragma omp parallel for simd if (n > (1 << 16))
    for (int64_t i = 0; i < n; ++i) y[i] = in[i] * sigmoid(in[i]);
  });
}

inline void swish_backward(const strand::Tensor& grad_out, const strand::Tensor& x,
                           strand::Tensor& grad_in) {
  strand::dispatch_floating(x.dtype(), SwishBackwardOp::kName, [&]<typename T>() {
    const T* dy = grad_out.data<T>();
    const T* in = x.data<T>();
    T* dx = grad_in.data<T>();
    const int64_t n = x.numel();
#pragma omp parallel for simd if (n > (1 << 16))
    for (int64_t i = 0; i < n; ++i) {
      const T s = sigmoid(in[i]);
      dx[i] = dy[i] * s * (T(1) + in[i] * (T(1) - s));
    }
  });
}

}  // namespace cpu

// ---- 3. Registration, at static initialisation of any program that includes this header ---
inline const bool kSwishKernelsRegistered = [] {
  strand::OpKernels<SwishOp>::register_kernel(strand::DeviceType::kCPU, &cpu::swish_forward);
  strand::OpKernels<SwishBackwardOp>::register_kernel(strand::DeviceType::kCPU,
                                                      &cpu::swish_backward);
  return true;
}();

// ---- 4. Tensor- and Var-level functions -------------------------------------------------------
/// swish(x) without autograd: x any float tensor (any strides) -> contiguous, same shape.
inline strand::Tensor swish(const strand::Tensor& x) {
  STRAND_CHECK(strand::is_floating(x.dtype()), "swish: expected a float tensor, got {}",
               x.describe());
  const strand::Tensor input = x.contiguous();
  strand::Tensor out = strand::Tensor::empty(x.shape(), x.dtype(), x.device());
  strand::dispatch<SwishOp>(x.device(), input, out);
  return out;
}

/// Differentiable swish(x) = x * sigmoid(x).
inline strand::Var swish(const strand::Var& x) {
  const strand::Tensor input = x.value().contiguous();
  return strand::make_result(
      swish(input), SwishOp::kName, {x}, [input](const strand::Tensor& grad_output) {
        const strand::Tensor grad = grad_output.contiguous();
        strand::Tensor grad_in =
            strand::Tensor::empty(input.shape(), input.dtype(), input.device());
        strand::dispatch<SwishBackwardOp>(input.device(), grad, input, grad_in);
        return std::vector<strand::Tensor>{grad_in};
      });
}

}  // namespace my_ops
