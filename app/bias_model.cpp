// Adding a frozen bias model to an accessibility model (app/bias_model.h).
#include "app/bias_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>

#include "app/config_error.h"
#include "app/model_builder.h"
#include "app/run_directory.h"
#include "app/trained_model.h"
#include "io/atomic_file.h"
#include "layers/activations.h"
#include "layers/merge.h"

namespace strand::app {
namespace fs = std::filesystem;
namespace {

const char* kBiasKey = "bias_model";

std::string shape_text(const Shape& shape) { return fmt::format("({})", fmt::join(shape, ", ")); }

// Copies `from` to `to` through a temporary file, so that no half-copied file is left.
void copy_atomically(const fs::path& from, const fs::path& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("{}: cannot read '{}'", kBiasKey, from.string()));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::create_directories(to.parent_path());
  io::write_file_atomically(to, std::string_view(bytes));
}

}  // namespace

std::shared_ptr<Graph> add_bias(const Graph& accessibility, const Graph& bias,
                                const DataDimensions& data, const std::string& key) {
  auto combined = std::make_shared<Graph>();
  std::map<std::string, bool> bias_nodes;
  for (const Graph::Node& node : bias.nodes()) bias_nodes[node.name] = true;
  const auto renamed = [&](const std::string& name) {
    return bias_nodes.count(name) != 0 ? kBiasNodePrefix + name : name;
  };
  for (const Graph::Node& node : bias.nodes()) {
    std::vector<std::string> inputs;
    for (const std::string& input : node.inputs) inputs.push_back(renamed(input));
    node.layer->set_trainable(false);  // the bias model is trained already
    combined->add_node(renamed(node.name), node.layer, inputs);
  }
  for (const Graph::Node& node : accessibility.nodes()) {
    combined->add_node(node.name, node.layer, node.inputs);
  }
  const InputShapes inputs = input_shapes(data);
  const std::vector<Shape> shapes = accessibility.output_shapes(inputs);
  const std::vector<Shape> bias_shapes = bias.output_shapes(inputs);
  const std::vector<std::string> names = accessibility.output_names();
  const std::vector<std::string> bias_names = bias.output_names();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const auto found = std::find(bias_names.begin(), bias_names.end(), name);
    if (found == bias_names.end()) {
      throw ConfigError(fmt::format("{}: the bias model has no output '{}' (its outputs: {})", key,
                                    name, fmt::join(bias_names, ", ")));
    }
    const auto j = static_cast<size_t>(found - bias_names.begin());
    if (bias_shapes[j] != shapes[i]) {
      throw ConfigError(fmt::format(
          "{}: the bias model's output '{}' is {} per sample, the model's {}: train the bias "
          "model on the same window, profile length and tracks",
          key, name, shape_text(bias_shapes[j]), shape_text(shapes[i])));
    }
    const Activation activation = accessibility.output_activation(i);
    if (bias.output_activation(j) != activation) {
      throw ConfigError(fmt::format(
          "{}: output '{}' ends in {} in the model but {} in the bias "
          "model",
          key, name, activation_name(activation), activation_name(bias.output_activation(j))));
    }
    const std::string value = accessibility.output_value_node(i).name;
    const std::string bias_value = renamed(bias.output_value_node(j).name);
    const std::string with_bias = name + "_with_bias";
    if (activation == Activation::kSoftmax) {
      // Profiles: the two models' logits add, as a product of the two distributions.
      combined->add(name + "_logits_with_bias", Add(), {value, bias_value});
      combined->add(with_bias, Softmax(), {name + "_logits_with_bias"});
    } else if (activation == Activation::kIdentity) {
      // Log counts: the two models' counts add, log(exp(a) + exp(b)).
      combined->add(with_bias, LogSumExp(), {value, bias_value});
    } else {
      throw ConfigError(fmt::format(
          "{}: output '{}' ends in {}; a bias model adds to profile logits (Softmax) and log "
          "counts (no final activation)",
          key, name, activation_name(activation)));
    }
    combined->add_output(name, with_bias);
  }
  return combined;
}

fs::path bias_run_directory(const RunConfig& config, const fs::path& run_dir) {
  if (config.bias_model.empty()) return {};
  if (!run_dir.empty() && fs::exists(run_dir / "bias_model" / "config.json")) {
    return run_dir / "bias_model";
  }
  return config.bias_model;
}

void keep_bias_run(const RunConfig& config, const fs::path& run_dir) {
  if (config.bias_model.empty()) return;
  TrainedModelFiles files;
  try {
    files = locate_trained_model(config.bias_model);
  } catch (const ConfigError& error) {
    throw ConfigError(fmt::format("{}: {}", kBiasKey, error.what()));
  }
  const RunPaths copy{run_dir / "bias_model"};
  copy_atomically(files.checkpoint, copy.best_checkpoint());
  copy_atomically(files.config, copy.config());
}

std::shared_ptr<Model> build_run_model(const RunConfig& config, const DataDimensions& data,
                                       const fs::path& run_dir,
                                       std::shared_ptr<Model>* accessibility) {
  if (config.bias_model.empty() && config.preset == "chrombpnet") {
    throw ConfigError(
        "bias_model: the chrombpnet preset adds a trained bias model to its own; give "
        "--bias-model RUN (a run of --model chrombpnet_bias on the same data)");
  }
  std::shared_ptr<Model> model = build_model(config.model, data);
  if (accessibility != nullptr) *accessibility = model;
  if (config.bias_model.empty()) return model;
  const auto* graph = dynamic_cast<const Graph*>(model.get());
  if (graph == nullptr) {
    throw ConfigError(
        "bias_model: a bias model adds to a graph model's outputs (profile and counts); the "
        "model is a layer list");
  }
  const fs::path bias_dir = bias_run_directory(config, run_dir);
  TrainedModel bias;
  try {
    bias = load_trained_model(locate_trained_model(bias_dir.string()));
  } catch (const ConfigError& error) {
    throw ConfigError(fmt::format("{} '{}': {}", kBiasKey, bias_dir.string(), error.what()));
  }
  if (!bias.config.bias_model.empty()) {
    throw ConfigError(fmt::format("{}: '{}' has a bias model itself; give the bias model's own run",
                                  kBiasKey, bias_dir.string()));
  }
  if (bias.dimensions.length != data.length) {
    throw ConfigError(fmt::format("{}: '{}' was trained on {} bp windows, the model on {}",
                                  kBiasKey, bias_dir.string(), bias.dimensions.length,
                                  data.length));
  }
  const auto* bias_graph = dynamic_cast<const Graph*>(bias.model.get());
  if (bias_graph == nullptr) {
    throw ConfigError(
        fmt::format("{}: '{}' is a layer list, not a graph with profile and counts "
                    "outputs",
                    kBiasKey, bias_dir.string()));
  }
  return add_bias(*graph, *bias_graph, data, kBiasKey);
}

}  // namespace strand::app
