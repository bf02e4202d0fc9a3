// CUDA Tensor adapters: elementwise maps, reductions, matmul (cuBLAS), BCE and the fused
// optimizer updates. Mirrors tensor/cpu/*.cpp.
#include <algorithm>
#include <climits>
#include <vector>

#include "kernels/cuda/check.h"
#include "tensor/cuda/adapter_util.h"
#include "tensor/cuda/device.h"
#include "tensor/op_declarations.h"
#include "tensor/reduction_layout.h"

namespace strand::cuda {
namespace {

namespace k = kernels::cuda;

cudaStream_t stream_of(const Tensor& t) {
  require_device(t.device());
  return stream(t.device());
}

// ---- Elementwise ------------------------------------------------------------------------

void unary_cuda(UnaryOpKind kind, const Tensor& x, Tensor& out) {
  k::unary(x.dtype(), kind, x.raw_data(), strides_of(x.strides()), out.raw_data(),
           strides_of(out.strides()), space_of(out.shape(), "unary"), stream_of(x));
}

void affine_cuda(const Tensor& x, double scale, double shift, Tensor& out) {
  k::affine(x.dtype(), x.raw_data(), strides_of(x.strides()), out.raw_data(),
            strides_of(out.strides()), space_of(out.shape(), "affine"), scale, shift, stream_of(x));
}

void binary_into(k::Binary kind, const Tensor& a, const Tensor& b, Tensor& out) {
  const Tensor av = a.expand(out.shape());
  const Tensor bv = b.expand(out.shape());
  k::binary(out.dtype(), kind, av.raw_data(), strides_of(av.strides()), bv.raw_data(),
            strides_of(bv.strides()), out.raw_data(), strides_of(out.strides()),
            space_of(out.shape(), "binary"), stream_of(out));
}

void binary_cuda(BinaryOpKind kind, const Tensor& a, const Tensor& b, Tensor& out) {
  k::Binary mapped = k::Binary::kAdd;
  switch (kind) {
    case BinaryOpKind::kAdd:
      mapped = k::Binary::kAdd;
      break;
    case BinaryOpKind::kSub:
      mapped = k::Binary::kSub;
      break;
    case BinaryOpKind::kMul:
      mapped = k::Binary::kMul;
      break;
    case BinaryOpKind::kDiv:
      mapped = k::Binary::kDiv;
      break;
    case BinaryOpKind::kMaximum:
      mapped = k::Binary::kMaximum;
      break;
    case BinaryOpKind::kGreater:
      mapped = k::Binary::kGreater;
      break;
  }
  binary_into(mapped, a, b, out);
}

void relu_backward_cuda(const Tensor& grad_out, const Tensor& x, Tensor& grad_in) {
  binary_into(k::Binary::kReluBackward, grad_out, x, grad_in);
}

void sigmoid_backward_cuda(const Tensor& grad_out, const Tensor& y, Tensor& grad_in) {
  binary_into(k::Binary::kSigmoidBackward, grad_out, y, grad_in);
}

// ---- Reductions ---------------------------------------------------------------------------

void sum_cuda(const Tensor& x, const std::vector<int64_t>& dims, Tensor& out) {
  const ReductionLayout l = reduction_layout(x, dims);
  k::sum(x.dtype(), x.raw_data(), space_of(l.outer_shape, "sum"), strides_of(l.outer_strides),
         space_of(l.inner_shape, "sum"), strides_of(l.inner_strides), out.raw_data(), stream_of(x));
}

void max_cuda(const Tensor& x, int64_t dim, Tensor& values, Tensor& indices) {
  Shape other = x.shape();
  other[dim] = 1;
  k::max(x.dtype(), x.raw_data(), space_of(other, "max"), strides_of(x.strides()), x.shape()[dim],
         x.strides()[dim], values.raw_data(), indices.data<int64_t>(), stream_of(x));
}

void max_backward_cuda(const Tensor& grad_out, const Tensor& indices, int64_t dim,
                       Tensor& grad_in) {
  Shape other = grad_in.shape();
  other[dim] = 1;
  const Tensor grad = grad_out.contiguous();
  const Tensor index = indices.contiguous();
  k::max_backward(grad_in.dtype(), grad.raw_data(), index.data<int64_t>(),
                  space_of(other, "max_backward"), strides_of(grad_in.strides()),
                  grad_in.strides()[dim], grad_in.raw_data(), stream_of(grad_in));
}

// ---- Matmul (cuBLAS) ------------------------------------------------------------------------

// A row-major (rows x cols) operand addressed with strides (s0, s1), seen by column-major
// cuBLAS as its transpose: op N with ld s0 when rows are contiguous, op T with ld s1 when
// columns are; anything else (broadcast, overlapping or gapped in both) is copied first.
struct BlasView {
  bool ok = false;
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 1;
};
BlasView blas_view(int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  const int64_t r = std::max<int64_t>(rows, 1), c = std::max<int64_t>(cols, 1);
  if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= c)) {
    return {true, CUBLAS_OP_N, rows == 1 ? c : s0};
  }
  if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= r)) {
    return {true, CUBLAS_OP_T, cols == 1 ? r : s1};
  }
  return {};
}

