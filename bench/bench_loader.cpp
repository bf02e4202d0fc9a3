// Loader throughput: random 1 kb windows with reverse complement and jitter, encoded, from an
// indexed FASTA (ce.fa and a generated >= 100 Mb FASTA), in-memory and streaming, one thread.
// items_per_second is windows/s on one core. Scratch files go to $STRAND_BENCH_DIR (default
// /tmp/strand-bench); the 100 Mb FASTA is generated there once (seeded, 60-column lines).
// The window regions are also written as samtools region files (regions_*.txt) so the same
// reads can be timed with `samtools faidx FASTA -r regions_X.txt`.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "data/counter_rng.h"
#include "data/encoding.h"
#include "data/loader/data_loader.h"
#include "data/sources/interval_source.h"
#include "fmt/format.h"

namespace {

using namespace strand::data;

constexpr int64_t kWindow = 1000;
constexpr int64_t kJitter = 50;
constexpr int64_t kIntervals = 50000;
constexpr int64_t kBigContigs = 4;
constexpr int64_t kBigContigLength = 25'000'000;  // 4 x 25 Mb = 100 Mb

std::string bench_dir() {
  const char* env = std::getenv("STRAND_BENCH_DIR");
  std::string dir = env != nullptr ? env : "/tmp/strand-bench";
  std::filesystem::create_directories(dir);
  return dir;
}

std::string ce_fasta() {
  const std::string path = bench_dir() + "/ce.fa";
  if (!std::filesystem::exists(path)) {
    std::filesystem::copy_file(
        std::string(STRAND_SOURCE_DIR) + "/tests/data/fixtures/genomes/ce.fa", path);
  }
  return path;
}

std::string big_fasta() {
  const std::string path = bench_dir() + "/random100m.fa";
  if (std::filesystem::exists(path)) return path;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    CounterRng rng(2026);
    std::string line(61, '\n');
    for (int64_t c = 0; c < kBigContigs; ++c) {
      out << ">rand" << c + 1 << '\n';
      for (int64_t done = 0; done < kBigContigLength; done += 60) {
        const int64_t n = std::min<int64_t>(60, kBigContigLength - done);
        for (int64_t i = 0; i < n; ++i) line[static_cast<size_t>(i)] = "ACGT"[rng.next() & 3];
        line[static_cast<size_t>(n)] = '\n';
        out.write(line.data(), n + 1);
      }
    }
  }
  std::filesystem::rename(tmp, path);
  return path;
}

// Random intervals of width 1 on contigs long enough for a jittered window; also written as
// a samtools region file with the same (unjittered) 1 kb windows.
IntervalSet random_intervals(const FastaReader& reader, const std::string& name) {
  IntervalSet set;
  set.path = name;
  set.target_names = {"label"};
  CounterRng rng(17);
  std::vector<const Contig*> usable;
  for (const Contig& c : reader.contigs()) {
    if (c.length > kWindow + 2 * kJitter) usable.push_back(&c);
  }
  std::ofstream regions(bench_dir() + "/regions_" + name + ".txt");
  for (int64_t i = 0; i < kIntervals; ++i) {
    const Contig& c = *usable[rng.below(usable.size())];
    const auto lo = kWindow / 2 + kJitter;
    const int64_t centre = lo + static_cast<int64_t>(rng.below(c.length - 2 * lo));
    set.intervals.push_back({c.name, centre, centre + 1, -1, i + 1});
    set.labels.push_back(static_cast<float>(i & 1));
    set.label_mask.push_back(1);
    regions << fmt::format("{}:{}-{}\n", c.name, centre - kWindow / 2 + 1,
                           centre - kWindow / 2 + kWindow);
  }
  return set;
}

std::shared_ptr<IntervalSource> make_source(const std::string& fasta, const std::string& name,
                                            bool streaming) {
  FastaReader reader(fasta);
  IntervalSet set = random_intervals(reader, name);
  IntervalSourceOptions options;
  options.window = kWindow;
  options.jitter = kJitter;
  options.streaming = streaming;
  auto source = std::make_shared<IntervalSource>(std::move(reader), std::move(set), options);
  source->prepare_workers(1);
  return source;
}

AugmentOptions augment() {
  AugmentOptions a;
  a.jitter = kJitter;
  a.rc_probability = 0.5;
  return a;
}

// The per-sample work of a worker: draw augmentation, fetch the window, reverse complement.
void fetch_windows(benchmark::State& state, const std::shared_ptr<IntervalSource>& source) {
  std::vector<uint8_t> codes(kWindow);
  const AugmentOptions a = augment();
  int64_t index = 0;
  uint64_t epoch = 0;
  for (auto _ : state) {
    const SampleAugment s = draw_augment(a, 1, epoch, index);
    source->fetch(index, s.shift, codes.data(), nullptr, 0);
    if (s.reverse) reverse_complement(codes.data(), codes.size());
    benchmark::DoNotOptimize(codes.data());
    if (++index == source->size()) {
      index = 0;
      ++epoch;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["windows_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// The whole loader with one worker thread: shuffle, batches of 256, labels, handoff.
void load_batches(benchmark::State& state, const std::shared_ptr<IntervalSource>& source) {
  LoaderOptions options;
  options.sampler.batch_size = 256;
  options.augment = augment();
  options.loader_threads = 1;
  DataLoader loader(source, options);
  uint64_t epoch = 0;
  loader.start_epoch(epoch);
  int64_t windows = 0;
  for (auto _ : state) {
    auto batch = loader.next();
    if (!batch) {
      loader.start_epoch(++epoch);
      batch = loader.next();
    }
    windows += batch->size;
    benchmark::DoNotOptimize(batch->codes);
  }
  state.SetItemsProcessed(windows);
}

void BM_FetchMemoryCe(benchmark::State& state) {
  static const auto source = make_source(ce_fasta(), "ce", false);
  fetch_windows(state, source);
}
void BM_FetchStreamingCe(benchmark::State& state) {
  static const auto source = make_source(ce_fasta(), "ce", true);
  fetch_windows(state, source);
}
void BM_FetchMemory100Mb(benchmark::State& state) {
  static const auto source = make_source(big_fasta(), "random100m", false);
  fetch_windows(state, source);
}
void BM_FetchStreaming100Mb(benchmark::State& state) {
  static const auto source = make_source(big_fasta(), "random100m", true);
  fetch_windows(state, source);
}
void BM_LoaderMemory100Mb(benchmark::State& state) {
  static const auto source = make_source(big_fasta(), "random100m", false);
  load_batches(state, source);
}
void BM_LoaderStreaming100Mb(benchmark::State& state) {
  static const auto source = make_source(big_fasta(), "random100m", true);
  load_batches(state, source);
}

BENCHMARK(BM_FetchMemoryCe);
BENCHMARK(BM_FetchStreamingCe);
BENCHMARK(BM_FetchMemory100Mb);
BENCHMARK(BM_FetchStreaming100Mb);
BENCHMARK(BM_LoaderMemory100Mb)->UseRealTime();
BENCHMARK(BM_LoaderStreaming100Mb)->UseRealTime();

}  // namespace
