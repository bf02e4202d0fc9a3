// Tensor creation, views, copies and the errors they raise.
#include <doctest/doctest.h>

#include "ops/conv1d.h"
#include "ops/elementwise.h"
#include "ops/matmul.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "tensor/cuda_runtime.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"
#include "test_helpers.h"

namespace strand {

TEST_CASE("tensor creation fills and reports shape, dtype, device") {
  const Tensor z = Tensor::zeros({2, 3});
  CHECK(z.shape() == Shape{2, 3});
  CHECK(z.numel() == 6);
  CHECK(z.dtype() == DType::kFloat32);
  CHECK(z.device() == Device::cpu());
  CHECK(z.to_vector<float>() == std::vector<float>(6, 0.0f));
  CHECK(Tensor::ones({4}, DType::kInt64).to_vector<int64_t>() == std::vector<int64_t>(4, 1));
  CHECK(Tensor::full({2}, 2.5, DType::kFloat64).to_vector<double>() ==
        std::vector<double>{2.5, 2.5});
  CHECK(z.describe() == "float32 (2, 3) on cpu");
}

TEST_CASE("seeded generators are reproducible and in range") {
  Generator a(7), b(7), c(8);
  const Tensor ua = Tensor::uniform({1000}, -2.0, 3.0, a, DType::kFloat64);
  const Tensor ub = Tensor::uniform({1000}, -2.0, 3.0, b, DType::kFloat64);
  const Tensor uc = Tensor::uniform({1000}, -2.0, 3.0, c, DType::kFloat64);
  CHECK(ua.to_vector<double>() == ub.to_vector<double>());
  CHECK(ua.to_vector<double>() != uc.to_vector<double>());
  for (double v : ua.to_vector<double>()) CHECK((v >= -2.0 && v < 3.0));
  Generator n(9);
  const auto normal = Tensor::normal({20000}, 1.0, 2.0, n, DType::kFloat64).to_vector<double>();
  double mean = 0, var = 0;
  for (double v : normal) mean += v;
  mean /= normal.size();
  for (double v : normal) var += (v - mean) * (v - mean);
  var /= normal.size();
  CHECK(mean == doctest::Approx(1.0).epsilon(0.05));
  CHECK(var == doctest::Approx(4.0).epsilon(0.05));
  // The state is (seed, counter): restoring it replays the stream.
  Generator g(3);
  g.next_u64();
  const uint64_t counter = g.counter();
  const uint64_t expected = g.next_u64();
  g.set_state(3, counter);
  CHECK(g.next_u64() == expected);
}

TEST_CASE("views share storage: reshape, slice, transpose, unsqueeze, expand") {
  Tensor t = Tensor::from_vector<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  Tensor r = t.reshape({3, -1});
  CHECK(r.shape() == Shape{3, 2});
  CHECK(r.storage() == t.storage());
  Tensor s = t.slice(1, 0, 3, 2);
  CHECK(s.shape() == Shape{2, 2});
  CHECK(s.to_vector<float>() == std::vector<float>{0, 2, 3, 5});
  Tensor tr = t.transpose(0, 1);
  CHECK_FALSE(tr.is_contiguous());
  CHECK(tr.to_vector<float>() == std::vector<float>{0, 3, 1, 4, 2, 5});
  CHECK(tr.contiguous().is_contiguous());
  CHECK(t.unsqueeze(0).shape() == Shape{1, 2, 3});
  CHECK(t.unsqueeze(0).squeeze(0).shape() == Shape{2, 3});
  Tensor row = Tensor::from_vector<float>({1, 2, 3}, {3});
  CHECK(row.expand({2, 3}).to_vector<float>() == std::vector<float>{1, 2, 3, 1, 2, 3});
  // Writing through a view changes the base tensor.
  Tensor column = t.slice(1, 1, 2);
  column.fill_(9);
  CHECK(t.to_vector<float>() == std::vector<float>{0, 9, 2, 3, 9, 5});
  // Reshaping a non-contiguous view copies.
  CHECK(tr.reshape({6}).to_vector<float>() == std::vector<float>{0, 3, 9, 9, 2, 5});
}

TEST_CASE("from_blob wraps memory without copying and converts dtypes") {
  std::vector<double> memory = {1.5, -2.5, 3.0};
  Tensor wrapped = Tensor::from_blob(memory.data(), {3}, DType::kFloat64);
  memory[0] = 4.0;
  CHECK(wrapped.to_vector<double>()[0] == 4.0);
  CHECK(wrapped.to(DType::kInt32).to_vector<int32_t>() == std::vector<int32_t>{4, -2, 3});
  CHECK(wrapped.to(DType::kFloat32).to_vector<float>() == std::vector<float>{4.0f, -2.5f, 3.0f});
  CHECK(Tensor::from_vector<uint8_t>({7}, {1}).item() == 7.0);
}

TEST_CASE("concat and chunk") {
  Tensor a = Tensor::from_vector<double>({1, 2, 3, 4}, {2, 2});
  Tensor b = Tensor::from_vector<double>({5, 6}, {2, 1});
  Tensor c = ops::concat({a, b}, 1);
  CHECK(c.shape() == Shape{2, 3});
  CHECK(c.to_vector<double>() == std::vector<double>{1, 2, 5, 3, 4, 6});
  auto parts = ops::chunk(Tensor::from_vector<double>({1, 2, 3, 4, 5, 6}, {6}), 3, 0);
  REQUIRE(parts.size() == 3);
  CHECK(parts[2].to_vector<double>() == std::vector<double>{5, 6});
  CHECK_THROWS_WITH_AS(ops::chunk(a, 3, 1), doctest::Contains("does not split into 3"), Error);
  CHECK_THROWS_WITH_AS(ops::concat({a, Tensor::zeros({3, 1}, DType::kFloat64)}, 1),
                       doctest::Contains("differ in dimension 0"), Error);
}

TEST_CASE("shape, dtype and device errors name the op and both tensors") {
  const Tensor a = Tensor::zeros({2, 3});
  const Tensor b = Tensor::zeros({4, 3});
  CHECK_THROWS_WITH_AS(ops::add(a, b),
                       doctest::Contains("add: shapes (2, 3) and (4, 3) do not broadcast"), Error);
  CHECK_THROWS_WITH_AS(ops::mul(a, Tensor::zeros({2, 3}, DType::kFloat64)),
                       doctest::Contains("mul: dtype mismatch: float32 (2, 3) on cpu and float64"),
                       Error);
  CHECK_THROWS_WITH_AS(ops::matmul(a, a), doctest::Contains("matmul: inner dimensions differ"),
                       Error);
  CHECK_THROWS_WITH_AS(
      ops::conv1d(Tensor::zeros({2, 3, 10}), Tensor::zeros({4, 2, 3}), Tensor(), {}),
      doctest::Contains("conv1d: input float32 (2, 3, 10) on cpu has 3 channels"), Error);
  CHECK_THROWS_WITH_AS(
      ops::conv1d(Tensor::zeros({2, 3, 2}), Tensor::zeros({4, 3, 5}), Tensor(), {}),
      doctest::Contains("shorter than the kernel"), Error);
  CHECK_THROWS_WITH_AS(a.reshape({4, 2}),
                       doctest::Contains("reshape float32 (2, 3) on cpu to (4, 2)"), Error);
  CHECK_THROWS_WITH_AS(a.data<double>(),
                       doctest::Contains("data<float64>() on a tensor of dtype float32"), Error);
  CHECK_THROWS_WITH_AS(ops::sum(Tensor::zeros({2}, DType::kUInt8)),
                       doctest::Contains("sum: expected a float32 or float64 tensor, got uint8"),
                       Error);
  CHECK_THROWS_WITH_AS(Device::parse("gpu"), doctest::Contains("device 'gpu'"), Error);
}

TEST_CASE("asking for a device without a backend names the op and the device") {
  if (!backend_built(DeviceType::kCUDA)) {
    CHECK_THROWS_WITH_AS(Tensor::zeros({2}, DType::kFloat32, Device::cuda(0)),
                         doctest::Contains("no CUDA backend"), Error);
  } else if (!cuda_usable()) {
    // The reason the device is unusable, whichever it is (module, libraries, device).
    CHECK_THROWS_WITH_AS(Tensor::zeros({2}, DType::kFloat32, Device::cuda(0)),
                         doctest::Contains("CUDA"), Error);
  }
  // Every built-in op has a CPU kernel.
  bool has_conv = false;
  for (const auto& kernel : registered_kernels()) {
    has_conv = has_conv || (kernel.op_name == std::string("conv1d_relu_max") &&
                            kernel.device_type == DeviceType::kCPU);
  }
  CHECK(has_conv);
}

}  // namespace strand
