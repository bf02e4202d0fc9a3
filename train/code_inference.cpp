// Forward passes over base codes for scoring (train/code_inference.h).
#include "train/code_inference.h"

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "train/evaluation.h"

namespace strand::train {

std::vector<Tensor> forward_codes(Model& model, const Tensor& codes,
                                  std::span<const OutputRequest> outputs, int64_t control_tracks) {
  STRAND_CHECK(codes.dim() == 2 && codes.dtype() == DType::kUInt8,
               "forward_codes: codes must be (B, L) uint8, got {}", codes.describe());
  const size_t available = model.output_names().size();
  for (const OutputRequest& request : outputs) {
    STRAND_CHECK(request.index < available, "forward_codes: the model has {} output(s), not {}",
                 available, request.index + 1);
  }
  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const Device device = model_device(model);
  ModelInputs inputs;
  inputs.sequence = Var(codes.to(device));
  if (control_tracks > 0) {
    inputs.tracks.emplace(kControlInput,
                          Var(Tensor::zeros({codes.size(0), control_tracks, codes.size(1)},
                                            DType::kFloat32, device)));
  }
  std::vector<Tensor> results;
  try {
    const std::vector<Var> values = model.forward_outputs(inputs);
    for (const OutputRequest& request : outputs) {
      const Var& value = values.at(request.index);
      const Var chosen = request.activated
                             ? apply_activation(model.output_activation(request.index), value)
                             : value;
      results.push_back(chosen.value().to(Device::cpu()).to(DType::kFloat32).contiguous());
    }
  } catch (...) {
    model.train(was_training);
    throw;
  }
  model.train(was_training);
  return results;
}

}  // namespace strand::train
