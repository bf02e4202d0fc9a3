// Model and optimizer construction from a RunConfig: the layer list becomes a Sequential
// (input channels inferred), checked against the input shape before any training.
#pragma once

#include <memory>
#include <vector>

#include "cli/run_config.h"
#include "layers/losses.h"
#include "layers/sequential.h"
#include "optim/optimizer.h"

namespace strand::cli {

/// Builds the model for base-code inputs of `length` bases, drawing weights from the default
/// generator (seed it first). Conv1D takes 4 channels on the sequence input, otherwise the
/// previous layer's channels; Dense takes the previous layer's features. Throws ConfigError
/// naming the layer ("model[3] (Dense): ...") when a layer cannot take its input.
std::shared_ptr<Sequential> build_model(const std::vector<LayerSpec>& layers, int64_t length);

/// An optimizer over the model's trainable parameters.
std::unique_ptr<Optimizer> build_optimizer(const OptimizerConfig& config, Sequential& model);

std::unique_ptr<Loss> build_loss(const std::string& name);

/// Freezes the parameters of the listed layers (fine-tuning).
void freeze_layers(Sequential& model, const std::vector<int64_t>& indices);

}  // namespace strand::cli
