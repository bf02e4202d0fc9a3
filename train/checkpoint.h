// Checkpoints in safetensors: model parameters under their dotted names ("0.weight"),
// optimizer state under "optimizer.<key>", and training position (epoch, step, ...) in the
// string metadata. Written atomically (temp file, fsync, rename). A PyTorch user loads the
// weights with safetensors.torch.load_file (scripts/check_checkpoint.py shows it).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "layers/module.h"
#include "optim/optimizer.h"

namespace strand::train {

using CheckpointMetadata = std::map<std::string, std::string>;

/// Saves the model's parameters, and the optimizer's state when given.
void save_checkpoint(const std::filesystem::path& path, const Module& model,
                     const Optimizer* optimizer, const CheckpointMetadata& metadata);

/// Loads parameters into `model` (every parameter must be present with its shape; names the
/// missing or mismatched tensor otherwise) and, when given, the optimizer state. A tensor that
/// holds NaN or infinity is refused, naming it. Nothing changes unless everything loads.
/// Returns the metadata.
CheckpointMetadata load_checkpoint(const std::filesystem::path& path, Module& model,
                                   Optimizer* optimizer = nullptr);

/// Reads only the metadata.
CheckpointMetadata read_checkpoint_metadata(const std::filesystem::path& path);

}  // namespace strand::train
