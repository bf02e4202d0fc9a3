// Finite-difference gradient checks in float64 for every differentiable op, on contiguous
// and non-contiguous inputs (eps 1e-6, atol 1e-5, rtol 1e-3).
#include <doctest/doctest.h>

#include "autograd/functions.h"
#include "autograd/gradcheck.h"
#include "tensor/ops.h"
#include "test_helpers.h"
#include "tests/cuda/cuda_test_support.h"

namespace strand {
namespace {

using testing::random_codes;
using testing::random_tensor;
using Fn = std::function<Var(const std::vector<Var>&)>;

Var param(const Shape& shape, uint64_t seed) { return Var(random_tensor(shape, seed), true); }

// A non-contiguous view of the given shape: the transpose of a contiguous tensor.
Var transposed_param(const Shape& shape, uint64_t seed) {
  Shape swapped = shape;
  std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
  Tensor view = random_tensor(swapped, seed).transpose(-1, -2);
  REQUIRE_FALSE(view.is_contiguous());
  return Var(view, true);
}

// Values in [0.5, 1.5), away from the singularities of log, sqrt and division.
Var positive_param(const Shape& shape, uint64_t seed) {
  return Var(ops::affine(random_tensor(shape, seed), 0.5, 1.0), true);
}

// Values at least 0.1 away from 0, where relu's derivative jumps.
Var away_from_zero_param(const Shape& shape, uint64_t seed) {
  Tensor t = random_tensor(shape, seed);
  double* data = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i) data[i] += data[i] >= 0 ? 0.1 : -0.1;
  return Var(t, true);
}

// With a GPU: the same function on copies of the inputs on the device, forward and backward
// (with a random upstream gradient), agrees with the CPU. So every op of this table also gets
// its CPU-vs-GPU check; without a GPU (or a CUDA backend) this part does nothing.
void expect_gpu_matches_cpu(const Fn& fn, const std::vector<Var>& inputs) {
  if (!testing::has_gpu()) return;
  const auto run = [&](Device device) {
    std::vector<Var> copies;
    for (const Var& input : inputs) {
      copies.emplace_back(input.value().to(device), input.requires_grad());
    }
    Var out = fn(copies);
    out.backward(random_tensor(out.value().shape(), 99).to(device));
    std::vector<Tensor> results{out.value().to(Device::cpu())};
    for (const Var& copy : copies) {
      if (copy.requires_grad()) results.push_back(copy.grad().to(Device::cpu()));
    }
    return results;
  };
  const std::vector<Tensor> cpu = run(Device::cpu());
  const std::vector<Tensor> gpu = run(Device::cuda());
  REQUIRE(cpu.size() == gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    INFO((i == 0 ? std::string("output") : "gradient of input " + std::to_string(i - 1)));
    CHECK(testing::max_abs_difference(gpu[i], cpu[i]) <= 1e-10);
  }
}

void expect_gradcheck(const Fn& fn, const std::vector<Var>& inputs) {
  const GradcheckResult result = gradcheck(fn, inputs);
  INFO(result.message);
  CHECK(result.ok);
  expect_gpu_matches_cpu(fn, inputs);
}

}  // namespace

TEST_CASE("gradcheck add (broadcast, non-contiguous)") {
  expect_gradcheck([](auto& v) { return add(v[0], v[1]); }, {param({3, 4}, 1), param({4}, 2)});
  expect_gradcheck([](auto& v) { return add(v[0], v[1]); },
                   {transposed_param({3, 4}, 3), param({3, 1}, 4)});
}

TEST_CASE("gradcheck sub (broadcast, non-contiguous)") {
  expect_gradcheck([](auto& v) { return sub(v[0], v[1]); }, {param({2, 3}, 5), param({1, 3}, 6)});
  expect_gradcheck([](auto& v) { return sub(v[0], v[1]); },
                   {param({4}, 7), transposed_param({2, 4}, 8)});
}

TEST_CASE("gradcheck mul (broadcast, non-contiguous)") {
  expect_gradcheck([](auto& v) { return mul(v[0], v[1]); }, {param({2, 3}, 9), param({3}, 10)});
  expect_gradcheck([](auto& v) { return mul(v[0], v[1]); },
                   {transposed_param({3, 2}, 11), transposed_param({3, 2}, 12)});
}

