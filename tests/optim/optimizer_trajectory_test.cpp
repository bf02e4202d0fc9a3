// Optimizer trajectories against PyTorch in float64: a small base-code CNN (Conv1D(4->3, k=5)
// -> ReLU -> GlobalMaxPool1D -> Dense(3->1), BCE with logits) trained 100 steps by each of SGD,
// Adam and RMSprop in several configurations, starting from the parameters stored in
// tests/fixtures/torch_reference.json (scripts/make_torch_fixtures.py). Final parameters must
// match torch.optim within 1e-6, fused and unfused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/sequential.h"
#include "ops/loss.h"
#include "optim/adam.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"
#include "test_helpers.h"

namespace strand {
namespace {

using nlohmann::json;

constexpr double kParameterTolerance = 1e-6;
constexpr double kLossTolerance = 1e-6;

const json& trajectories() {
  static const json loaded = [] {
    const std::string path = testing::source_dir() + "/tests/fixtures/torch_reference.json";
    std::ifstream file(path);
    REQUIRE_MESSAGE(file.good(), "cannot open " << path);
    return json::parse(file).at("optimizer_trajectories");
  }();
  return loaded;
}

Shape shape_of(const json& entry) { return entry.at("shape").get<Shape>(); }

Tensor tensor_of(const json& entry) {
  return Tensor::from_vector(entry.at("data").get<std::vector<double>>(), shape_of(entry));
}

const json& run_named(const std::string& name) {
  for (const json& run : trajectories().at("runs")) {
    if (run.at("name").get<std::string>() == name) return run;
  }
  FAIL("no trajectory named '" << name << "' in the fixture");
  throw std::logic_error("unreachable");
}

std::unique_ptr<Optimizer> make_optimizer(const json& run, std::vector<Var> parameters) {
  const std::string kind = run.at("optimizer").get<std::string>();
  const json& o = run.at("options");
  if (kind == "SGD") {
    SGDOptions options;
    options.learning_rate = o.at("lr").get<double>();
    options.momentum = o.value("momentum", 0.0);
    options.dampening = o.value("dampening", 0.0);
    options.weight_decay = o.value("weight_decay", 0.0);
    options.nesterov = o.value("nesterov", false);
    return std::make_unique<SGD>(std::move(parameters), options);
  }
  if (kind == "Adam") {
    AdamOptions options;
    options.learning_rate = o.at("lr").get<double>();
    options.eps = o.at("eps").get<double>();  // strand's default differs from torch's
    options.weight_decay = o.value("weight_decay", 0.0);
    return std::make_unique<Adam>(std::move(parameters), options);
  }
  if (kind == "RMSprop") {
    RMSpropOptions options;
    options.learning_rate = o.at("lr").get<double>();
    options.alpha = o.value("alpha", 0.99);
    options.eps = o.value("eps", 1e-8);
    options.weight_decay = o.value("weight_decay", 0.0);
    options.momentum = o.value("momentum", 0.0);
    options.centered = o.value("centered", false);
    return std::make_unique<RMSprop>(std::move(parameters), options);
  }
  FAIL("unknown optimizer '" << kind << "'");
  return nullptr;
}

// Trains the fixture's model with the run's optimizer and compares against torch.
void check_trajectory(const std::string& name) {
  const json& fixture = trajectories();
  const json& run = run_named(name);
  const int64_t steps = fixture.at("steps").get<int64_t>();
  const int64_t out_channels = fixture.at("out_channels").get<int64_t>();
  const auto expected_losses = run.at("losses").get<std::vector<double>>();
  REQUIRE(static_cast<int64_t>(expected_losses.size()) == steps);

  const Var codes(Tensor::from_vector(fixture.at("codes").at("data").get<std::vector<uint8_t>>(),
                                      shape_of(fixture.at("codes"))));
  const Var labels(tensor_of(fixture.at("labels")));

  for (const bool fused : {true, false}) {
    CAPTURE(fused);
    Sequential model;
    model.add(Conv1D(4, out_channels, fixture.at("kernel_size").get<int64_t>()));
    model.add(ReLU());
    model.add(GlobalMaxPool1D());
    model.add(Dense(out_channels, 1));
    model.set_fusion(fused);
    const json& initial = fixture.at("initial_parameters");
    const auto named = model.named_parameters();
    REQUIRE(named.size() == initial.size());
    for (const auto& [parameter_name, parameter] : named) {
      REQUIRE(initial.contains(parameter_name));
      Var(parameter).mutable_value() = tensor_of(initial.at(parameter_name));
    }

    std::unique_ptr<Optimizer> optimizer = make_optimizer(run, model.trainable_parameters());
    double worst_loss = 0.0;
    for (int64_t step = 0; step < steps; ++step) {
      optimizer->zero_grad();
      const Var loss = bce_with_logits(model(codes), labels);
      worst_loss = std::max(worst_loss, std::abs(loss.value().item() - expected_losses[step]));
      loss.backward();
      optimizer->step();
    }
    CHECK(optimizer->step_count() == steps);
    INFO("worst |loss - torch loss| over the trajectory = " << worst_loss);
    CHECK(worst_loss <= kLossTolerance);

    const json& final_parameters = run.at("final_parameters");
    for (const auto& [parameter_name, parameter] : named) {
      CAPTURE(parameter_name);
      const double difference = testing::max_abs_difference(
          parameter.value(), tensor_of(final_parameters.at(parameter_name)));
      INFO("max |strand - torch| = " << difference);
      CHECK(parameter.dtype() == DType::kFloat64);
      CHECK(difference <= kParameterTolerance);
    }
  }
}

}  // namespace

TEST_CASE("torch trajectory sgd") { check_trajectory("sgd"); }

TEST_CASE("torch trajectory sgd with momentum and weight decay") {
  check_trajectory("sgd momentum weight decay");
}

TEST_CASE("torch trajectory sgd nesterov") { check_trajectory("sgd nesterov"); }

TEST_CASE("torch trajectory adam") { check_trajectory("adam"); }

TEST_CASE("torch trajectory adam with weight decay") { check_trajectory("adam weight decay"); }

TEST_CASE("torch trajectory rmsprop") { check_trajectory("rmsprop"); }

TEST_CASE("torch trajectory rmsprop centered with momentum") {
  check_trajectory("rmsprop momentum centered");
}

TEST_CASE("torch trajectory fixture runs are all covered") {
  // Every run in the fixture has a TEST_CASE above: adding one to the script needs one here.
  const std::vector<std::string> covered = {
      "sgd",     "sgd momentum weight decay", "sgd nesterov", "adam", "adam weight decay",
      "rmsprop", "rmsprop momentum centered"};
  for (const json& run : trajectories().at("runs")) {
    const std::string name = run.at("name").get<std::string>();
    CAPTURE(name);
    CHECK(std::find(covered.begin(), covered.end(), name) != covered.end());
  }
}

}  // namespace strand
