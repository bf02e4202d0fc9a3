// BatchNorm1D against torch.nn.BatchNorm1d (PyTorch 2.15, float64, weight [1.5, 0.5, -1],
// bias [0.1, -0.2, 0.3]): the training-mode output, the running statistics after one batch and
// the evaluation-mode output, printed there for the same input; the buffers' checkpoint names;
// and a frozen model keeps its buffers untrained. Gradients are a row of the op table.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "layers/batch_norm.h"
#include "layers/sequential.h"

namespace strand {
namespace {

void check_close(const std::vector<double>& got, const std::vector<double>& expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-10));
  }
}

const std::vector<double> kInput = {-1.0,  -0.63, -0.26, 0.11,  0.48,  0.85,  1.22,  -0.71,
                                    -0.34, 0.03,  0.40,  0.77,  1.14,  -0.79, -0.42, -0.05,
                                    0.32,  0.69,  1.06,  -0.87, -0.50, -0.13, 0.24,  0.61};
const std::vector<double> kTrainingOutput = {
    -1.7291134606393568,  -0.841543650230751,   0.04602616017785503,  0.933595970586461,
    -0.1313947544289912,  0.12244465418374136,  0.3762840627964739,   -0.9477971767239959,
    1.4273314354098299,   0.549199580459015,    -0.3289322744917999,  -1.2070641294426148,
    3.4043984157779854,   -1.2253576222993374,  -0.33778781189073126, 0.5497819985178747,
    -0.24116314734260527, 0.012676261270127248, 0.26651566988285985,  -1.05756556963761,
    1.8070641294426146,   0.9289322744917998,   0.050800419540984985, -0.8273314354098298};
const std::vector<double> kEvaluationOutput = {
    -1.4066296069752653,  -0.8356150568284297, -0.2646005066815943,  0.3064140434652412,
    0.02547348227531094,  0.21421825250577486, 0.4029630227362388,   -0.5815705084659109,
    0.6684894379909794,   0.2828003515506332,  -0.10288873488971295, -0.48857782133005906,
    1.8959950884685939,   -1.082540267702737,  -0.5115257175559015,  0.05948883259093398,
    -0.05614587782434912, 0.13259889240611478, 0.32134366263657876,  -0.6631898685655709,
    0.8352739078030209,   0.4495848213626748,  0.06389573492232865,  -0.32179335151801747};

}  // namespace

TEST_CASE("BatchNorm1D matches PyTorch in training and evaluation mode") {
  Sequential model;
  model.add(BatchNorm1D(3));
  for (auto& [name, parameter] : model.named_parameters()) {
    Var handle = parameter;
    if (name == "0.weight")
      handle.mutable_value() = Tensor::from_vector<double>({1.5, 0.5, -1}, {3});
    if (name == "0.bias")
      handle.mutable_value() = Tensor::from_vector<double>({0.1, -0.2, 0.3}, {3});
    if (name == "0.running_mean") handle.mutable_value() = Tensor::zeros({3}, DType::kFloat64);
    if (name == "0.running_var") handle.mutable_value() = Tensor::ones({3}, DType::kFloat64);
  }
  const Var input(Tensor::from_vector(kInput, {2, 3, 4}));
  check_close(model.forward(input).value().to_vector<double>(), kTrainingOutput);
  std::vector<std::string> names;
  for (auto& [name, parameter] : model.named_parameters()) {
    names.push_back(name);
    if (name == "0.running_mean") {
      check_close(parameter.value().to_vector<double>(), {-0.02375, 0.038, 0.013500000000000002});
    }
    if (name == "0.running_var") {
      check_close(parameter.value().to_vector<double>(),
                  {0.944685, 0.9607028571428572, 0.9202885714285715});
    }
    if (name == "0.num_batches_tracked") CHECK(parameter.value().item() == 1.0);
  }
  // PyTorch's state_dict names, so a checkpoint loads into torch.nn.BatchNorm1d.
  CHECK(names == std::vector<std::string>{"0.weight", "0.bias", "0.running_mean", "0.running_var",
                                          "0.num_batches_tracked"});
  model.eval();
  check_close(model.forward(input).value().to_vector<double>(), kEvaluationOutput);
}

TEST_CASE("BatchNorm1D's running statistics are never trained, even after unfreezing") {
  BatchNorm1D bn(4);
  CHECK(bn.trainable_parameters().size() == 2);  // weight and bias
  bn.set_trainable(false);
  CHECK(bn.trainable_parameters().empty());
  bn.set_trainable(true);
  CHECK(bn.trainable_parameters().size() == 2);
  CHECK(bn.output_shape({4, 10}) == Shape{4, 10});
  CHECK(bn.output_shape({4}) == Shape{4});
  CHECK_THROWS_WITH_AS(bn.output_shape({3, 10}), doctest::Contains("BatchNorm1D(4)"), Error);
}

}  // namespace strand
