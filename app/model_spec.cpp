// ModelSpec: parsing (layer lists and graphs), the config-file form, data-size names, checks.
#include "app/model_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "app/config_error.h"
#include "app/object_reader.h"
#include "layers/model.h"

namespace strand::app {
namespace {

using nlohmann::json;

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> names = {"labels", "profile", "log_counts",
                                                 "log_total_counts"};
  return names;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool is_plain_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// A data size's name with an optional offset: "profile_length", "profile_length+74", "length-2".
struct SymbolText {
  std::string name;
  int64_t offset = 0;
  bool ok = false;
};
SymbolText split_symbol(const std::string& text) {
  SymbolText out;
  const size_t sign = text.find_first_of("+-");
  out.name = text.substr(0, sign);
  if (!contains(model_symbols(), out.name)) return out;
  if (sign == std::string::npos) {
    out.ok = true;
    return out;
  }
  const std::string digits = text.substr(sign + 1);
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return out;
  }
  out.offset = std::stoll(digits) * (text[sign] == '-' ? -1 : 1);
  out.ok = true;
  return out;
}

// The layer entry's "type" and options from `reader` (the caller reads its other keys and
// calls finish()).
LayerSpec read_layer(ObjectReader& reader, const std::string& path) {
  std::vector<std::string> names;
  for (const LayerType& type : layer_types()) names.push_back(type.name);
  LayerSpec layer;
  reader.read_choice("type", layer.type, names);
  const LayerType& type = *find_layer_type(layer.type);
  LayerOptions given;
  for (const LayerOption& option : type.options) {
    const json* value = reader.find(option.name);
    if (value == nullptr) continue;
    switch (option.kind) {
      case LayerOption::Kind::kInt: {
        if (value->is_string()) {
          // A data size's name, resolved when the model is built for its data.
          const std::string symbol = value->get<std::string>();
          if (!split_symbol(symbol).ok) {
            throw ConfigError(fmt::format(
                "{}: '{}' is neither an integer nor a size of the data ({}), optionally plus or "
                "minus an integer (\"profile_length+74\")",
                join_path(path, option.name), symbol, fmt::join(model_symbols(), ", ")));
          }
          given[option.name] = symbol;
          break;
        }
        int64_t number = 0;
        reader.read(option.name, number);
        given[option.name] = number;
        break;
      }
      case LayerOption::Kind::kBool: {
        bool flag = false;
        reader.read(option.name, flag);
        given[option.name] = flag;
        break;
      }
      case LayerOption::Kind::kChoice: {
        std::string word = std::get<std::string>(option.default_value);
        reader.read_choice(option.name, word, option.choices);
        given[option.name] = word;
        break;
      }
      case LayerOption::Kind::kReal: {
        double number = 0.0;
        reader.read(option.name, number);
        given[option.name] = number;
        break;
      }
    }
  }
  layer.options = std::move(given);
  return layer;
}

// Fills in the defaults of a parsed layer, naming `path` when a required option is missing.
LayerSpec completed(LayerSpec layer, const std::string& path) {
  try {
    layer.options = find_layer_type(layer.type)->complete(std::move(layer.options));
  } catch (const Error& error) {
    throw ConfigError(fmt::format("{}: {}", path, error.what()));
  }
  return layer;
}

std::vector<std::string> read_names(const json& value, const std::string& path) {
  if (!value.is_array()) {
    throw ConfigError(fmt::format("{}: expected a list of names, got {}", path, value.dump()));
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      throw ConfigError(fmt::format("{}[{}]: expected a name, got {}", path, i, value[i].dump()));
    }
    names.push_back(value[i].get<std::string>());
  }
  return names;
}

NodeSpec parse_node(const json& value, const std::string& path) {
  ObjectReader reader(value, path);
  NodeSpec node;
  reader.read("name", node.name);
  if (const json* inputs = reader.find("inputs")) {
    node.inputs = read_names(*inputs, join_path(path, "inputs"));
  }
  if (node.name.empty()) {
    throw ConfigError(fmt::format("{}.name: every node needs a name", path));
  }
  node.layer = read_layer(reader, path);
  reader.finish();
  node.layer = completed(std::move(node.layer), path);
  return node;
}

