// Training accuracy accumulated on the device.
#include "train/training_accuracy.h"

#include "ops/elementwise.h"
#include "ops/reduction.h"

namespace strand::train {

TrainingAccuracy::TrainingAccuracy(Device device, double threshold)
    : device_(device),
      threshold_(threshold),
      correct_(Tensor::zeros({}, DType::kFloat64, device)),
      counted_(Tensor::zeros({}, DType::kFloat64, device)) {}

void TrainingAccuracy::add(const Tensor& outputs, const TrainingBatch& batch) {
  const DType dtype = outputs.dtype();
  const Tensor labels = batch.labels.to(dtype);    // (B, T) 0/1
  const Tensor mask = batch.label_mask.to(dtype);  // (B, T) 1 = counted
  const Tensor predicted =
      ops::greater(outputs, Tensor::full({}, threshold_, dtype, outputs.device()));  // (B, T)
  // With p, y in {0, 1}: p == y  <=>  1 - p - y + 2py = 1.
  const Tensor agree = ops::add(ops::affine(ops::add(predicted, labels), -1.0, 1.0),
                                ops::affine(ops::mul(predicted, labels), 2.0, 0.0));
  Tensor correct = ops::sum(ops::mul(agree, mask)).to(DType::kFloat64);
  Tensor counted = ops::sum(mask).to(DType::kFloat64);
  correct_.add_(correct);
  counted_.add_(counted);
}

void TrainingAccuracy::reset() {
  correct_.zero_();
  counted_.zero_();
}

std::pair<double, double> TrainingAccuracy::totals() const {
  return {correct_.item(), counted_.item()};
}

}  // namespace strand::train
