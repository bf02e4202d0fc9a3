// Graph models: nodes wired by name (residual Add, Concat, several heads), their outputs before
// final activations, fusion, shapes, summary, checkpoints and the errors that name the node.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "autograd/gradcheck.h"
#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/crop1d.h"
#include "layers/dense.h"
#include "layers/graph.h"
#include "layers/merge.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "ops/conv1d.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "ops/softmax.h"
#include "test_helpers.h"
#include "train/checkpoint.h"

namespace strand {
namespace {

using testing::max_abs_difference;
using testing::random_codes;
using testing::random_tensor;

// A small BPNet-like graph: conv -> relu, one residual dilated block, then a profile head
// (crop, conv, Softmax) and a counts head (average pool, Dense).
Graph small_bpnet() {
  manual_seed(3);
  Graph g;
  g.add("conv", Conv1D(4, 6, 5, {.padding = Padding::kSame}), {"sequence"});
  g.add("relu", ReLU(), {"conv"});
  g.add("body", Conv1D(6, 6, 3, {.dilation = 2, .padding = Padding::kSame}), {"relu"});
  g.add("body_relu", ReLU(), {"body"});
  g.add("residual", Add(), {"relu", "body_relu"});
  g.add("crop", Crop1D(12), {"residual"});
  g.add("profile_conv", Conv1D(6, 2, 3), {"crop"});
  g.add("profile", Softmax(), {"profile_conv"});
  g.add("pool", GlobalAvgPool1D(), {"crop"});
  g.add("counts", Dense(6, 1), {"pool"});
  g.add_output("profile", "profile");
  g.add_output("counts", "counts");
  return g;
}

ModelInputs inputs_of(const Tensor& codes) {
  ModelInputs inputs;
  inputs.sequence = Var(codes);
  return inputs;
}

TEST_CASE("graph: a residual two-head model computes what its layers compose") {
  Graph g = small_bpnet();
  const Tensor codes = random_codes(3, 20, 11);
  const std::vector<Var> outputs = g.forward_outputs(inputs_of(codes));
  REQUIRE(outputs.size() == 2);
  CHECK(g.output_names() == std::vector<std::string>{"profile", "counts"});
  // The same computation written out with the layers' parameters.
  const auto conv = std::dynamic_pointer_cast<Conv1D>(g.find_node("conv")->layer);
  const auto body = std::dynamic_pointer_cast<Conv1D>(g.find_node("body")->layer);
  const auto head = std::dynamic_pointer_cast<Conv1D>(g.find_node("profile_conv")->layer);
  const auto dense = std::dynamic_pointer_cast<Dense>(g.find_node("counts")->layer);
  const Var x(codes);
  const Var h = relu(conv->forward(x));
  const Var r = add(h, relu(body->forward(h)));
  const Var cropped = crop1d(r, 12);
  const Var profile_logits = head->forward(cropped);
  const Var counts = dense->forward(mean(cropped, {2}));
  CHECK(max_abs_difference(outputs[0].value(), profile_logits.value()) == 0.0);
  CHECK(max_abs_difference(outputs[1].value(), counts.value()) < 1e-6);
  // The profile output is returned before its Softmax, which predictions apply.
  CHECK(g.output_activation(0) == Activation::kSoftmax);
  CHECK(g.output_activation(1) == Activation::kIdentity);
  const std::vector<Var> predictions = g.forward_predictions(inputs_of(codes));
  CHECK(max_abs_difference(predictions[0].value(), softmax(profile_logits, 2).value()) < 1e-7);
  CHECK(predictions[0].shape() == Shape{3, 2, 10});
}

TEST_CASE("graph: shapes come from the layers without a forward pass") {
  const Graph g = small_bpnet();
  InputShapes inputs;
  inputs.sequence = {20};
  const std::vector<Shape> shapes = g.output_shapes(inputs);
  CHECK(shapes == std::vector<Shape>{{2, 10}, {1}});
  const std::vector<Shape> nodes = g.node_shapes(inputs);
  CHECK(nodes[0] == Shape{6, 20});
  CHECK(nodes[4] == Shape{6, 20});  // residual
}

TEST_CASE("graph: summary lists every node, its shape, parameters and inputs") {
  const Graph g = small_bpnet();
  InputShapes inputs;
  inputs.sequence = {20};
  const std::string text = g.summary(inputs);
  CHECK(text.find("sequence (Input)") != std::string::npos);
  CHECK(text.find("residual (Add)") != std::string::npos);
  CHECK(text.find("relu, body_relu") != std::string::npos);
  CHECK(text.find("(None, 6, 20)") != std::string::npos);
  CHECK(text.find("output 'profile': node 'profile' (None, 2, 10) (trained before its softmax)") !=
        std::string::npos);
  // conv 4*6*5+6, body 6*6*3+6, profile_conv 6*2*3+2, counts 6+1.
  const int64_t total = 126 + 114 + 38 + 7;
  CHECK(g.parameter_count() == total);
  CHECK(text.find("Total params: " + std::to_string(total)) != std::string::npos);
}

TEST_CASE("graph: Concat joins branches along channels") {
  manual_seed(5);
  Graph g;
  g.add("a", Conv1D(4, 3, 3), {"sequence"});
  g.add("b", Conv1D(4, 2, 3), {"sequence"});
  g.add("joined", Concat(), {"a", "b"});
  g.add("pool", GlobalMaxPool1D(), {"joined"});
  g.add("out", Dense(5, 1), {"pool"});
  g.add("prob", Sigmoid(), {"out"});
  g.add_output("output", "prob");
  const Tensor codes = random_codes(2, 12, 1);
  InputShapes shapes;
  shapes.sequence = {12};
  CHECK(g.node_shapes(shapes)[2] == Shape{5, 10});
  const Var logits = g.forward_outputs(inputs_of(codes))[0];
  const auto a = std::dynamic_pointer_cast<Conv1D>(g.find_node("a")->layer);
  const auto b = std::dynamic_pointer_cast<Conv1D>(g.find_node("b")->layer);
  const auto out = std::dynamic_pointer_cast<Dense>(g.find_node("out")->layer);
  const Var x(codes);
  const Var expected = out->forward(global_max_pool1d(concat({a->forward(x), b->forward(x)}, 1)));
  CHECK(max_abs_difference(logits.value(), expected.value()) == 0.0);
  CHECK(g.output_activation(0) == Activation::kSigmoid);
}

TEST_CASE("graph: a fused Conv1D -> ReLU -> GlobalMaxPool1D run gives the unfused values") {
  manual_seed(9);
  Graph g;
  g.add("conv", Conv1D(4, 8, 5), {"sequence"});
  g.add("relu", ReLU(), {"conv"});
  g.add("pool", GlobalMaxPool1D(), {"relu"});
  g.add("dense", Dense(8, 1), {"pool"});
  g.add_output("output", "dense");
  const Tensor codes = random_codes(4, 30, 2);
  const Var fused = g.forward_outputs(inputs_of(codes))[0];
  fused.backward(Tensor::ones(fused.shape()));
  const Tensor fused_grad = g.parameters()[0].grad().clone();
  g.zero_grad();
  g.set_fusion(false);
  const Var plain = g.forward_outputs(inputs_of(codes))[0];
  plain.backward(Tensor::ones(plain.shape()));
  CHECK(max_abs_difference(fused.value(), plain.value()) < 1e-5);
  CHECK(max_abs_difference(fused_grad, g.parameters()[0].grad()) < 1e-4);
}

TEST_CASE("graph: fused Conv1D -> ReLU and BatchNorm1D -> ReLU runs give the unfused values") {
  // conv -> relu and norm -> relu fuse; relu's value is read twice, which ends each run there.
  const auto make = [] {
    manual_seed(12);
    Graph g;
    g.add("conv", Conv1D(4, 6, 5, {.padding = Padding::kSame}), {"sequence"});
    g.add("relu", ReLU(), {"conv"});
    g.add("norm", BatchNorm1D(6), {"relu"});
    g.add("norm_relu", ReLU(), {"norm"});
    g.add("residual", Add(), {"relu", "norm_relu"});
    g.add("pool", GlobalAvgPool1D(), {"residual"});
    g.add("dense", Dense(6, 1), {"pool"});
    g.add_output("output", "dense");
    return g;
  };
  const Tensor codes = random_codes(4, 24, 6);
  Graph fused_graph = make();
  Graph plain_graph = make();
  plain_graph.set_fusion(false);
  const Var fused = fused_graph.forward_outputs(inputs_of(codes))[0];
  const Var plain = plain_graph.forward_outputs(inputs_of(codes))[0];
  fused.backward(Tensor::ones(fused.shape()));
  plain.backward(Tensor::ones(plain.shape()));
  CHECK(max_abs_difference(fused.value(), plain.value()) < 1e-5);
  const auto fused_parameters = fused_graph.named_parameters();
  const auto plain_parameters = plain_graph.named_parameters();
  REQUIRE(fused_parameters.size() == plain_parameters.size());
  for (size_t i = 0; i < fused_parameters.size(); ++i) {
    // Parameters by their gradients; buffers (running statistics) by their values.
    const Var& a = fused_parameters[i].second;
    const Var& b = plain_parameters[i].second;
    CAPTURE(fused_parameters[i].first);
    CHECK(max_abs_difference(a.requires_grad() ? a.grad() : a.value(),
                             b.requires_grad() ? b.grad() : b.value()) < 1e-4);
  }
}

TEST_CASE("graph: a node read elsewhere is not fused away") {
  manual_seed(4);
  Graph g;
  g.add("conv", Conv1D(4, 3, 3), {"sequence"});
  g.add("relu", ReLU(), {"conv"});
  g.add("pool", GlobalMaxPool1D(), {"relu"});
  g.add("avg", GlobalAvgPool1D(), {"relu"});  // a second reader of relu
  g.add("joined", Concat(), {"pool", "avg"});
  g.add_output("output", "joined");
  const Tensor codes = random_codes(2, 10, 3);
  const Var out = g.forward_outputs(inputs_of(codes))[0];
  const Var x(codes);
  const auto conv = std::dynamic_pointer_cast<Conv1D>(g.find_node("conv")->layer);
  const Var h = relu(conv->forward(x));
  const Var expected = concat({global_max_pool1d(h), mean(h, {2})}, 1);
  CHECK(max_abs_difference(out.value(), expected.value()) < 1e-6);
}

TEST_CASE("graph: nodes read extra inputs such as a control track") {
  manual_seed(2);
  Graph g;
  g.add("conv", Conv1D(4, 2, 3, {.padding = Padding::kSame}), {"sequence"});
  g.add("with_control", Concat(), {"conv", "control"});
  g.add("head", Conv1D(3, 1, 1), {"with_control"});
  g.add_output("profile", "head");
  CHECK(g.input_names() == std::vector<std::string>{"sequence", "control"});
  ModelInputs inputs = inputs_of(random_codes(2, 8, 4));
  CHECK_THROWS_WITH_AS(g.forward_outputs(inputs),
                       doctest::Contains("reads an input 'control', but the batch has 'sequence'"),
                       Error);
  inputs.tracks["control"] = Var(random_tensor({2, 1, 8}, 5, DType::kFloat32));
  CHECK(g.forward_outputs(inputs)[0].shape() == Shape{2, 1, 8});
  InputShapes shapes;
  shapes.sequence = {8};
  shapes.tracks["control"] = {1, 8};
  CHECK(g.output_shapes(shapes)[0] == Shape{1, 8});
}

TEST_CASE("graph: wiring mistakes are refused naming the node") {
  Graph g;
  g.add("conv", Conv1D(4, 2, 3), {"sequence"});
  CHECK_THROWS_WITH_AS(g.add("conv", ReLU(), {"conv"}), doctest::Contains("'conv' is taken"),
                       Error);
  CHECK_THROWS_WITH_AS(g.add("a.b", ReLU(), {"conv"}), doctest::Contains("must be letters, digits"),
                       Error);
  CHECK_THROWS_WITH_AS(g.add("sum", Add(), {"conv"}),
                       doctest::Contains("node 'sum' (Add) takes two or more input(s)"), Error);
  CHECK_THROWS_WITH_AS(g.add("r", ReLU(), {"conv", "conv"}),
                       doctest::Contains("node 'r' (ReLU) takes 1 input(s), but 2 are listed"),
                       Error);
  CHECK_THROWS_WITH_AS(g.add_output("out", "nowhere"),
                       doctest::Contains("output 'out' reads 'nowhere', which is no node"), Error);
  g.add("other", Conv1D(4, 3, 5), {"sequence"});
  g.add("sum", Add(), {"conv", "other"});
  g.add_output("out", "sum");
  InputShapes shapes;
  shapes.sequence = {20};
  CHECK_THROWS_WITH_AS(g.output_shapes(shapes),
                       doctest::Contains("node 'sum' (Add): Add: every input must have the same "
                                         "shape, got (2, 18), (3, 16)"),
                       Error);
  CHECK_THROWS_WITH_AS(g.forward_outputs(inputs_of(random_codes(1, 20, 1))),
                       doctest::Contains("node 'sum' (Add)"), Error);
  Graph no_outputs;
  no_outputs.add("conv", Conv1D(4, 2, 3), {"sequence"});
  CHECK_THROWS_WITH_AS(no_outputs.forward_outputs(inputs_of(random_codes(1, 8, 1))),
                       doctest::Contains("no outputs declared"), Error);
}

TEST_CASE("graph: checkpoints name parameters by node and restore them") {
  Graph g = small_bpnet();
  std::vector<std::string> names;
  for (const auto& [name, parameter] : g.named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"conv.weight", "conv.bias", "body.weight", "body.bias",
                                          "profile_conv.weight", "profile_conv.bias",
                                          "counts.weight", "counts.bias"});
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "strand_graph_checkpoint.safetensors";
  train::save_checkpoint(path, g, nullptr, {});
  manual_seed(77);
  Graph other = small_bpnet();
  for (Var p : other.parameters()) p.mutable_value().fill_(0.25);
  train::load_checkpoint(path, other);
  const Tensor codes = random_codes(2, 20, 8);
  CHECK(max_abs_difference(g.forward_outputs(inputs_of(codes))[1].value(),
                           other.forward_outputs(inputs_of(codes))[1].value()) == 0.0);
  std::filesystem::remove(path);
}

TEST_CASE("graph: a Sequential is a one-output model whose final Sigmoid is kept apart") {
  manual_seed(1);
  Sequential model;
  model.add(Conv1D(4, 4, 3));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(4, 1));
  model.add(Sigmoid());
  const Tensor codes = random_codes(3, 10, 6);
  const Var logits = model.forward_outputs(inputs_of(codes))[0];
  CHECK(model.output_activation(0) == Activation::kSigmoid);
  CHECK(max_abs_difference(logits.value(),
                           model.forward_layers(Var(codes), model.size() - 1).value()) == 0.0);
  CHECK(max_abs_difference(model.forward_predictions(inputs_of(codes))[0].value(),
                           model.forward(Var(codes)).value()) == 0.0);
}

