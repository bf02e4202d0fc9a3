// GPU vs CPU oracle for the elementwise, reduction, matmul, loss and optimizer ops.
// Tolerances (max |gpu - cpu|): float64 1e-10, float32 2e-5 for O(1) values (tolerance_for);
// reductions and matmuls with long sums scale it by the sum length where stated.
#include <doctest/doctest.h>

#include "cuda_test_support.h"
#include "ops/loss.h"
#include "ops/matmul.h"
#include "ops/optimizer_updates.h"
#include "ops/reduction.h"

using namespace strand;
using namespace strand::testing;

namespace {
const DType kFloatTypes[] = {DType::kFloat32, DType::kFloat64};
}

TEST_CASE("cuda: unary ops match the CPU") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    const Tensor x = random_tensor({4, 33, 5}, 11, dtype);
    const Tensor positive = ops::affine(x, 0.5, 1.0);  // in (0.5, 1.5) for log/sqrt
    for (UnaryOpKind kind :
         {UnaryOpKind::kNeg, UnaryOpKind::kExp, UnaryOpKind::kLog, UnaryOpKind::kSigmoid,
          UnaryOpKind::kRelu, UnaryOpKind::kTanh, UnaryOpKind::kSqrt, UnaryOpKind::kSquare}) {
      INFO("kind " << static_cast<int>(kind) << " dtype " << dtype_name(dtype));
      const Tensor input = kind == UnaryOpKind::kLog || kind == UnaryOpKind::kSqrt ? positive : x;
      check_close(ops::unary(kind, gpu(input)), ops::unary(kind, input), tolerance_for(dtype),
                  "unary");
      // Strided input (a transposed view).
      const Tensor t = input.transpose(0, 2);
      check_close(ops::unary(kind, gpu(input).transpose(0, 2)), ops::unary(kind, t),
                  tolerance_for(dtype), "unary strided");
    }
    check_close(ops::affine(gpu(x), -2.5, 0.25), ops::affine(x, -2.5, 0.25), tolerance_for(dtype),
                "affine");
  }
}

// DeepLIFT's multipliers: composed from element-wise ops on the GPU, one pass on the CPU.
TEST_CASE("cuda: rescale and divide_where_changed multipliers match the CPU") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    const Tensor x = random_tensor({4, 33}, 21, dtype);
    const Tensor x_ref = ops::mul(x, random_tensor({4, 33}, 22, dtype));
    for (UnaryOpKind kind : {UnaryOpKind::kRelu, UnaryOpKind::kSigmoid, UnaryOpKind::kTanh,
                             UnaryOpKind::kSoftplus, UnaryOpKind::kExp, UnaryOpKind::kGelu}) {
      INFO("kind " << static_cast<int>(kind) << " dtype " << dtype_name(dtype));
      const Tensor y = ops::unary(kind, x), y_ref = ops::unary(kind, x_ref);
      check_close(ops::rescale_multiplier(kind, gpu(x), gpu(x_ref), gpu(y), gpu(y_ref)),
                  ops::rescale_multiplier(kind, x, x_ref, y, y_ref), tolerance_for(dtype),
                  "rescale_multiplier");
    }
    const Tensor dx = ops::sub(x, x_ref);
    const Tensor routed = random_tensor({4, 33}, 23, dtype);
    const Tensor fallback = random_tensor({4, 33}, 24, dtype);
    check_close(ops::divide_where_changed(gpu(routed), gpu(dx), gpu(fallback)),
                ops::divide_where_changed(routed, dx, fallback), tolerance_for(dtype),
                "divide_where_changed");
  }
}

TEST_CASE("cuda: binary ops broadcast like the CPU") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    const Tensor a = random_tensor({6, 1, 9}, 21, dtype);
    const Tensor b = ops::affine(random_tensor({5, 9}, 22, dtype), 0.5, 1.5);  // no zeros
    const Tensor scalar = Tensor::full({}, 1.75, dtype);
    for (BinaryOpKind kind : {BinaryOpKind::kAdd, BinaryOpKind::kSub, BinaryOpKind::kMul,
                              BinaryOpKind::kDiv, BinaryOpKind::kMaximum, BinaryOpKind::kGreater}) {
      INFO("kind " << static_cast<int>(kind) << " dtype " << dtype_name(dtype));
      check_close(ops::binary(kind, gpu(a), gpu(b)), ops::binary(kind, a, b), tolerance_for(dtype),
                  "binary broadcast");
      check_close(ops::binary(kind, gpu(b), gpu(scalar)), ops::binary(kind, b, scalar),
                  tolerance_for(dtype), "binary scalar");
      check_close(ops::binary(kind, gpu(b).transpose(0, 1), gpu(b).transpose(0, 1)),
                  ops::binary(kind, b.transpose(0, 1), b.transpose(0, 1)), tolerance_for(dtype),
                  "binary strided");
    }
    // In-place accumulation (the gradient accumulator path).
    Tensor acc_gpu = gpu(b);
    Tensor acc_cpu = b.clone();
    acc_gpu.add_(gpu(a.reshape({6, 9}).slice(0, 0, 5)));
    acc_cpu.add_(a.reshape({6, 9}).slice(0, 0, 5));
    check_close(acc_gpu, acc_cpu, tolerance_for(dtype), "add_");
  }
}

