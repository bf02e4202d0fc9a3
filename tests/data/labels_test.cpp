// Tests for label checking when files are read (issue 10, item 6): missing markers, finite and
// binary labels, files whose every label is missing, through BED, records and LoaderConfig.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/fasta/fasta_reader.h"
#include "data/intervals/intervals.h"
#include "data/labels.h"
#include "data/loader/loader_config.h"
#include "data/sources/record_source.h"
#include "test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

IntervalSet read_bed_labels(const TempDir& dir, const std::string& labels, LabelOptions options) {
  // One interval per comma-separated label.
  std::string text;
  int64_t start = 0;
  size_t begin = 0;
  while (begin <= labels.size()) {
    const size_t comma = labels.find(',', begin);
    const std::string label =
        labels.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    text +=
        "chr1\t" + std::to_string(start) + "\t" + std::to_string(start + 10) + "\t" + label + "\n";
    start += 10;
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  IntervalReadOptions read;
  read.labels = options;
  return read_intervals(dir.write("l.bed", text), read);
}

constexpr LabelOptions kBinary{LabelKind::kBinary, true};
constexpr LabelOptions kReal{LabelKind::kReal, true};

}  // namespace

TEST_CASE("label policy: missing markers, finite numbers and binary values") {
  for (const char* missing : {".", "NA", "na", "nan", "NaN", "-nan", "-NaN", "+nan"}) {
    CAPTURE(missing);
    CHECK(is_missing_label(missing));
    const Label label = parse_label(missing, LabelKind::kBinary, "f", 1, 4);
    CHECK_FALSE(label.valid);
    CHECK(label.value == 0.0F);
  }
  CHECK(parse_label("1", LabelKind::kBinary, "f", 1, 4).value == 1.0F);
  CHECK(parse_label("1.0", LabelKind::kBinary, "f", 1, 4).value == 1.0F);
  CHECK(parse_label("1e0", LabelKind::kBinary, "f", 1, 4).value == 1.0F);
  CHECK_FALSE(std::signbit(parse_label("-0", LabelKind::kBinary, "f", 1, 4).value));
  CHECK(parse_label("-2.5", LabelKind::kReal, "f", 1, 4).value == -2.5F);
  for (const char* bad : {"2", "-1", "0.5", "0.99999999999"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(parse_label(bad, LabelKind::kBinary, "f.bed", 3, 4),
                         doctest::Contains("f.bed:3: label column 4 must be 0 or 1"), DataError);
    CHECK_NOTHROW(parse_label(bad, LabelKind::kReal, "f.bed", 3, 4));
  }
  for (const char* bad : {"inf", "-inf", "Infinity", "1e40", "nan(1)", "", "1x", " 1"}) {
    CAPTURE(bad);
    for (const LabelKind kind : {LabelKind::kBinary, LabelKind::kReal}) {
      CHECK_THROWS_WITH_AS(parse_label(bad, kind, "f.bed", 3, 4),
                           doctest::Contains("f.bed:3: label column 4 must be a finite number"),
                           DataError);
    }
  }
}

TEST_CASE("BED labels for binary cross-entropy are checked when read, naming file and line") {
  // Reproducers from issue 10, item 6: these failed only after an epoch, without file or line.
  TempDir dir;
  for (const char* bad : {"2", "-1", "0.5"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(read_bed_labels(dir, std::string("1,0,") + bad, kBinary),
                         doctest::Contains("l.bed:3: label column 4 must be 0 or 1"), DataError);
  }
  CHECK_THROWS_WITH_AS(read_bed_labels(dir, "1,inf", kBinary),
                       doctest::Contains("l.bed:2: label column 4 must be a finite number"),
                       DataError);
  // -nan is missing like nan (it used to be taken as a value).
  const auto set = read_bed_labels(dir, "1,-nan,0,NA", kBinary);
  CHECK(set.label_mask == std::vector<uint8_t>{1, 0, 1, 0});
  CHECK(set.labels == std::vector<float>{1.0F, 0.0F, 0.0F, 0.0F});
  CHECK(set.stats.masked_labels == 2);
  // Real labels take any finite number.
  CHECK(read_bed_labels(dir, "2,-1,0.5", kReal).labels == std::vector<float>{2.0F, -1.0F, 0.5F});
}

TEST_CASE("a file whose every label is missing is an error unless allowed") {
  // Reproducer from issue 10, item 6: training on it "succeeded" with loss 0 and exit code 0.
  TempDir dir;
  CHECK_THROWS_WITH_AS(read_bed_labels(dir, "nan,.,NA,-nan", kBinary),
                       doctest::Contains("every label in '"), DataError);
  CHECK_THROWS_WITH_AS(read_bed_labels(dir, "nan,.", kReal),
                       doctest::Contains("(2 samples, 2 labels"), DataError);
  CHECK(read_bed_labels(dir, "nan,.", {LabelKind::kReal, false}).size() == 2);

  IntervalReadOptions dream;
  dream.format = IntervalFormat::kDreamTsv;
  CHECK_THROWS_WITH_AS(
      read_intervals(dir.write("d.tsv", "chrom\tstart\tend\tHepG2\nchr1\t0\t200\tA\n"), dream),
      doctest::Contains("every label in"), DataError);
}

TEST_CASE("record label TSV: binary labels checked, all missing rejected") {
  TempDir dir;
  const std::string fa = dir.write("r.fa", ">s1\nAACCGGTT\n>s2\nACGTACGT\n");
  FastaReader reader(fa);
  CHECK_THROWS_WITH_AS(RecordSource(reader, dir.write("b.tsv", "s1\t1\ns2\t2\n"), 0, kBinary),
                       doctest::Contains("b.tsv:2: label column 2 must be 0 or 1"), DataError);
  CHECK_THROWS_WITH_AS(RecordSource(reader, dir.write("i.tsv", "s1\tinf\n"), 0, kReal),
                       doctest::Contains("i.tsv:1: label column 2 must be a finite number"),
                       DataError);
  CHECK_THROWS_WITH_AS(RecordSource(reader, dir.write("m.tsv", "s1\tnan\ns2\t-nan\n"), 0, kBinary),
                       doctest::Contains("every label in"), DataError);
  RecordSource ok(reader, dir.write("o.tsv", "s1\t1\ns2\t-nan\n"), 0, kBinary);
  float label = -1;
  uint8_t mask = 1;
  ok.labels(1, &label, &mask);
  CHECK(mask == 0);
}

TEST_CASE("LoaderConfig.labels reaches the interval reader") {
  TempDir dir;
  LoaderConfig config;
  config.fasta = dir.write("g.fa", ">chr1\n" + std::string(100, 'A') + "\n");
  config.intervals = dir.write("p.bed", "chr1\t10\t20\t1\nchr1\t30\t40\t3\n");
  config.window = 10;
  config.labels = kBinary;
  CHECK_THROWS_WITH_AS(make_source(config), doctest::Contains("p.bed:2: label column 4 must be 0"),
                       DataError);
  config.labels = kReal;
  CHECK(make_source(config)->size() == 2);
}
