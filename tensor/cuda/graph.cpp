// CUDA graph capture and replay on strand's stream.
#include "tensor/cuda/graph.h"

#include <vector>

#include "core/error.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/stream.h"
#include "tensor/cuda/allocator.h"
#include "tensor/cuda/device.h"

namespace strand::cuda {

struct CudaGraph::Impl {
  Device device;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  // Blocks freed during the capture that the graph did not allocate: its kernels use them on
  // every replay, so they live as long as the graph (stream-ordered frees after the replays).
  std::vector<RetainedBlock> retained;

  void reset() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
    exec = nullptr;
    graph = nullptr;
    free_retained(retained);
    retained.clear();
  }
};

CudaGraph::CudaGraph(Device device) : impl_(std::make_unique<Impl>()) {
  require_device(device);
  impl_->device = device;
}

CudaGraph::~CudaGraph() { impl_->reset(); }

void CudaGraph::capture(const std::function<void()>& work) {
  require_device(impl_->device);
  impl_->reset();
  const cudaStream_t s = stream(impl_->device);
  // Earlier work must not leak into the capture, nor the capture wait for it.
  STRAND_CUDA_CHECK(cudaStreamSynchronize(s));
  begin_capture_tracking();
  if (const cudaError_t began = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
      began != cudaSuccess) {
    free_retained(end_capture_tracking(/*broken=*/true));
    STRAND_CUDA_CHECK(began);
  }
  try {
    work();
  } catch (...) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(s, &broken);
    if (broken != nullptr) cudaGraphDestroy(broken);
    cudaGetLastError();
    free_retained(end_capture_tracking(/*broken=*/true));
    throw;
  }
  const cudaError_t ended = cudaStreamEndCapture(s, &impl_->graph);
  impl_->retained = end_capture_tracking(/*broken=*/ended != cudaSuccess);
  if (ended != cudaSuccess) {
    cudaGetLastError();
    throw Error(fmt::format(
        "CUDA graph capture failed ({}): the captured work synchronised with the host or used "
        "another stream (item(), to(cpu), pageable host copies are not capturable)",
        cudaGetErrorString(ended)));
  }
  STRAND_CUDA_CHECK(cudaGraphInstantiateWithFlags(&impl_->exec, impl_->graph,
                                                  cudaGraphInstantiateFlagAutoFreeOnLaunch));
}

void CudaGraph::replay() {
  STRAND_CHECK(impl_->exec != nullptr, "CudaGraph::replay: nothing captured");
  require_device(impl_->device);
  STRAND_CUDA_CHECK(cudaGraphLaunch(impl_->exec, stream(impl_->device)));
}

bool CudaGraph::captured() const { return impl_->exec != nullptr; }

size_t CudaGraph::node_count() const {
  if (impl_->graph == nullptr) return 0;
  size_t count = 0;
  STRAND_CUDA_CHECK(cudaGraphGetNodes(impl_->graph, nullptr, &count));
  return count;
}

}  // namespace strand::cuda
