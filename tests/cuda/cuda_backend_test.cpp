// The CUDA backend as a whole: op coverage, the no-device error, host<->device copies,
// pinned memory, the allocator and Module::to.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "cuda_test_support.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/sequential.h"
#include "ops/reduction.h"
#include "tensor/backend.h"
#include "tensor/cuda_runtime.h"
#include "tensor/op_registry.h"
#ifdef STRAND_WITH_CUDA
#include "data/loader/batch.h"
#include "tensor/cuda/allocator.h"
#include "tensor/cuda/device.h"
#endif

using namespace strand;
using namespace strand::testing;

TEST_CASE("cuda: every registered CPU op has a CUDA kernel") {
#ifndef STRAND_WITH_CUDA
  if (gpu_required()) FAIL("STRAND_REQUIRE_GPU=1 but strand was built without the CUDA backend");
  STRAND_SKIP("built without the CUDA backend");
#else
  std::set<std::string> cpu_ops, cuda_ops;
  for (const auto& kernel : registered_kernels()) {
    (kernel.device_type == DeviceType::kCPU ? cpu_ops : cuda_ops).insert(kernel.op_name);
  }
  // DeepLIFT's multipliers dispatch on the CPU only: on other devices they compose from the
  // element-wise ops (ops::rescale_multiplier, ops::divide_where_changed in ops/elementwise.cpp).
  const std::set<std::string> composed_elsewhere = {"rescale", "divide_where_changed"};
  for (const std::string& op : cpu_ops) {
    INFO("op: " << op);
    CHECK(cuda_ops.count(op) == (composed_elsewhere.count(op) == 1 ? 0 : 1));
  }
  CHECK(cuda_ops.size() >= 24);  // the built-in ops of ops/ and the primitive ops
#endif
}

TEST_CASE("cuda: the module is found beside libstrand and loads") {
#ifndef STRAND_WITH_CUDA
  CHECK_FALSE(backend_built(DeviceType::kCUDA));
  CHECK(backend_load_error(DeviceType::kCUDA).find("no CUDA backend") != std::string::npos);
#else
  // This program links the module, so its libraries are here: the loader must find the same
  // file beside libstrand (or where STRAND_CUDA_MODULE says) and accept its ABI.
  CHECK(backend_built(DeviceType::kCUDA));
  CHECK(backend_load_error(DeviceType::kCUDA) == "");
  CHECK_NOTHROW(cuda_runtime());
  CHECK(cuda_runtime().available() == cuda::cuda_available());
#endif
}

TEST_CASE("cuda: asking for CUDA without a device names the problem") {
#ifndef STRAND_WITH_CUDA
  // Without the backend the allocator registry says so.
  CHECK_THROWS_WITH_AS(Tensor::zeros({2}, DType::kFloat32, Device::cuda()),
                       doctest::Contains("CUDA"), Error);
#else
  if (has_gpu()) {
    // A device index past the last one is the error here.
    CHECK_THROWS_WITH_AS(Tensor::zeros({2}, DType::kFloat32, Device::cuda(1000)),
                         doctest::Contains("requested but only"), Error);
    return;
  }
  CHECK_THROWS_WITH_AS(Tensor::zeros({2}, DType::kFloat32, Device::cuda()),
                       doctest::Contains("CUDA requested but no CUDA device is available"), Error);
  CHECK_FALSE(cuda::unavailability_reason().empty());
#endif
}