OutputSpec parse_output(const json& value, const std::string& path) {
  ObjectReader reader(value, path);
  OutputSpec output;
  reader.read("name", output.name);
  reader.read("node", output.node);
  reader.read_choice("loss", output.loss, loss_names());
  reader.read_choice("target", output.target, target_names());
  if (const json* weight = reader.find("weight")) {
    if (weight->is_string() && weight->get<std::string>() == "auto") {
      output.auto_weight = true;
    } else {
      reader.read("weight", output.weight);
    }
  }
  reader.finish();
  if (output.name.empty())
    throw ConfigError(fmt::format("{}.name: every output needs a name", path));
  if (output.node.empty()) output.node = output.name;
  return output;
}

json layer_json(const LayerSpec& layer) {
  json entry;
  entry["type"] = layer.type;
  for (const auto& [name, value] : layer.options) {
    json& slot = entry[name];
    std::visit([&slot](const auto& v) { slot = v; }, value);
  }
  return entry;
}

}  // namespace

std::vector<LayerSpec> ModelSpec::all_layers() const {
  if (!graph()) return layers;
  std::vector<LayerSpec> out;
  for (const NodeSpec& node : nodes) out.push_back(node.layer);
  return out;
}

const std::vector<std::string>& model_symbols() {
  static const std::vector<std::string> names = {"length", "tasks", "profile_tracks",
                                                 "profile_length", "control_tracks"};
  return names;
}

int64_t symbol_value(const std::string& symbol, const DataDimensions& data,
                     const std::string& path) {
  const SymbolText text = split_symbol(symbol);
  if (!text.ok) {
    throw ConfigError(fmt::format("{}: '{}' is not a size of the data ({})", path, symbol,
                                  fmt::join(model_symbols(), ", ")));
  }
  const std::string& name = text.name;
  const int64_t value = name == "length"           ? data.length
                        : name == "tasks"          ? data.tasks
                        : name == "profile_tracks" ? data.profile_tracks
                        : name == "profile_length" ? data.profile_length
                                                   : data.control_tracks;
  if (value == 0) {
    throw ConfigError(fmt::format("{}: the data has no {} (give {})", path, name,
                                  name == "profile_tracks" || name == "profile_length"
                                      ? "data.profile_bigwigs"
                                  : name == "control_tracks" ? "data.control_bigwigs"
                                                             : "labelled data"));
  }
  if (value + text.offset < 1) {
    throw ConfigError(fmt::format("{}: '{}' is {} for this data; a size must be at least 1", path,
                                  symbol, value + text.offset));
  }
  return value + text.offset;
}

LayerOptions resolve_symbols(const LayerSpec& layer, const DataDimensions& data,
                             const std::string& path) {
  LayerOptions options = layer.options;
  const LayerType* type = find_layer_type(layer.type);
  for (auto& [option_name, value] : options) {
    // Structured bindings cannot be captured before C++20 in clang 14: copy the name.
    const std::string& name = option_name;
    const auto option = std::find_if(type->options.begin(), type->options.end(),
                                     [&name](const LayerOption& o) { return o.name == name; });
    if (option == type->options.end() || option->kind != LayerOption::Kind::kInt) continue;
    if (const auto* symbol = std::get_if<std::string>(&value)) {
      value = symbol_value(*symbol, data, join_path(path, name));
    }
  }
  return options;
}

const std::vector<std::string>& loss_names() {
  static const std::vector<std::string> names = {"binary_crossentropy", "mse", "poisson",
                                                 "categorical_crossentropy", "multinomial_nll"};
  return names;
}

LayerSpec parse_layer(const json& value, const std::string& path) {
  ObjectReader reader(value, path);
  LayerSpec layer = read_layer(reader, path);
  reader.finish();  // first: a misspelt option is named as such, not as a missing one
  return completed(std::move(layer), path);
}

