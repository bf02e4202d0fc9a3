// End-to-end training throughput of the reference model on random DNA:
//   Conv1D(4->16, k=15) -> ReLU -> GlobalMaxPool1D -> Dense(16->1) -> Sigmoid,
// BCE from logits, Adam(lr 1e-3), batch 128, 500 bp base codes. Prints samples/s per epoch and
// the best and median; bench/peer_pytorch_reference.py prints the same lines for PyTorch.
//
// Usage: e2e_reference_model [--epochs N] [--threads N] [--samples N] [--batch N] [--length N]
#include "bench/e2e_harness.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "optim/adam.h"

int main(int argc, char** argv) {
  using namespace strand;
  const bench::Options options = bench::parse_options(argc, argv, {});
  manual_seed(0);
  Sequential model;
  model.add(Conv1D(4, 16, 15));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(16, 1));
  model.add(Sigmoid());
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-3});
  bench::train_and_report("reference", model, optimizer, options);
  return 0;
}
