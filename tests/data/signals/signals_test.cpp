// Tests for per-base signal tracks in batches: an IntervalSource reads profile and control
// windows and count labels from bigWigs at the window the codes come from; the loader moves
// them with the jitter shift and reverse complements them with the codes (positions reversed,
// strand pairs swapped); bigWigs that do not match the FASTA are errors naming file and contig.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/loader/data_loader.h"
#include "data/loader/loader_config.h"
#include "data/signals/bigwig.h"
#include "data/sources/interval_source.h"
#include "data/test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

// A genome of three contigs (the last shorter than the windows) and per-base tracks whose
// values name the base and the track, so that a read from the wrong place or track shows.
struct SignalFixture {
  TempDir dir;
  std::string fasta, plus, minus, control;
  std::vector<Contig> contigs = {{"chr1", 3000}, {"chr2", 2000}, {"tiny", 60}};

  SignalFixture() {
    std::string text;
    for (const Contig& c : contigs) {
      text += ">" + c.name + "\n";
      for (int64_t i = 0; i < c.length; ++i) text += "ACGT"[(i * 7 + c.length) % 4];
      text += "\n";
    }
    fasta = dir.write("genome.fa", text);
    plus = write_track("plus.bw", 1.0F);
    minus = write_track("minus.bw", 1000.0F);
    control = write_track("control.bw", 5000.0F);
  }

  // Value of base i of contig c on a track with offset `base`: distinct everywhere.
  static float value(float base, size_t contig, int64_t i) {
    return base + static_cast<float>(contig * 10000 + static_cast<size_t>(i));
  }

  std::string write_track(const std::string& name, float base) {
    BigWigWriter writer(dir.file(name), contigs);
    for (size_t c = 0; c < contigs.size(); ++c) {
      std::vector<float> values(static_cast<size_t>(contigs[c].length));
      for (int64_t i = 0; i < contigs[c].length; ++i)
        values[static_cast<size_t>(i)] = value(base, c, i);
      writer.add_values(contigs[c].name, 0, values);
    }
    writer.finish();
    return dir.file(name);
  }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DataError& error) {
    return error.what();
  }
  return "no error";
}

std::vector<float> reference(const std::string& bigwig, const std::string& contig, int64_t start,
                             int64_t n) {
  const BigWigReader reader(bigwig);
  std::vector<float> out(static_cast<size_t>(n));
  reader.read(contig, start, start + n, out.data());
  return out;
}

}  // namespace

TEST_CASE("interval signals: profile, control and counts come from the shifted window") {
  SignalFixture f;
  const std::string bed = f.dir.write("peaks.bed", "chr1\t1400\t1600\t1\nchr2\t0\t40\t0\n");
  IntervalSourceOptions options;
  options.window = 400;
  options.jitter = 30;
  options.signals.profile_bigwigs = {f.plus + "," + f.minus};
  options.signals.control_bigwigs = {f.control};
  options.signals.count_bigwigs = {f.plus + "," + f.minus, f.control};
  options.signals.profile_length = 100;
  options.signals.targets = TargetSource::kCounts;
  IntervalReadOptions read;
  read.labelled = false;
  IntervalSource source(FastaReader(f.fasta), read_intervals(bed, read), options);
  source.prepare_workers(2);
  REQUIRE(source.profile_tracks() == 2);
  REQUIRE(source.profile_length() == 100);
  REQUIRE(source.control_tracks() == 1);
  REQUIRE(source.num_targets() == 2);
  CHECK(source.reverse_profile_tracks() == std::vector<int64_t>{1, 0});
  CHECK(source.reverse_control_tracks() == std::vector<int64_t>{0});

  for (const int64_t shift : {-30, 0, 17}) {
    CAPTURE(shift);
    std::vector<float> profile(2 * 100), control(400), labels(2);
    std::vector<uint8_t> mask(2);
    source.signals(0, shift, profile.data(), control.data(), 1);
    // Window [1300 + shift, 1700 + shift), output window its centred 100 bases.
    const int64_t start = 1300 + shift;
    const std::vector<float> plus = reference(f.plus, "chr1", start + 150, 100);
    const std::vector<float> minus = reference(f.minus, "chr1", start + 150, 100);
    CHECK(std::equal(plus.begin(), plus.end(), profile.begin()));
    CHECK(std::equal(minus.begin(), minus.end(), profile.begin() + 100));
    CHECK(control == reference(f.control, "chr1", start, 400));
    source.labels_at(0, shift, labels.data(), mask.data(), 1);
    const double stranded = std::accumulate(plus.begin(), plus.end(), 0.0) +
                            std::accumulate(minus.begin(), minus.end(), 0.0);
    const std::vector<float> ctl = reference(f.control, "chr1", start + 150, 100);
    CHECK(labels[0] == doctest::Approx(stranded).epsilon(1e-6));
    CHECK(labels[1] == doctest::Approx(std::accumulate(ctl.begin(), ctl.end(), 0.0)).epsilon(1e-6));
    CHECK(mask == std::vector<uint8_t>{1, 1});
  }
  // Unshifted labels are computed once and equal labels_at(shift 0).
  std::vector<float> once(2), at(2);
  std::vector<uint8_t> mask(2);
  source.labels(0, once.data(), mask.data());
  source.labels_at(0, 0, at.data(), mask.data(), 0);
  CHECK(once == at);
  // At a contig's start the window cannot move left: shifts give the same window.
  std::vector<float> left(200), moved(200);
  source.signals(1, 0, left.data(), nullptr, 0);
  source.signals(1, -30, moved.data(), nullptr, 0);
  CHECK(left == moved);
  CHECK(left == [&] {
    std::vector<float> both = reference(f.plus, "chr2", 150, 100);
    const std::vector<float> m = reference(f.minus, "chr2", 150, 100);
    both.insert(both.end(), m.begin(), m.end());
    return both;
  }());
  CHECK_THROWS_AS(source.signals(0, 31, left.data(), nullptr, 0), DataError);
}

