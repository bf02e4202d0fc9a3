// Tests for the DataLoader: determinism across thread counts, shuffling, balancing, sharding,
// augmentation, error propagation, shutdown, the allocator hook and the config factory.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "data/counter_rng.h"
#include "data/data_error.h"
#include "data/encoding.h"
#include "data/loader/data_loader.h"
#include "data/loader/loader_config.h"
#include "data/sources/array_source.h"
#include "fmt/format.h"
#include "test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

// N random sequences of 64 bases; label = index % 5 == 0 (a 1:4 class imbalance).
std::shared_ptr<ArraySource> make_array(int64_t n, int64_t window = 48) {
  std::vector<uint8_t> codes(static_cast<size_t>(n * 64));
  CounterRng rng(42);
  for (auto& c : codes) c = static_cast<uint8_t>(rng.below(5));
  std::vector<float> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[static_cast<size_t>(i)] = i % 5 == 0 ? 1.0F : 0.0F;
  return std::make_shared<ArraySource>(std::move(codes), 64, std::move(labels), 1,
                                       std::vector<uint8_t>{}, window);
}

struct Epoch {
  std::vector<int64_t> indices;
  std::vector<uint8_t> codes;
  std::vector<uint8_t> reverse;
  int64_t batches = 0;
};

Epoch run_epoch(DataLoader& loader, uint64_t epoch) {
  Epoch out;
  loader.start_epoch(epoch);
  while (auto batch = loader.next()) {
    out.indices.insert(out.indices.end(), batch->sample_index, batch->sample_index + batch->size);
    out.codes.insert(out.codes.end(), batch->codes, batch->codes + batch->size * batch->length);
    out.reverse.insert(out.reverse.end(), batch->reverse, batch->reverse + batch->size);
    ++out.batches;
  }
  return out;
}

LoaderOptions augmenting_options(int threads) {
  LoaderOptions o;
  o.sampler.batch_size = 16;
  o.sampler.seed = 7;
  o.loader_threads = threads;
  o.augment.jitter = 8;
  o.augment.rc_probability = 0.5;
  o.augment.substitution_rate = 0.05;
  return o;
}

// Throws when asked for sample `bad`.
class FailingSource : public ArraySource {
 public:
  FailingSource(ArraySource base, int64_t bad) : ArraySource(std::move(base)), bad_(bad) {}
  void fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
             int worker) const override {
    if (index == bad_) throw DataError("sample " + std::to_string(index) + " is broken");
    ArraySource::fetch(index, shift, codes, lower_mask, worker);
  }

 private:
  int64_t bad_;
};

}  // namespace

TEST_CASE("batches are identical for 1 2 and 4 worker threads") {
  const auto source = make_array(203);
  DataLoader one(source, augmenting_options(1));
  const Epoch reference = run_epoch(one, 3);
  CHECK(reference.batches == 13);
  CHECK(reference.indices.size() == 203);
  for (const int threads : {2, 4}) {
    DataLoader many(source, augmenting_options(threads));
    const Epoch e = run_epoch(many, 3);
    CHECK(e.indices == reference.indices);
    CHECK(e.codes == reference.codes);
    CHECK(e.reverse == reference.reverse);
  }
}

TEST_CASE("batch_sizes() lists the sizes an epoch's batches have") {
  const auto source = make_array(203);
  DataLoader loader(source, augmenting_options(1));
  CHECK(loader.batch_sizes() == std::vector<int64_t>{16, 11});  // 12 x 16 + 11
  std::set<int64_t> seen;
  loader.start_epoch(1);
  while (auto batch = loader.next()) seen.insert(batch->size);
  CHECK(seen == std::set<int64_t>{16, 11});
}

TEST_CASE("augmentation is reproducible per (seed epoch index) and applied as drawn") {
  const auto source = make_array(50);
  LoaderOptions o = augmenting_options(2);
  o.augment.substitution_rate = 0.0;
  DataLoader loader(source, o);
  loader.start_epoch(5);
  int reversed = 0;
  while (auto batch = loader.next()) {
    for (int64_t r = 0; r < batch->size; ++r) {
      const int64_t index = batch->sample_index[r];
      const SampleAugment a = draw_augment(o.augment, o.sampler.seed, 5, index);
      CHECK(a.shift >= -8);
      CHECK(a.shift <= 8);
      std::vector<uint8_t> expected(48);
      source->fetch(index, a.shift, expected.data(), nullptr, 0);
      if (a.reverse) reverse_complement(expected.data(), expected.size());
      CHECK(std::equal(expected.begin(), expected.end(), batch->codes + r * 48));
      CHECK(batch->reverse[r] == (a.reverse ? 1 : 0));
      CHECK(batch->labels[r] == (index % 5 == 0 ? 1.0F : 0.0F));
      reversed += a.reverse ? 1 : 0;
    }
  }
  CHECK(reversed > 10);  // p = 0.5 over 50 samples
  CHECK(reversed < 40);
}

