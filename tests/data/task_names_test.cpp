// Multi-task labels and their names: column lists, BED '#' headers, DREAM and records names,
// names given by the user, unlabelled intervals, and missing labels masked through the loader.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/intervals/intervals.h"
#include "data/list_syntax.h"
#include "data/loader/loader_config.h"
#include "data/sources/interval_source.h"
#include "data/sources/record_source.h"
#include "test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

// A FASTA of the given records, each a repeating pattern of `length` bases.
std::string write_genome(const TempDir& dir,
                         const std::vector<std::pair<std::string, int>>& records) {
  std::string text;
  for (const auto& [name, length] : records) {
    text += ">" + name + "\n";
    for (int i = 0; i < length; ++i) text += "ACGTTGCA"[(i * 5 + i / 7) % 8];
    text += "\n";
  }
  return dir.write("g.fa", text);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("column lists: ranges and lists, errors name the entry") {
  CHECK(parse_column_list("4", "--label-columns") == std::vector<int>{4});
  CHECK(parse_column_list("4-7", "--label-columns") == std::vector<int>{4, 5, 6, 7});
  CHECK(parse_column_list("4,6,9-12", "--label-columns") == std::vector<int>{4, 6, 9, 10, 11, 12});
  CHECK(parse_column_list("4-167", "x", 4).size() == 164);
  for (const char* bad : {"", "4,", ",4", "4-", "-4", "7-5", "4,4", "4-6,5", "x", "4.5", "3"}) {
    CAPTURE(bad);
    const std::string message = error_of([&] { parse_column_list(bad, "--label-columns", 4); });
    CHECK(message.find("--label-columns") != std::string::npos);
    CHECK(message.find("expected 1-based columns") != std::string::npos);
  }
  CHECK(error_of([] { parse_column_list("4-99999999", "k"); }).find("outside") !=
        std::string::npos);
  CHECK(parse_name_list("chr8,chr9", "--valid-chroms") == std::vector<std::string>{"chr8", "chr9"});
  CHECK(error_of([] {
          parse_name_list("chr8,,chr9", "--valid-chroms");
        }).find("--valid-chroms: entry 2 of 'chr8,,chr9' is empty") != std::string::npos);
  CHECK(error_of([] { parse_name_list("a,b,a", "--task-names"); }).find("'a' is given twice") !=
        std::string::npos);
}

TEST_CASE("BED task names: a '#' header names them, else task_0, task_1, ...") {
  TempDir dir;
  IntervalReadOptions options;
  options.label_columns = {4, 5, 6};
  const std::string plain = dir.write("plain.bed", "chr1\t0\t10\t1\t0\t.\n");
  CHECK(read_intervals(plain, options).target_names ==
        std::vector<std::string>{"task_0", "task_1", "task_2"});
  // A comment first, then the header (a '#', spaces allowed before the first field).
  const std::string header = dir.write(
      "h.bed",
      "# made by a tool\n#chrom\tstart\tend\tCTCF\tJUN\tHepG2_DNase\nchr1\t0\t10\t1\t0\t1\n");
  CHECK(read_intervals(header, options).target_names ==
        std::vector<std::string>{"CTCF", "JUN", "HepG2_DNase"});
  // The header's names are those at the label columns, wherever they are.
  IntervalReadOptions some;
  some.label_columns = {6, 4};
  CHECK(read_intervals(header, some).target_names ==
        std::vector<std::string>{"HepG2_DNase", "CTCF"});
  // A '#' line whose label fields are numbers is a comment (a commented-out interval).
  const std::string commented = dir.write("c.bed", "#chr1\t0\t10\t1\t0\t1\nchr1\t0\t10\t1\t0\t1\n");
  CHECK(read_intervals(commented, options).target_names ==
        std::vector<std::string>{"task_0", "task_1", "task_2"});
  // Only lines before the first interval name tasks.
  const std::string late =
      dir.write("l.bed", "chr1\t0\t10\t1\t0\t1\n#chrom\tstart\tend\tA\tB\tC\n");
  CHECK(read_intervals(late, options).target_names[0] == "task_0");
  // A header without '#' is an error that says how to write one.
  const std::string bare =
      dir.write("b.bed", "chrom\tstart\tend\tCTCF\tJUN\tX\nchr1\t0\t10\t1\t0\t1\n");
  const std::string message = error_of([&] { read_intervals(bare, options); });
  CHECK(message.find("b.bed:1: ") != std::string::npos);
  CHECK(message.find("looks like a header line; start it with '#'") != std::string::npos);
  const std::string twice = dir.write("t.bed", "#c\ts\te\tA\tB\tA\nchr1\t0\t10\t1\t0\t1\n");
  CHECK(error_of([&] {
          read_intervals(twice, options);
        }).find("t.bed:1: task name 'A' appears twice") != std::string::npos);
}

TEST_CASE("task names given by the user replace the file's, one per label column") {
  TempDir dir;
  IntervalReadOptions options;
  options.label_columns = {4, 5};
  IntervalSet set = read_intervals(dir.write("a.bed", "chr1\t0\t10\t1\t0\n"), options);
  set_task_names(set, {"x", "y"});
  CHECK(set.target_names == std::vector<std::string>{"x", "y"});
  const std::string message = error_of([&] { set_task_names(set, {"x", "y", "z"}); });
  CHECK(message.find("3 task names given (x,y,z)") != std::string::npos);
  CHECK(message.find("a.bed' has 2 label columns") != std::string::npos);
}

TEST_CASE("every source names its tasks: DREAM cells, records header, default task_i") {
  TempDir dir;
  const std::string fa = write_genome(dir, {{"chr1", 200}, {"r1", 30}, {"r2", 30}});
  LoaderConfig config;
  config.fasta = fa;
  config.window = 20;
  config.intervals = dir.write("d.tsv", "chrom\tstart\tend\tHepG2\tK562\nchr1\t0\t40\tB\tA\n");
  config.format = IntervalFormat::kDreamTsv;
  CHECK(make_source(config)->task_names() == std::vector<std::string>{"HepG2", "K562"});
  config.format = IntervalFormat::kRecords;
  config.window = 0;
  config.intervals = dir.write("r.tsv", "name\tCTCF\tJUN\nr1\t1\t0\nr2\t0\tNA\n");
  CHECK(make_source(config)->task_names() == std::vector<std::string>{"CTCF", "JUN"});
  config.intervals = dir.write("r2.tsv", "r1\t1\t0\nr2\t0\t1\n");
  CHECK(make_source(config)->task_names() == std::vector<std::string>{"task_0", "task_1"});
  config.task_names = {"a", "b"};
  CHECK(make_source(config)->task_names() == std::vector<std::string>{"a", "b"});
  config.task_names = {"a"};
  CHECK(error_of([&] { make_source(config); }).find("1 task names given (a)") != std::string::npos);
  config.task_names = {};
  config.format = IntervalFormat::kBed;
  config.window = 20;
  config.intervals = dir.write("b.bed", "chr1\t0\t40\t1\n");
  CHECK(make_source(config)->task_names() == std::vector<std::string>{"task_0"});
}

TEST_CASE("unlabelled intervals: a BED3 or BED6 reads with no task") {
  TempDir dir;
  IntervalReadOptions options;
  options.labelled = false;
  const IntervalSet bed3 =
      read_intervals(dir.write("a.bed", "chr1\t0\t10\nchr1\t20\t30\n"), options);
  CHECK(bed3.size() == 2);
  CHECK(bed3.num_targets() == 0);
  CHECK(bed3.labels.empty());
  const IntervalSet bed6 =
      read_intervals(dir.write("b.bed", "chr1\t0\t10\tpeak1\t500\t+\n"), options);
  CHECK(bed6.size() == 1);
  CHECK(bed6.num_targets() == 0);
  // Labelled reading of the BED6 fails on its name column, naming it.
  CHECK(error_of([&] {
          read_intervals(dir.file("b.bed"), {});
        }).find("b.bed:1: label column 4 must be a finite number") != std::string::npos);
}

TEST_CASE("several tasks with missing labels: the loader masks exactly the missing ones") {
  TempDir dir;
  LoaderConfig config;
  config.fasta = write_genome(dir, {{"chr1", 400}});
  config.intervals = dir.write("m.bed",
                               "#chrom\tstart\tend\tA\tB\tC\n"
                               "chr1\t0\t50\t1\t.\t0\n"
                               "chr1\t100\t150\tNA\t0\t1\n"
                               "chr1\t200\t250\t0\tnan\t-nan\n");
  config.label_columns = parse_column_list("4-6", "label columns", 4);
  config.labels = {LabelKind::kBinary, true};
  config.window = 40;
  config.batch_size = 3;
  config.shuffle = false;
  config.rc_probability = 0;
  auto loader = make_loader(config);
  loader->start_epoch(0);
  const auto batch = loader->next();
  REQUIRE(batch.has_value());
  REQUIRE(batch->size == 3);
  CHECK(batch->num_targets == 3);
  const std::vector<float> labels(batch->labels, batch->labels + 9);
  const std::vector<uint8_t> mask(batch->label_mask, batch->label_mask + 9);
  CHECK(labels == std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0});
  CHECK(mask == std::vector<uint8_t>{1, 0, 1, 0, 1, 1, 1, 0, 0});
}