TEST_CASE("cuda: host <-> device copies round-trip every dtype, strided and converting") {
  STRAND_REQUIRE_GPU();
  const Tensor x = random_tensor({3, 5, 7}, 1);
  for (DType dtype :
       {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64, DType::kUInt8}) {
    INFO("dtype " << dtype_name(dtype));
    const Tensor host = ops::affine(x, 10.0, 10.0).to(dtype);  // 0..20: fits every dtype
    const Tensor device = host.to(Device::cuda());
    CHECK(device.device().is_cuda());
    CHECK(max_abs_difference(device.to(Device::cpu()), host) == 0.0);
    // Strided source on each side, and conversion inside the copy.
    const Tensor t_host = host.transpose(0, 2);
    CHECK(max_abs_difference(t_host.to(Device::cuda()).to(Device::cpu()), t_host) == 0.0);
    const Tensor t_dev = device.transpose(0, 2).slice(1, 1, 5, 2);
    CHECK(max_abs_difference(t_dev.to(Device::cpu()), host.transpose(0, 2).slice(1, 1, 5, 2)) ==
          0.0);
    const Tensor as_double = device.to(DType::kFloat64);
    CHECK(max_abs_difference(as_double, host.to(DType::kFloat64)) == 0.0);
    // Into a strided destination on the device.
    Tensor target = Tensor::zeros({7, 5, 3}, dtype, Device::cuda());
    Tensor view = target.transpose(0, 2);
    view.copy_(host);
    CHECK(max_abs_difference(view, host) == 0.0);
  }
  CHECK(Tensor::full({4}, 2.5, DType::kFloat32, Device::cuda()).to_vector<float>() ==
        std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f});
}

TEST_CASE("cuda: fill on strided views") {
  STRAND_REQUIRE_GPU();
  Tensor t = Tensor::zeros({4, 6}, DType::kFloat64, Device::cuda());
  Tensor view = t.slice(1, 0, 6, 2);
  view.fill_(3.0);
  Tensor expected = Tensor::zeros({4, 6}, DType::kFloat64);
  Tensor expected_view = expected.slice(1, 0, 6, 2);
  expected_view.fill_(3.0);
  CHECK(max_abs_difference(t, expected) == 0.0);
}

#ifdef STRAND_WITH_CUDA
TEST_CASE("cuda: pinned batch allocator and pinned tensors") {
  STRAND_REQUIRE_GPU();
  const Device gpu_device = Device::cuda();
  const data::BatchAllocator allocator{
      [gpu_device](size_t bytes) { return cuda::pinned_allocate(bytes, gpu_device); },
      cuda::pinned_release};
  void* block = allocator.allocate(1000);
  CHECK(cuda::is_pinned(block));
  CHECK(reinterpret_cast<uintptr_t>(block) % 64 == 0);
  allocator.release(block, 1000);
  void* again = allocator.allocate(1000);
  CHECK(again == block);  // cached by size
  allocator.release(again, 1000);
  Tensor pinned = cuda::pinned_empty({128, 500}, DType::kUInt8, gpu_device);
  pinned.fill_(3.0);
  const Tensor device = pinned.to(Device::cuda());
  pinned = Tensor();  // the asynchronous upload keeps its source alive
  CHECK(ops::sum(device.to(DType::kFloat64)).item() == 3.0 * 128 * 500);
}

TEST_CASE("cuda: the caching allocator reuses freed memory and reports out of memory") {
  STRAND_REQUIRE_GPU();
  const size_t before = cuda::allocated_bytes();
  {
    Tensor t = Tensor::empty({1 << 20}, DType::kFloat32, Device::cuda());
    CHECK(cuda::allocated_bytes() >= before + (4u << 20));
  }
  CHECK(cuda::allocated_bytes() == before);
  const auto [free_bytes, total_bytes] = cuda::memory_info();
  CHECK(total_bytes > 0);
  CHECK_THROWS_WITH_AS(
      Tensor::empty({static_cast<int64_t>(total_bytes)}, DType::kFloat64, Device::cuda()),
      doctest::Contains("CUDA out of memory"), Error);
  (void)free_bytes;
}
#endif

TEST_CASE("cuda: Module::to moves parameters to the device and back") {
  STRAND_REQUIRE_GPU();
  manual_seed(3);
  Sequential model;
  model.add(Conv1D(4, 8, 5));
  model.add(Dense(8, 2));
  std::vector<Tensor> before;
  for (const Var& p : model.parameters()) before.push_back(p.value());
  model.to(Device::cuda());
  size_t i = 0;
  for (const Var& p : model.parameters()) {
    CHECK(p.device().is_cuda());
    CHECK(max_abs_difference(p.value(), before[i++]) == 0.0);
  }
  model.to(Device::cpu());
  for (const Var& p : model.parameters()) CHECK(p.device().is_cpu());
}
