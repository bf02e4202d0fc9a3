// CPU kernels for unary maps, broadcast binary maps, affine maps and the pointwise backward
// rules.
#include <cmath>

#include "core/dtype_dispatch.h"
#include "kernels/cpu/elementwise.h"
#include "tensor/cpu/cpu_kernel_registration.h"
#include "tensor/op_declarations.h"

namespace strand {
namespace {

using kernels::cpu::map_binary;
using kernels::cpu::map_unary;

template <typename T, typename F>
void unary_into(const Tensor& x, Tensor& out, F f) {
  map_unary(static_cast<int>(x.dim()), x.shape().data(), x.data<T>(), x.strides().data(),
            out.data<T>(), out.strides().data(), f);
}

void unary_cpu(UnaryOpKind kind, const Tensor& x, Tensor& out) {
  dispatch_floating(x.dtype(), "unary", [&]<typename T>() {
    kernels::visit_unary(kind, [&](auto k) {
      unary_into<T>(x, out, [](T v) { return kernels::unary_of<decltype(k)::value>(v); });
    });
  });
}

void binary_cpu(BinaryOpKind kind, const Tensor& a, const Tensor& b, Tensor& out) {
  const Tensor a_view = a.expand(out.shape());
  const Tensor b_view = b.expand(out.shape());
  dispatch_floating(out.dtype(), "binary", [&]<typename T>() {
    auto run = [&](auto f) {
      map_binary(static_cast<int>(out.dim()), out.shape().data(), a_view.data<T>(),
                 a_view.strides().data(), b_view.data<T>(), b_view.strides().data(), out.data<T>(),
                 out.strides().data(), f);
    };
    switch (kind) {
      case BinaryOpKind::kAdd:
        return run([](T l, T r) { return l + r; });
      case BinaryOpKind::kSub:
        return run([](T l, T r) { return l - r; });
      case BinaryOpKind::kMul:
        return run([](T l, T r) { return l * r; });
      case BinaryOpKind::kDiv:
        return run([](T l, T r) { return l / r; });
      case BinaryOpKind::kMaximum:
        return run([](T l, T r) { return (l != l || r != r) ? l + r : (l > r ? l : r); });
      case BinaryOpKind::kGreater:
        return run([](T l, T r) { return l > r ? T(1) : T(0); });
    }
  });
}

void affine_cpu(const Tensor& x, double scale, double shift, Tensor& out) {
  dispatch_floating(x.dtype(), "affine", [&]<typename T>() {
    const T s = static_cast<T>(scale);
    const T c = static_cast<T>(shift);
    unary_into<T>(x, out, [s, c](T v) { return v * s + c; });
  });
}

void relu_backward_cpu(const Tensor& grad_out, const Tensor& x, Tensor& grad_in) {
  dispatch_floating(x.dtype(), "relu_backward", [&]<typename T>() {
    map_binary(static_cast<int>(x.dim()), x.shape().data(), grad_out.data<T>(),
               grad_out.strides().data(), x.data<T>(), x.strides().data(), grad_in.data<T>(),
               grad_in.strides().data(), [](T g, T v) { return v > T(0) ? g : T(0); });
  });
}

void sigmoid_backward_cpu(const Tensor& grad_out, const Tensor& y, Tensor& grad_in) {
  dispatch_floating(y.dtype(), "sigmoid_backward", [&]<typename T>() {
    map_binary(static_cast<int>(y.dim()), y.shape().data(), grad_out.data<T>(),
               grad_out.strides().data(), y.data<T>(), y.strides().data(), grad_in.data<T>(),
               grad_in.strides().data(), [](T g, T s) { return g * s * (T(1) - s); });
  });
}

}  // namespace

void register_cpu_elementwise_kernels() {
  OpKernels<UnaryOp>::register_kernel(DeviceType::kCPU, unary_cpu);
  OpKernels<BinaryOp>::register_kernel(DeviceType::kCPU, binary_cpu);
  OpKernels<AffineOp>::register_kernel(DeviceType::kCPU, affine_cpu);
  OpKernels<ReluBackwardOp>::register_kernel(DeviceType::kCPU, relu_backward_cpu);
  OpKernels<SigmoidBackwardOp>::register_kernel(DeviceType::kCPU, sigmoid_backward_cpu);
}

}  // namespace strand
