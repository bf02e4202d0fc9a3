// Bias-factorized models (ChromBPNet): a trained bias model, frozen, whose profile logits are
// added to the accessibility model's and whose log counts are combined with the accessibility
// model's by log-sum-exp, so that the enzyme's sequence preference (Tn5, DNase I) is explained by
// the bias model and the accessibility model learns the rest. A run of such a model keeps a copy
// of its bias run in <run>/bias_model/ (config.json and checkpoints/best.safetensors), and its
// own checkpoint holds both parts' weights (the bias model's as "bias_<node>.<name>"), so the
// run is self-contained; scoring commands open the accessibility model alone with --no-bias.
#pragma once

#include <filesystem>
#include <memory>

#include "app/model_spec.h"
#include "app/run_config.h"
#include "layers/graph.h"
#include "layers/model.h"

namespace strand::app {

/// The prefix of the bias model's nodes in a combined model.
inline constexpr char kBiasNodePrefix[] = "bias_";

/// The model `accessibility` with the bias model `bias` added, sharing both models' layers: the
/// bias model's nodes renamed bias_<node> and frozen; per output of `accessibility`, the bias
/// model's output of the same name combined with it: a Softmax output's logits added
/// (<output>_logits_with_bias, then the Softmax <output>_with_bias), an output without final
/// activation (log counts) by LogSumExp (<output>_with_bias). Outputs keep their names and
/// order. Throws ConfigError naming `key` when the bias model lacks an output, gives it in
/// another shape for `data`, or an output has another final activation.
std::shared_ptr<Graph> add_bias(const Graph& accessibility, const Graph& bias,
                                const DataDimensions& data, const std::string& key);

/// The bias run a model of `config` uses: `run_dir`/bias_model when the run keeps a copy, else
/// config.bias_model; empty when the config has none.
std::filesystem::path bias_run_directory(const RunConfig& config,
                                         const std::filesystem::path& run_dir);

/// Copies the bias run of config.bias_model (its config.json and best checkpoint, else its
/// last) into `run_dir`/bias_model/, each file written atomically. Does nothing without one.
void keep_bias_run(const RunConfig& config, const std::filesystem::path& run_dir);

/// The model a run of `config` trains and scores for `data`: config.model, and when
/// config.bias_model is set (bias_run_directory() of `run_dir`), that trained bias model added
/// (add_bias()) with its weights loaded. `accessibility`, when given, receives config.model's
/// part alone (the same layers; the model itself without a bias model). Throws ConfigError
/// naming bias_model when the bias run cannot be opened or does not fit, or when the chrombpnet
/// preset has no bias model.
std::shared_ptr<Model> build_run_model(const RunConfig& config, const DataDimensions& data,
                                       const std::filesystem::path& run_dir = {},
                                       std::shared_ptr<Model>* accessibility = nullptr);

}  // namespace strand::app
