// DeviceSwitch: makes a CUDA device current for a scope, then gives the calling thread its own
// device back, so that a helper that must run on a given device (the pinned host allocator)
// never leaves its caller on another GPU.
//
// One exception to the restore: since CUDA 12, cudaSetDevice initialises the device's primary
// context. A thread that never chose a device reports device 0 whether or not GPU 0 was ever
// used (a data loader's worker thread, say); switching it back to 0 would open a context on
// GPU 0 in every process of a multi-GPU job. So the previous device is restored only when its
// primary context was active on entry: when the caller can have been using it.
//
// The rule is written against a runtime interface, so that tests check it without a GPU;
// tensor/cuda/device.h's DeviceGuard is this switch over the CUDA runtime.
#pragma once

namespace strand::cuda {

/// What DeviceSwitch needs from the runtime (CUDA's in DeviceGuard, a fake in tests):
///   int current_device();                  // the calling thread's current device
///   void set_device(int device);           // makes `device` current; throws on failure
///   bool context_active(int device);       // whether its primary context is initialised
///   void restore_device(int device) noexcept;  // set_device that reports nothing
template <typename Runtime>
class DeviceSwitch {
 public:
  /// Makes `device` current, unless it already is.
  DeviceSwitch(Runtime& runtime, int device) : runtime_(runtime) {
    previous_ = runtime_.current_device();
    if (previous_ == device) return;
    restore_ = runtime_.context_active(previous_);
    runtime_.set_device(device);
    switched_ = true;
  }
  /// Makes the caller's device current again (see the file comment for when it does not).
  ~DeviceSwitch() {
    if (switched_ && restore_) runtime_.restore_device(previous_);
  }
  DeviceSwitch(const DeviceSwitch&) = delete;
  DeviceSwitch& operator=(const DeviceSwitch&) = delete;

  /// The device that was current on entry.
  int previous() const { return previous_; }
  /// Whether the constructor changed the current device.
  bool switched() const { return switched_; }

 private:
  Runtime& runtime_;
  int previous_ = -1;
  bool switched_ = false;
  bool restore_ = false;
};

}  // namespace strand::cuda
