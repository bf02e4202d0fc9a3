// DeviceSwitch, the current-device bookkeeping of the CUDA backend's DeviceGuard (used by the
// pinned host allocator and device frees), on a fake runtime: no GPU needed.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/cuda/device_switch.h"

namespace strand::cuda {
namespace {

// A thread's view of the runtime: its current device, which primary contexts exist, and a log
// of the set_device calls made.
struct FakeRuntime {
  int current = 0;
  std::vector<bool> active = {false, false, false};
  std::vector<int> sets;
  bool fail_next_set = false;

  int current_device() { return current; }
  void set_device(int device) {
    if (fail_next_set) throw std::runtime_error("cudaSetDevice failed");
    sets.push_back(device);
    current = device;
    active[static_cast<size_t>(device)] = true;  // CUDA 12+: setting a device initialises it
  }
  bool context_active(int device) { return active[static_cast<size_t>(device)]; }
  void restore_device(int device) noexcept {
    sets.push_back(device);
    current = device;
    active[static_cast<size_t>(device)] = true;
  }
};

}  // namespace

TEST_CASE("DeviceSwitch leaves a thread already on the device alone") {
  FakeRuntime runtime;
  runtime.current = 1;
  runtime.active[1] = true;
  {
    const DeviceSwitch<FakeRuntime> on_device(runtime, 1);
    CHECK_FALSE(on_device.switched());
  }
  CHECK(runtime.sets.empty());
  CHECK(runtime.current == 1);
}

TEST_CASE("DeviceSwitch gives a caller that was using another device its device back") {
  FakeRuntime runtime;
  runtime.current = 0;
  runtime.active[0] = true;  // the caller works on GPU 0
  {
    const DeviceSwitch<FakeRuntime> on_device(runtime, 2);
    CHECK(on_device.switched());
    CHECK(on_device.previous() == 0);
    CHECK(runtime.current == 2);
  }
  CHECK(runtime.sets == std::vector<int>{2, 0});
  CHECK(runtime.current == 0);
}

TEST_CASE("DeviceSwitch opens no context on the default device of a fresh thread") {
  // A loader thread of the rank that drives GPU 1: it never chose a device, so it reports 0,
  // and GPU 0 was never used by this process.
  FakeRuntime runtime;
  runtime.active[1] = true;
  {
    const DeviceSwitch<FakeRuntime> on_device(runtime, 1);
    CHECK(on_device.switched());
  }
  CHECK(runtime.sets == std::vector<int>{1});
  CHECK_FALSE(runtime.active[0]);
  CHECK(runtime.current == 1);
}

TEST_CASE("DeviceSwitch restores nothing when the switch itself failed") {
  FakeRuntime runtime;
  runtime.active[0] = true;
  runtime.fail_next_set = true;
  CHECK_THROWS_AS(DeviceSwitch<FakeRuntime>(runtime, 1), std::runtime_error);
  CHECK(runtime.sets.empty());
  CHECK(runtime.current == 0);
}

}  // namespace strand::cuda
