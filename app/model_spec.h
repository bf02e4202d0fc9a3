// ModelSpec: the `model` of a `strand train` config. Either a list of layers (a Sequential, the
// shorthand) or a graph: named nodes, each a layer of the catalog reading earlier nodes or the
// model's inputs ("sequence", "control"), and named outputs, each with its loss, target and
// weight. Integer layer options may name a size of the data instead of a number ("tasks",
// "length", "profile_tracks", "profile_length", "control_tracks"), so that one description (a
// preset) adapts to the data it trains on.
//
//   "model": [{"type": "Conv1D", "filters": 16, "kernel_size": 15}, {"type": "ReLU"}, ...]
//
//   "model": {
//     "nodes": [
//       {"name": "conv", "type": "Conv1D", "filters": 64, "kernel_size": 21, "padding": "same"},
//       {"name": "relu", "type": "ReLU"},                      // reads the node before it
//       {"name": "body", "type": "Conv1D", "filters": 64, "kernel_size": 3, "dilation": 2,
//        "padding": "same"},
//       {"name": "block", "type": "Add", "inputs": ["relu", "body"]},
//       ...],
//     "outputs": [
//       {"name": "profile", "node": "profile", "loss": "multinomial_nll", "target": "profile"},
//       {"name": "counts", "node": "counts", "loss": "mse", "target": "log_total_counts",
//        "weight": "auto"}]}
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "layers/layer_catalog.h"

namespace strand::app {

/// One layer: a type of the layer catalog (layers/layer_catalog.h) and its options, complete
/// (every default filled in). An integer option may hold a data size's name (model_symbols()).
struct LayerSpec {
  std::string type;
  LayerOptions options;
  bool operator==(const LayerSpec&) const = default;
};

/// One node of a graph model.
struct NodeSpec {
  std::string name;
  LayerSpec layer;
  /// Earlier nodes or model inputs; a file may leave it out: the node before ("sequence" for
  /// the first).
  std::vector<std::string> inputs;
  bool operator==(const NodeSpec&) const = default;
};

/// One output of a graph model and how it is trained.
struct OutputSpec {
  std::string name;
  std::string node;
  std::string loss = "binary_crossentropy";  ///< one of loss_names()
  std::string target = "labels";             ///< labels, profile, log_counts, log_total_counts
  double weight = 1.0;                       ///< > 0
  /// "weight": "auto": the median over training windows of the total profile counts, / 10
  /// (BPNet's and chrombpnet's lambda for the counts loss).
  bool auto_weight = false;
  bool operator==(const OutputSpec&) const = default;
};

/// The model: layers in order (a Sequential), or a graph of nodes with outputs.
struct ModelSpec {
  std::vector<LayerSpec> layers;
  std::vector<NodeSpec> nodes;
  std::vector<OutputSpec> outputs;
  /// Whether the model is a graph (nodes and outputs) rather than a layer list.
  bool graph() const { return !nodes.empty(); }
  /// The layer entries in order: the list's, or the nodes' layers.
  std::vector<LayerSpec> all_layers() const;
  bool operator==(const ModelSpec&) const = default;
};

/// The data sizes an integer layer option may name instead of a number.
struct DataDimensions {
  int64_t length = 0;          ///< "length": L, bases per input window
  int64_t tasks = 0;           ///< "tasks": T, label columns (or count tracks)
  int64_t profile_tracks = 0;  ///< "profile_tracks": S
  int64_t profile_length = 0;  ///< "profile_length": Lp
  int64_t control_tracks = 0;  ///< "control_tracks": Sc
};

/// "length", "tasks", "profile_tracks", "profile_length", "control_tracks".
const std::vector<std::string>& model_symbols();

/// The value `symbol` names for `data`: a size's name, optionally plus or minus an integer
/// ("profile_length+74": the profile window and a width-75 kernel's margin). Throws ConfigError
/// naming `path` when the data has no such size (0: e.g. "profile_tracks" without profile
/// bigWigs) or the value is below 1.
int64_t symbol_value(const std::string& symbol, const DataDimensions& data,
                     const std::string& path);

/// The layer's options with every data size's name replaced by its value.
LayerOptions resolve_symbols(const LayerSpec& layer, const DataDimensions& data,
                             const std::string& path);

/// The loss names a model may train with: binary_crossentropy, mse, poisson,
/// categorical_crossentropy, multinomial_nll.
const std::vector<std::string>& loss_names();

/// Parses a model: a non-empty list of layer entries, or an object with "nodes" and "outputs".
/// Errors are ConfigErrors naming the JSON path ("model.nodes[3].inputs[0]: ...").
ModelSpec parse_model_spec(const nlohmann::json& value, const std::string& path);

/// One layer entry: "type" names a layer of the catalog, every other key one of its options.
LayerSpec parse_layer(const nlohmann::json& value, const std::string& path);

/// The model as a config file writes it (every option, every node's inputs).
nlohmann::json model_spec_json(const ModelSpec& spec);

/// Checks that needs no data: every option in its catalog range (names of data sizes are
/// checked when they are resolved), node names unique and plain, inputs naming earlier nodes or
/// model inputs, outputs naming nodes once each with a known loss and target. Throws
/// ConfigError naming the key.
void validate_model_spec(const ModelSpec& spec, const std::string& path);

}  // namespace strand::app
