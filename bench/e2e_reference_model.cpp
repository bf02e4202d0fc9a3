// End-to-end training throughput of the reference model on random DNA:
//   Conv1D(4->16, k=15) -> ReLU -> GlobalMaxPool1D -> Dense(16->1) -> Sigmoid,
// BCE from logits, Adam(lr 1e-3), batch 128, 500 bp base codes. Prints samples/s per epoch and
// the best and median; bench/peer_pytorch_reference.py prints the same lines for PyTorch.
//
// Usage: e2e_reference_model [--epochs N] [--threads N] [--samples N] [--batch N] [--length N]
// Threads default to OMP_NUM_THREADS (OpenMP's own default when unset).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/losses.h"
#include "layers/sequential.h"
#include "optim/adam.h"

namespace {

struct Options {
  int epochs = 5;
  int threads = 0;  // 0: leave OpenMP's setting (OMP_NUM_THREADS) alone
  int64_t samples = 12800;
  int64_t batch = 128;
  int64_t length = 500;
};

[[noreturn]] void usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--epochs N] [--threads N] [--samples N] [--batch N] [--length N]\n",
               program);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") usage(argv[0]);
    if (i + 1 >= argc) usage(argv[0]);
    const long long value = std::atoll(argv[++i]);
    if (value <= 0) usage(argv[0]);
    if (flag == "--epochs") {
      options.epochs = static_cast<int>(value);
    } else if (flag == "--threads") {
      options.threads = static_cast<int>(value);
    } else if (flag == "--samples") {
      options.samples = value;
    } else if (flag == "--batch") {
      options.batch = value;
    } else if (flag == "--length") {
      options.length = value;
    } else {
      usage(argv[0]);
    }
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strand;
  const Options options = parse(argc, argv);
  if (options.threads > 0) omp_set_num_threads(options.threads);

  // All batches are made before timing so only training is measured: codes 0..3 (uint8),
  // labels 0/1 as (B, 1) floats.
  Generator data_rng(1234);
  const int64_t batches = options.samples / options.batch;
  std::vector<Tensor> inputs, labels;
  for (int64_t i = 0; i < batches; ++i) {
    std::vector<uint8_t> codes(static_cast<size_t>(options.batch * options.length));
    for (uint8_t& code : codes) code = static_cast<uint8_t>(data_rng.next_below(4));
    std::vector<float> targets(static_cast<size_t>(options.batch));
    for (float& target : targets) target = static_cast<float>(data_rng.next_below(2));
    inputs.push_back(Tensor::from_vector(codes, {options.batch, options.length}));
    labels.push_back(Tensor::from_vector(targets, {options.batch, 1}));
  }

  manual_seed(0);
  Sequential model;
  model.add(Conv1D(4, 16, 15));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(16, 1));
  model.add(Sigmoid());
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-3});
  const BinaryCrossEntropy loss_fn;

  std::printf("strand: threads=%d batch=%lld samples/epoch=%lld length=%lld epochs=%d\n",
              omp_get_max_threads(), static_cast<long long>(options.batch),
              static_cast<long long>(batches * options.batch),
              static_cast<long long>(options.length), options.epochs);
  std::vector<double> rates;
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    double loss_total = 0.0;
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < batches; ++i) {
      optimizer.zero_grad();
      // Logits: every layer but the final Sigmoid, as BCE-from-logits expects.
      const Var logits = model.forward_layers(Var(inputs[i]), model.size() - 1);
      const Var loss = loss_fn(logits, Var(labels[i]));
      loss.backward();
      optimizer.step();
      loss_total += loss.value().item();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = static_cast<double>(batches * options.batch) / seconds;
    rates.push_back(rate);
    std::printf("epoch %d: %.0f samples/s (%.3f s, mean loss %.4f)\n", epoch, rate, seconds,
                loss_total / static_cast<double>(batches));
  }
  std::vector<double> sorted = rates;
  std::sort(sorted.begin(), sorted.end());
  const size_t mid = sorted.size() / 2;
  const double median =
      sorted.size() % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  std::printf("best: %.0f samples/s\nmedian: %.0f samples/s\n", sorted.back(), median);
  return 0;
}
