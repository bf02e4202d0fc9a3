// A Basset-like Sequential for the alternates engine's tests (tests/alternates) and variant
// scoring's (tests/variants): conv - BN - ReLU - max pool, twice more with other geometries (a
// dilated conv with ceil-mode average pooling, a strided conv), then Flatten - Dense - BN - ReLU -
// Dropout - Dense - Sigmoid. Its BatchNorm statistics come from one training-mode pass over
// random codes.
#pragma once

#include <memory>

#include "autograd/grad_mode.h"
#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/dropout.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "test_helpers.h"

namespace strand::testing {

inline std::shared_ptr<Sequential> basset_like(int64_t length, bool same_padding) {
  manual_seed(26);
  auto model = std::make_shared<Sequential>();
  Conv1DOptions first;
  first.padding = same_padding ? Padding::kSame : Padding::kValid;
  model->add(Conv1D(4, 12, 9, first));
  model->add(BatchNorm1D(12));
  model->add(ReLU());
  model->add(MaxPool1D(3));
  Conv1DOptions dilated;
  dilated.dilation = 2;
  dilated.padding = same_padding ? Padding::kSame : Padding::kValid;
  model->add(Conv1D(12, 8, 5, dilated));
  model->add(ReLU());
  model->add(AvgPool1D(2, 2, true));
  Conv1DOptions strided;
  strided.stride = 2;
  model->add(Conv1D(8, 8, 3, strided));
  model->add(BatchNorm1D(8));
  model->add(ReLU());
  model->add(MaxPool1D(2));
  model->add(Flatten());
  const int64_t features = numel(model->output_shape({length}));
  model->add(Dense(features, 16));
  model->add(BatchNorm1D(16));
  model->add(ReLU());
  model->add(Dropout(0.3));
  model->add(Dense(16, 3));
  model->add(Sigmoid());
  {
    NoGradGuard no_grad;
    model->train();
    model->forward_outputs({Var(random_codes(16, length, 5)), {}});
  }
  model->eval();
  return model;
}

}  // namespace strand::testing
