// The training step captured into a CUDA graph and replayed (graph_step.h).
#include "train/graph_step.h"

#include <utility>

#include "tensor/cuda_runtime.h"

namespace strand::train {

struct CudaGraphStep::Impl {
  Device device;
  Optimizer* optimizer = nullptr;
  Body body;
  TrainingBatch inputs;  // the fixed device buffers; undefined until the first batch
  Tensor loss;           // () the step's loss, on the device
  bool warmed_up = false;
  int64_t replays = 0;
  std::unique_ptr<CapturedGraph> graph;
};

namespace {

Shape codes_shape(const data::Batch& b) { return {b.size, b.length}; }
Shape targets_shape(const data::Batch& b) { return {b.size, b.num_targets}; }
Shape profile_shape(const data::Batch& b) { return {b.size, b.profile_tracks, b.profile_length}; }
Shape control_shape(const data::Batch& b) { return {b.size, b.control_tracks, b.length}; }

// Whether a buffer (defined or not) matches an array of the batch (present or not).
bool matches(const Tensor& buffer, bool present, const Shape& shape) {
  if (!buffer.defined() || !present) return buffer.defined() == present;
  return buffer.shape() == shape;
}

// A view of one of the batch's arrays that keeps the whole batch alive (the asynchronous copy
// from pinned memory holds it until the copy has landed).
Tensor host_view(const data::Batch& batch, void* data, const Shape& shape, DType dtype) {
  auto keep = [storage = batch.storage](void*) { (void)storage; };
  return Tensor::from_blob(data, shape, dtype, Device::cpu(), keep);
}

}  // namespace

CudaGraphStep::CudaGraphStep(Device device, Optimizer& optimizer, Body body)
    : impl_(std::make_unique<Impl>()) {
  STRAND_CHECK(device.is_cuda(), "fit: CUDA graph steps need a CUDA device, got {}",
               device.to_string());
  cuda_runtime();  // the CUDA module, or an error naming what is missing
  impl_->device = device;
  impl_->optimizer = &optimizer;
  impl_->body = std::move(body);
}

CudaGraphStep::~CudaGraphStep() = default;

bool CudaGraphStep::shapes_fixed() const { return impl_->inputs.codes.defined(); }

bool CudaGraphStep::fits(const data::Batch& batch) const {
  const TrainingBatch& in = impl_->inputs;
  if (!in.codes.defined()) return true;
  return in.size == batch.size && matches(in.codes, true, codes_shape(batch)) &&
         matches(in.labels, true, targets_shape(batch)) &&
         matches(in.profile, batch.profile != nullptr, profile_shape(batch)) &&
         matches(in.control, batch.control != nullptr, control_shape(batch));
}

const Tensor& CudaGraphStep::run(const data::Batch& batch) {
  Impl& s = *impl_;
  const Device device = s.device;
  if (!s.inputs.codes.defined()) {
    s.inputs.size = batch.size;
    s.inputs.codes = Tensor::empty(codes_shape(batch), DType::kUInt8, device);
    s.inputs.labels = Tensor::empty(targets_shape(batch), DType::kFloat32, device);
    s.inputs.label_mask = Tensor::empty(targets_shape(batch), DType::kFloat32, device);
    if (batch.profile != nullptr) {
      s.inputs.profile = Tensor::empty(profile_shape(batch), DType::kFloat32, device);
    }
    if (batch.control != nullptr) {
      s.inputs.control = Tensor::empty(control_shape(batch), DType::kFloat32, device);
    }
  }
  STRAND_CHECK(fits(batch), "fit: a batch of {} examples does not fit the CUDA graph's buffers",
               batch.size);
  // Asynchronous copies from the batch's pinned memory, queued before the step on the same
  // stream (so after the previous replay has read the buffers). The uint8 mask is converted
  // to float32 on the device.
  s.inputs.codes.copy_(host_view(batch, batch.codes, codes_shape(batch), DType::kUInt8));
  s.inputs.labels.copy_(host_view(batch, batch.labels, targets_shape(batch), DType::kFloat32));
  s.inputs.label_mask.copy_(
      host_view(batch, batch.label_mask, targets_shape(batch), DType::kUInt8));
  if (batch.profile != nullptr) {
    s.inputs.profile.copy_(host_view(batch, batch.profile, profile_shape(batch), DType::kFloat32));
  }
  if (batch.control != nullptr) {
    s.inputs.control.copy_(host_view(batch, batch.control, control_shape(batch), DType::kFloat32));
  }
  if (!s.warmed_up) {
    s.body(s.inputs, s.loss);  // eager: everything the capture will use comes to exist
    s.warmed_up = true;
    return s.loss;
  }
  if (s.graph == nullptr) {
    std::unique_ptr<CapturedGraph> graph = cuda_runtime().make_graph(device);
    try {
      // The capture records the step without running it; its optimizer.step() counts the
      // replay below on the host.
      graph->capture([&] { s.body(s.inputs, s.loss); });
    } catch (const Error& error) {
      throw Error(fmt::format(
          "fit: capturing the training step into a CUDA graph failed: {}; train eagerly "
          "instead with FitOptions::cuda_graph = false (strand train --no-cuda-graph)",
          error.what()));
    }
    s.graph = std::move(graph);
  } else {
    s.optimizer->count_replayed_step();
  }
  s.graph->replay();
  ++s.replays;
  return s.loss;
}

bool CudaGraphStep::captured() const { return impl_->graph != nullptr; }

int64_t CudaGraphStep::replays() const { return impl_->replays; }

}  // namespace strand::train
