// The config's model: layer lists and graphs parsed, written back and checked, data-size names
// resolved, presets parsed and built; errors name the JSON path.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "app/model_builder.h"
#include "app/model_spec.h"
#include "app/presets.h"
#include "app/run_config.h"
#include "layers/graph.h"

namespace strand::app {

namespace {

using nlohmann::json;

json residual_graph() {
  return json::parse(R"({
    "nodes": [
      {"name": "conv", "type": "Conv1D", "filters": 8, "kernel_size": 5, "padding": "same"},
      {"name": "relu", "type": "ReLU"},
      {"name": "body", "type": "Conv1D", "filters": 8, "kernel_size": 3, "padding": "same"},
      {"name": "sum", "type": "Add", "inputs": ["relu", "body"]},
      {"name": "pool", "type": "GlobalMaxPool1D"},
      {"name": "logits", "type": "Dense", "units": "tasks"},
      {"name": "prob", "type": "Sigmoid"}],
    "outputs": [{"name": "bound", "node": "prob"}]})");
}

std::string spec_error(const json& value) {
  try {
    validate_model_spec(parse_model_spec(value, "model"), "model");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST_CASE("model spec: a graph's nodes read the node before unless they name their inputs") {
  const ModelSpec spec = parse_model_spec(residual_graph(), "model");
  REQUIRE(spec.graph());
  CHECK(spec.nodes[0].inputs == std::vector<std::string>{"sequence"});
  CHECK(spec.nodes[1].inputs == std::vector<std::string>{"conv"});
  CHECK(spec.nodes[3].inputs == std::vector<std::string>{"relu", "body"});
  CHECK(spec.outputs[0].loss == "binary_crossentropy");
  CHECK(spec.outputs[0].target == "labels");
  CHECK(std::get<std::string>(spec.nodes[5].layer.options.at("units")) == "tasks");
  validate_model_spec(spec, "model");
  // Written back with every default, it parses to the same spec.
  CHECK(parse_model_spec(model_spec_json(spec), "model") == spec);
  // A layer list stays a list.
  const ModelSpec list = parse_model_spec(
      json::parse(R"([{"type": "Conv1D", "filters": 4, "kernel_size": 3}, {"type": "ReLU"}])"),
      "model");
  CHECK_FALSE(list.graph());
  CHECK(model_spec_json(list).is_array());
}

TEST_CASE("model spec: wiring and option mistakes are named by their JSON path") {
  json graph = residual_graph();
  graph["nodes"][3]["inputs"] = {"relu", "nowhere"};
  CHECK(spec_error(graph) ==
        "model.nodes[3].inputs[1]: 'nowhere' is neither an earlier node nor a model input "
        "(sequence, control)");
  graph = residual_graph();
  graph["nodes"][2]["name"] = "conv";
  CHECK(spec_error(graph).find("model.nodes[2].name: 'conv' is taken") == 0);
  graph = residual_graph();
  graph["nodes"][3]["inputs"] = {"relu"};
  CHECK(spec_error(graph) == "model.nodes[3].inputs: Add takes two or more input(s), 1 listed");
  graph = residual_graph();
  graph["outputs"][0]["node"] = "probability";
  CHECK(spec_error(graph) == "model.outputs[0].node: 'probability' is not a node of the model");
  graph = residual_graph();
  graph["outputs"][0]["loss"] = "multinomial_nll";
  CHECK(spec_error(graph).find("model.outputs[0].loss: multinomial_nll trains on a profile") == 0);
  graph = residual_graph();
  graph["outputs"][0]["weight"] = "auto";
  CHECK(spec_error(graph).find("weighs a counts loss") != std::string::npos);
  graph = residual_graph();
  graph["nodes"][0]["filters"] = "channels";
  CHECK(spec_error(graph).find("model.nodes[0].filters: 'channels' is neither an integer nor a "
                               "size of the data") == 0);
  graph = residual_graph();
  graph["nodes"][0]["filters"] = 0;
  CHECK(spec_error(graph) == "model.nodes[0].filters: must be in [1, 65536], got 0");
  graph = residual_graph();
  graph["nodes"][0].erase("name");
  CHECK(spec_error(graph) == "model.nodes[0].name: every node needs a name");
  graph = residual_graph();
  graph["nodes"][1]["typo"] = 1;
  CHECK(spec_error(graph).find("model.nodes[1].typo: unknown key") == 0);
  CHECK(spec_error(json::parse(R"({"nodes": []})")).find("model.nodes: expected a non-empty") == 0);
  CHECK(spec_error(json::parse(R"([{"type": "Add"}])")) ==
        "model[0]: Add takes two or more inputs: write the model as a graph (\"nodes\" with "
        "\"inputs\")");
}

TEST_CASE("model spec: data sizes resolve, with offsets, and a missing one is named") {
  const DataDimensions data{
      .length = 2114, .tasks = 3, .profile_tracks = 2, .profile_length = 1000};
  CHECK(symbol_value("tasks", data, "x") == 3);
  CHECK(symbol_value("profile_length+74", data, "x") == 1074);
  CHECK(symbol_value("length-14", data, "x") == 2100);
  CHECK_THROWS_WITH_AS(symbol_value("control_tracks", data, "model.nodes[4].filters"),
                       "model.nodes[4].filters: the data has no control_tracks (give "
                       "data.control_bigwigs)",
                       ConfigError);
  CHECK_THROWS_WITH_AS(symbol_value("tasks-3", data, "u"),
                       "u: 'tasks-3' is 0 for this data; a size must be at least 1", ConfigError);
  // A built graph has the data's sizes.
  const ModelSpec spec = parse_model_spec(residual_graph(), "model");
  const std::shared_ptr<Model> model = build_model(spec, {.length = 40, .tasks = 3});
  CHECK(model->output_shapes(input_shapes({.length = 40, .tasks = 3}))[0] == Shape{3});
  CHECK(dynamic_cast<Graph*>(model.get()) != nullptr);
  // The objective checks the output's shape against the labels.
  RunConfig config = default_config();
  config.model = spec;
  CHECK_THROWS_WITH_AS(build_objective(config, *model, {.length = 40, .tasks = 2}),
                       "model.outputs[0] 'bound': the model gives (3) per sample but its target "
                       "'labels' is (2) (2 label column(s)): end with Dense(units=2) or \"units\": "
                       "\"tasks\"",
                       ConfigError);
}

TEST_CASE("presets: every preset parses, builds for its published data and trains its outputs") {
  for (const Preset& preset : presets()) {
    CAPTURE(preset.name);
    REQUIRE_FALSE(preset.config_text.empty());
    const RunConfig config = parse_config(json{{"preset", preset.name}});
    CHECK(config.preset == preset.name);
    if (preset.name == "reference") continue;  // the default config itself, checked elsewhere
    const std::shared_ptr<Model> model = build_model(config.model, preset.published);
    CHECK_NOTHROW(build_objective(config, *model, preset.published));
  }
  const RunConfig basset = parse_config(json{{"preset", "basset"}});
  CHECK(basset.optimizer.name == "rmsprop");
  CHECK(basset.optimizer.rmsprop.momentum == 0.98);
  CHECK(basset.fit.max_weight_norm == 7.0);
  CHECK(build_model(basset.model, {.length = 600, .tasks = 164})->parameter_count() == 4140469);
  const RunConfig bpnet = parse_config(json{{"preset", "bpnet"}});
  CHECK(bpnet.model.graph());
  CHECK(bpnet.data.files.loader.window == 2114);
  CHECK(build_model(bpnet.model, find_preset("bpnet")->published)->parameter_count() == 113923);
}

TEST_CASE("presets: a config's keys win over its preset's, sections merge") {
  const RunConfig config = parse_config(json::parse(R"({
      "preset": "basset", "epochs": 3,
      "optimizer": {"name": "rmsprop", "learning_rate": 0.01},
      "data": {"source": "files", "window": 300, "fasta": "g.fa", "intervals": "i.bed"}})"));
  CHECK(config.fit.epochs == 3);
  CHECK(config.optimizer.learning_rate() == 0.01);
  CHECK(config.optimizer.rmsprop.momentum == 0.98);  // the preset's, merged
  CHECK(config.data.files.loader.window == 300);
  CHECK(config.fit.max_weight_norm == 7.0);
  // Another optimizer or data source replaces the preset's section whole.
  const RunConfig sgd = parse_config(json::parse(R"({"preset": "basset",
      "optimizer": {"name": "sgd"}, "data": {"source": "simulated"}})"));
  CHECK(sgd.optimizer.sgd.momentum == 0.0);
  CHECK(sgd.data.source == "simulated");
  CHECK_THROWS_WITH_AS(parse_config(json{{"preset", "enformer"}}),
                       "preset: 'enformer' is not a preset; the presets are reference, basset, "
                       "deepsea, bpnet, chrombpnet_bias, chrombpnet",
                       ConfigError);
}

}  // namespace
}  // namespace strand::app