TEST_CASE("substitution noise changes about the requested fraction of bases") {
  std::vector<uint8_t> codes(100000, kCodeA);
  apply_substitutions(0.1, 99, codes.data(), static_cast<int64_t>(codes.size()));
  int64_t changed = 0;
  int64_t invalid = 0;
  for (const uint8_t c : codes) {
    invalid += c >= kNumBases ? 1 : 0;
    changed += c != kCodeA ? 1 : 0;
  }
  CHECK(invalid == 0);
  CHECK(changed > 9000);
  CHECK(changed < 11000);
}

TEST_CASE("shuffle depends on seed and epoch and covers every sample once") {
  const auto source = make_array(100);
  DataLoader loader(source, augmenting_options(2));
  const Epoch e0 = run_epoch(loader, 0);
  const Epoch e1 = run_epoch(loader, 1);
  const Epoch e0_again = run_epoch(loader, 0);
  CHECK(e0.indices != e1.indices);
  CHECK(e0.indices == e0_again.indices);
  CHECK(std::set<int64_t>(e0.indices.begin(), e0.indices.end()).size() == 100);
  LoaderOptions other = augmenting_options(2);
  other.sampler.seed = 8;
  DataLoader reseeded(source, other);
  CHECK(run_epoch(reseeded, 0).indices != e0.indices);
}

TEST_CASE("balanced batches hold equal counts per class") {
  const auto source = make_array(100);  // 20 positives, 80 negatives
  LoaderOptions o = augmenting_options(2);
  o.sampler.balanced = true;
  DataLoader loader(source, o);
  loader.start_epoch(0);
  std::set<int64_t> negatives_seen;
  int64_t batches = 0;
  while (auto batch = loader.next()) {
    int positives = 0;
    for (int64_t r = 0; r < batch->size; ++r) {
      positives += batch->labels[r] > 0.5F ? 1 : 0;
      if (batch->labels[r] < 0.5F) negatives_seen.insert(batch->sample_index[r]);
    }
    CHECK(batch->size == 16);
    CHECK(positives == 8);
    ++batches;
  }
  CHECK(batches == 10);  // 80 negatives / 8 per batch
  CHECK(negatives_seen.size() == 80);
  CHECK(loader.steps_per_epoch() == 10);
}

TEST_CASE("sharding: ranks are disjoint cover the data and take the same number of steps") {
  const auto source = make_array(103);
  std::vector<int64_t> all;
  std::vector<int64_t> steps;
  for (int rank = 0; rank < 3; ++rank) {
    LoaderOptions o = augmenting_options(1);
    o.sampler.rank = rank;
    o.sampler.world = 3;
    o.sampler.drop_last = true;
    DataLoader loader(source, o);
    const Epoch e = run_epoch(loader, 2);
    steps.push_back(e.batches);
    all.insert(all.end(), e.indices.begin(), e.indices.end());
  }
  CHECK(steps == std::vector<int64_t>{2, 2, 2});
  CHECK(std::set<int64_t>(all.begin(), all.end()).size() == all.size());  // disjoint
  // Without drop_last every sample appears and ranks are padded to equal length.
  std::set<int64_t> covered;
  for (int rank = 0; rank < 3; ++rank) {
    LoaderOptions o = augmenting_options(1);
    o.sampler.rank = rank;
    o.sampler.world = 3;
    DataLoader loader(source, o);
    const Epoch e = run_epoch(loader, 2);
    CHECK(e.indices.size() == 35);
    CHECK(e.batches == 3);
    covered.insert(e.indices.begin(), e.indices.end());
  }
  CHECK(covered.size() == 103);
}

TEST_CASE("both strands: every sample forward then reverse complemented") {
  const auto source = make_array(10);
  LoaderOptions o;
  o.sampler.batch_size = 4;
  o.sampler.shuffle = false;
  o.sampler.both_strands = true;
  DataLoader loader(source, o);
  const Epoch e = run_epoch(loader, 0);
  REQUIRE(e.indices.size() == 20);
  for (size_t i = 0; i < 20; i += 2) {
    CHECK(e.indices[i] == e.indices[i + 1]);
    CHECK(e.reverse[i] == 0);
    CHECK(e.reverse[i + 1] == 1);
    std::vector<uint8_t> fwd(e.codes.begin() + static_cast<std::ptrdiff_t>(i * 48),
                             e.codes.begin() + static_cast<std::ptrdiff_t>((i + 1) * 48));
    reverse_complement(fwd.data(), fwd.size());
    CHECK(std::equal(fwd.begin(), fwd.end(),
                     e.codes.begin() + static_cast<std::ptrdiff_t>((i + 1) * 48)));
  }
}