TEST_CASE("gradcheck div (broadcast, non-contiguous)") {
  expect_gradcheck([](auto& v) { return div(v[0], v[1]); },
                   {param({2, 3}, 13), positive_param({3}, 14)});
  expect_gradcheck([](auto& v) { return div(v[0], v[1]); },
                   {transposed_param({3, 2}, 15), positive_param({3, 1}, 16)});
}

TEST_CASE("gradcheck affine") {
  expect_gradcheck([](auto& v) { return affine(v[0], -2.5, 0.3); }, {transposed_param({3, 4}, 17)});
}

TEST_CASE("gradcheck neg") {
  expect_gradcheck([](auto& v) { return neg(v[0]); }, {transposed_param({2, 5}, 18)});
}

TEST_CASE("gradcheck exp") {
  expect_gradcheck([](auto& v) { return exp(v[0]); }, {param({2, 3}, 19)});
  expect_gradcheck([](auto& v) { return exp(v[0]); }, {transposed_param({2, 3}, 20)});
}

TEST_CASE("gradcheck log") {
  expect_gradcheck([](auto& v) { return log(v[0]); }, {positive_param({2, 3}, 21)});
}

TEST_CASE("gradcheck sigmoid") {
  expect_gradcheck([](auto& v) { return sigmoid(v[0]); }, {param({3, 3}, 22)});
  expect_gradcheck([](auto& v) { return sigmoid(v[0]); }, {transposed_param({2, 4}, 23)});
}

TEST_CASE("gradcheck relu") {
  expect_gradcheck([](auto& v) { return relu(v[0]); }, {away_from_zero_param({4, 5}, 24)});
}

TEST_CASE("gradcheck tanh") {
  expect_gradcheck([](auto& v) { return tanh(v[0]); }, {transposed_param({3, 2}, 25)});
}

TEST_CASE("gradcheck sqrt") {
  expect_gradcheck([](auto& v) { return sqrt(v[0]); }, {positive_param({2, 3}, 26)});
}

TEST_CASE("gradcheck square") {
  expect_gradcheck([](auto& v) { return square(v[0]); }, {transposed_param({2, 3}, 27)});
}

TEST_CASE("gradcheck sum") {
  expect_gradcheck([](auto& v) { return sum(v[0]); }, {param({2, 3, 4}, 28)});
  expect_gradcheck([](auto& v) { return sum(v[0], {0, 2}); }, {param({2, 3, 4}, 29)});
  expect_gradcheck([](auto& v) { return sum(v[0], {1}, true); }, {transposed_param({3, 4}, 30)});
}

TEST_CASE("gradcheck mean") {
  expect_gradcheck([](auto& v) { return mean(v[0]); }, {transposed_param({3, 4}, 31)});
  expect_gradcheck([](auto& v) { return mean(v[0], {-1}); }, {param({2, 3, 4}, 32)});
}

TEST_CASE("gradcheck max") {
  expect_gradcheck([](auto& v) { return max(v[0], 1).first; }, {param({3, 7}, 33)});
  expect_gradcheck([](auto& v) { return max(v[0], 0, true).first; },
                   {transposed_param({4, 3}, 34)});
}

TEST_CASE("gradcheck matmul") {
  expect_gradcheck([](auto& v) { return matmul(v[0], v[1]); },
                   {param({3, 4}, 35), param({4, 2}, 36)});
  expect_gradcheck([](auto& v) { return matmul(v[0], v[1]); },
                   {transposed_param({3, 4}, 37), transposed_param({4, 5}, 38)});
}

TEST_CASE("gradcheck reshape") {
  expect_gradcheck([](auto& v) { return reshape(v[0], {6, -1}); }, {transposed_param({3, 4}, 39)});
}

TEST_CASE("gradcheck transpose") {
  expect_gradcheck([](auto& v) { return transpose(v[0], 0, 2); }, {param({2, 3, 4}, 40)});
}

TEST_CASE("gradcheck slice") {
  expect_gradcheck([](auto& v) { return slice(v[0], 1, 1, 6, 2); }, {param({3, 7}, 41)});
  expect_gradcheck([](auto& v) { return slice(v[0], 0, -3, 4); }, {transposed_param({5, 2}, 42)});
}

