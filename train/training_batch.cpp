// Wraps a loader batch's arrays as tensors.
#include "train/training_batch.h"

#include <memory>

namespace strand::train {

namespace {

// The profile (B, S, Lp) and control (B, Sc, L) arrays of `batch`, when it has them, as views.
template <typename Keep>
void add_signal_tensors(const data::Batch& batch, const Keep& keep, TrainingBatch& out) {
  if (batch.profile != nullptr) {
    out.profile =
        Tensor::from_blob(batch.profile, {batch.size, batch.profile_tracks, batch.profile_length},
                          DType::kFloat32, Device::cpu(), keep);
  }
  if (batch.control != nullptr) {
    out.control = Tensor::from_blob(batch.control, {batch.size, batch.control_tracks, batch.length},
                                    DType::kFloat32, Device::cpu(), keep);
  }
}

}  // namespace

TrainingBatch as_tensors(const data::Batch& batch) {
  // Each tensor holds a reference to the batch's single allocation.
  auto keep = [storage = batch.storage](void*) { (void)storage; };
  TrainingBatch out;
  out.size = batch.size;
  out.codes = Tensor::from_blob(batch.codes, {batch.size, batch.length}, DType::kUInt8,
                                Device::cpu(), keep);
  out.labels = Tensor::from_blob(batch.labels, {batch.size, batch.num_targets}, DType::kFloat32,
                                 Device::cpu(), keep);
  const Tensor mask = Tensor::from_blob(batch.label_mask, {batch.size, batch.num_targets},
                                        DType::kUInt8, Device::cpu(), keep);
  out.label_mask = mask.to(DType::kFloat32);
  add_signal_tensors(batch, keep, out);
  return out;
}

TrainingBatch as_device_tensors(const data::Batch& batch, Device device) {
  if (device.is_cpu()) return as_tensors(batch);
  auto keep = [storage = batch.storage](void*) { (void)storage; };
  const Shape targets{batch.size, batch.num_targets};
  TrainingBatch out;
  out.size = batch.size;
  out.codes =
      Tensor::from_blob(batch.codes, {batch.size, batch.length}, DType::kUInt8, Device::cpu(), keep)
          .to(device);
  out.labels =
      Tensor::from_blob(batch.labels, targets, DType::kFloat32, Device::cpu(), keep).to(device);
  out.label_mask = Tensor::from_blob(batch.label_mask, targets, DType::kUInt8, Device::cpu(), keep)
                       .to(device)
                       .to(DType::kFloat32);
  add_signal_tensors(batch, keep, out);
  if (out.profile.defined()) out.profile = out.profile.to(device);
  if (out.control.defined()) out.control = out.control.to(device);
  return out;
}

TrainingBatch TrainingBatch::to(Device device) const {
  if (codes.device() == device) return *this;
  TrainingBatch out = *this;
  out.codes = codes.to(device);
  out.labels = labels.to(device);
  out.label_mask = label_mask.to(device);
  if (profile.defined()) out.profile = profile.to(device);
  if (control.defined()) out.control = control.to(device);
  return out;
}

ModelInputs TrainingBatch::inputs() const {
  ModelInputs out;
  out.sequence = Var(codes);
  if (control.defined()) out.tracks[kControlInput] = Var(control);
  return out;
}

}  // namespace strand::train
