// The losses of issue 13 against PyTorch 2.15's float64 values for the same inputs (printed
// with torch.log_softmax, torch.nn.functional.cross_entropy and poisson_nll_loss(log_input=True,
// full=False), and torch.distributions.Multinomial(...).log_prob); gradients are rows of the op
// table.
#include <doctest/doctest.h>

#include <vector>

#include "ops/loss.h"
#include "ops/softmax.h"

namespace strand {
namespace {

Var values(std::vector<double> v, Shape shape) { return Var(Tensor::from_vector(v, shape)); }

}  // namespace

TEST_CASE("log_softmax, cross-entropy, Poisson and multinomial NLL match PyTorch") {
  const Var x = values({1, 2, 3, 0, -1, 5}, {2, 3});
  const std::vector<double> log_softmax_torch = {-2.4076059644443806, -1.4076059644443804,
                                                 -0.4076059644443804, -5.0091744845917345,
                                                 -6.0091744845917345, -0.009174484591734727};
  const std::vector<double> got = log_softmax(x, 1).value().to_vector<double>();
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(log_softmax_torch[i]));
  // Class 2 for the first example, class 0 for the second, as one-hot targets.
  const Var one_hot = values({0, 0, 1, 1, 0, 0}, {2, 3});
  CHECK(categorical_crossentropy(x, one_hot).value().item() == doctest::Approx(2.7083902245180576));
  CHECK(poisson_nll(values({0.5, -1, 2}, {3}), values({1, 0, 3}, {3})).value().item() ==
        doctest::Approx(0.968552270267407));
  const Var profile_logits = values({0.1, 0.2, -0.3, 1.0, -2.0, 0.5}, {2, 3});
  const Tensor counts = Tensor::from_vector(std::vector<double>{2, 0, 1, 0, 3, 4}, {2, 3});
  CHECK(multinomial_nll(profile_logits, counts).value().item() ==
        doctest::Approx(6.670350466449119));
}

TEST_CASE("per-task weights scale each task's BCE and masked labels carry none") {
  const Var logits = values({0.3, -1.2, 2.0, 0.4}, {2, 2});
  const Var targets = values({1, 0, 0, 1}, {2, 2});
  const Tensor all_valid = Tensor::ones({2, 2}, DType::kFloat64);
  const Tensor equal = Tensor::ones({2}, DType::kFloat64);
  // Equal task weights: the plain mean.
  CHECK(bce_with_logits_task_weighted(logits, targets, all_valid, equal).value().item() ==
        doctest::Approx(bce_with_logits(logits, targets).value().item()));
  // Task 1 weighted 0: only task 0's labels count.
  const Tensor only_first = Tensor::from_vector(std::vector<double>{1, 0}, {2});
  const double first_task =
      bce_with_logits(values({0.3, 2.0}, {2, 1}), values({1, 0}, {2, 1})).value().item();
  CHECK(bce_with_logits_task_weighted(logits, targets, all_valid, only_first).value().item() ==
        doctest::Approx(first_task));
}

}  // namespace strand
