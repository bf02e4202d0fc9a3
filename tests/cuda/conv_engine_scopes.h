// Scope guards for the CUDA conv engine's process-wide settings (tensor/cuda/conv_engine.h), so
// that a test that changes them leaves them as it found them on every exit, a failing REQUIRE's
// throw included.
#pragma once

#ifdef STRAND_WITH_CUDA
#include "tensor/cuda/conv_engine.h"

namespace strand::testing {

/// The conv engine's policy for a scope; every remembered choice, adopted plan and planned
/// batch size is forgotten on entry and on exit, where the policy goes back to kAuto.
class ConvPolicyScope {
 public:
  explicit ConvPolicyScope(cuda::ConvAlgorithm policy = cuda::ConvAlgorithm::kAuto) {
    cuda::clear_planned_batch_sizes();
    cuda::set_conv_algorithm(policy);
  }
  ~ConvPolicyScope() {
    cuda::clear_planned_batch_sizes();
    cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
  }
  ConvPolicyScope(const ConvPolicyScope&) = delete;
  ConvPolicyScope& operator=(const ConvPolicyScope&) = delete;
};

/// cuDNN's timed search (cuda::set_cudnn_find) on or off for a scope; the setting it found
/// comes back on exit. Declare it before a ConvPolicyScope: setting it forgets every choice.
class CudnnFindScope {
 public:
  explicit CudnnFindScope(bool on) : before_(cuda::cudnn_find()) { cuda::set_cudnn_find(on); }
  ~CudnnFindScope() { cuda::set_cudnn_find(before_); }
  CudnnFindScope(const CudnnFindScope&) = delete;
  CudnnFindScope& operator=(const CudnnFindScope&) = delete;

 private:
  bool before_;
};

}  // namespace strand::testing
#endif
