// Differentiable elementwise ops: forward and gradient rule side by side.
#include "autograd/functions.h"
#include "tensor/ops.h"

namespace strand {

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
  const Tensor av = a.value(), bv = b.value();
  const bool a_grad = a.requires_grad(), b_grad = b.requires_grad();
  return make_result(ops::mul(av, bv), "mul", {a, b}, [=](const Tensor& g) {
    return std::vector<Tensor>{a_grad ? ops::sum_to_shape(ops::mul(g, bv), av.shape()) : Tensor(),
                               b_grad ? ops::sum_to_shape(ops::mul(g, av), bv.shape()) : Tensor()};
  });
}

Var div(const Var& a, const Var& b) {
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
  return make_result(y, "exp", {x},
                     [y](const Tensor& g) { return std::vector<Tensor>{ops::mul(g, y)}; });
}

Var log(const Var& x) {
  const Tensor xv = x.value();
  return make_result(ops::log(xv), "log", {x},
                     [xv](const Tensor& g) { return std::vector<Tensor>{ops::div(g, xv)}; });
}

Var sigmoid(const Var& x) {
  Tensor y = ops::sigmoid(x.value());
  return make_result(y, "sigmoid", {x}, [y](const Tensor& g) {
    return std::vector<Tensor>{ops::sigmoid_backward(g, y)};
  });
}

Var relu(const Var& x) {
  const Tensor xv = x.value();
  return make_result(ops::relu(xv), "relu", {x}, [xv](const Tensor& g) {
    return std::vector<Tensor>{ops::relu_backward(g, xv)};
  });
}

Var tanh(const Var& x) {
  Tensor y = ops::tanh(x.value());
  return make_result(y, "tanh", {x}, [y](const Tensor& g) {
    // 1 - y^2
    return std::vector<Tensor>{ops::mul(g, ops::affine(ops::square(y), -1.0, 1.0))};
  });
}

Var sqrt(const Var& x) {
  Tensor y = ops::sqrt(x.value());
  return make_result(y, "sqrt", {x}, [y](const Tensor& g) {
    return std::vector<Tensor>{ops::div(g, ops::affine(y, 2.0, 0.0))};
  });
}

Var square(const Var& x) {
  const Tensor xv = x.value();
  return make_result(ops::square(xv), "square", {x}, [xv](const Tensor& g) {
    return std::vector<Tensor>{ops::mul(g, ops::affine(xv, 2.0, 0.0))};
  });
}

}  // namespace strand
