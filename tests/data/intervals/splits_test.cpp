// Splits of one labelled file: by chromosome, by fold file, by stratified fractions; and the
// sources make_split_sources builds from them.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/intervals/intervals.h"
#include "data/intervals/splits.h"
#include "data/sources/split_sources.h"
#include "data/sources/subset_source.h"
#include "data/test_paths.h"
#include "fmt/format.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

std::vector<Contig> genome() {
  return {{"chr1", 1000}, {"chr2", 1000}, {"chr8", 1000}, {"chr9", 1000}};
}

// Three intervals on each of chr1, chr2, chr8 (none on chr9).
IntervalSet three_chromosomes(const TempDir& dir) {
  std::string text;
  for (const char* chrom : {"chr1", "chr2", "chr8"}) {
    for (int i = 0; i < 3; ++i)
      text += fmt::format("{}\t{}\t{}\t{}\n", chrom, i * 100, i * 100 + 50, i % 2);
  }
  return read_intervals(dir.write("p.bed", text), {});
}

int count(const std::vector<SplitPart>& parts, SplitPart part) {
  return static_cast<int>(std::count(parts.begin(), parts.end(), part));
}

}  // namespace

TEST_CASE("chromosome split: named chromosomes to validation and test, the rest to train") {
  TempDir dir;
  const IntervalSet set = three_chromosomes(dir);
  const auto parts = split_by_chromosomes(set, {"chr8"}, {"chr1"}, genome(), "g.fa");
  CHECK(count(parts, SplitPart::kTrain) == 3);
  CHECK(count(parts, SplitPart::kValidation) == 3);
  CHECK(count(parts, SplitPart::kTest) == 3);
  CHECK(parts[0] == SplitPart::kTest);
  CHECK(parts[3] == SplitPart::kTrain);
  CHECK(parts[6] == SplitPart::kValidation);
  const IntervalSet valid = select_intervals(set, parts, SplitPart::kValidation);
  REQUIRE(valid.size() == 3);
  CHECK(valid.intervals[0].contig == "chr8");
  CHECK(valid.labels == std::vector<float>{0, 1, 0});
  // Exact names only; errors name the chromosome and why.
  CHECK(error_of([&] {
          split_by_chromosomes(set, {"chr9"}, {}, genome(), "g.fa");
        }).find("validation chromosome 'chr9' has no interval in '") != std::string::npos);
  CHECK(error_of([&] {
          split_by_chromosomes(set, {"Chr8"}, {}, genome(), "g.fa");
        }).find("validation chromosome 'Chr8' is not a contig of FASTA 'g.fa'") !=
        std::string::npos);
  CHECK(error_of([&] {
          split_by_chromosomes(set, {"chr8"}, {"chr8"}, genome(), "g.fa");
        }).find("'chr8' is named for both validation and test") != std::string::npos);
  CHECK(error_of([&] {
          split_by_chromosomes(set, {"chr8", "chr2"}, {"chr1"}, genome(), "g.fa");
        }).find("none is left to train on") != std::string::npos);
}

TEST_CASE("fold file: chrombpnet's lists, and chromosomes no list names are used nowhere") {
  TempDir dir;
  const IntervalSet set = three_chromosomes(dir);
  const std::string path = dir.write(
      "fold_0.json", R"({"train": ["chr2", "chr9"], "valid": ["chr8"], "test": ["chr1"]})");
  const ChromosomeFold fold = read_fold_file(path);
  CHECK(fold.train == std::vector<std::string>{"chr2", "chr9"});
  const auto parts = split_by_fold(set, fold, path, genome(), "g.fa");
  CHECK(parts == split_by_chromosomes(set, {"chr8"}, {"chr1"}, genome(), "g.fa"));
  const ChromosomeFold partial =
      read_fold_file(dir.write("f1.json", R"({"train": [], "valid": ["chr8"], "test": ["chr1"]})"));
  CHECK(error_of([&] {
          split_by_fold(set, partial, "f1.json", genome(), "g.fa");
        }).find("no interval of '") != std::string::npos);
  const ChromosomeFold some = read_fold_file(
      dir.write("f2.json", R"({"train": ["chr2"], "valid": ["chr8"], "test": ["chr9", "chr1"]})"));
  const auto fewer = split_by_fold(set, some, "f2.json", genome(), "g.fa");
  CHECK(count(fewer, SplitPart::kUnassigned) == 0);
  const ChromosomeFold without_chr2 = read_fold_file(
      dir.write("f3.json", R"({"train": ["chr9"], "valid": ["chr8"], "test": ["chr1"]})"));
  CHECK(error_of([&] {
          split_by_fold(set, without_chr2, "f3.json", genome(), "g.fa");
        }).find("on its train chromosomes") != std::string::npos);
  const std::map<std::string, std::string> bad = {
      {"[1]", "expected {\"train\""},
      {"{\"train\": [], \"valid\": [\"a\"]}", "missing key \"test\""},
      {"{\"train\": [], \"valid\": [\"a\"], \"test\": [\"b\"], \"tset\": []}",
       "unknown key \"tset\""},
      {"{\"train\": [\"a\"], \"valid\": [\"a\"], \"test\": [\"b\"]}",
       "chromosome 'a' is listed in \"train\" and again in \"valid\""},
      {"{\"train\": [\"a\", \"a\"], \"valid\": [\"c\"], \"test\": [\"b\"]}",
       "chromosome 'a' is listed in \"train\" and again in \"train\""},
      {"{\"train\": \"chr1\", \"valid\": [\"a\"], \"test\": [\"b\"]}",
       "\"train\" must be a list of chromosome names"},
      {"{\"train\": [1], \"valid\": [\"a\"], \"test\": [\"b\"]}", "non-empty strings"},
      {"{\"train\": [], \"valid\": [], \"test\": [\"b\"]}", "\"valid\" is empty"},
      {"{\"train\": [", "is not valid JSON"},
  };
  for (const auto& [text, expected] : bad) {
    CAPTURE(text);
    const std::string message = error_of([&] { read_fold_file(dir.write("bad.json", text)); });
    CHECK(message.find("bad.json") != std::string::npos);
    CHECK(message.find(expected) != std::string::npos);
  }
  CHECK(error_of([&] {
          split_by_fold(
              set,
              read_fold_file(dir.write(
                  "f4.json", R"({"train": ["chr2"], "valid": ["chrZ"], "test": ["chr1"]})")),
              "f4.json", genome(), "g.fa");
        }).find("chromosome 'chrZ' is not a contig of FASTA 'g.fa'") != std::string::npos);
}

