// Elementwise ops: the CUDA adapters and their registration.
// Part of the CUDA backend module (libstrand_cuda.so), registered when it is loaded; the
// declarations, checks, CPU adapters and gradient rules are in ops/elementwise.cpp.
#include "ops/elementwise.h"

#include "kernels/cuda/elementwise.h"
#include "tensor/cuda/adapter_util.h"

namespace strand {

// ---- CUDA adapters: Tensors to kernels/cuda/elementwise.cu ----------------------------------
namespace {

namespace k = kernels::cuda;
using cuda::space_of;
using cuda::stream_of;
using cuda::strides_of;

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

}  // namespace

STRAND_REGISTER_KERNELS(elementwise_cuda) {
  constexpr DeviceType kCuda = DeviceType::kCUDA;
  OpKernels<UnaryOp>::register_kernel(kCuda, unary_cuda);
  OpKernels<BinaryOp>::register_kernel(kCuda, binary_cuda);
  OpKernels<AffineOp>::register_kernel(kCuda, affine_cuda);
  OpKernels<ReluBackwardOp>::register_kernel(kCuda, relu_backward_cuda);
  OpKernels<SigmoidBackwardOp>::register_kernel(kCuda, sigmoid_backward_cuda);
}

}  // namespace strand
