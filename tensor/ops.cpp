// Argument checks and dispatch for the tensor ops.
#include "tensor/ops.h"

#include <algorithm>

#include "core/dtype_dispatch.h"
#include "kernels/cpu/conv1d_onehot.h"
#include "tensor/conv_geometry.h"

namespace strand::ops {

void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  STRAND_CHECK(a.device() == b.device(), "{}: tensors are on different devices: {} and {}", op,
               a.describe(), b.describe());
}

void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  STRAND_CHECK(a.dtype() == b.dtype(), "{}: dtype mismatch: {} and {}", op, a.describe(),
               b.describe());
}

void check_rank(const char* op, const char* name, const Tensor& t, int64_t rank) {
  STRAND_CHECK(t.defined(), "{}: {} is undefined", op, name);
  STRAND_CHECK(t.dim() == rank, "{}: {} must have {} dimensions, got {}", op, name, rank,
               t.describe());
}

namespace {
void check_defined(const char* op, const Tensor& t) {
  STRAND_CHECK(t.defined(), "{}: undefined tensor argument", op);
}
void check_floating(const char* op, const Tensor& t) {
  check_defined(op, t);
  STRAND_CHECK(is_floating(t.dtype()), "{}: expected a float32 or float64 tensor, got {}", op,
               t.describe());
}
void check_same_shape(const char* op, const Tensor& a, const Tensor& b) {
  STRAND_CHECK(a.shape() == b.shape(), "{}: shape mismatch: {} and {}", op, a.describe(),
               b.describe());
}
}  // namespace

// ---- Elementwise ----------------------------------------------------------------------------

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

void add_(Tensor& accumulator, const Tensor& addend) {
  check_same_shape("add_", accumulator, addend);
  check_same_dtype("add_", accumulator, addend);
  check_same_device("add_", accumulator, addend);
  dispatch<BinaryOp>(accumulator.device(), BinaryOpKind::kAdd, accumulator, addend, accumulator);
}

// ---- Reductions -----------------------------------------------------------------------------

namespace {
std::vector<int64_t> normalize_dims(std::vector<int64_t> dims, int64_t rank, const char* op) {
  if (dims.empty()) {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  }
  for (int64_t& d : dims) d = normalize_dim(d, rank, op);
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

Shape reduced_shape(const Shape& shape, const std::vector<int64_t>& dims, bool keepdim) {
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) {
      out.push_back(shape[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}
}  // namespace

Tensor sum(const Tensor& x, std::vector<int64_t> dims, bool keepdim) {
  check_floating("sum", x);
  dims = normalize_dims(std::move(dims), x.dim(), "sum");
  Tensor out = Tensor::empty(reduced_shape(x.shape(), dims, true), x.dtype(), x.device());
  dispatch<SumOp>(x.device(), x, dims, out);
  return keepdim ? out : out.reshape(reduced_shape(x.shape(), dims, false));
}

Tensor mean(const Tensor& x, std::vector<int64_t> dims, bool keepdim) {
  dims = normalize_dims(std::move(dims), x.dim(), "mean");
  int64_t count = 1;
  for (int64_t d : dims) count *= x.shape()[d];
  return affine(sum(x, dims, keepdim), 1.0 / static_cast<double>(count), 0.0);
}

std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  check_floating("max", x);
  dim = normalize_dim(dim, x.dim(), "max");
  STRAND_CHECK(x.shape()[dim] > 0, "max: dimension {} of {} is empty", dim, x.describe());
  Shape kept = x.shape();
  kept[dim] = 1;
  Tensor values = Tensor::empty(kept, x.dtype(), x.device());
  Tensor indices = Tensor::empty(kept, DType::kInt64, x.device());
  dispatch<MaxOp>(x.device(), x, dim, values, indices);
  if (!keepdim) {
    values = values.squeeze(dim);
    indices = indices.squeeze(dim);
  }
  return {values, indices};
}

Tensor max_backward(const Tensor& grad_out, const Tensor& indices, int64_t dim,
                    const Shape& input_shape) {
  dim = normalize_dim(dim, static_cast<int64_t>(input_shape.size()), "max_backward");
  Shape kept = input_shape;
  kept[dim] = 1;
  Tensor grad_in = Tensor::zeros(input_shape, grad_out.dtype(), grad_out.device());
  dispatch<MaxBackwardOp>(grad_out.device(), grad_out.reshape(kept), indices.reshape(kept), dim,
                          grad_in);
  return grad_in;
}

Tensor sum_to_shape(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && grad.shape()[d] != 1)) dims.push_back(d);
  }
  return sum(grad, dims, true).reshape(shape);
}