ModelSpec parse_model_spec(const json& value, const std::string& path) {
  ModelSpec spec;
  if (value.is_array()) {
    if (value.empty()) {
      throw ConfigError(fmt::format("{}: expected a non-empty list of layers, got []", path));
    }
    for (size_t i = 0; i < value.size(); ++i) {
      spec.layers.push_back(parse_layer(value[i], fmt::format("{}[{}]", path, i)));
    }
    return spec;
  }
  if (!value.is_object()) {
    throw ConfigError(fmt::format(
        "{}: expected a list of layers or a graph object {{\"nodes\": [...], \"outputs\": "
        "[...]}}, got {}",
        path, value.dump()));
  }
  ObjectReader reader(value, path);
  const json* nodes = reader.find("nodes");
  const json* outputs = reader.find("outputs");
  reader.finish();
  if (nodes == nullptr || !nodes->is_array() || nodes->empty()) {
    throw ConfigError(fmt::format("{}.nodes: expected a non-empty list of nodes", path));
  }
  if (outputs == nullptr || !outputs->is_array() || outputs->empty()) {
    throw ConfigError(fmt::format("{}.outputs: expected a non-empty list of outputs", path));
  }
  for (size_t i = 0; i < nodes->size(); ++i) {
    NodeSpec node = parse_node((*nodes)[i], fmt::format("{}.nodes[{}]", path, i));
    if (node.inputs.empty()) {
      node.inputs = {i == 0 ? std::string(kSequenceInput) : spec.nodes.back().name};
    }
    spec.nodes.push_back(std::move(node));
  }
  for (size_t i = 0; i < outputs->size(); ++i) {
    spec.outputs.push_back(parse_output((*outputs)[i], fmt::format("{}.outputs[{}]", path, i)));
  }
  return spec;
}

json model_spec_json(const ModelSpec& spec) {
  if (!spec.graph()) {
    json layers = json::array();
    for (const LayerSpec& layer : spec.layers) layers.push_back(layer_json(layer));
    return layers;
  }
  json nodes = json::array();
  for (const NodeSpec& node : spec.nodes) {
    json entry = layer_json(node.layer);
    entry["name"] = node.name;
    entry["inputs"] = node.inputs;
    nodes.push_back(entry);
  }
  json outputs = json::array();
  for (const OutputSpec& output : spec.outputs) {
    json entry = {{"name", output.name},
                  {"node", output.node},
                  {"loss", output.loss},
                  {"target", output.target}};
    entry["weight"] = output.auto_weight ? json("auto") : json(output.weight);
    outputs.push_back(entry);
  }
  return {{"nodes", nodes}, {"outputs", outputs}};
}

namespace {

void check_spec(bool ok, const std::string& key, const std::string& what) {
  if (!ok) throw ConfigError(fmt::format("{}: {}", key, what));
}

// Every option of `layer` in its range (names of data sizes are checked when resolved).
void check_layer_options(const LayerSpec& layer, const std::string& at) {
  const LayerType* type = find_layer_type(layer.type);
  check_spec(type != nullptr, join_path(at, "type"),
             fmt::format("'{}' is not a layer type", layer.type));
  LayerOptions options;
  try {
    options = type->complete(layer.options);
  } catch (const Error& error) {
    throw ConfigError(fmt::format("{}: {}", at, error.what()));
  }
  for (const LayerOption& option : type->options) {
    const std::string key = join_path(at, option.name);
    const LayerOptionValue& value = options.at(option.name);
    if (option.kind == LayerOption::Kind::kInt) {
      if (std::holds_alternative<std::string>(value)) continue;
      const int64_t number = std::get<int64_t>(value);
      check_spec(number >= option.min && number <= option.max, key,
                 fmt::format("must be in [{}, {}], got {}", option.min, option.max, number));
    } else if (option.kind == LayerOption::Kind::kReal) {
      const double number = std::get<double>(value);
      const bool ok = number >= option.real_min &&
                      (option.real_max_open ? number < option.real_max : number <= option.real_max);
      check_spec(ok, key,
                 fmt::format("must be in [{}, {}{}, got {}", option.real_min, option.real_max,
                             option.real_max_open ? ")" : "]", number));
    }
  }
}

// A graph's nodes: plain names, each once, reading earlier nodes or model inputs, as many as
// their layers take. Returns the nodes' names.
std::set<std::string> validate_graph_nodes(const ModelSpec& spec, const std::string& path) {
  std::set<std::string> seen;
  for (size_t i = 0; i < spec.nodes.size(); ++i) {
    const NodeSpec& node = spec.nodes[i];
    const std::string at = fmt::format("{}.nodes[{}]", path, i);
    check_spec(is_plain_name(node.name), join_path(at, "name"),
               fmt::format("'{}' must be letters, digits, '_' or '-' (it names the node's "
                           "parameters, '{}.weight')",
                           node.name, node.name));
    check_spec(
        node.name != kSequenceInput && node.name != kControlInput && seen.count(node.name) == 0,
        join_path(at, "name"),
        fmt::format("'{}' is taken (by an earlier node or a model input)", node.name));
    check_layer_options(node.layer, at);
    const int count = find_layer_type(node.layer.type)->inputs;
    check_spec(count == kTwoOrMoreInputs ? node.inputs.size() >= 2
                                         : node.inputs.size() == static_cast<size_t>(count),
               join_path(at, "inputs"),
               fmt::format("{} takes {} input(s), {} listed", node.layer.type,
                           count == kTwoOrMoreInputs ? "two or more" : std::to_string(count),
                           node.inputs.size()));
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      const std::string& input = node.inputs[j];
      check_spec(seen.count(input) != 0 || input == kSequenceInput || input == kControlInput,
                 fmt::format("{}.inputs[{}]", at, j),
                 fmt::format("'{}' is neither an earlier node nor a model input (sequence, "
                             "control)",
                             input));
    }
    seen.insert(node.name);
  }
  return seen;
}