TEST_CASE("gradcheck concat") {
  expect_gradcheck(
      [](auto& v) {
        return concat({v[0], v[1]}, 1);
      },
      {param({2, 3}, 43), transposed_param({2, 2}, 44)});
}

TEST_CASE("gradcheck chunk") {
  expect_gradcheck(
      [](auto& v) {
        auto [a, b] = chunk<2>(v[0], 1);
        return mul(a, sigmoid(b));
      },
      {param({2, 6, 3}, 45)});
}

TEST_CASE("gradcheck conv1d (dense with stride, dilation, padding)") {
  Conv1DParams valid;
  expect_gradcheck([valid](auto& v) { return conv1d(v[0], v[1], v[2], valid); },
                   {param({2, 3, 11}, 46), param({4, 3, 3}, 47), param({4}, 48)});
  Conv1DParams strided{2, 2, 3, 1};
  expect_gradcheck([strided](auto& v) { return conv1d(v[0], v[1], v[2], strided); },
                   {transposed_param({2, 3, 10}, 49), param({2, 3, 4}, 50), param({2}, 51)});
  expect_gradcheck([valid](auto& v) { return conv1d(v[0], v[1], Var(), valid); },
                   {param({1, 2, 6}, 52), transposed_param({3, 2, 2}, 53)});
}

TEST_CASE("gradcheck conv1d (one-hot base codes)") {
  const Var codes(random_codes(3, 20, 54));
  Conv1DParams same{1, 1, 2, 2};
  expect_gradcheck([&](auto& v) { return conv1d(v[2], v[0], v[1], same); },
                   {param({5, 4, 5}, 55), param({5}, 56), codes});
  Conv1DParams strided{3, 2, 0, 0};
  expect_gradcheck([&](auto& v) { return conv1d(v[2], v[0], v[1], strided); },
                   {transposed_param({2, 4, 3}, 57), param({2}, 58), codes});
}

TEST_CASE("gradcheck conv1d_relu_max (fused, dense and base codes)") {
  Conv1DParams params{1, 1, 1, 1};
  expect_gradcheck([&](auto& v) { return conv1d_relu_max(v[0], v[1], v[2], params); },
                   {param({3, 2, 9}, 59), param({6, 2, 3}, 60), param({6}, 61)});
  const Var codes(random_codes(4, 30, 62));
  expect_gradcheck([&](auto& v) { return conv1d_relu_max(v[2], v[0], v[1], Conv1DParams{}); },
                   {param({8, 4, 5}, 63), param({8}, 64), codes});
}

TEST_CASE("gradcheck global_max_pool1d") {
  expect_gradcheck([](auto& v) { return global_max_pool1d(v[0]); }, {param({2, 3, 8}, 65)});
}

TEST_CASE("gradcheck bce_with_logits") {
  Generator generator(66);
  std::vector<double> targets(12);
  for (double& t : targets) t = static_cast<double>(generator.next_below(2));
  const Var y(Tensor::from_vector(targets, {12, 1}));
  Tensor logits = ops::affine(random_tensor({12, 1}, 67), 8.0, 0.0);  // reaches the tails
  expect_gradcheck([](auto& v) { return bce_with_logits(v[0], v[1]); }, {Var(logits, true), y});
}

TEST_CASE("gradcheck mse") {
  expect_gradcheck([](auto& v) { return mse(v[0], v[1]); },
                   {transposed_param({3, 2}, 68), param({3, 2}, 69)});
}

}  // namespace strand

namespace strand {

TEST_CASE("gradcheck bce_with_logits weighted by a label mask") {
  const Var y(Tensor::from_vector<double>({1, 0, 1, 0, 1, 1}, {3, 2}));
  const Tensor mask = Tensor::from_vector<double>({1, 1, 0, 1, 1, 0}, {3, 2});
  // The mask is a plain tensor argument: it moves to the inputs' device with them.
  expect_gradcheck(
      [&](auto& v) { return bce_with_logits(v[0], v[1], mask.to(v[0].value().device())); },
      {Var(testing::random_tensor({3, 2}, 70), true), y});
}

}  // namespace strand