// ---- Linear algebra and shape ------------------------------------------------------------------

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_floating("matmul", a);
  check_floating("matmul", b);
  check_rank("matmul", "left operand", a, 2);
  check_rank("matmul", "right operand", b, 2);
  check_same_dtype("matmul", a, b);
  check_same_device("matmul", a, b);
  STRAND_CHECK(a.size(1) == b.size(0), "matmul: inner dimensions differ: {} @ {}", a.describe(),
               b.describe());
  Tensor out = Tensor::empty({a.size(0), b.size(1)}, a.dtype(), a.device());
  dispatch<MatmulOp>(a.device(), a, b, out);
  return out;
}

Tensor concat(const std::vector<Tensor>& tensors, int64_t dim) {
  STRAND_CHECK(!tensors.empty(), "concat: no tensors");
  const Tensor& first = tensors.front();
  dim = normalize_dim(dim, first.dim(), "concat");
  Shape shape = first.shape();
  shape[dim] = 0;
  for (const Tensor& t : tensors) {
    check_same_dtype("concat", first, t);
    check_same_device("concat", first, t);
    STRAND_CHECK(t.dim() == first.dim(), "concat: ranks differ: {} and {}", first.describe(),
                 t.describe());
    for (int64_t d = 0; d < t.dim(); ++d) {
      STRAND_CHECK(d == dim || t.shape()[d] == first.shape()[d],
                   "concat along {}: {} and {} differ in dimension {}", dim, first.describe(),
                   t.describe(), d);
    }
    shape[dim] += t.shape()[dim];
  }
  Tensor out = Tensor::empty(shape, first.dtype(), first.device());
  int64_t start = 0;
  for (const Tensor& t : tensors) {
    Tensor part = out.slice(dim, start, start + t.shape()[dim]);
    part.copy_(t);
    start += t.shape()[dim];
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  dim = normalize_dim(dim, x.dim(), "chunk");
  STRAND_CHECK(chunks > 0 && x.shape()[dim] % chunks == 0,
               "chunk: dimension {} of {} (extent {}) does not split into {} equal parts", dim,
               x.describe(), x.shape()[dim], chunks);
  const int64_t step = x.shape()[dim] / chunks;
  std::vector<Tensor> parts;
  for (int64_t i = 0; i < chunks; ++i) parts.push_back(x.slice(dim, i * step, (i + 1) * step));
  return parts;
}

// ---- Convolution ------------------------------------------------------------------------------

namespace {
// Checks x (B, C, L) or codes (B, L), w (O, C, K), bias (O); returns the output length.
int64_t check_conv_args(const char* op, const Tensor& x, const Tensor& w, const Tensor& bias,
                        const Conv1DParams& p) {
  check_defined(op, x);
  check_floating(op, w);
  check_rank(op, "weight (O, C, K)", w, 3);
  check_same_device(op, x, w);
  STRAND_CHECK(p.stride >= 1 && p.dilation >= 1 && p.pad_left >= 0 && p.pad_right >= 0,
               "{}: stride and dilation must be >= 1 and padding >= 0", op);
  if (x.dtype() == DType::kUInt8) {
    check_rank(op, "base codes (B, L)", x, 2);
    STRAND_CHECK(w.size(1) == 4,
                 "{}: base codes are one-hot with 4 channels but the weight is {} (expected "
                 "(O, 4, K))",
                 op, w.describe());
  } else {
    check_floating(op, x);
    check_rank(op, "input (B, C, L)", x, 3);
    check_same_dtype(op, x, w);
    STRAND_CHECK(x.size(1) == w.size(1),
                 "{}: input {} has {} channels but the weight {} expects {}", op, x.describe(),
                 x.size(1), w.describe(), w.size(1));
  }
  if (bias.defined()) {
    check_same_dtype(op, bias, w);
    check_same_device(op, bias, w);
    STRAND_CHECK(bias.dim() == 1 && bias.size(0) == w.size(0),
                 "{}: bias {} does not match {} filters", op, bias.describe(), w.size(0));
  }
  const int64_t out_length = conv1d_out_length(x.shape().back(), w.size(2), p);
  STRAND_CHECK(out_length > 0,
               "{}: input length {} is shorter than the kernel's receptive field ({} taps, "
               "dilation {}, padding {}+{})",
               op, x.shape().back(), w.size(2), p.dilation, p.pad_left, p.pad_right);
  return out_length;
}
}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv1DParams& params) {
  const int64_t out_length = check_conv_args("conv1d", x, w, bias, params);
  Tensor out = Tensor::empty({x.size(0), w.size(0), out_length}, w.dtype(), w.device());
  if (x.dtype() == DType::kUInt8) {
    dispatch<Conv1DOneHotOp>(x.device(), x, w, bias, params, out);
  } else {
    dispatch<Conv1DOp>(x.device(), x, w, bias, params, out);
  }
  return out;
}

