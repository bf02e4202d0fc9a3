// TrainingAccuracy: the device-side sums of a training epoch's accuracy, and their reset in
// place (fit keeps one accumulator for every epoch, since a captured CUDA graph adds into it).
#include <doctest/doctest.h>

#include "train/training_accuracy.h"

namespace strand::train {

TEST_CASE("training accuracy counts the kept labels it predicts and resets in place") {
  TrainingAccuracy accuracy(Device::cpu(), 0.0);
  TrainingBatch batch;
  batch.size = 2;
  batch.labels = Tensor::from_vector<float>({1, 0, 1, 1}, {2, 2});
  batch.label_mask = Tensor::from_vector<float>({1, 1, 0, 1}, {2, 2});
  const Tensor logits = Tensor::from_vector<float>({2.0f, 1.0f, -1.0f, -3.0f}, {2, 2});
  accuracy.add(logits, batch);  // kept: (1, 1) right, (1, 0) wrong, (2, 1) wrong
  CHECK(accuracy.totals() == std::pair<double, double>{1.0, 3.0});
  accuracy.add(logits, batch);
  CHECK(accuracy.totals() == std::pair<double, double>{2.0, 6.0});
  accuracy.reset();
  CHECK(accuracy.totals() == std::pair<double, double>{0.0, 0.0});
  accuracy.add(logits, batch);
  CHECK(accuracy.totals() == std::pair<double, double>{1.0, 3.0});
}

}  // namespace strand::train