TEST_CASE("interval signals: a contig shorter than the window pads zeros and masks counts") {
  SignalFixture f;
  const std::string bed = f.dir.write("peaks.bed", "tiny\t10\t20\t1\n");
  IntervalSourceOptions options;
  options.window = 100;
  options.signals.profile_bigwigs = {f.plus};
  options.signals.targets = TargetSource::kCounts;  // counts of the profile track
  IntervalReadOptions read;
  read.labelled = false;
  IntervalSource source(FastaReader(f.fasta), read_intervals(bed, read), options);
  std::vector<float> profile(100, -1.0F), labels(1, -1.0F);
  std::vector<uint8_t> mask(1, 9);
  source.signals(0, 0, profile.data(), nullptr, 0);
  const std::vector<float> tiny = reference(f.plus, "tiny", 0, 60);
  CHECK(std::equal(tiny.begin(), tiny.end(), profile.begin()));
  CHECK(std::all_of(profile.begin() + 60, profile.end(), [](float v) { return v == 0.0F; }));
  source.labels(0, labels.data(), mask.data());
  CHECK(mask[0] == 0);
  CHECK(labels[0] == 0.0F);
}

TEST_CASE("interval signals: bigWigs that do not match the FASTA are errors naming both") {
  SignalFixture f;
  const std::string bed = f.dir.write("peaks.bed", "chr1\t10\t20\t1\nchr2\t100\t200\t0\n");
  BigWigWriter other(f.dir.file("other.bw"), {{"chr1", 3000}, {"chr2", 2500}});
  other.add_values("chr1", 0, std::vector<float>{1.0F});
  other.finish();
  BigWigWriter lacking(f.dir.file("lacking.bw"), {{"chr1", 3000}});
  lacking.add_values("chr1", 0, std::vector<float>{1.0F});
  lacking.finish();
  IntervalSourceOptions options;
  options.window = 100;
  const auto build = [&](const std::string& bigwig) {
    options.signals.control_bigwigs = {bigwig};
    IntervalSource source(FastaReader(f.fasta), read_intervals(bed, {}), options);
  };
  CHECK(error_of([&] { build(f.dir.file("other.bw")); }) ==
        "contig 'chr2' has 2500 bases in bigWig '" + f.dir.file("other.bw") +
            "' but 2000 in "
            "FASTA '" +
            f.fasta + "' (used by line 2 of '" + bed +
            "'): the files describe different "
            "genome assemblies");
  CHECK(error_of([&] { build(f.dir.file("lacking.bw")); }) ==
        "bigWig '" + f.dir.file("lacking.bw") + "' has no contig 'chr2', which line 2 of '" + bed +
            "' uses (its contigs: chr1)");
  CHECK(error_of([&] { build(f.dir.file("absent.bw")); }).find("absent.bw' does not exist") !=
        std::string::npos);
  options.signals.control_bigwigs = {};
  options.signals.profile_bigwigs = {f.plus + "," + f.plus};
  CHECK(error_of([&] { build(f.plus); }).find("is not a bigWig track") != std::string::npos);
  options.signals.profile_bigwigs = {f.plus};
  options.signals.profile_length = 51;  // 100 - 51 is odd: no centred window
  CHECK(error_of([&] { build(f.plus); }).find("profile length 51 does not fit") !=
        std::string::npos);
}

