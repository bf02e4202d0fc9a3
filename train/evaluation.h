// evaluate(): a model's loss and metrics over one pass of a loader. Each term of the objective is
// scored by its target kind: binary labels by accuracy, auROC and auPRC (pooled over tasks, per
// task and their mean), real-valued targets by Pearson and Spearman correlations, categorical
// ones by accuracy, profiles by the mean per-profile Pearson correlation.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/loader/data_loader.h"
#include "dist/distributed_strategy.h"
#include "layers/model.h"
#include "train/objective.h"

namespace strand::train {

/// What evaluate() returns.
struct Evaluation {
  /// Every figure by key. "loss" is the objective (the weighted sum of the terms' mean losses).
  /// A model with one loss term has its metrics unprefixed; with several, each term's keys start
  /// with its output's name and '_' ("profile_loss", "counts_pearson"). The metrics of a term:
  ///   binary labels:  accuracy, auroc, auprc (pooled over tasks), mean_auroc, mean_auprc
  ///                   (means over tasks), and with several tasks auroc/<task>, auprc/<task>;
  ///   real targets:   pearson, spearman (pooled), mean_pearson, mean_spearman, and with several
  ///                   tasks pearson/<task>, spearman/<task>;
  ///   categorical:    accuracy;
  ///   profiles:       pearson (the mean over profiles of each one's correlation).
  std::map<std::string, double> values;
  /// The first binary term's figures (NaN without one), as values holds them.
  double loss = 0.0;
  double accuracy = 0.0;
  double auroc = 0.0;
  double auprc = 0.0;
  /// The first binary term's labelled examples.
  int64_t count = 0;

  /// values[key]; throws naming the keys there are.
  double get(const std::string& key) const;
};

/// The objective and metrics over one pass of `loader` (its epoch 0 plan), in evaluation mode
/// without gradients (the model's mode is restored). With a strategy, over the union of every
/// rank's shard (the same result on every rank). Task names come from the loader's source.
Evaluation evaluate(Model& model, const Objective& objective, data::DataLoader& loader,
                    dist::DistributedStrategy* strategy = nullptr);

/// The keys of Evaluation::values that evaluate() reports for `objective` on `model`, when the
/// labels' tasks are `task_names` and the outputs' per-sample shapes `output_shapes`, in the
/// order of the terms ("loss" first; per term its loss when there are several, then its
/// metrics: pooled, means, per task). What early stopping may monitor, with "val_" before it.
std::vector<std::string> evaluation_keys(const Model& model, const Objective& objective,
                                         const std::vector<std::string>& task_names,
                                         const std::vector<Shape>& output_shapes);

/// evaluate() of the single-output objective Objective::of(loss).
Evaluation evaluate(Model& model, const Loss& loss, data::DataLoader& loader,
                    dist::DistributedStrategy* strategy = nullptr);

/// Where the model's parameters live (the CPU for a model without parameters).
Device model_device(const Module& model);

}  // namespace strand::train
