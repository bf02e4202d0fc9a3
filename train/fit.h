// The training loop: fit, evaluate, predict over data::DataLoader batches.
#pragma once

#include <memory>
#include <vector>

#include "data/data_loader.h"
#include "layers/losses.h"
#include "layers/sequential.h"
#include "optim/optimizer.h"
#include "train/callback.h"

namespace strand::train {

struct FitOptions {
  int64_t epochs = 100;
  /// Where training starts (resume): epochs before it are considered done.
  int64_t initial_epoch = 0;
  int64_t initial_global_step = 0;
};

struct History {
  std::vector<EpochLogs> epochs;
  bool stopped_early = false;
  double seconds = 0.0;
};

struct Evaluation {
  double loss = 0.0;
  double accuracy = 0.0;
  double auroc = 0.0;
  double auprc = 0.0;
  int64_t count = 0;  // labelled examples (first task)
};

/// Trains `model` for options.epochs epochs (or until a callback stops it). The loader's
/// epoch plan, and so the shuffling, is a function of its seed and the epoch number. When the
/// model ends in Sigmoid and the loss takes logits, the Sigmoid is skipped during training so
/// the loss stays numerically stable. Validation (if given) runs after every epoch.
History fit(Sequential& model, const Loss& loss, Optimizer& optimizer, data::DataLoader& train,
            data::DataLoader* validation, const FitOptions& options,
            const std::vector<std::shared_ptr<Callback>>& callbacks = {});

/// Loss, accuracy, auROC and auPRC (first target) over one pass of `loader` (epoch 0 plan).
Evaluation evaluate(Sequential& model, const Loss& loss, data::DataLoader& loader);

struct Predictions {
  std::vector<int64_t> sample_index;  // (N) row of the source each prediction belongs to
  std::vector<float> scores;          // (N, T) model outputs (probabilities for Sigmoid models)
  std::vector<float> labels;          // (N, T)
  int64_t num_targets = 0;
};
Predictions predict(Sequential& model, data::DataLoader& loader);

/// The model's training-time output: logits when the model ends in Sigmoid and the loss takes
/// logits, else the full forward.
Var training_output(Sequential& model, const Loss& loss, const Var& input);

}  // namespace strand::train
