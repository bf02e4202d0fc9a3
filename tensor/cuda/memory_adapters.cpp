// CUDA kernels of the primitive ops: fill, accumulate, copy: device-to-device copies with dtype
// conversion and any strides, and the host<->device copies (Tensor::to / copy_ dispatch CopyOp on
// the CUDA side for them).
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>

#include "kernels/cuda/check.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/memory.h"
#include "tensor/cuda/adapter_util.h"
#include "tensor/cuda/allocator.h"
#include "tensor/cuda/device.h"
#include "tensor/primitive_ops.h"

namespace strand::cuda {
namespace {

namespace k = kernels::cuda;

// Host buffers of in-flight asynchronous host-to-device copies from pinned memory: kept alive
// until the copy's event has completed (pageable sources are staged by the driver before
// cudaMemcpyAsync returns and need nothing).
struct PendingUpload {
  cudaEvent_t done;
  StoragePtr host;
};
std::mutex& pending_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::deque<PendingUpload>& pending() {
  static auto* list = new std::deque<PendingUpload>();
  return *list;
}
void retire_finished_uploads() {
  std::lock_guard lock(pending_mutex());
  while (!pending().empty()) {
    const cudaError_t status = cudaEventQuery(pending().front().done);
    if (status == cudaErrorNotReady) break;
    cudaEventDestroy(pending().front().done);
    pending().pop_front();
  }
}
void keep_alive_until_done(const StoragePtr& host, cudaStream_t s) {
  cudaEvent_t done = nullptr;
  STRAND_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  STRAND_CUDA_CHECK(cudaEventRecord(done, s));
  std::lock_guard lock(pending_mutex());
  pending().push_back({done, host});
}

void fill_cuda(Tensor& out, double value) {
  require_device(out.device());
  k::fill(out.dtype(), out.raw_data(), space_of(out.shape(), "fill"), strides_of(out.strides()),
          value, stream(out.device()));
}

// Makes `waiter`'s stream wait (on the device, not the host) for work queued so far on
// `producer`'s stream.
void order_after(Device waiter, Device producer) {
  cudaEvent_t done = nullptr;
  require_device(producer);
  STRAND_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  const cudaError_t recorded = cudaEventRecord(done, stream(producer));
  const cudaError_t waited =
      recorded == cudaSuccess ? cudaStreamWaitEvent(stream(waiter), done, 0) : recorded;
  cudaEventDestroy(done);  // released once the wait has been satisfied
  STRAND_CUDA_CHECK(waited);
}

void device_to_device(Tensor& out, const Tensor& source) {
  Tensor src = source;
  if (source.device() != out.device()) {
    // Another GPU: bring a contiguous copy over on out's stream, then convert there. The copy
    // must start after the source's producers (out's stream waits for source's), and the
    // temporary `contiguous` is freed on source's stream when this function returns, so that
    // stream must in turn wait for the copy: otherwise the pool could hand the block to a
    // new tensor on the source device while the peer copy still reads it.
    const Tensor contiguous = source.contiguous();
    src = Tensor::empty(source.shape(), source.dtype(), out.device());
    order_after(out.device(), source.device());
    require_device(out.device());
    STRAND_CUDA_CHECK(cudaMemcpyPeerAsync(
        src.raw_data(), out.device().index, contiguous.raw_data(), source.device().index,
        static_cast<size_t>(src.numel()) * dtype_size(src.dtype()), stream(out.device())));
    order_after(source.device(), out.device());
  }
  require_device(out.device());
  k::copy_convert(out.dtype(), out.raw_data(), strides_of(out.strides()), src.dtype(),
                  src.raw_data(), strides_of(src.strides()), space_of(out.shape(), "copy"),
                  stream(out.device()));
}

void host_to_device(Tensor& out, const Tensor& source) {
  const Device device = out.device();
  require_device(device);
  retire_finished_uploads();
  const cudaStream_t s = stream(device);
  const Tensor host = source.contiguous();  // CPU kernel when strided
  const size_t nbytes = static_cast<size_t>(host.numel()) * dtype_size(host.dtype());
  if (nbytes == 0) return;
  Tensor staging = out;
  const bool direct = out.is_contiguous() && out.dtype() == host.dtype();
  if (!direct) staging = Tensor::empty(host.shape(), host.dtype(), device);
  STRAND_CUDA_CHECK(
      cudaMemcpyAsync(staging.raw_data(), host.raw_data(), nbytes, cudaMemcpyHostToDevice, s));
  if (is_pinned(host.storage()->data())) keep_alive_until_done(host.storage(), s);
  if (!direct) {
    k::copy_convert(out.dtype(), out.raw_data(), strides_of(out.strides()), staging.dtype(),
                    staging.raw_data(), strides_of(staging.strides()),
                    space_of(out.shape(), "copy"), s);
  }
}

void device_to_host(Tensor& out, const Tensor& source) {
  const Device device = source.device();
  require_device(device);
  const cudaStream_t s = stream(device);
  Tensor packed = source;
  if (!source.is_contiguous() || source.dtype() != out.dtype()) {
    packed = Tensor::empty(source.shape(), out.dtype(), device);
    k::copy_convert(packed.dtype(), packed.raw_data(), strides_of(packed.strides()), source.dtype(),
                    source.raw_data(), strides_of(source.strides()),
                    space_of(source.shape(), "copy"), s);
  }
  const size_t nbytes = static_cast<size_t>(packed.numel()) * dtype_size(packed.dtype());
  if (nbytes == 0) return;
  Tensor landing = out.is_contiguous() ? out : Tensor::empty(out.shape(), out.dtype());
  STRAND_CUDA_CHECK(
      cudaMemcpyAsync(landing.raw_data(), packed.raw_data(), nbytes, cudaMemcpyDeviceToHost, s));
  count_host_sync();
  STRAND_CUDA_CHECK(cudaStreamSynchronize(s));  // the host reads it next
  if (!out.is_contiguous()) out.copy_(landing);
}

std::function<Tensor()> start_host_read_cuda(const Tensor& source) {
  const Device device = source.device();
  require_device(device);
  const cudaStream_t s = stream(device);
  const Tensor packed = source.contiguous();
  Tensor host = pinned_empty(source.shape(), source.dtype(), device);
  const size_t nbytes = static_cast<size_t>(packed.numel()) * dtype_size(packed.dtype());
  if (nbytes == 0) return [host] { return host; };
  STRAND_CUDA_CHECK(
      cudaMemcpyAsync(host.raw_data(), packed.raw_data(), nbytes, cudaMemcpyDeviceToHost, s));
  cudaEvent_t landed = nullptr;
  STRAND_CUDA_CHECK(cudaEventCreateWithFlags(&landed, cudaEventDisableTiming));
  // The event owns nothing but itself; `packed` is freed stream-ordered, after the copy.
  std::shared_ptr<std::remove_pointer_t<cudaEvent_t>> event(landed, [](cudaEvent_t e) {
    if (cudaEventDestroy(e) != cudaSuccess) cudaGetLastError();
  });
  STRAND_CUDA_CHECK(cudaEventRecord(landed, s));
  return [host, event] {
    count_host_sync();
    STRAND_CUDA_CHECK(cudaEventSynchronize(event.get()));
    return host;
  };
}

void copy_cuda(Tensor& out, const Tensor& source) {
  const bool out_cuda = out.device().is_cuda();
  const bool source_cuda = source.device().is_cuda();
  if (out_cuda && source_cuda) return device_to_device(out, source);
  if (out_cuda) return host_to_device(out, source);
  if (source_cuda) return device_to_host(out, source);
  STRAND_CHECK(false, "copy: the CUDA kernel was asked to copy {} into {}", source.describe(),
               out.describe());
}

void accumulate_cuda(Tensor& accumulator, const Tensor& addend) {
  require_device(accumulator.device());
  k::binary(accumulator.dtype(), k::Binary::kAdd, accumulator.raw_data(),
            strides_of(accumulator.strides()), addend.raw_data(), strides_of(addend.strides()),
            accumulator.raw_data(), strides_of(accumulator.strides()),
            space_of(accumulator.shape(), "accumulate"), stream(accumulator.device()));
}

}  // namespace
}  // namespace strand::cuda

namespace strand {
// Registered when the module is loaded, as every op family's CUDA adapters are.
STRAND_REGISTER_KERNELS(primitive_cuda) {
  OpKernels<FillOp>::register_kernel(DeviceType::kCUDA, cuda::fill_cuda);
  OpKernels<CopyOp>::register_kernel(DeviceType::kCUDA, cuda::copy_cuda);
  OpKernels<AccumulateOp>::register_kernel(DeviceType::kCUDA, cuda::accumulate_cuda);
  OpKernels<StartHostReadOp>::register_kernel(DeviceType::kCUDA, cuda::start_host_read_cuda);
}
}  // namespace strand
