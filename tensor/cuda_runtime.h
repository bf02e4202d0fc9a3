// CudaRuntime: what code outside the CUDA backend module asks of CUDA (whether a device is
// usable, pinned host memory for the data loader, synchronisation, CUDA graphs), as an
// interface that libstrand_cuda.so implements and registers when it is loaded
// (tensor/backend.h). The CLI, train/ and dist/ call only this, so no CUDA header and no CUDA
// library is needed outside the module.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "tensor/conv_plan_table.h"

namespace strand {

/// A sequence of device work recorded once and replayed with one launch (a CUDA graph). The
/// rules for the recorded work are the module's (tensor/cuda/graph.h).
class CapturedGraph {
 public:
  virtual ~CapturedGraph() = default;
  /// Runs `work` under stream capture and instantiates the graph (replacing any earlier one).
  virtual void capture(const std::function<void()>& work) = 0;
  /// Launches the captured graph (asynchronous).
  virtual void replay() = 0;
  /// Whether a graph has been captured.
  virtual bool captured() const = 0;
  /// Kernel, copy and memory nodes of the captured graph.
  virtual size_t node_count() const = 0;
};

/// A device's memory as the CUDA runtime reports it (cudaMemGetInfo). Blocks that strand's
/// caching allocator keeps for reuse count as used.
struct DeviceMemory {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
};

/// The CUDA backend's runtime, as the module registers it.
class CudaRuntime {
 public:
  virtual ~CudaRuntime() = default;
  /// Whether the CUDA runtime sees at least one device (never throws).
  virtual bool available() = 0;
  /// Why no device is usable ("cudaGetDeviceCount: <error text>"); empty when one is.
  virtual std::string unavailability_reason() = 0;
  /// Usable devices (0 without a driver or device; never throws).
  virtual int device_count() = 0;
  /// Page-locked host memory of at least `nbytes` for copies to and from `device`, aligned for
  /// any element type; the calling thread's current device is left as it was.
  virtual void* pinned_allocate(size_t nbytes, Device device) = 0;
  /// Returns memory from pinned_allocate (the same size).
  virtual void pinned_release(void* pointer, size_t nbytes) = 0;
  /// Blocks until every queued kernel and copy of `device` has finished.
  virtual void synchronize(Device device) = 0;
  /// A graph that captures work queued on `device`'s stream.
  virtual std::unique_ptr<CapturedGraph> make_graph(Device device) = 0;
  /// Free and total memory of `device`.
  virtual DeviceMemory memory(Device device) = 0;

  /// Batch sizes this process will run besides the one a Conv1D shape is first met with (a
  /// training run's last, smaller batch; its validation and test batches): the conv engine
  /// then chooses and plans each new shape at these sizes too, right away (in fit()'s warm-up
  /// step), so that no choice is timed later. `backward`: these sizes also run the backward
  /// passes (training batches); else only the forward. Adds to the sizes already given.
  virtual void plan_conv_batch_sizes(const std::vector<int64_t>& sizes, bool backward) = 0;
  /// The conv engine's choices and cuDNN algorithms so far (those adopted included), with the
  /// identity (name, cuDNN version) of `device`.
  virtual ConvPlanTable conv_plans(Device device) = 0;
  /// Adopts `plans` when they were made on a device like `device` (the same name and cuDNN
  /// version): later calls of those shapes skip their timed choice and cuDNN's algorithm
  /// search. Returns an empty string, or why the plans were not adopted.
  virtual std::string adopt_conv_plans(const ConvPlanTable& plans, Device device) = 0;
};

/// The CUDA runtime: loads the backend module on the first call (ensure_backend) and throws
/// strand::Error naming what is missing when it cannot.
CudaRuntime& cuda_runtime();

/// Whether a CUDA device is usable: the module loads and sees a device. Loads the module on the
/// first call; never throws.
bool cuda_usable();
/// Why not: the module's load error, or the runtime's reason; empty when a device is usable.
std::string cuda_unusable_reason();

/// Called by the module's entry point with its runtime (which lives to the end of the process).
void register_cuda_runtime(CudaRuntime* runtime);

}  // namespace strand
