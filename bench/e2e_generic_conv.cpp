// End-to-end training throughput of a generic three-conv network on random DNA (issue 13's
// example of "any other network"):
//   Conv1D(4->32, k=19, same) -> ReLU -> Conv1D(32->32, k=11, stride 4) -> ReLU
//   -> Conv1D(32->32, k=7, stride 4, dilation 2) -> ReLU -> Flatten -> Dense(896->64) -> ReLU
//   -> Dense(64->1) -> Sigmoid,
// BCE from logits, Adam(lr 1e-3), batch 64, 500 bp base codes. The first conv reads base codes
// through the one-hot gather; the other two run as im2col + GEMM.
// bench/peer_pytorch_generic_conv.py is the PyTorch peer.
//
// Usage: e2e_generic_conv [--epochs N] [--threads N] [--samples N] [--batch N] [--length N]
#include "bench/e2e_harness.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "optim/adam.h"

int main(int argc, char** argv) {
  using namespace strand;
  const bench::Options options =
      bench::parse_options(argc, argv, {.epochs = 3, .samples = 6400, .batch = 64});
  manual_seed(0);
  Sequential model;
  model.add(Conv1D(4, 32, 19, {.padding = Padding::kSame}));
  model.add(ReLU());
  model.add(Conv1D(32, 32, 11, {.stride = 4}));
  model.add(ReLU());
  model.add(Conv1D(32, 32, 7, {.stride = 4, .dilation = 2}));
  model.add(ReLU());
  model.add(Flatten());
  const int64_t features = numel(model.output_shape({4, options.length}));  // 32 * L_out
  model.add(Dense(features, 64));
  model.add(ReLU());
  model.add(Dense(64, 1));
  model.add(Sigmoid());
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-3});
  bench::train_and_report("generic_conv", model, optimizer, options);
  return 0;
}
