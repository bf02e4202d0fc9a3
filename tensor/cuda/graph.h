// CudaGraph: captures work queued on strand's stream (e.g. one training step whose shapes do
// not change) into a CUDA graph, then replays it with one launch.
//
//   Tensor x = Tensor::empty({B, L}, DType::kUInt8, Device::cuda());   // fixed input buffers
//   Tensor y = Tensor::empty({B, 1}, DType::kFloat32, Device::cuda());
//   Tensor loss_out = Tensor::empty({}, DType::kFloat32, Device::cuda());
//   auto step = [&] { optimizer.zero_grad(); Var l = loss(model(Var(x)), Var(y));
//                     l.backward(); optimizer.step(); loss_out.copy_(l.value()); };
//   step();                       // eager warm-up: creates optimizer state, measures conv choices
//   CudaGraph graph;
//   graph.capture(step);          // records the kernels; nothing runs
//   for (batch : batches) { x.copy_(batch.codes); y.copy_(batch.labels); graph.replay(); }
//
// Rules for the captured step: no host synchronisation (no item(), no to(Device::cpu()), no
// host-to-device copy of pageable memory), the same shapes on every replay, and tensors read
// or written across replays allocated before capture. Temporaries allocated during capture
// become graph memory nodes (freed and re-allocated at the same addresses on each replay:
// the graph is instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch). Older blocks freed
// during the capture are kept until the graph is destroyed (the captured kernels use them on
// every replay); zero gradients in place (Optimizer::zero_grad(GradReset::kZeroInPlace)) so
// that the step frees nothing. Adam's step count and learning rate live in device scalars
// that the captured step advances (optim/adam.h), so replays follow the schedule.
#pragma once

#include <functional>
#include <memory>

#include "core/device.h"
#include "tensor/cuda_runtime.h"

namespace strand::cuda {

/// The module's CapturedGraph (what CudaRuntime::make_graph returns to train/).
class CudaGraph final : public CapturedGraph {
 public:
  explicit CudaGraph(Device device = Device::cuda());
  ~CudaGraph() override;
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  /// Runs `work` under stream capture and instantiates the graph (replacing any earlier one).
  void capture(const std::function<void()>& work) override;
  /// Launches the captured graph on strand's stream (asynchronous).
  void replay() override;
  bool captured() const override;
  /// Kernel/memcpy/memory nodes in the captured graph.
  size_t node_count() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strand::cuda
