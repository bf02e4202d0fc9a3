// Optimizer state: state()/load_state() resumes bit-identically, frozen parameters are never
// updated, and load_state() rejects a mismatched state naming the offending buffer.
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/sequential.h"
#include "ops/elementwise.h"
#include "ops/loss.h"
#include "ops/matmul.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "optim/adam.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"
#include "test_helpers.h"

namespace strand {
namespace {

using testing::random_tensor;
using MakeOptimizer = std::function<std::unique_ptr<Optimizer>(std::vector<Var>)>;

struct NamedFactory {
  std::string name;
  MakeOptimizer make;
};

// Every optimizer in configurations that use all of its buffers.
std::vector<NamedFactory> factories() {
  return {
      {"sgd momentum nesterov",
       [](std::vector<Var> p) {
         return std::make_unique<SGD>(
             std::move(p),
             SGDOptions{
                 .learning_rate = 0.05, .momentum = 0.9, .weight_decay = 1e-3, .nesterov = true});
       }},
      {"adam",
       [](std::vector<Var> p) {
         return std::make_unique<Adam>(
             std::move(p), AdamOptions{.learning_rate = 1e-2, .eps = 1e-8, .weight_decay = 1e-2});
       }},
      {"rmsprop centered momentum",
       [](std::vector<Var> p) {
         return std::make_unique<RMSprop>(
             std::move(p),
             RMSpropOptions{
                 .learning_rate = 1e-2, .weight_decay = 1e-3, .momentum = 0.9, .centered = true});
       }},
  };
}

// A small least-squares problem: loss = mean((x w + b - y)^2).
struct Problem {
  Tensor x = random_tensor({6, 4}, 101);
  Tensor y = random_tensor({6, 3}, 102);

  std::vector<Var> fresh_parameters() const {
    return {Var(random_tensor({4, 3}, 103), true), Var(random_tensor({3}, 104), true)};
  }

  void compute_gradients(const std::vector<Var>& parameters) const {
    const Var prediction = matmul(Var(x), parameters[0]) + parameters[1];
    mse(prediction, Var(y)).backward();
  }

