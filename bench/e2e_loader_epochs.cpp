// The native loader's throughput over whole epochs of a FASTA + BED, as strand.data.Loader
// (python/) drives it: make_loader() of the same settings, every batch taken, nothing else done
// with it. bench/python/bench_loader.py runs this beside the Python loader and a pyfaidx
// Dataset on the same intervals. Prints one "epoch N: W windows/s" line per epoch.
//
// Usage: e2e_loader_epochs FASTA BED [--window N] [--batch N] [--threads N] [--epochs N]
//                          [--jitter N] [--rc P]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "data/loader/loader_config.h"

int main(int argc, char** argv) {
  using namespace strand::data;
  if (argc < 3) {
    fmt::print(stderr,
               "usage: {} FASTA BED [--window N] [--batch N] [--threads N] [--epochs N] "
               "[--jitter N] [--rc P]\n",
               argv[0]);
    return 2;
  }
  LoaderConfig config;
  config.fasta = argv[1];
  config.intervals = argv[2];
  config.labels = {LabelKind::kReal, false};
  config.window = 1000;
  config.batch_size = 64;
  config.loader_threads = 2;
  config.rc_probability = 0.0;
  int64_t epochs = 3;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--window") {
      config.window = std::atoll(value);
    } else if (flag == "--batch") {
      config.batch_size = std::atoll(value);
    } else if (flag == "--threads") {
      config.loader_threads = std::atoi(value);
    } else if (flag == "--epochs") {
      epochs = std::atoll(value);
    } else if (flag == "--jitter") {
      config.jitter = std::atoll(value);
    } else if (flag == "--rc") {
      config.rc_probability = std::atof(value);
    } else {
      fmt::print(stderr, "unknown flag {}\n", flag);
      return 2;
    }
  }
  config.validate();
  auto loader = make_loader(config);
  for (int64_t epoch = 0; epoch < epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    loader->start_epoch(static_cast<uint64_t>(epoch));
    int64_t windows = 0;
    while (auto batch = loader->next()) windows += batch->size;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("epoch {}: {:.0f} windows/s ({} windows, {:.3f} s)\n", epoch, windows / seconds,
               windows, seconds);
  }
  return 0;
}