void matmul_cuda(const Tensor& a_in, const Tensor& b_in, Tensor& out) {
  const int64_t m = a_in.size(0), kdim = a_in.size(1), n = b_in.size(1);
  if (m == 0 || n == 0) return;
  if (kdim == 0) {
    out.fill_(0.0);
    return;
  }
  STRAND_CHECK(m < INT_MAX && n < INT_MAX && kdim < INT_MAX,
               "matmul (CUDA): extents ({}, {}, {}) exceed cuBLAS's int range", m, kdim, n);
  Tensor a = a_in, b = b_in;
  BlasView av = blas_view(m, kdim, a.strides()[0], a.strides()[1]);
  if (!av.ok) {
    a = a_in.contiguous();
    av = blas_view(m, kdim, a.strides()[0], a.strides()[1]);
  }
  BlasView bv = blas_view(kdim, n, b.strides()[0], b.strides()[1]);
  if (!bv.ok) {
    b = b_in.contiguous();
    bv = blas_view(kdim, n, b.strides()[0], b.strides()[1]);
  }
  // out^T (n x m, column-major, ld n) = b^T (n x k) * a^T (k x m).
  cublasHandle_t handle = cublas(out.device());
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(kdim);
  if (out.dtype() == DType::kFloat32) {
    const float one = 1.0f, zero = 0.0f;
    STRAND_CUBLAS_CHECK(cublasSgemm(handle, bv.op, av.op, in, im, ik, &one, b.data<float>(),
                                    static_cast<int>(bv.ld), a.data<float>(),
                                    static_cast<int>(av.ld), &zero, out.data<float>(), in));
  } else if (out.dtype() == DType::kFloat64) {
    const double one = 1.0, zero = 0.0;
    STRAND_CUBLAS_CHECK(cublasDgemm(handle, bv.op, av.op, in, im, ik, &one, b.data<double>(),
                                    static_cast<int>(bv.ld), a.data<double>(),
                                    static_cast<int>(av.ld), &zero, out.data<double>(), in));
  } else {
    throw_dtype_error("matmul", static_cast<int>(out.dtype()));
  }
}

// ---- Losses ---------------------------------------------------------------------------------

void bce_cuda(const Tensor& logits, const Tensor& targets, Tensor& out) {
  const Tensor x = logits.contiguous(), y = targets.contiguous();
  k::bce_with_logits_forward(x.dtype(), x.numel(), x.raw_data(), y.raw_data(), out.raw_data(),
                             stream_of(x));
}

void bce_backward_cuda(const Tensor& grad_out, const Tensor& logits, const Tensor& targets,
                       Tensor& grad) {
  const Tensor g = grad_out.contiguous(), x = logits.contiguous(), y = targets.contiguous();
  k::bce_with_logits_backward(x.dtype(), x.numel(), g.raw_data(), x.raw_data(), y.raw_data(),
                              grad.raw_data(), stream_of(x));
}

// ---- Optimizers -------------------------------------------------------------------------------

void adam_cuda(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
               const AdamParams& p) {
  k::adam_update(param.dtype(), param.numel(), param.raw_data(), grad.raw_data(),
                 exp_avg.raw_data(), exp_avg_sq.raw_data(), p.hyper, p.step, stream_of(param));
}

void sgd_cuda(Tensor& param, const Tensor& grad, Tensor& momentum_buffer, const SGDParams& p) {
  k::sgd_update(param.dtype(), param.numel(), param.raw_data(), grad.raw_data(),
                optional_mut(momentum_buffer), p.lr, p.momentum, p.dampening, p.weight_decay,
                p.nesterov, p.first_step, stream_of(param));
}

void rmsprop_cuda(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                  Tensor& momentum_buffer, const RMSpropParams& p) {
  k::rmsprop_update(param.dtype(), param.numel(), param.raw_data(), grad.raw_data(),
                    square_avg.raw_data(), optional_mut(grad_avg), optional_mut(momentum_buffer),
                    p.lr, p.alpha, p.eps, p.weight_decay, p.momentum, p.centered, stream_of(param));
}

}  // namespace

void register_cuda_compute_kernels() {
  constexpr DeviceType kCuda = DeviceType::kCUDA;
  OpKernels<UnaryOp>::register_kernel(kCuda, unary_cuda);
  OpKernels<BinaryOp>::register_kernel(kCuda, binary_cuda);
  OpKernels<AffineOp>::register_kernel(kCuda, affine_cuda);
  OpKernels<ReluBackwardOp>::register_kernel(kCuda, relu_backward_cuda);
  OpKernels<SigmoidBackwardOp>::register_kernel(kCuda, sigmoid_backward_cuda);
  OpKernels<SumOp>::register_kernel(kCuda, sum_cuda);
  OpKernels<MaxOp>::register_kernel(kCuda, max_cuda);
  OpKernels<MaxBackwardOp>::register_kernel(kCuda, max_backward_cuda);
  OpKernels<MatmulOp>::register_kernel(kCuda, matmul_cuda);
  OpKernels<BceWithLogitsOp>::register_kernel(kCuda, bce_cuda);
  OpKernels<BceWithLogitsBackwardOp>::register_kernel(kCuda, bce_backward_cuda);
  OpKernels<AdamUpdateOp>::register_kernel(kCuda, adam_cuda);
  OpKernels<SGDUpdateOp>::register_kernel(kCuda, sgd_cuda);
  OpKernels<RMSpropUpdateOp>::register_kernel(kCuda, rmsprop_cuda);
}

}  // namespace strand::cuda