TEST_CASE("graph: LogSumExp adds counts given as logs, stably, with their gradient") {
  // ChromBPNet's counts: log(exp(a) + exp(b)), also where exp() of either would overflow.
  LogSumExp layer;
  const std::vector<double> a = {1.0, -5.0, 1000.0, -1000.0, 0.0};
  const std::vector<double> b = {2.0, 3.0, 1000.0, 10.0, -800.0};
  const Var x(Tensor::from_vector(a, {5, 1})), y(Tensor::from_vector(b, {5, 1}));
  const std::vector<Var> inputs = {x, y};
  const std::vector<double> out = layer.forward_inputs(inputs).value().to_vector<double>();
  const std::vector<double> expected = {std::log(std::exp(1.0) + std::exp(2.0)),
                                        std::log(std::exp(-5.0) + std::exp(3.0)),
                                        1000.0 + std::log(2.0), 10.0, 0.0};
  for (size_t i = 0; i < expected.size(); ++i) CHECK(out[i] == doctest::Approx(expected[i]));
  // Three inputs fold pairwise: log(e^0 + e^0 + e^0) = log 3.
  const Var zero(Tensor::from_vector(std::vector<double>{0.0}, {1, 1}));
  const std::vector<Var> three = {zero, zero, zero};
  CHECK(layer.forward_inputs(three).value().to_vector<double>()[0] ==
        doctest::Approx(std::log(3.0)));
  // The float64 finite-difference gradient of both inputs.
  const std::vector<Var> params = {
      Var(Tensor::from_vector(std::vector<double>{0.3, -1.2, 2.0, 0.0}, {2, 2}), true),
      Var(Tensor::from_vector(std::vector<double>{-0.7, 0.4, 2.5, -3.0}, {2, 2}), true)};
  const GradcheckResult check =
      gradcheck([&](const std::vector<Var>& v) { return layer.forward_inputs(v); }, params);
  CHECK_MESSAGE(check.ok, check.message);
  CHECK(layer.output_shape_of(std::vector<Shape>{{2, 3}, {2, 3}}) == Shape{2, 3});
  CHECK_THROWS_WITH_AS(layer.output_shape_of(std::vector<Shape>{{2, 3}, {3}}),
                       doctest::Contains("LogSumExp: every input must have the same shape"), Error);
}

}  // namespace
}  // namespace strand