TEST_CASE(
    "loader: a reverse-complemented sample's profile is the forward one reversed with "
    "strands swapped") {
  SignalFixture f;
  const std::string bed =
      f.dir.write("peaks.bed", "chr1\t1000\t1100\t1\nchr1\t2000\t2100\t0\nchr2\t700\t800\t1\n");
  LoaderConfig config;
  config.fasta = f.fasta;
  config.intervals = bed;
  config.window = 200;
  config.batch_size = 6;
  config.both_strands = true;  // every sample forward, then reverse complemented
  config.shuffle = false;
  config.signals.profile_bigwigs = {f.plus + "," + f.minus, f.control};  // a pair, an unstranded
  config.signals.control_bigwigs = {f.minus + "," + f.plus};
  config.signals.profile_length = 50;
  auto loader = make_loader(config);
  auto batch = loader->next();
  REQUIRE(batch);
  REQUIRE(batch->size == 6);
  const int64_t s = batch->profile_tracks, lp = batch->profile_length, sc = batch->control_tracks;
  REQUIRE(s == 3);
  REQUIRE(lp == 50);
  REQUIRE(sc == 2);
  const std::vector<int64_t> swap = {1, 0, 2};
  for (int64_t pair = 0; pair < 3; ++pair) {
    const int64_t fwd = 2 * pair, rev = 2 * pair + 1;
    REQUIRE(batch->sample_index[fwd] == batch->sample_index[rev]);
    REQUIRE(batch->reverse[fwd] == 0);
    REQUIRE(batch->reverse[rev] == 1);
    for (int64_t track = 0; track < s; ++track) {
      const float* forward = batch->profile + (fwd * s + track) * lp;
      const float* reversed = batch->profile + (rev * s + swap[static_cast<size_t>(track)]) * lp;
      CHECK(std::equal(forward, forward + lp, std::reverse_iterator<const float*>(reversed + lp)));
    }
    for (int64_t track = 0; track < sc; ++track) {
      const float* forward = batch->control + (fwd * sc + track) * 200;
      const float* reversed = batch->control + (rev * sc + (1 - track)) * 200;
      CHECK(
          std::equal(forward, forward + 200, std::reverse_iterator<const float*>(reversed + 200)));
    }
    // The codes are reverse complemented alongside.
    std::vector<uint8_t> codes(batch->codes + fwd * 200, batch->codes + fwd * 200 + 200);
    reverse_complement(codes.data(), codes.size());
    CHECK(std::equal(codes.begin(), codes.end(), batch->codes + rev * 200));
    // The profile is the bigWigs' values at the sample's output window.
    const std::vector<float> plus = reference(f.plus, pair == 2 ? "chr2" : "chr1",
                                              (pair == 0   ? 1050
                                               : pair == 1 ? 2050
                                                           : 750) -
                                                  25,
                                              50);
    CHECK(std::equal(plus.begin(), plus.end(), batch->profile + fwd * s * lp));
  }
}

TEST_CASE("loader: jittered tracks follow the codes, streamed or in memory, balanced or not") {
  SignalFixture f;
  std::string lines;
  for (int i = 0; i < 12; ++i) {
    lines += "chr" + std::to_string(1 + i % 2) + "\t" + std::to_string(300 + 100 * i) + "\t" +
             std::to_string(320 + 100 * i) + "\t" + std::to_string(i % 3 == 0 ? 1 : 0) + "\n";
  }
  const std::string bed = f.dir.write("peaks.bed", lines);
  LoaderConfig config;
  config.fasta = f.fasta;
  config.intervals = bed;
  config.window = 120;
  config.jitter = 20;
  config.rc_probability = 0.5;
  config.batch_size = 4;
  config.balanced = true;
  config.loader_threads = 2;
  config.seed = 7;
  config.signals.profile_bigwigs = {f.plus + "," + f.minus};
  config.signals.control_bigwigs = {f.control};
  auto memory = make_loader(config);
  config.streaming = true;
  auto streaming = make_loader(config);
  const FastaReader genome(f.fasta);
  int64_t rows = 0;
  while (auto a = memory->next()) {
    auto b = streaming->next();
    REQUIRE(b);
    REQUIRE(a->size == b->size);
    CHECK(std::equal(a->profile, a->profile + a->size * 2 * 120, b->profile));
    CHECK(std::equal(a->control, a->control + a->size * 120, b->control));
    int64_t positives = 0;
    for (int64_t r = 0; r < a->size; ++r) {
      positives += a->labels[r] > 0.5F ? 1 : 0;
      // The control track holds the value of each base the codes hold: find the window's
      // start from the control's first value (values are 5000 + contig * 10000 + position).
      const float* control = a->control + r * 120;
      const bool reverse = a->reverse[r] != 0;
      const float first = reverse ? control[119] : control[0];
      const auto contig = static_cast<size_t>((first - 5000.0F) / 10000.0F);
      const int64_t start =
          static_cast<int64_t>(first - 5000.0F) - static_cast<int64_t>(contig) * 10000;
      std::vector<uint8_t> codes(120);
      genome.fetch_codes(f.contigs[contig].name, start, start + 120, codes.data());
      if (reverse) reverse_complement(codes.data(), codes.size());
      CHECK(std::equal(codes.begin(), codes.end(), a->codes + r * 120));
      ++rows;
    }
    CHECK(positives == a->size / 2);  // balanced sampling still balances
  }
  CHECK(rows > 0);
  CHECK_FALSE(streaming->next());
}

