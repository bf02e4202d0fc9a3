// End-to-end training throughput of a Basset-class network (Kelley et al. 2016) on random DNA:
//   Conv1D(4->300, k=19) -> BatchNorm -> ReLU -> MaxPool 3
//   -> Conv1D(300->200, k=11) -> BatchNorm -> ReLU -> MaxPool 4
//   -> Conv1D(200->200, k=7) -> BatchNorm -> ReLU -> MaxPool 4
//   -> Flatten -> [Dense 1000 -> BatchNorm -> ReLU -> Dropout 0.3] x 2 -> Dense 164 -> Sigmoid,
// 164 binary tasks, BCE from logits, RMSprop (lr 2e-3), 600 bp base codes, batch 64 (the paper
// used 128; a smaller batch keeps the CPU run short). bench/peer_pytorch_basset.py is the
// PyTorch peer.
//
// Usage: e2e_basset [--epochs N] [--threads N] [--samples N] [--batch N] [--length N]
#include "bench/e2e_harness.h"
#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/dropout.h"
#include "layers/pooling.h"
#include "optim/rmsprop.h"

int main(int argc, char** argv) {
  using namespace strand;
  const bench::Options options = bench::parse_options(
      argc, argv, {.epochs = 3, .samples = 1280, .batch = 64, .length = 600, .tasks = 164});
  manual_seed(0);
  Sequential model;
  const int64_t filters[] = {300, 200, 200}, widths[] = {19, 11, 7}, pools[] = {3, 4, 4};
  int64_t channels = 4;
  for (int i = 0; i < 3; ++i) {
    model.add(Conv1D(channels, filters[i], widths[i]));
    model.add(BatchNorm1D(filters[i]));
    model.add(ReLU());
    model.add(MaxPool1D(pools[i]));
    channels = filters[i];
  }
  model.add(Flatten());
  int64_t features = numel(model.output_shape({4, options.length}));
  for (int i = 0; i < 2; ++i) {
    model.add(Dense(features, 1000));
    model.add(BatchNorm1D(1000));
    model.add(ReLU());
    model.add(Dropout(0.3));
    features = 1000;
  }
  model.add(Dense(features, options.tasks));
  model.add(Sigmoid());
  RMSprop optimizer(model.trainable_parameters(), RMSpropOptions{.learning_rate = 2e-3});
  bench::train_and_report("basset", model, optimizer, options);
  return 0;
}
