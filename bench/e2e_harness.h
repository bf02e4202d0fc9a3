// The shared part of the end-to-end training benchmarks (bench/e2e_*.cpp): flags, random DNA
// batches made before timing, the timed training loop (any Model and Objective) and the summary
// lines that bench/run_model_comparison.sh parses. Each benchmark only builds its model; its
// PyTorch peer (bench/peer_pytorch_*.py, through bench/peer_harness.py) prints the same lines.
//
// Flags: [--epochs N] [--threads N] [--samples N] [--batch N] [--length N]
//        [--precision fp32|tf32|bf16]
// Threads default to OMP_NUM_THREADS (OpenMP's own default when unset); the precision of the
// float32 matrix math (tensor/precision.h) to fp32.
#pragma once

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "layers/losses.h"
#include "layers/model.h"
#include "layers/sequential.h"
#include "optim/optimizer.h"
#include "tensor/generator.h"
#include "tensor/precision.h"
#include "train/objective.h"
#include "train/training_batch.h"

namespace strand::bench {

struct Options {
  int epochs = 5;
  int threads = 0;  // 0: leave OpenMP's setting (OMP_NUM_THREADS) alone
  int64_t samples = 12800;
  int64_t batch = 128;
  int64_t length = 500;
  int64_t tasks = 1;  // labels per sample (a benchmark's own; no flag)
};

[[noreturn]] inline void usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--epochs N] [--threads N] [--samples N] [--batch N] [--length N] "
               "[--precision fp32|tf32|bf16]\n",
               program);
  std::exit(2);
}

/// Parses the flags over `defaults` (a benchmark's own batch and length) and applies --threads
/// and --precision (a bf16 run where the CPU cannot is refused, with the reason).
inline Options parse_options(int argc, char** argv, Options defaults) {
  Options options = defaults;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") usage(argv[0]);
    if (i + 1 >= argc) usage(argv[0]);
    if (flag == "--precision") {
      Float32Precision precision = Float32Precision::kFp32;
      try {
        precision = parse_float32_precision(argv[++i]);
      } catch (const std::exception&) {
        usage(argv[0]);
      }
      const std::string reason = float32_precision_unavailable_reason(precision, Device::cpu());
      if (!reason.empty()) {
        std::fprintf(stderr, "--precision %s: %s\n", argv[i], reason.c_str());
        std::exit(2);
      }
      set_float32_precision(precision);
      continue;
    }
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
  if (options.threads > 0) omp_set_num_threads(options.threads);
  return options;
}

/// Random batches, made before timing: base codes 0..3 (B, L) uint8, 0/1 labels (B, tasks), and
/// with profile_tracks > 0 per-position counts 0..2 (B, profile_tracks, profile_length).
inline std::vector<train::TrainingBatch> random_batches(const Options& options,
                                                        int64_t profile_tracks = 0,
                                                        int64_t profile_length = 0) {
  Generator data_rng(1234);
  std::vector<train::TrainingBatch> out;
  for (int64_t i = 0; i < options.samples / options.batch; ++i) {
    std::vector<uint8_t> codes(static_cast<size_t>(options.batch * options.length));
    for (uint8_t& code : codes) code = static_cast<uint8_t>(data_rng.next_below(4));
    std::vector<float> targets(static_cast<size_t>(options.batch * options.tasks));
    for (float& target : targets) target = static_cast<float>(data_rng.next_below(2));
    train::TrainingBatch batch;
    batch.size = options.batch;
    batch.codes = Tensor::from_vector(codes, {options.batch, options.length});
    batch.labels = Tensor::from_vector(targets, {options.batch, options.tasks});
    if (profile_tracks > 0) {
      std::vector<float> counts(
          static_cast<size_t>(options.batch * profile_tracks * profile_length));
      for (float& count : counts) count = static_cast<float>(data_rng.next_below(3));
      batch.profile = Tensor::from_vector(counts, {options.batch, profile_tracks, profile_length});
    }
    out.push_back(std::move(batch));
  }
  return out;
}

/// Trains `model` on `objective` over `batches` for options.epochs and prints samples/s per
/// epoch, then the best and median epoch. The batches carry no label mask, so a labelled term
/// takes every label (the plain mean, as the peers' losses do).
inline void train_and_report(const char* name, Model& model, const train::Objective& objective,
                             Optimizer& optimizer, const Options& options,
                             const std::vector<train::TrainingBatch>& batches) {
  const int64_t count = static_cast<int64_t>(batches.size());
  const std::vector<size_t> bound = objective.bind(model);
  std::printf(
      "strand %s: threads=%d batch=%lld samples/epoch=%lld length=%lld epochs=%d precision=%s\n",
      name, omp_get_max_threads(), static_cast<long long>(options.batch),
      static_cast<long long>(count * options.batch), static_cast<long long>(options.length),
      options.epochs, std::string(float32_precision_name(float32_precision())).c_str());
  std::vector<double> rates;
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    double loss_total = 0.0;
    const auto start = std::chrono::steady_clock::now();
    for (const train::TrainingBatch& batch : batches) {
      optimizer.zero_grad();
      // The outputs before their final activations: BCE takes the logits, as in training.
      const std::vector<Var> outputs = model.forward_outputs(batch.inputs());
      const Var loss = objective.loss(model, bound, outputs, batch);
      loss.backward();
      optimizer.step();
      loss_total += loss.value().item();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = static_cast<double>(count * options.batch) / seconds;
    rates.push_back(rate);
    std::printf("epoch %d: %.0f samples/s (%.3f s, mean loss %.4f)\n", epoch, rate, seconds,
                loss_total / static_cast<double>(count));
  }
  std::vector<double> sorted = rates;
  std::sort(sorted.begin(), sorted.end());
  const size_t mid = sorted.size() / 2;
  const double median =
      sorted.size() % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  std::printf("best: %.0f samples/s\nmedian: %.0f samples/s\n", sorted.back(), median);
}

/// train_and_report() of a model ending in Sigmoid on BCE (from logits) of random 0/1 labels.
inline void train_and_report(const char* name, Model& model, Optimizer& optimizer,
                             const Options& options) {
  const BinaryCrossEntropy loss;
  train_and_report(name, model, train::Objective::of(loss), optimizer, options,
                   random_batches(options));
}

}  // namespace strand::bench
