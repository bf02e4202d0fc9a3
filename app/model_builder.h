// Model, objective and optimizer construction from a RunConfig: a layer list becomes a
// Sequential, a graph a Graph, each layer checked against its input's shape before any training
// (errors name the layer or node), data-size names in layer options resolved from the data, and
// the outputs checked against the targets they train on.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/run_config.h"
#include "data/sources/sequence_source.h"
#include "layers/losses.h"
#include "layers/model.h"
#include "layers/sequential.h"
#include "optim/optimizer.h"
#include "train/checkpoint.h"
#include "train/objective.h"

namespace strand::app {

/// The sizes of `source`'s data: window, tasks, profile and control tracks.
DataDimensions data_dimensions(const data::SequenceSource& source);

/// The per-sample input shapes of data of `data`'s sizes: the sequence as base codes {L}, and a
/// control track {Sc, L} when the data has one.
InputShapes input_shapes(const DataDimensions& data);

/// Builds the model for `data`, drawing weights from the default generator (seed it first).
/// Conv1D takes 4 channels on the sequence, otherwise its input's channels; Dense takes its
/// input's features. Throws ConfigError naming the layer ("model[3] (Dense): ...") or node
/// ("model.nodes[5] 'counts' (Dense): ...") when a layer cannot take its input.
std::shared_ptr<Model> build_model(const ModelSpec& spec, const DataDimensions& data);

/// A layer list as a Sequential (build_model() of a list).
std::shared_ptr<Sequential> build_sequential(const std::vector<LayerSpec>& layers,
                                             const DataDimensions& data);

/// A loss by name (loss_names()).
std::shared_ptr<Loss> build_loss(const std::string& name);

/// What training minimises: for a layer list, `config.loss` on the labels; for a graph, each
/// output's loss, target and weight (an "auto" weight is `auto_weight`). Checks that every
/// output ends in the activation its loss applies and has its target's shape for `data`
/// (labels (T), profile (S, Lp), log_counts (S), log_total_counts (1)), naming the output.
train::Objective build_objective(const RunConfig& config, const Model& model,
                                 const DataDimensions& data, double auto_weight = 1.0);

/// Whether some output of the model has an "auto" weight (BPNet's counts loss).
bool needs_auto_weight(const ModelSpec& spec);

/// An optimizer over the model's trainable parameters.
std::unique_ptr<Optimizer> build_optimizer(const OptimizerConfig& config, Model& model);

/// What a checkpoint records of the data a model was built for: its sizes
/// ("model.data.length", ".tasks", ".profile_tracks", ".profile_length", ".control_tracks") and
/// task names ("model.task_names", a JSON list).
train::CheckpointMetadata model_checkpoint_metadata(const DataDimensions& data,
                                                    const std::vector<std::string>& task_names);

/// The data sizes a checkpoint records (model_checkpoint_metadata()), or nullopt for a
/// checkpoint written before they were recorded. Throws ConfigError naming `path` for a
/// malformed value.
std::optional<DataDimensions> checkpoint_dimensions(const train::CheckpointMetadata& metadata,
                                                    const std::string& path);

/// The task names a checkpoint records, or an empty list.
std::vector<std::string> checkpoint_task_names(const train::CheckpointMetadata& metadata);

/// Freezes the parameters of the listed layers (a list's indices, or a graph's node indices).
void freeze_layers(Model& model, const std::vector<int64_t>& indices);

}  // namespace strand::app