TEST_CASE("loader: count targets from bigWigs read BED3 intervals without label columns") {
  SignalFixture f;
  const std::string bed = f.dir.write("peaks.bed", "chr1\t500\t600\nchr2\t900\t1000\n");
  LoaderConfig config;
  config.fasta = f.fasta;
  config.intervals = bed;
  config.window = 100;
  config.batch_size = 2;
  config.shuffle = false;
  config.signals.count_bigwigs = {f.plus, f.plus + "," + f.minus};
  config.signals.targets = TargetSource::kCounts;
  auto loader = make_loader(config);
  REQUIRE(loader->source().num_targets() == 2);
  auto batch = loader->next();
  REQUIRE(batch);
  const std::vector<float> plus = reference(f.plus, "chr1", 500, 100);
  const std::vector<float> minus = reference(f.minus, "chr1", 500, 100);
  const double p = std::accumulate(plus.begin(), plus.end(), 0.0);
  const double m = std::accumulate(minus.begin(), minus.end(), 0.0);
  CHECK(batch->labels[0] == doctest::Approx(p));
  CHECK(batch->labels[1] == doctest::Approx(p + m));
  CHECK(batch->label_mask[0] == 1);
  CHECK(batch->profile == nullptr);
  CHECK(batch->control == nullptr);
  // Without count targets the same BED3 file has no label column to read.
  config.signals.targets = TargetSource::kLabels;
  CHECK(error_of([&] { make_loader(config); }).find("missing label column 4") != std::string::npos);
  // Records cannot carry tracks.
  config.format = IntervalFormat::kRecords;
  CHECK(error_of([&] { config.validate(); }).find("need bed or narrowpeak") != std::string::npos);
}

namespace {

// A source whose reverse track map is not an involution: 0 -> 1 -> 2 -> 0.
class BadMapSource : public SequenceSource {
 public:
  int64_t size() const override { return 2; }
  int64_t length() const override { return 10; }
  int64_t num_targets() const override { return 1; }
  void fetch(int64_t, int64_t, uint8_t* codes, uint8_t*, int) const override {
    std::fill(codes, codes + 10, kCodeA);
  }
  void labels(int64_t, float* out, uint8_t* mask) const override {
    out[0] = 1.0F;
    mask[0] = 1;
  }
  int64_t profile_tracks() const override { return 3; }
  int64_t profile_length() const override { return length_; }
  std::vector<int64_t> reverse_profile_tracks() const override { return map_; }

  int64_t length_ = 10;
  std::vector<int64_t> map_ = {1, 2, 0};
};

}  // namespace

TEST_CASE("loader: track maps and profile lengths a batch cannot hold are refused") {
  auto source = std::make_shared<BadMapSource>();
  CHECK(error_of([&] {
          DataLoader loader(source, {});
        }).find("reverse profile track map [1, 2, 0]") != std::string::npos);
  source->map_ = {0, 2, 1};
  source->length_ = 7;  // 10 - 7 is odd
  CHECK(error_of([&] { DataLoader loader(source, {}); }).find("3 profile tracks of 7 bases") !=
        std::string::npos);
  source->length_ = 4;
  DataLoader loader(source, {});
  auto batch = loader.next();
  REQUIRE(batch);
  CHECK(batch->profile_tracks == 3);
  CHECK(batch->profile_length == 4);
  CHECK(batch->control == nullptr);
}