TEST_CASE("cuda: relu and sigmoid backward match the CPU") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    const Tensor g = random_tensor({7, 13}, 31, dtype);
    const Tensor x = random_tensor({7, 13}, 32, dtype);
    const Tensor y = ops::sigmoid(x);
    check_close(ops::relu_backward(gpu(g), gpu(x)), ops::relu_backward(g, x), tolerance_for(dtype),
                "relu_backward");
    check_close(ops::sigmoid_backward(gpu(g), gpu(y)), ops::sigmoid_backward(g, y),
                tolerance_for(dtype), "sigmoid_backward");
  }
}

TEST_CASE("cuda: sum over any set of dimensions matches the CPU") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    const Tensor x = random_tensor({8, 70, 3, 5}, 41, dtype);
    // Long sums: 1e-4 for float32 (double accumulation on both sides, one final rounding).
    const double tol = dtype == DType::kFloat64 ? 1e-9 : 1e-4;
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{}, {0}, {1}, {3}, {0, 2}, {1, 3}, {0, 1, 2, 3}}) {
      INFO("dims " << dims.size());
      check_close(ops::sum(gpu(x), dims, true), ops::sum(x, dims, true), tol, "sum");
    }
    check_close(ops::sum(gpu(x).transpose(1, 3), {1}), ops::sum(x.transpose(1, 3), {1}), tol,
                "sum strided");
    check_close(ops::mean(gpu(x), {0, 1}), ops::mean(x, {0, 1}), tol, "mean");
  }
}

TEST_CASE("cuda: max with first argmax and its backward match the CPU") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    // Values on a coarse grid so that ties happen: the first index must win on both.
    const Tensor x = ops::affine(random_tensor({6, 40, 3}, 51, dtype), 2.0, 0.0);
    const Tensor coarse = x.to(DType::kInt32).to(dtype);
    for (int64_t dim = 0; dim < 3; ++dim) {
      INFO("dim " << dim << " dtype " << dtype_name(dtype));
      const auto [values_gpu, indices_gpu] = ops::max(gpu(coarse), dim, true);
      const auto [values_cpu, indices_cpu] = ops::max(coarse, dim, true);
      check_close(values_gpu, values_cpu, 0.0, "max values");
      CHECK(indices_gpu.to_vector<int64_t>() == indices_cpu.to_vector<int64_t>());
      const Tensor g = random_tensor(values_cpu.shape(), 52, dtype);
      check_close(ops::max_backward(gpu(g), indices_gpu, dim, coarse.shape()),
                  ops::max_backward(g, indices_cpu, dim, coarse.shape()), 0.0, "max_backward");
    }
  }
}

TEST_CASE("cuda: matmul (cuBLAS) matches the CPU for transposed and strided views") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    const Tensor a = random_tensor({37, 19}, 61, dtype);
    const Tensor b = random_tensor({19, 23}, 62, dtype);
    // K = 19 terms of O(1): float32 within 1e-5 * K.
    const double tol = dtype == DType::kFloat64 ? 1e-10 : 2e-4;
    check_close(ops::matmul(gpu(a), gpu(b)), ops::matmul(a, b), tol, "matmul");
    const Tensor at = a.transpose(0, 1).contiguous();  // (19, 37)
    const Tensor bt = b.transpose(0, 1).contiguous();  // (23, 19)
    check_close(ops::matmul(gpu(at).transpose(0, 1), gpu(bt).transpose(0, 1)), ops::matmul(a, b),
                tol, "matmul transposed operands");
    // Every-other-column view: not BLAS-compatible, copied first.
    const Tensor wide = random_tensor({37, 38}, 63, dtype);
    check_close(ops::matmul(gpu(wide).slice(1, 0, 38, 2), gpu(b)),
                ops::matmul(wide.slice(1, 0, 38, 2), b), tol, "matmul strided");
    // Vectors: (1, K) @ (K, 1).
    check_close(ops::matmul(gpu(a).slice(0, 0, 1), gpu(b).slice(1, 0, 1)),
                ops::matmul(a.slice(0, 0, 1), b.slice(1, 0, 1)), tol, "matmul 1x1");
  }
}

TEST_CASE("cuda: BCE with logits forward and backward match the CPU") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    const Tensor logits = ops::affine(random_tensor({64, 3}, 71, dtype), 30.0, 0.0);  // large |x|
    const Tensor targets = ops::affine(random_tensor({64, 3}, 72, dtype), 0.5, 0.5);
    const Tensor g = random_tensor({64, 3}, 73, dtype);
    const double tol = dtype == DType::kFloat64 ? 1e-10 : 1e-4;  // |loss| up to 30
    check_close(ops::bce_with_logits(gpu(logits), gpu(targets)),
                ops::bce_with_logits(logits, targets), tol, "bce forward");
    check_close(ops::bce_with_logits_backward(gpu(g), gpu(logits), gpu(targets)),
                ops::bce_with_logits_backward(g, logits, targets), tolerance_for(dtype),
                "bce backward");
  }
}