// A graph's outputs: named once, each of a node of `nodes`, with a known loss and target that
// go together and a weight > 0 (or "auto" for a counts loss).
void validate_graph_outputs(const ModelSpec& spec, const std::string& path,
                            const std::set<std::string>& nodes) {
  std::set<std::string> output_names;
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    const OutputSpec& output = spec.outputs[i];
    const std::string at = fmt::format("{}.outputs[{}]", path, i);
    check_spec(is_plain_name(output.name) && output_names.insert(output.name).second,
               join_path(at, "name"),
               fmt::format("'{}' must be a plain name used by one output", output.name));
    check_spec(nodes.count(output.node) != 0, join_path(at, "node"),
               fmt::format("'{}' is not a node of the model", output.node));
    check_spec(contains(loss_names(), output.loss), join_path(at, "loss"),
               fmt::format("'{}' is not one of {}", output.loss, fmt::join(loss_names(), ", ")));
    check_spec(
        contains(target_names(), output.target), join_path(at, "target"),
        fmt::format("'{}' is not one of {}", output.target, fmt::join(target_names(), ", ")));
    check_spec(output.auto_weight || (std::isfinite(output.weight) && output.weight > 0.0),
               join_path(at, "weight"),
               fmt::format("must be a number > 0 or \"auto\", got {}", output.weight));
    check_spec(
        !output.auto_weight || output.target == "log_counts" || output.target == "log_total_counts",
        join_path(at, "weight"),
        "\"auto\" (median total counts / 10) weighs a counts loss: its target must be "
        "log_counts or log_total_counts");
    check_spec(
        (output.loss == "multinomial_nll") == (output.target == "profile"), join_path(at, "loss"),
        fmt::format("multinomial_nll trains on a profile and a profile needs multinomial_nll "
                    "(got loss '{}' with target '{}')",
                    output.loss, output.target));
  }
}

}  // namespace

void validate_model_spec(const ModelSpec& spec, const std::string& path) {
  if (!spec.graph()) {
    // An empty list (a config used for data alone) is refused when a model is built from it.
    for (size_t i = 0; i < spec.layers.size(); ++i) {
      check_spec(find_layer_type(spec.layers[i].type) == nullptr ||
                     find_layer_type(spec.layers[i].type)->inputs == 1,
                 fmt::format("{}[{}]", path, i),
                 fmt::format("{} takes two or more inputs: write the model as a graph (\"nodes\" "
                             "with \"inputs\")",
                             spec.layers[i].type));
      check_layer_options(spec.layers[i], fmt::format("{}[{}]", path, i));
    }
    return;
  }
  validate_graph_outputs(spec, path, validate_graph_nodes(spec, path));
}

}  // namespace strand::app
