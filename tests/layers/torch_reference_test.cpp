// Layers against PyTorch in float64: Conv1D (float and base-code input), global max pooling,
// Dense, BCE with logits and the fused Conv1D->ReLU->GlobalMaxPool1D->Dense path. Reference
// values come from tests/fixtures/torch_reference.json (scripts/make_torch_fixtures.py), so
// no Python is needed here.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/losses.h"
#include "layers/sequential.h"
#include "test_helpers.h"

namespace strand {
namespace {

using nlohmann::json;
using testing::max_abs_difference;

// Forward values and gradients are a handful of float64 operations apart from PyTorch's.
constexpr double kTolerance = 1e-12;

const json& fixtures() {
  static const json loaded = [] {
    const std::string path = testing::source_dir() + "/tests/fixtures/torch_reference.json";
    std::ifstream file(path);
    REQUIRE_MESSAGE(file.good(), "cannot open " << path);
    return json::parse(file);
  }();
  return loaded;
}

Shape shape_of(const json& entry) { return entry.at("shape").get<Shape>(); }

Tensor tensor_of(const json& entry) {
  return Tensor::from_vector(entry.at("data").get<std::vector<double>>(), shape_of(entry));
}

Tensor codes_of(const json& entry) {
  return Tensor::from_vector(entry.at("data").get<std::vector<uint8_t>>(), shape_of(entry));
}

// Replaces a parameter's value (layers start in float32) with a float64 fixture tensor.
void set_value(const Var& parameter, const json& entry) {
  const Tensor value = tensor_of(entry);
  REQUIRE(parameter.shape() == value.shape());
  Var(parameter).mutable_value() = value;
}

void check_close(const Tensor& actual, const json& expected, const char* what,
                 double tolerance = kTolerance) {
  INFO(what);
  REQUIRE(actual.defined());
  CHECK(actual.dtype() == DType::kFloat64);
  REQUIRE(actual.shape() == shape_of(expected));
  const double difference = max_abs_difference(actual, tensor_of(expected));
  INFO("max |strand - torch| = " << difference);
  CHECK(difference <= tolerance);
}

Conv1DOptions conv_options(const json& c) {
  Conv1DOptions options;
  options.stride = c.at("stride").get<int64_t>();
  options.dilation = c.at("dilation").get<int64_t>();
  options.padding = c.at("padding").get<std::string>() == "same" ? Padding::kSame : Padding::kValid;
  options.bias = c.at("bias").get<bool>();
  return options;
}

}  // namespace

TEST_CASE("torch reference conv1d on float input") {
  const json& cases = fixtures().at("conv1d");
  REQUIRE(cases.size() >= 5);
  for (const json& c : cases) {
    CAPTURE(c.at("name").get<std::string>());
    Conv1D conv(c.at("in_channels").get<int64_t>(), c.at("out_channels").get<int64_t>(),
                c.at("kernel_size").get<int64_t>(), conv_options(c));
    set_value(conv.weight(), c.at("weight"));
    if (c.at("bias").get<bool>()) set_value(conv.bias(), c.at("bias_value"));
    CHECK(conv.bias().defined() == c.at("bias").get<bool>());

    const Var x(tensor_of(c.at("input")), true);
    const Var y = conv(x);
    check_close(y.value(), c.at("output"), "output");
    CHECK(conv.output_shape({x.size(1), x.size(2)}) == Shape{y.size(1), y.size(2)});
    y.backward(tensor_of(c.at("grad_output")));
    check_close(x.grad(), c.at("grad_input"), "grad input");
    check_close(conv.weight().grad(), c.at("grad_weight"), "grad weight");
    if (conv.bias().defined()) check_close(conv.bias().grad(), c.at("grad_bias"), "grad bias");
  }
}

TEST_CASE("torch reference conv1d on base codes matches one-hot conv") {
  const json& cases = fixtures().at("conv1d_onehot");
  REQUIRE(cases.size() >= 3);
  for (const json& c : cases) {
    CAPTURE(c.at("name").get<std::string>());
    Conv1D conv(4, c.at("out_channels").get<int64_t>(), c.at("kernel_size").get<int64_t>(),
                conv_options(c));
    set_value(conv.weight(), c.at("weight"));
    if (c.at("bias").get<bool>()) set_value(conv.bias(), c.at("bias_value"));

    const Tensor codes = codes_of(c.at("codes"));
    // The fixtures include N (code 4), which must act as an all-zero one-hot column.
    const auto code_values = codes.to_vector<uint8_t>();
    CHECK(std::find(code_values.begin(), code_values.end(), uint8_t{4}) != code_values.end());
    const Var y = conv(Var(codes));
    check_close(y.value(), c.at("output"), "output");
    y.backward(tensor_of(c.at("grad_output")));
    check_close(conv.weight().grad(), c.at("grad_weight"), "grad weight");
    if (conv.bias().defined()) check_close(conv.bias().grad(), c.at("grad_bias"), "grad bias");
  }
}

TEST_CASE("torch reference global max pooling") {
  const json& c = fixtures().at("global_max_pool1d");
  GlobalMaxPool1D pool;
  const Var x(tensor_of(c.at("input")), true);
  const Var y = pool(x);
  check_close(y.value(), c.at("output"), "output", 0.0);  // a max is exact
  y.backward(tensor_of(c.at("grad_output")));
  check_close(x.grad(), c.at("grad_input"), "grad input", 0.0);
}

TEST_CASE("torch reference dense") {
  const json& cases = fixtures().at("dense");
  REQUIRE(cases.size() >= 2);
  for (const json& c : cases) {
    CAPTURE(c.at("name").get<std::string>());
    const bool has_bias = c.at("bias").get<bool>();
    Dense dense(c.at("in_features").get<int64_t>(), c.at("out_features").get<int64_t>(), has_bias);
    set_value(dense.weight(), c.at("weight"));
    if (has_bias) set_value(dense.bias(), c.at("bias_value"));
    CHECK(dense.bias().defined() == has_bias);

    const Var x(tensor_of(c.at("input")), true);
    const Var y = dense(x);
    check_close(y.value(), c.at("output"), "output");
    y.backward(tensor_of(c.at("grad_output")));
    check_close(x.grad(), c.at("grad_input"), "grad input");
    check_close(dense.weight().grad(), c.at("grad_weight"), "grad weight");
    if (has_bias) check_close(dense.bias().grad(), c.at("grad_bias"), "grad bias");
  }
}

TEST_CASE("torch reference bce with logits including large logits") {
  const json& cases = fixtures().at("bce_with_logits");
  REQUIRE(cases.size() >= 2);
  const BinaryCrossEntropy loss_fn;
  CHECK(loss_fn.takes_logits());
  for (const json& c : cases) {
    CAPTURE(c.at("name").get<std::string>());
    const Var logits(tensor_of(c.at("logits")), true);
    const Var targets(tensor_of(c.at("targets")));
    const Var loss = loss_fn(logits, targets);
    const double expected = c.at("loss").get<double>();
    CHECK(std::isfinite(loss.value().item()));
    CHECK(loss.value().item() == doctest::Approx(expected).epsilon(1e-13));
    loss.backward();
    check_close(logits.grad(), c.at("grad_logits"), "grad logits");
  }
}

TEST_CASE("torch reference fused conv relu maxpool dense on codes") {
  const json& c = fixtures().at("fused");
  const int64_t out_channels = c.at("out_channels").get<int64_t>();
  Conv1DOptions options;
  options.padding = c.at("padding").get<std::string>() == "same" ? Padding::kSame : Padding::kValid;

  Sequential model;
  model.add(Conv1D(4, out_channels, c.at("kernel_size").get<int64_t>(), options));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(out_channels, c.at("classes").get<int64_t>()));
  const json& initial = c.at("parameters");
  const auto named = model.named_parameters();
  REQUIRE(named.size() == initial.size());
  for (const auto& [name, parameter] : named) {
    CAPTURE(name);
    REQUIRE(initial.contains(name));
    set_value(parameter, initial.at(name));
  }

  const Var codes(codes_of(c.at("codes")));
  const Tensor grad_output = tensor_of(c.at("grad_output"));
  for (const bool fused : {true, false}) {
    CAPTURE(fused);
    model.set_fusion(fused);
    model.zero_grad();
    const Var logits = model(codes);
    check_close(logits.value(), c.at("output"), "logits");
    logits.backward(grad_output);
    for (const auto& [name, parameter] : named) {
      CAPTURE(name);
      check_close(parameter.grad(), c.at("grads").at(name), "parameter gradient");
    }
  }
}

}  // namespace strand