TEST_CASE("fraction split: stratified, seeded, deterministic") {
  // 300 negatives and 100 positives.
  std::vector<int> classes(400, 0);
  for (size_t i = 0; i < 400; i += 4) classes[i] = 1;
  const auto parts = split_by_fraction(classes, 0.1, 0.2, 7);
  CHECK(parts == split_by_fraction(classes, 0.1, 0.2, 7));
  CHECK(parts != split_by_fraction(classes, 0.1, 0.2, 8));
  std::map<std::pair<SplitPart, int>, int> cells;
  for (size_t i = 0; i < parts.size(); ++i) ++cells[{parts[i], classes[i]}];
  CHECK(cells[{SplitPart::kValidation, 1}] == 10);
  CHECK(cells[{SplitPart::kValidation, 0}] == 30);
  CHECK(cells[{SplitPart::kTest, 1}] == 20);
  CHECK(cells[{SplitPart::kTest, 0}] == 60);
  CHECK(cells[{SplitPart::kTrain, 1}] == 70);
  // Not the first samples of each class: shuffled.
  CHECK(indices_in(parts, SplitPart::kTest) != std::vector<int64_t>{});
  const bool first_positives_all_test =
      parts[0] == SplitPart::kTest && parts[4] == SplitPart::kTest && parts[8] == SplitPart::kTest;
  CHECK_FALSE(first_positives_all_test);
  CHECK(error_of([&] {
          split_by_fraction({0, 1, 0}, 0.1, 0.0, 0);
        }).find("a validation fraction of 0.1 selects no sample of 3") != std::string::npos);
  CHECK(error_of([&] { split_by_fraction(classes, 0.5, 0.5, 0); }).find("sum to less than 1") !=
        std::string::npos);
  CHECK(error_of([&] {
          split_by_fraction({0, 0, 1, 1}, 0.5, 0.45, 0);
        }).find("leave no sample") != std::string::npos);
  // Multi-task stratification: any valid positive label.
  CHECK(label_classes({0, 1, 0, 0, 1, 0}, {1, 1, 1, 1, 0, 1}, 2) == std::vector<int>{1, 0, 0});
}

TEST_CASE("make_split_sources: intervals by chromosome, records by fraction") {
  TempDir dir;
  std::string fasta;
  for (const char* chrom : {"chr1", "chr2", "chr8"}) {
    fasta += fmt::format(">{}\n{}\n", chrom, std::string(400, 'A'));
  }
  for (int i = 0; i < 20; ++i) fasta += fmt::format(">r{}\nACGTACGTAC\n", i);
  LoaderConfig config;
  config.fasta = dir.write("g.fa", fasta);
  std::string bed;
  for (const char* chrom : {"chr1", "chr2", "chr8"}) {
    for (int i = 0; i < 3; ++i)
      bed += fmt::format("{}\t{}\t{}\t{}\n", chrom, i * 100, i * 100 + 50, i % 2);
  }
  config.intervals = dir.write("p.bed", bed);
  config.window = 60;
  config.jitter = 5;
  SplitConfig split;
  split.valid_chroms = {"chr8"};
  for (const bool streaming : {false, true}) {
    config.streaming = streaming;
    const SplitSources sources = make_split_sources(config, split);
    CHECK(sources.train->size() == 6);
    REQUIRE(sources.validation != nullptr);
    CHECK(sources.validation->size() == 3);
    CHECK(sources.test == nullptr);
  }
  config.streaming = false;
  std::string labels;
  for (int i = 0; i < 20; ++i) labels += fmt::format("r{}\t{}\n", i, i % 2);
  config.format = IntervalFormat::kRecords;
  config.window = 0;
  config.jitter = 0;
  config.intervals = dir.write("r.tsv", labels);
  SplitConfig fractions;
  fractions.valid_fraction = 0.2;
  fractions.test_fraction = 0.2;
  fractions.seed = 3;
  const SplitSources records = make_split_sources(config, fractions);
  CHECK(records.train->size() == 12);
  CHECK(records.validation->size() == 4);
  CHECK(records.test->size() == 4);
  const auto* test = dynamic_cast<const SubsetSource*>(records.test.get());
  REQUIRE(test != nullptr);
  std::vector<float> label(1);
  std::vector<uint8_t> mask(1);
  float positives = 0;
  for (int64_t i = 0; i < test->size(); ++i) {
    test->labels(i, label.data(), mask.data());
    positives += label[0];
  }
  CHECK(positives == 2);  // stratified: half of each part is positive
  CHECK(error_of([&] { make_split_sources(config, split); }).find("records have no chromosomes") !=
        std::string::npos);
  SplitConfig both = fractions;
  both.folds = "f.json";
  CHECK(error_of([&] { both.validate(IntervalFormat::kBed); }).find("only one of them") !=
        std::string::npos);
}
