// A researcher's own Model: a Module whose forward_outputs() composes branches freely (here a
// residual block and two heads). fit()'s interface, the default output shapes (a dry run that
// leaves the model's mode and statistics alone) and summary.
#include <doctest/doctest.h>

#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/model.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "test_helpers.h"

namespace strand {
namespace {

using testing::random_codes;

// Conv -> BatchNorm -> ReLU, plus a residual conv; a binary head and a regression head.
class TwoHeadModel : public Model {
 public:
  TwoHeadModel()
      : conv_(register_module("conv", std::make_shared<Conv1D>(4, 5, 3))),
        norm_(register_module("norm", std::make_shared<BatchNorm1D>(5))),
        body_(register_module(
            "body", std::make_shared<Conv1D>(5, 5, 3, Conv1DOptions{.padding = Padding::kSame}))),
        binary_(register_module("binary", std::make_shared<Dense>(5, 2))),
        level_(register_module("level", std::make_shared<Dense>(5, 1))) {}

  std::vector<std::string> output_names() const override { return {"bound", "level"}; }
  std::vector<Var> forward_outputs(const ModelInputs& inputs) override {
    const Var h = relu(norm_->forward(conv_->forward(inputs.sequence)));
    const Var r = add(h, relu(body_->forward(h)));  // residual
    const Var pooled = mean(r, {2});
    return {binary_->forward(pooled), level_->forward(pooled)};
  }
  Activation output_activation(size_t index) const override {
    return index == 0 ? Activation::kSigmoid : Activation::kIdentity;
  }

 private:
  std::shared_ptr<Conv1D> conv_;
  std::shared_ptr<BatchNorm1D> norm_;
  std::shared_ptr<Conv1D> body_;
  std::shared_ptr<Dense> binary_, level_;
};

TEST_CASE("model: a custom model's outputs, predictions and output indices") {
  manual_seed(0);
  TwoHeadModel model;
  ModelInputs inputs;
  inputs.sequence = Var(random_codes(4, 16, 3));
  const std::vector<Var> outputs = model.forward_outputs(inputs);
  REQUIRE(outputs.size() == 2);
  CHECK(outputs[0].shape() == Shape{4, 2});
  CHECK(outputs[1].shape() == Shape{4, 1});
  const std::vector<Var> predictions = model.forward_predictions(inputs);
  CHECK(testing::max_abs_difference(predictions[0].value(), sigmoid(outputs[0]).value()) < 1e-6);
  CHECK(model.output_index("level") == 1);
  CHECK_THROWS_WITH_AS(model.output_index("profile"),
                       "the model has no output 'profile'; its outputs are 'bound', 'level'",
                       Error);
}

TEST_CASE("model: default output shapes come from a dry run that changes nothing") {
  manual_seed(0);
  TwoHeadModel model;
  const std::vector<Var> before = model.parameters();
  std::vector<Tensor> values;
  for (const Var& p : before) values.push_back(p.value().clone());
  InputShapes shapes;
  shapes.sequence = {16};
  CHECK(model.output_shapes(shapes) == std::vector<Shape>{{2}, {1}});
  CHECK(model.is_training());  // restored
  // The BatchNorm running statistics (buffers) are untouched by the evaluation-mode dry run.
  const std::vector<Var> after = model.parameters();
  for (size_t i = 0; i < after.size(); ++i) {
    CHECK(testing::max_abs_difference(values[i], after[i].value()) == 0.0);
  }
}

TEST_CASE("model: summary lists the submodules, their parameters and the outputs") {
  manual_seed(0);
  TwoHeadModel model;
  InputShapes shapes;
  shapes.sequence = {16};
  const std::string text = model.summary(shapes);
  CHECK(text.find("TwoHeadModel") != std::string::npos);
  CHECK(text.find("conv (Conv1D)") != std::string::npos);
  CHECK(text.find("(5, 4, 3) (5,)") != std::string::npos);  // conv's weight and bias
  CHECK(text.find("norm (BatchNorm1D)") != std::string::npos);
  CHECK(text.find("output 'bound': (None, 2) (then sigmoid)") != std::string::npos);
  CHECK(text.find("output 'level': (None, 1)\n") != std::string::npos);
  // 65 + BatchNorm (10 trained, 11 buffers) + 80 + 12 + 6.
  CHECK(text.find("Total params: 184") != std::string::npos);
  CHECK(text.find("Non-trainable params: 11") != std::string::npos);
}

}  // namespace
}  // namespace strand