namespace {
// Five steps of an update op on both devices from the same state; every state tensor compared.
template <typename Step>
void run_update(DType dtype, int buffers, Step step) {
  const int64_t n = 1000;
  std::vector<Tensor> cpu_state, gpu_state;
  for (int i = 0; i < 1 + buffers; ++i) {
    Tensor t = i == 0 ? random_tensor({n}, 80, dtype) : Tensor::zeros({n}, dtype);
    cpu_state.push_back(t);
    gpu_state.push_back(gpu(t));
  }
  for (int s = 1; s <= 5; ++s) {
    const Tensor grad = random_tensor({n}, 80 + s, dtype);
    step(cpu_state, grad, s);
    step(gpu_state, gpu(grad), s);
  }
  for (size_t i = 0; i < cpu_state.size(); ++i) {
    check_close(gpu_state[i], cpu_state[i], dtype == DType::kFloat64 ? 1e-12 : 1e-6,
                "optimizer state");
  }
}
}  // namespace

TEST_CASE("cuda: fused Adam, SGD and RMSprop updates match the CPU step for step") {
  STRAND_REQUIRE_GPU();
  for (DType dtype : kFloatTypes) {
    INFO("dtype " << dtype_name(dtype));
    for (double wd : {0.0, 0.01}) {
      run_update(dtype, 2, [&](std::vector<Tensor>& st, const Tensor& grad, int s) {
        const AdamParams p{{1e-2, 0.9, 0.999, 1e-7, wd}, s};
        dispatch<AdamUpdateOp>(st[0].device(), st[0], grad, st[1], st[2], p, Tensor());
      });
      for (bool nesterov : {false, true}) {
        run_update(dtype, 1, [&](std::vector<Tensor>& st, const Tensor& grad, int s) {
          const SGDParams p{0.1, 0.9, 0.0, wd, nesterov, s == 1};
          dispatch<SGDUpdateOp>(st[0].device(), st[0], grad, st[1], p, Tensor());
        });
      }
      run_update(dtype, 0, [&](std::vector<Tensor>& st, const Tensor& grad, int) {
        Tensor none;
        const SGDParams p{0.1, 0.0, 0.0, wd, false, false};
        dispatch<SGDUpdateOp>(st[0].device(), st[0], grad, none, p, Tensor());
      });
      for (bool centered : {false, true}) {
        for (double momentum : {0.0, 0.9}) {
          run_update(dtype, 3, [&](std::vector<Tensor>& st, const Tensor& grad, int) {
            const RMSpropParams p{1e-2, 0.99, 1e-8, wd, momentum, centered};
            dispatch<RMSpropUpdateOp>(st[0].device(), st[0], grad, st[1], st[2], st[3], p,
                                      Tensor());
          });
        }
      }
    }
  }
}

TEST_CASE("cuda: updates given a device schedule take its learning rate and step") {
  STRAND_REQUIRE_GPU();
  // The host params carry a wrong rate and step: the schedule's must win (what a replayed
  // CUDA graph relies on). The CPU runs the same update with the right host values.
  constexpr double kRate = 3e-3;
  constexpr int64_t kStep = 4;
  for (DType dtype : kFloatTypes) {
    INFO("dtype " << dtype_name(dtype));
    const Tensor schedule = gpu(Tensor::from_vector<double>({kRate, double(kStep)}, {2}));
    run_update(dtype, 2, [&](std::vector<Tensor>& st, const Tensor& grad, int) {
      const bool on_gpu = st[0].device().is_cuda();
      const AdamParams p{{on_gpu ? 99.0 : kRate, 0.9, 0.999, 1e-7, 0.01}, on_gpu ? 1 : kStep};
      dispatch<AdamUpdateOp>(st[0].device(), st[0], grad, st[1], st[2], p,
                             on_gpu ? schedule : Tensor());
    });
    run_update(dtype, 1, [&](std::vector<Tensor>& st, const Tensor& grad, int s) {
      const bool on_gpu = st[0].device().is_cuda();
      const SGDParams p{on_gpu ? 99.0 : kRate, 0.9, 0.0, 0.0, false, s == 1};
      dispatch<SGDUpdateOp>(st[0].device(), st[0], grad, st[1], p, on_gpu ? schedule : Tensor());
    });
    run_update(dtype, 3, [&](std::vector<Tensor>& st, const Tensor& grad, int) {
      const bool on_gpu = st[0].device().is_cuda();
      const RMSpropParams p{on_gpu ? 99.0 : kRate, 0.99, 1e-8, 0.0, 0.9, true};
      dispatch<RMSpropUpdateOp>(st[0].device(), st[0], grad, st[1], st[2], st[3], p,
                                on_gpu ? schedule : Tensor());
    });
  }
  Tensor advanced = gpu(Tensor::from_vector<double>({kRate, 7.0}, {2}));
  ops::advance_schedule(advanced);
  CHECK(advanced.to_vector<double>() == std::vector<double>{kRate, 8.0});
}
