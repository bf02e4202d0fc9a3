// The CUDA conv engine's plans in a file (tensor/conv_plan_table.h): what it chose per shape
// (strand's kernel or cuDNN, with the measured times) and cuDNN's algorithm per pass. `strand
// train` keeps them in the run directory (cuda_plans.json), so that a resumed or repeated run on
// the same GPU and cuDNN skips the timed choices and cuDNN's search. A file that cannot be read,
// is not a plan file, or was written on another GPU or cuDNN is ignored with a warning: plans
// are a speed-up, never a reason for a run to fail.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/device.h"
#include "train/callback.h"

namespace strand::train {

/// Hands the plans of `path` to the conv engine of `device` (a CUDA device). Returns a warning
/// naming the file and why it was ignored (unreadable, not a plan file, made on another GPU or
/// cuDNN), or an empty string (adopted, or no file). Loads the CUDA module.
std::string load_cuda_plans(const std::filesystem::path& path, Device device);

/// Writes the conv engine's plans for `device` to `path` (atomically); returns how many
/// choices and algorithms it wrote. Loads the CUDA module.
int64_t save_cuda_plans(const std::filesystem::path& path, Device device);

/// Saves the plans to a file after every epoch that added some (the first, where the warm-up
/// made them, in practice), and when training ends or is interrupted.
class CudaPlanSaver : public Callback {
 public:
  CudaPlanSaver(std::filesystem::path path, Device device);
  void on_epoch_end(FitContext& context, const EpochLogs& logs) override;
  void on_train_end(FitContext& context) override;
  void on_train_interrupted(FitContext& context, const PartialEpoch& partial) override;

 private:
  void save_if_grown();

  std::filesystem::path path_;
  Device device_;
  int64_t saved_ = -1;  // entries in the file as last written
};

}  // namespace strand::train