  void run(Optimizer& optimizer, const std::vector<Var>& parameters, int steps) const {
    for (int i = 0; i < steps; ++i) {
      optimizer.zero_grad();
      compute_gradients(parameters);
      optimizer.step();
    }
  }
};

std::vector<Var> copies_of(const std::vector<Tensor>& values) {
  std::vector<Var> out;
  for (const Tensor& value : values) out.emplace_back(value.clone(), true);
  return out;
}

std::vector<Tensor> values_of(const std::vector<Var>& parameters) {
  std::vector<Tensor> out;
  for (const Var& parameter : parameters) out.push_back(parameter.value().clone());
  return out;
}

bool bit_identical(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  return a.to(DType::kFloat64).to_vector<double>() == b.to(DType::kFloat64).to_vector<double>();
}

std::string error_message(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("optimizer state round trip continues bit-identically") {
  const Problem problem;
  for (const NamedFactory& factory : factories()) {
    CAPTURE(factory.name);
    // Reference: 10 uninterrupted steps, saving state and parameters after 5.
    std::vector<Var> parameters = problem.fresh_parameters();
    std::unique_ptr<Optimizer> optimizer = factory.make(parameters);
    problem.run(*optimizer, parameters, 5);
    const OptimizerState saved_state = optimizer->state();
    const std::vector<Tensor> saved_values = values_of(parameters);
    CHECK(saved_state.count("step") == 1);
    CHECK(saved_state.size() > 1);
    problem.run(*optimizer, parameters, 5);

    // Resumed: fresh parameters and optimizer restored from the snapshot, 5 more steps.
    std::vector<Var> resumed_parameters = copies_of(saved_values);
    std::unique_ptr<Optimizer> resumed = factory.make(resumed_parameters);
    resumed->load_state(saved_state);
    CHECK(resumed->step_count() == 5);
    problem.run(*resumed, resumed_parameters, 5);

    CHECK(resumed->step_count() == optimizer->step_count());
    for (size_t i = 0; i < parameters.size(); ++i) {
      CAPTURE(i);
      CHECK(bit_identical(resumed_parameters[i].value(), parameters[i].value()));
      CHECK_FALSE(bit_identical(resumed_parameters[i].value(), saved_values[i]));
    }
    const OptimizerState final_state = optimizer->state();
    const OptimizerState resumed_state = resumed->state();
    REQUIRE(final_state.size() == resumed_state.size());
    for (const auto& [key, value] : final_state) {
      CAPTURE(key);
      REQUIRE(resumed_state.count(key) == 1);
      if (key == "step") {
        CHECK(value.item() == resumed_state.at(key).item());
      } else {
        CHECK(bit_identical(value, resumed_state.at(key)));
      }
    }
  }
}

TEST_CASE("optimizer state is a snapshot not a view") {
  const Problem problem;
  for (const NamedFactory& factory : factories()) {
    CAPTURE(factory.name);
    std::vector<Var> parameters = problem.fresh_parameters();
    std::unique_ptr<Optimizer> optimizer = factory.make(parameters);
    problem.run(*optimizer, parameters, 3);
    const OptimizerState saved = optimizer->state();
    OptimizerState copy;
    for (const auto& [key, value] : saved) copy[key] = value.clone();
    problem.run(*optimizer, parameters, 3);
    for (const auto& [key, value] : saved) {
      CAPTURE(key);
      CHECK(value.to(DType::kFloat64).to_vector<double>() ==
            copy.at(key).to(DType::kFloat64).to_vector<double>());
    }
  }
}

TEST_CASE("optimizer step leaves frozen parameters unchanged") {
  for (const NamedFactory& factory : factories()) {
    CAPTURE(factory.name);
    // A frozen parameter that still carries a gradient (and a nonzero value, so that weight
    // decay alone would move it) must not change.
    Var trainable(random_tensor({3, 2}, 201), true);
    Var frozen(random_tensor({3, 2}, 202), true);
    const Tensor frozen_before = frozen.value().clone();
    const Tensor trainable_before = trainable.value().clone();
    std::unique_ptr<Optimizer> optimizer = factory.make({trainable, frozen});
    for (int i = 0; i < 3; ++i) {
      trainable.set_grad(random_tensor({3, 2}, 300 + i));
      frozen.set_grad(random_tensor({3, 2}, 400 + i));
      frozen.set_requires_grad(false);
      optimizer->step();
    }
    CHECK(bit_identical(frozen.value(), frozen_before));
    CHECK_FALSE(bit_identical(trainable.value(), trainable_before));
  }
}

TEST_CASE("optimizer step leaves a frozen layer unchanged") {
  // Freezing a layer with set_trainable(false) keeps backward from reaching it, and an
  // optimizer handed all parameters still leaves it alone.
  for (const NamedFactory& factory : factories()) {
    CAPTURE(factory.name);
    Sequential model;
    Generator generator(7);
    auto conv = model.add(Conv1D(4, 3, 5, {}, generator));
    model.add(Dense(3 * 16, 1, true, generator));
    conv->set_trainable(false);
    std::vector<Tensor> conv_before;
    for (const Var& p : conv->parameters()) conv_before.push_back(p.value().clone());
    const Tensor dense_weight_before = model.layer(1)->parameters()[0].value().clone();

    std::unique_ptr<Optimizer> optimizer = factory.make(model.parameters());
    const Var codes(testing::random_codes(2, 20, 9));
    for (int i = 0; i < 3; ++i) {
      optimizer->zero_grad();
      const Var h = reshape(model.layer(0)->forward(codes), {2, 3 * 16});
      sum(model.layer(1)->forward(h)).backward();
      optimizer->step();
    }
    const auto conv_after = conv->parameters();
    for (size_t i = 0; i < conv_before.size(); ++i) {
      CHECK_FALSE(conv_after[i].requires_grad());
      CHECK(bit_identical(conv_after[i].value(), conv_before[i]));
    }
    CHECK_FALSE(bit_identical(model.layer(1)->parameters()[0].value(), dense_weight_before));
  }
}

TEST_CASE("optimizer load_state with a wrong shape throws naming the buffer") {
  const Problem problem;
  for (const NamedFactory& factory : factories()) {
    CAPTURE(factory.name);
    std::vector<Var> parameters = problem.fresh_parameters();
    std::unique_ptr<Optimizer> optimizer = factory.make(parameters);
    problem.run(*optimizer, parameters, 2);
    const OptimizerState good = optimizer->state();

    for (const auto& [key, value] : good) {
      if (key == "step") continue;
      CAPTURE(key);
      OptimizerState bad = good;
      bad[key] = Tensor::zeros({value.numel() + 1}, value.dtype());
      std::unique_ptr<Optimizer> fresh = factory.make(problem.fresh_parameters());
      const std::string message = error_message([&] { fresh->load_state(bad); });
      CAPTURE(message);
      CHECK(message.find("'" + key + "'") != std::string::npos);
      CHECK(message.find(optimizer->name()) != std::string::npos);
    }

    OptimizerState missing_step = good;
    missing_step.erase("step");
    const std::string message = error_message([&] { optimizer->load_state(missing_step); });
    CAPTURE(message);
    CHECK(message.find("step") != std::string::npos);

    OptimizerState out_of_range = good;
    out_of_range["7.exp_avg"] = Tensor::zeros({3}, DType::kFloat64);
    const std::string range_message = error_message([&] { optimizer->load_state(out_of_range); });
    CAPTURE(range_message);
    CHECK(range_message.find("'7.exp_avg'") != std::string::npos);
  }
}

}  // namespace strand
