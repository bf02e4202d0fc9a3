// The training loop: fit and predict over data::DataLoader batches (evaluate: train/evaluation.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "data/loader/data_loader.h"
#include "dist/distributed_strategy.h"
#include "layers/losses.h"
#include "layers/model.h"
#include "optim/optimizer.h"
#include "train/callback.h"
#include "train/evaluation.h"
#include "train/objective.h"

namespace strand::train {

/// fit()'s data-parallel hooks (declared in dist/, which implements them).
using dist::DistributedStrategy;

/// The training loss stopped being finite (on any rank: all ranks throw it together).
class TrainingDiverged : public Error {
 public:
  using Error::Error;
};

/// Settings of fit().
struct FitOptions {
  /// The total number of epochs, counted from 0: a resume runs initial_epoch .. epochs - 1.
  int64_t epochs = 100;
  /// Where training starts (resume): epochs before it are considered done.
  int64_t initial_epoch = 0;
  /// Optimizer steps already taken before `initial_epoch` (resume); global_step counts on from it.
  int64_t initial_global_step = 0;
  /// Data-parallel training (not owned; null: single process). Every rank calls fit() with
  /// its own shard of the training and validation data and the same number of steps.
  DistributedStrategy* strategy = nullptr;
  /// Asked before every step (e.g. "has SIGTERM arrived?"); true stops training there: the
  /// callbacks get on_train_interrupted() and fit() returns with History::interrupted set.
  /// With a strategy, ranks agree through the loss all-gather of each step, so every rank
  /// stops before the same step (one step after the first rank that asked).
  std::function<bool()> should_stop;
  /// The part of `initial_epoch` already trained (resuming a checkpoint written mid-epoch):
  /// its steps are skipped and its figures count in the epoch's logs. Its epoch and
  /// global_step must equal initial_epoch and initial_global_step.
  std::optional<PartialEpoch> partial_epoch;
  /// > 0: gradients are clipped to this global L2 norm before every update (clip_grad_norm).
  double clip_grad_norm = 0.0;
  /// > 0: after every update each weight matrix or filter bank (parameters of 2+ dimensions)
  /// has its output units' norms capped at this (apply_max_norm; Basset uses 7).
  double max_weight_norm = 0.0;
  /// Single-GPU training (a model on a CUDA device, no strategy) replays each step from a
  /// CUDA graph (train/graph_step.h): the first full batch runs eagerly as the warm-up, the
  /// second is captured, later ones of the same shapes replay it; other batches (an epoch's
  /// smaller last one) run eagerly. Gradients are then zeroed in place rather than dropped,
  /// and callbacks must change parameters in place (never replace their tensors) during
  /// training. false: every step runs eagerly. Ignored on the CPU and with a strategy.
  bool cuda_graph = true;
};

/// What fit() returns.
struct History {
  /// The logs of every epoch this call trained, in order.
  std::vector<EpochLogs> epochs;
  /// A callback set FitContext::stop_training.
  bool stopped_early = false;
  /// Set when FitOptions::should_stop ended training: where it stopped.
  std::optional<PartialEpoch> interrupted;
  /// Wall-clock duration of the call.
  double seconds = 0.0;
  /// Steps run from a CUDA graph (FitOptions::cuda_graph); the rest ran eagerly.
  int64_t replayed_steps = 0;
};

/// Trains `model` for options.epochs epochs (or until a callback stops it), minimising
/// `objective` (its terms bind the model's outputs to losses and batch targets). The loader's
/// epoch plan, and so the shuffling, is a function of its seed and the epoch number. A loss
/// that applies its output's final activation itself (BCE from logits after a Sigmoid) trains
/// on what comes before it, so it stays numerically stable. Validation (if given) runs after
/// every epoch; its figures are logged with a "val_" prefix (see Evaluation::values).
History fit(Model& model, const Objective& objective, Optimizer& optimizer, data::DataLoader& train,
            data::DataLoader* validation, const FitOptions& options,
            const std::vector<std::shared_ptr<Callback>>& callbacks = {});

/// fit() of the single-output objective Objective::of(loss).
History fit(Model& model, const Loss& loss, Optimizer& optimizer, data::DataLoader& train,
            data::DataLoader* validation, const FitOptions& options,
            const std::vector<std::shared_ptr<Callback>>& callbacks = {});

/// What predict() returns: N examples, T targets, row-major.
struct Predictions {
  /// (N) the row of the source each prediction belongs to.
  std::vector<int64_t> sample_index;
  /// (N, T) model outputs (probabilities for Sigmoid models).
  std::vector<float> scores;
  /// (N, T) the labels as the loader gave them.
  std::vector<float> labels;
  /// T, the model's output width.
  int64_t num_targets = 0;
};

/// The predictions of `model`'s output `output` (through its final activation; in evaluation
/// mode, without gradients) over one pass of `loader` (epoch 0 plan). An output of more than
/// two dimensions (a profile, (B, S, L)) is flattened per example to S x L scores. Throws Error
/// when the model has no such output.
Predictions predict(Model& model, data::DataLoader& loader, size_t output = 0);

/// One batch of predict_batches(): `rows` rows of `targets` scores (row-major, as predict()'s),
/// each row's sample, and the labels (rows, labels) as the loader gave them.
struct PredictionBatch {
  const float* scores = nullptr;
  const int64_t* sample_index = nullptr;
  const float* labels = nullptr;
  int64_t rows = 0;
  int64_t targets = 0;
  int64_t labels_per_row = 0;
};

/// predict()'s pass, each batch handed to `consume` as it is scored instead of kept: memory
/// does not grow with the number of samples (strand predict writes its rows as they come).
void predict_batches(Model& model, data::DataLoader& loader, size_t output,
                     const std::function<void(const PredictionBatch&)>& consume);

}  // namespace strand::train
