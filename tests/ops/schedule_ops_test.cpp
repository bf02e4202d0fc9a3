// The optimizer updates' schedule argument (what a CUDA step reads its learning rate and step
// from, so that a replayed graph uses the current values) on the CPU kernels: an update given
// a schedule takes the rate and step from it, and advance_schedule counts a step.
#include <doctest/doctest.h>

#include <vector>

#include "ops/optimizer_updates.h"
#include "test_helpers.h"

namespace strand {
namespace {

constexpr double kRate = 0.05;
constexpr int64_t kStep = 3;

Tensor schedule_of(double rate, int64_t step) {
  return Tensor::from_vector<double>({rate, static_cast<double>(step)}, {2});
}

// Runs `update(state, schedule)` twice from the same state: once with the right host values
// and no schedule, once with wrong host values and the right schedule. Returns the max
// difference over every state tensor.
template <typename Update>
double schedule_against_host(int buffers, Update update) {
  std::vector<Tensor> host, scheduled;
  for (int i = 0; i < 1 + buffers; ++i) {
    const Tensor t = testing::random_tensor({50}, 10 + i);
    host.push_back(i == 0 ? t.clone() : Tensor::zeros({50}, DType::kFloat64));
    scheduled.push_back(host.back().clone());
  }
  const Tensor grad = testing::random_tensor({50}, 20);
  update(host, grad, false);
  update(scheduled, grad, true);
  double worst = 0.0;
  for (size_t i = 0; i < host.size(); ++i) {
    worst = std::max(worst, testing::max_abs_difference(host[i], scheduled[i]));
  }
  return worst;
}

}  // namespace

TEST_CASE("updates given a schedule take its learning rate and step, not their params'") {
  const Tensor schedule = schedule_of(kRate, kStep);
  CHECK(schedule_against_host(2, [&](std::vector<Tensor>& st, const Tensor& grad, bool use) {
          const AdamParams params{{use ? 9.0 : kRate, 0.9, 0.999, 1e-7, 0.0}, use ? 1 : kStep};
          ops::adam_update(st[0], grad, st[1], st[2], params, use ? schedule : Tensor());
        }) == 0.0);
  CHECK(schedule_against_host(1, [&](std::vector<Tensor>& st, const Tensor& grad, bool use) {
          const SGDParams params{use ? 9.0 : kRate, 0.9, 0.0, 0.0, false, true};
          ops::sgd_update(st[0], grad, st[1], params, use ? schedule : Tensor());
        }) == 0.0);
  CHECK(schedule_against_host(3, [&](std::vector<Tensor>& st, const Tensor& grad, bool use) {
          const RMSpropParams params{use ? 9.0 : kRate, 0.99, 1e-8, 0.0, 0.9, true};
          ops::rmsprop_update(st[0], grad, st[1], st[2], st[3], params, use ? schedule : Tensor());
        }) == 0.0);
  // Without a schedule the params' values count: the wrong rate moves the parameter elsewhere.
  CHECK(schedule_against_host(1, [&](std::vector<Tensor>& st, const Tensor& grad, bool use) {
          const SGDParams params{use ? 9.0 : kRate, 0.9, 0.0, 0.0, false, true};
          ops::sgd_update(st[0], grad, st[1], params);
        }) > 0.0);
}

TEST_CASE("advance_schedule counts one step and checks the schedule's form") {
  Tensor schedule = schedule_of(kRate, kStep);
  ops::advance_schedule(schedule);
  CHECK(schedule.to_vector<double>() == std::vector<double>{kRate, kStep + 1.0});
  Tensor wrong = Tensor::zeros({3}, DType::kFloat64);
  CHECK_THROWS_WITH_AS(ops::advance_schedule(wrong),
                       doctest::Contains("contiguous float64 [lr, step]"), Error);
  Tensor param = Tensor::zeros({4}, DType::kFloat64);
  Tensor momentum;
  const Tensor grad = Tensor::zeros({4}, DType::kFloat64);
  const Tensor float_schedule = Tensor::zeros({2}, DType::kFloat32);
  CHECK_THROWS_WITH_AS(
      ops::sgd_update(param, grad, momentum, {0.1, 0.0, 0.0, 0.0, false, false}, float_schedule),
      doctest::Contains("sgd_update: the schedule must be"), Error);
}

}  // namespace strand
