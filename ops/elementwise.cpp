// Elementwise ops: argument checks and dispatch, the CPU adapters with their
// registration (the CUDA ones: ops/cuda/elementwise.cpp), and the differentiable functions with
// their gradient rules.
#include "ops/elementwise.h"

#include "autograd/attribution.h"
#include "core/dtype_dispatch.h"
#include "kernels/cpu/elementwise.h"
#include "ops/reduction.h"
#include "tensor/argument_checks.h"

namespace strand {

// ---- On tensors: checks, output allocation, dispatch ---------------------------------------
namespace ops {

Tensor unary(UnaryOpKind kind, const Tensor& x) {
  check_floating("unary", x);
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  dispatch<UnaryOp>(x.device(), kind, x, out);
  return out;
}
Tensor neg(const Tensor& x) { return unary(UnaryOpKind::kNeg, x); }
Tensor exp(const Tensor& x) { return unary(UnaryOpKind::kExp, x); }
Tensor log(const Tensor& x) { return unary(UnaryOpKind::kLog, x); }
Tensor sigmoid(const Tensor& x) { return unary(UnaryOpKind::kSigmoid, x); }
Tensor relu(const Tensor& x) { return unary(UnaryOpKind::kRelu, x); }
Tensor tanh(const Tensor& x) { return unary(UnaryOpKind::kTanh, x); }
Tensor sqrt(const Tensor& x) { return unary(UnaryOpKind::kSqrt, x); }
Tensor square(const Tensor& x) { return unary(UnaryOpKind::kSquare, x); }
Tensor softplus(const Tensor& x) { return unary(UnaryOpKind::kSoftplus, x); }
Tensor gelu(const Tensor& x) { return unary(UnaryOpKind::kGelu, x); }

namespace {
const char* binary_name(BinaryOpKind kind) {
  switch (kind) {
    case BinaryOpKind::kAdd:
      return "add";
    case BinaryOpKind::kSub:
      return "sub";
    case BinaryOpKind::kMul:
      return "mul";
    case BinaryOpKind::kDiv:
      return "div";
    case BinaryOpKind::kMaximum:
      return "maximum";
    case BinaryOpKind::kGreater:
      return "greater";
  }
  return "binary";
}
}  // namespace

Tensor binary(BinaryOpKind kind, const Tensor& a, const Tensor& b) {
  const char* op = binary_name(kind);
  check_floating(op, a);
  check_floating(op, b);
  check_same_dtype(op, a, b);
  check_same_device(op, a, b);
  Tensor out = Tensor::empty(broadcast_shapes(a.shape(), b.shape(), op), a.dtype(), a.device());
  dispatch<BinaryOp>(a.device(), kind, a, b, out);
  return out;
}
Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOpKind::kAdd, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(BinaryOpKind::kSub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(BinaryOpKind::kMul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(BinaryOpKind::kDiv, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(BinaryOpKind::kMaximum, a, b); }
Tensor greater(const Tensor& a, const Tensor& b) { return binary(BinaryOpKind::kGreater, a, b); }

Tensor affine(const Tensor& x, double scale, double shift) {
  check_floating("affine", x);
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  dispatch<AffineOp>(x.device(), x, scale, shift, out);
  return out;
}

Tensor relu_backward(const Tensor& grad_out, const Tensor& x) {
  check_same_shape("relu_backward", grad_out, x);
  Tensor grad_in = Tensor::empty(x.shape(), x.dtype(), x.device());
  dispatch<ReluBackwardOp>(x.device(), grad_out, x, grad_in);
  return grad_in;
}

Tensor sigmoid_backward(const Tensor& grad_out, const Tensor& y) {
  check_same_shape("sigmoid_backward", grad_out, y);
  Tensor grad_in = Tensor::empty(y.shape(), y.dtype(), y.device());
  dispatch<SigmoidBackwardOp>(y.device(), grad_out, y, grad_in);
  return grad_in;
}

}  // namespace ops

// ---- CPU adapters: Tensors to kernels/cpu/elementwise.h -------------------------------------
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

void rescale_cpu(UnaryOpKind kind, const Tensor& x, const Tensor& x_ref, const Tensor& y,
                 const Tensor& y_ref, Tensor& m) {
  dispatch_floating(x.dtype(), "rescale", [&]<typename T>() {
    kernels::visit_unary(kind, [&](auto k) {
      constexpr UnaryOpKind K = decltype(k)::value;
      const T* xv = x.data<T>();
      const T* xr = x_ref.data<T>();
      const T* yv = y.defined() ? y.data<T>() : nullptr;
      const T* yr = y_ref.data<T>();
      T* out = m.data<T>();
      const int64_t n = x.numel();
      // Two loops rather than a test per element, so that each vectorises.
      if (yv != nullptr) {
#pragma omp parallel for simd schedule(static) if (n >= 65536)
        for (int64_t i = 0; i < n; ++i) {
          out[i] = kernels::rescale_of<K>(xv[i], xr[i], yv[i], yr[i]);
        }
      } else {
#pragma omp parallel for simd schedule(static) if (n >= 65536)
        for (int64_t i = 0; i < n; ++i) {
          out[i] = kernels::rescale_of<K>(xv[i], xr[i], kernels::unary_of<K>(xv[i]), yr[i]);
        }
      }
    });
  });
}

void divide_where_changed_cpu(const Tensor& routed, const Tensor& dx, const Tensor& fallback,
                              Tensor& out) {
  dispatch_floating(dx.dtype(), "divide_where_changed", [&]<typename T>() {
    const T* r = routed.data<T>();
    const T* d = dx.data<T>();
    const T* f = fallback.data<T>();
    T* o = out.data<T>();
    const int64_t n = dx.numel();
#pragma omp parallel for simd schedule(static) if (n >= 65536)
    for (int64_t i = 0; i < n; ++i) o[i] = d[i] != T(0) ? r[i] / d[i] : f[i];
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

STRAND_REGISTER_KERNELS(elementwise_cpu) {
  OpKernels<UnaryOp>::register_kernel(DeviceType::kCPU, unary_cpu);
  OpKernels<BinaryOp>::register_kernel(DeviceType::kCPU, binary_cpu);
  OpKernels<AffineOp>::register_kernel(DeviceType::kCPU, affine_cpu);
  OpKernels<RescaleOp>::register_kernel(DeviceType::kCPU, rescale_cpu);
  OpKernels<DivideWhereChangedOp>::register_kernel(DeviceType::kCPU, divide_where_changed_cpu);
  OpKernels<ReluBackwardOp>::register_kernel(DeviceType::kCPU, relu_backward_cpu);
  OpKernels<SigmoidBackwardOp>::register_kernel(DeviceType::kCPU, sigmoid_backward_cpu);
}

// ---- DeepLIFT multipliers (on tensors, composed from the ops above) ------------------------
namespace ops {

Tensor rescale_multiplier_composed(UnaryOpKind kind, const Tensor& x, const Tensor& x_ref,
                                   const Tensor& y_or_none, const Tensor& y_ref) {
  const Tensor y = y_or_none.defined() ? y_or_none : unary(kind, x);
  const Tensor derivative = [&]() {
    const Tensor one = Tensor::ones(x.shape(), x.dtype(), x.device());
    switch (kind) {
      case UnaryOpKind::kExp:
        return y;
      case UnaryOpKind::kLog:
        return div(one, x);
      case UnaryOpKind::kSigmoid:
        return sigmoid_backward(one, y);
      case UnaryOpKind::kRelu:
        return relu_backward(one, x);
      case UnaryOpKind::kTanh:
        return affine(square(y), -1.0, 1.0);
      case UnaryOpKind::kSqrt:
        return div(one, affine(y, 2.0, 0.0));
      case UnaryOpKind::kSquare:
        return affine(x, 2.0, 0.0);
      case UnaryOpKind::kSoftplus:
        return sigmoid(x);
      case UnaryOpKind::kGelu:
        return unary(UnaryOpKind::kGeluDerivative, x);
      default:
        return affine(one, 0.0, 0.0);
    }
  }();
  const Tensor dx = sub(x, x_ref);
  // close: 1 where |dx| < 1e-6 (dx^2 < 1e-12), else 0.
  const Tensor threshold = Tensor::full({}, 1e-12, dx.dtype(), dx.device());
  const Tensor close = greater(threshold, square(dx));
  // dx + close never divides by zero; the secant is replaced where close is 1.
  const Tensor secant = div(sub(y, y_ref), add(dx, close));
  return add(secant, mul(close, sub(derivative, secant)));
}

Tensor rescale_multiplier(UnaryOpKind kind, const Tensor& x, const Tensor& x_ref,
                          const Tensor& y_or_none, const Tensor& y_ref) {
  STRAND_CHECK(x.shape() == x_ref.shape() && x.shape() == y_ref.shape() &&
                   (!y_or_none.defined() || y_or_none.shape() == x.shape()),
               "rescale_multiplier: x {}, x_ref {}, y and y_ref {} differ in shape", x.describe(),
               x_ref.describe(), y_ref.describe());
  if (x.device().type == DeviceType::kCPU) {
    Tensor m = Tensor::empty(x.shape(), x.dtype(), x.device());
    dispatch<RescaleOp>(x.device(), kind, x.contiguous(), x_ref.contiguous(),
                        y_or_none.defined() ? y_or_none.contiguous() : Tensor(), y_ref.contiguous(),
                        m);
    return m;
  }
  return rescale_multiplier_composed(kind, x, x_ref, y_or_none, y_ref);
}

Tensor divide_where_changed_composed(const Tensor& routed, const Tensor& dx,
                                     const Tensor& fallback) {
  const Tensor zero = Tensor::zeros({}, dx.dtype(), dx.device());
  const Tensor changed = greater(square(dx), zero);  // 1 where dx != 0
  const Tensor unchanged = affine(changed, -1.0, 1.0);
  return add(mul(changed, div(routed, add(dx, unchanged))), mul(unchanged, fallback));
}

Tensor divide_where_changed(const Tensor& routed, const Tensor& dx, const Tensor& fallback) {
  STRAND_CHECK(routed.shape() == dx.shape() && dx.shape() == fallback.shape(),
               "divide_where_changed: routed {}, dx {} and fallback {} differ in shape",
               routed.describe(), dx.describe(), fallback.describe());
  if (dx.device().type == DeviceType::kCPU) {
    Tensor out = Tensor::empty(dx.shape(), dx.dtype(), dx.device());
    dispatch<DivideWhereChangedOp>(dx.device(), routed.contiguous(), dx.contiguous(),
                                   fallback.contiguous(), out);
    return out;
  }
  return divide_where_changed_composed(routed, dx, fallback);
}

}  // namespace ops

// ---- Differentiable: forward and gradient rule side by side ---------------------------------

namespace {

// An elementwise function's result y = f(x) with its gradient rule, or in an attribution pass
// (autograd/attribution.h) its rescale rule: the inputs' pass saves x (and y, but for relu,
// whose y is recomputed exactly), the references' pass multiplies the output's multiplier by
// the secant between the input's values and the reference's (x, y here).
Var elementwise_result(const char* name, UnaryOpKind kind, const Var& x, Tensor y,
                       BackwardFn gradient) {
  if (AttributionPass* pass = attribution_pass()) {
    if (pass->phase() == AttributionPhase::kInputs) {
      pass->save(name, kind == UnaryOpKind::kRelu ? std::vector<Tensor>{x.value()}
                                                  : std::vector<Tensor>{x.value(), y});
    } else {
      const std::vector<Tensor> input = pass->take(name);
      STRAND_CHECK(input[0].shape() == x.shape(),
                   "DeepLIFT: '{}' saw {} on the inputs and {} on the references", name,
                   input[0].describe(), x.value().describe());
      if (!x.requires_grad()) return Var(std::move(y));
      const Tensor multiplier = ops::rescale_multiplier(kind, input[0], x.value(),
                                                        input.size() > 1 ? input[1] : Tensor(), y);
      return make_result(std::move(y), name, {x}, [multiplier](const Tensor& g) {
        return std::vector<Tensor>{ops::mul(g, multiplier)};
      });
    }
  }
  return make_result(std::move(y), name, {x}, std::move(gradient));
}

// A product or quotient is linear in a factor that does not depend on the input; with both
// factors input-dependent it has no DeepLIFT rule.
void refuse_bilinear(const char* name, const Var& a, const Var& b) {
  const AttributionPass* pass = attribution_pass();
  STRAND_CHECK(pass == nullptr || pass->phase() != AttributionPhase::kReferences ||
                   !(a.requires_grad() && b.requires_grad()),
               "DeepLIFT has no rule for '{}' of two values that both depend on the input", name);
}

}  // namespace

Var add(const Var& a, const Var& b) {
  const Shape a_shape = a.shape(), b_shape = b.shape();
  return make_result(ops::add(a.value(), b.value()), "add", {a, b}, [=](const Tensor& g) {
    return std::vector<Tensor>{ops::sum_to_shape(g, a_shape), ops::sum_to_shape(g, b_shape)};
  });
}

Var sub(const Var& a, const Var& b) {
  const Shape a_shape = a.shape(), b_shape = b.shape();
  return make_result(ops::sub(a.value(), b.value()), "sub", {a, b}, [=](const Tensor& g) {
    return std::vector<Tensor>{ops::sum_to_shape(g, a_shape),
                               ops::sum_to_shape(ops::neg(g), b_shape)};
  });
}

Var mul(const Var& a, const Var& b) {
  refuse_bilinear("mul", a, b);
  const Tensor av = a.value(), bv = b.value();
  const bool a_grad = a.requires_grad(), b_grad = b.requires_grad();
  return make_result(ops::mul(av, bv), "mul", {a, b}, [=](const Tensor& g) {
    return std::vector<Tensor>{a_grad ? ops::sum_to_shape(ops::mul(g, bv), av.shape()) : Tensor(),
                               b_grad ? ops::sum_to_shape(ops::mul(g, av), bv.shape()) : Tensor()};
  });
}

Var div(const Var& a, const Var& b) {
  refuse_bilinear("div", a, b);
  const Tensor av = a.value(), bv = b.value();
  const bool a_grad = a.requires_grad(), b_grad = b.requires_grad();
  return make_result(ops::div(av, bv), "div", {a, b}, [=](const Tensor& g) {
    Tensor grad_a, grad_b;
    if (a_grad) grad_a = ops::sum_to_shape(ops::div(g, bv), av.shape());
    if (b_grad) {
      // d(a/b)/db = -a / b^2
      grad_b = ops::sum_to_shape(ops::neg(ops::div(ops::mul(g, av), ops::square(bv))), bv.shape());
    }
    return std::vector<Tensor>{grad_a, grad_b};
  });
}

Var affine(const Var& x, double scale, double shift) {
  return make_result(ops::affine(x.value(), scale, shift), "affine", {x}, [=](const Tensor& g) {
    return std::vector<Tensor>{ops::affine(g, scale, 0.0)};
  });
}

Var neg(const Var& x) { return affine(x, -1.0, 0.0); }

Var exp(const Var& x) {
  Tensor y = ops::exp(x.value());
  return elementwise_result("exp", UnaryOpKind::kExp, x, y,
                            [y](const Tensor& g) { return std::vector<Tensor>{ops::mul(g, y)}; });
}

Var log(const Var& x) {
  const Tensor xv = x.value();
  return elementwise_result("log", UnaryOpKind::kLog, x, ops::log(xv),
                            [xv](const Tensor& g) { return std::vector<Tensor>{ops::div(g, xv)}; });
}

Var sigmoid(const Var& x) {
  Tensor y = ops::sigmoid(x.value());
  return elementwise_result("sigmoid", UnaryOpKind::kSigmoid, x, y, [y](const Tensor& g) {
    return std::vector<Tensor>{ops::sigmoid_backward(g, y)};
  });
}

Var relu(const Var& x) {
  const Tensor xv = x.value();
  return elementwise_result("relu", UnaryOpKind::kRelu, x, ops::relu(xv), [xv](const Tensor& g) {
    return std::vector<Tensor>{ops::relu_backward(g, xv)};
  });
}

Var tanh(const Var& x) {
  Tensor y = ops::tanh(x.value());
  return elementwise_result("tanh", UnaryOpKind::kTanh, x, y, [y](const Tensor& g) {
    // 1 - y^2
    return std::vector<Tensor>{ops::mul(g, ops::affine(ops::square(y), -1.0, 1.0))};
  });
}

Var sqrt(const Var& x) {
  Tensor y = ops::sqrt(x.value());
  return elementwise_result("sqrt", UnaryOpKind::kSqrt, x, y, [y](const Tensor& g) {
    return std::vector<Tensor>{ops::div(g, ops::affine(y, 2.0, 0.0))};
  });
}

Var square(const Var& x) {
  const Tensor xv = x.value();
  return elementwise_result("square", UnaryOpKind::kSquare, x, ops::square(xv),
                            [xv](const Tensor& g) {
                              return std::vector<Tensor>{ops::mul(g, ops::affine(xv, 2.0, 0.0))};
                            });
}

Var softplus(const Var& x) {
  const Tensor xv = x.value();
  return elementwise_result(
      "softplus", UnaryOpKind::kSoftplus, x, ops::softplus(xv),
      [xv](const Tensor& g) { return std::vector<Tensor>{ops::mul(g, ops::sigmoid(xv))}; });
}

Var gelu(const Var& x) {
  const Tensor xv = x.value();
  return elementwise_result("gelu", UnaryOpKind::kGelu, x, ops::gelu(xv), [xv](const Tensor& g) {
    return std::vector<Tensor>{ops::mul(g, ops::unary(UnaryOpKind::kGeluDerivative, xv))};
  });
}

}  // namespace strand