TEST_CASE("a worker's exception reaches next() for its batch earlier batches still arrive") {
  auto base = make_array(64);
  LoaderOptions o;
  o.sampler.batch_size = 8;
  o.sampler.shuffle = false;
  o.loader_threads = 3;
  DataLoader loader(std::make_shared<FailingSource>(*base, 20), o);  // batch 2 fails
  CHECK(loader.next().has_value());
  CHECK(loader.next().has_value());
  CHECK_THROWS_WITH_AS(loader.next(), "sample 20 is broken", DataError);
}

TEST_CASE("destroying the loader mid-epoch joins the workers promptly") {
  const auto source = make_array(5000);
  LoaderOptions o = augmenting_options(4);
  o.prefetch = 8;
  const auto t0 = std::chrono::steady_clock::now();
  {
    DataLoader loader(source, o);
    CHECK(loader.next().has_value());
  }
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  CHECK(elapsed < std::chrono::seconds(2));
}

TEST_CASE("batch buffers come from the pluggable allocator") {
  const auto source = make_array(40);
  std::atomic<int> allocations{0};
  std::atomic<int> releases{0};
  LoaderOptions o = augmenting_options(2);
  o.allocator.allocate = [&](size_t bytes) {
    ++allocations;
    return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  };
  o.allocator.release = [&](void* p, size_t) {
    ++releases;
    std::free(p);
  };
  {
    DataLoader loader(source, o);
    const Epoch e = run_epoch(loader, 0);
    CHECK(e.batches == 3);
  }
  CHECK(allocations >= 3);
  CHECK(releases == allocations);
}

TEST_CASE("LoaderConfig.validate names the offending field") {
  LoaderConfig c;
  c.fasta = "g.fa";
  c.intervals = "i.bed";
  CHECK_NOTHROW(c.validate());
  c.window = 0;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("LoaderConfig.window = 0"), DataError);
  c.window = 100;
  c.shard_rank = 2;
  c.shard_count = 2;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("LoaderConfig.shard_rank = 2"), DataError);
  c.shard_rank = 0;
  c.rc_probability = 1.5;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("LoaderConfig.rc_probability"), DataError);
  c.rc_probability = 0.5;
  c.balanced = true;
  c.batch_size = 5;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("must be even"), DataError);
  c.batch_size = 4;
  c.window = kMaxSequenceLength + 1;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("LoaderConfig.window = 10000001"),
                       DataError);
}

TEST_CASE("make_loader: FASTA + BED streaming and in-memory give the same batches") {
  TempDir dir;
  LoaderConfig c;
  c.fasta = dir.copy_in(fixture("genomes/ce.fa"), "ce.fa");
  std::string bed;
  for (int i = 0; i < 30; ++i) {
    bed += fmt::format("CHROMOSOME_I\t{}\t{}\t{}\n", 1000 + i * 30000, 1100 + i * 30000, i % 2);
  }
  c.intervals = dir.write("i.bed", bed);
  c.window = 500;
  c.jitter = 20;
  c.batch_size = 8;
  c.loader_threads = 2;
  c.seed = 11;
  const auto memory = make_loader(c);
  c.streaming = true;
  const auto streaming = make_loader(c);
  const Epoch a = run_epoch(*memory, 4);
  const Epoch b = run_epoch(*streaming, 4);
  CHECK(a.batches == 4);
  CHECK(a.indices == b.indices);
  CHECK(a.codes == b.codes);
}

TEST_CASE("make_loader: fasta_index puts .fai and .gzi of a BGZF FASTA elsewhere") {
  TempDir data_dir;
  TempDir index_dir;
  LoaderConfig c;
  c.fasta = data_dir.copy_in(fixture("genomes/yeast_small.fa.gz"), "y.fa.gz");
  c.fasta_index = index_dir.file("y.fa.gz.fai");
  c.intervals = data_dir.write("i.bed", "chrI\t100\t200\t1\nchrII\t300\t400\t0\n");
  c.window = 50;
  c.batch_size = 2;
  const auto loader = make_loader(c);
  CHECK(loader->steps_per_epoch() == 1);
  CHECK(std::filesystem::exists(index_dir.file("y.fa.gz.fai")));
  CHECK(std::filesystem::exists(index_dir.file("y.fa.gz.gzi")));
  CHECK_FALSE(std::filesystem::exists(c.fasta + ".fai"));
}
