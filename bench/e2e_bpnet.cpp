// End-to-end training throughput of a BPNet-class network (Avsec et al. 2021, as bpnet-lite
// builds it) on random DNA and random per-position counts, built as a Graph:
//   Conv1D(4->64, k=21, same) -> ReLU, then 8 residual blocks x + ReLU(Conv1D(64->64, k=3,
//   dilation 2^i, same)) for i = 1..8; the trunk cropped to 1074 positions; a profile head
//   Conv1D(64->2, k=75) -> (B, 2, 1000) logits (then Softmax over positions) and a counts head
//   GlobalAvgPool1D -> Dense(64->1).
// Loss: the multinomial NLL of the two strands' 1000-position profiles plus lambda (10) x the
// MSE of log(1 + total counts); Adam(lr 1e-3), batch 64, 2114 bp base codes.
// bench/peer_pytorch_bpnet.py is the PyTorch peer.
//
// Usage: e2e_bpnet [--epochs N] [--threads N] [--samples N] [--batch N] [--length N]
#include <string>

#include "bench/e2e_harness.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/crop1d.h"
#include "layers/dense.h"
#include "layers/graph.h"
#include "layers/merge.h"
#include "layers/pooling.h"
#include "optim/adam.h"

int main(int argc, char** argv) {
  using namespace strand;
  const bench::Options options =
      bench::parse_options(argc, argv, {.epochs = 3, .samples = 640, .batch = 64, .length = 2114});
  constexpr int64_t kFilters = 64, kLayers = 8, kStrands = 2, kProfileLength = 1000;
  constexpr int64_t kProfileWidth = 75;
  manual_seed(0);
  Graph model;
  model.add("conv", Conv1D(4, kFilters, 21, {.padding = Padding::kSame}), {"sequence"});
  model.add("relu", ReLU(), {"conv"});
  std::string trunk = "relu";
  for (int64_t i = 1; i <= kLayers; ++i) {
    const std::string block = "block" + std::to_string(i);
    model.add(
        block + "_conv",
        Conv1D(kFilters, kFilters, 3, {.dilation = int64_t{1} << i, .padding = Padding::kSame}),
        {trunk});
    model.add(block + "_relu", ReLU(), {block + "_conv"});
    model.add(block, Add(), {trunk, block + "_relu"});
    trunk = block;
  }
  model.add("crop", Crop1D(kProfileLength + kProfileWidth - 1), {trunk});
  model.add("profile_conv", Conv1D(kFilters, kStrands, kProfileWidth), {"crop"});
  model.add("profile", Softmax(), {"profile_conv"});
  model.add("pool", GlobalAvgPool1D(), {"crop"});
  model.add("counts", Dense(kFilters, 1), {"pool"});
  model.add_output("profile", "profile");
  model.add_output("counts", "counts");

  const train::Objective objective({
      {.output = "profile",
       .loss = std::make_shared<MultinomialNLL>(),
       .target = train::Target::kProfile},
      {.output = "counts",
       .loss = std::make_shared<MeanSquaredError>(),
       .weight = 10.0,
       .target = train::Target::kLogTotalCounts},
  });
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-3});
  bench::train_and_report("bpnet", model, objective, optimizer, options,
                          bench::random_batches(options, kStrands, kProfileLength));
  return 0;
}