Tensor conv1d_backward_input(const Tensor& grad_out, const Tensor& w, const Shape& input_shape,
                             const Conv1DParams& params) {
  Tensor grad_x = Tensor::empty(input_shape, w.dtype(), w.device());
  dispatch<Conv1DBackwardInputOp>(w.device(), grad_out, w, params, grad_x);
  return grad_x;
}

Tensor conv1d_backward_weight(const Tensor& grad_out, const Tensor& x, const Shape& weight_shape,
                              const Conv1DParams& params) {
  Tensor grad_w = Tensor::empty(weight_shape, grad_out.dtype(), grad_out.device());
  if (x.dtype() == DType::kUInt8) {
    dispatch<Conv1DOneHotBackwardWeightOp>(x.device(), grad_out, x, params, grad_w);
  } else {
    dispatch<Conv1DBackwardWeightOp>(x.device(), grad_out, x, params, grad_w);
  }
  return grad_w;
}

std::pair<Tensor, Tensor> conv1d_relu_max(const Tensor& x, const Tensor& w, const Tensor& bias,
                                          const Conv1DParams& params) {
  check_conv_args("conv1d_relu_max", x, w, bias, params);
  Tensor out = Tensor::empty({x.size(0), w.size(0)}, w.dtype(), w.device());
  Tensor argmax = Tensor::empty({x.size(0), w.size(0)}, DType::kInt64, w.device());
  dispatch<Conv1DReluMaxOp>(x.device(), x, w, bias, params, out, argmax);
  return {out, argmax};
}

Tensor one_hot(const Tensor& codes, DType dtype) {
  check_rank("one_hot", "base codes (B, L)", codes, 2);
  STRAND_CHECK(codes.dtype() == DType::kUInt8, "one_hot: expected uint8 base codes, got {}",
               codes.describe());
  const Tensor host = codes.to(Device::cpu()).contiguous();
  Tensor out = Tensor::empty({codes.size(0), 4, codes.size(1)}, dtype);
  dispatch_floating(dtype, "one_hot", [&]<typename T>() {
    kernels::cpu::one_hot_from_codes<T>(codes.size(0), codes.size(1), host.data<uint8_t>(),
                                        out.data<T>());
  });
  return out.to(codes.device());
}

// ---- Losses
// ---------------------------------------------------------------------------------------

Tensor bce_with_logits(const Tensor& logits, const Tensor& targets) {
  check_floating("bce_with_logits", logits);
  check_floating("bce_with_logits", targets);
  check_same_shape("bce_with_logits", logits, targets);
  check_same_dtype("bce_with_logits", logits, targets);
  check_same_device("bce_with_logits", logits, targets);
  Tensor out = Tensor::empty(logits.shape(), logits.dtype(), logits.device());
  dispatch<BceWithLogitsOp>(logits.device(), logits, targets, out);
  return out;
}

Tensor bce_with_logits_backward(const Tensor& grad_out, const Tensor& logits,
                                const Tensor& targets) {
  Tensor grad = Tensor::empty(logits.shape(), logits.dtype(), logits.device());
  dispatch<BceWithLogitsBackwardOp>(logits.device(), grad_out, logits, targets, grad);
  return grad;
}

}  // namespace strand::ops
