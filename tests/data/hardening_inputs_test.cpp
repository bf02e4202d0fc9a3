// Issue 23 (hardening, round 2), the data layer: inputs that gave a silent result or an unclear
// error. Each case is the issue's reproducer: a record listed twice in a label TSV, a labelled BED
// read as peaks, a directory or a CR-only file given as input, a fold file nested 100,000 deep,
// and an interval listed twice.
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/fasta_reader.h"
#include "data/intervals.h"
#include "data/loader_config.h"
#include "data/record_source.h"
#include "data/signal_tracks.h"
#include "data/splits.h"
#include "data/text_fields.h"
#include "data/warnings.h"
#include "fmt/format.h"
#include "test_paths.h"

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

// Eight records of 8 bases.
std::string eight_records() {
  std::string fasta;
  for (int i = 0; i < 8; ++i) fasta += fmt::format(">r{}\nACGTACGT\n", i);
  return fasta;
}

}  // namespace

TEST_CASE("a label TSV that lists a record twice is refused naming both lines") {
  TempDir dir;
  const FastaReader reader(dir.write("r.fa", eight_records()));
  // Every record twice: 16 samples from 8 records, before.
  std::string tsv = "name\tA\n";
  for (int copy = 0; copy < 2; ++copy) {
    for (int i = 0; i < 8; ++i) tsv += fmt::format("r{}\t{}\n", i, i % 2);
  }
  const std::string path = dir.write("twice.tsv", tsv);
  CHECK(error_of([&] { RecordSource source(reader, path); }) ==
        path +
            ":10: record 'r0' is listed again (line 2 lists it first); each record is one "
            "sample: list it once");
}

TEST_CASE("peaks with labels: a BED whose column 4 labels rows 0 is not a peak file") {
  TempDir dir;
  const std::string labelled =
      dir.write("half.bed", "chr1\t0\t10\t1\nchr1\t20\t30\t0\nchr1\t40\t50\t1\nchr1\t60\t70\t0\n");
  CHECK(error_of([&] { refuse_non_peaks(labelled, IntervalFormat::kBed, "the test"); })
            .starts_with(labelled +
                         ":2: column 4 labels this interval 0 (2 of the 4 intervals are labelled "
                         "0), but with the test every interval of the file is a peak"));
  // Names, other numbers (scores), BED3 and narrowPeak's signal column are no labels to lose.
  for (const std::string& text : {std::string("chr1\t0\t10\tpeak1\nchr1\t20\t30\t.\n"),
                                  std::string("chr1\t0\t10\t0\nchr1\t20\t30\t17\n"),
                                  std::string("chr1\t0\t10\nchr1\t20\t30\n"),
                                  std::string("chr1\t0\t10\t1\nchr1\t20\t30\t1\n")}) {
    CAPTURE(text);
    CHECK(error_of([&] {
            refuse_non_peaks(dir.write("p.bed", text), IntervalFormat::kBed, "x");
          }) == "");
  }
  CHECK(error_of([&] {
          refuse_non_peaks(dir.write("p.narrowPeak", "chr1\t0\t10\tp\t0\t.\t0\t-1\t-1\t5\n"),
                           IntervalFormat::kNarrowPeak, "x");
        }) == "");
}

TEST_CASE("negatives_ratio on a labelled BED: the loader refuses to relabel its 0 rows as peaks") {
  TempDir dir;
  std::string fasta = ">chr1\n";
  for (int i = 0; i < 4000; ++i) fasta += "ACGTTGCA"[(i * 7 + i / 13) % 8];
  fasta += "\n";
  LoaderConfig config;
  config.fasta = dir.write("g.fa", fasta);
  config.intervals =
      dir.write("half.bed", "chr1\t100\t200\t1\nchr1\t1000\t1100\t0\nchr1\t2000\t2100\t1\n");
  config.window = 100;
  config.negatives_ratio = 1;
  CHECK(error_of([&] {
          make_source(config);
        }).starts_with(config.intervals + ":2: column 4 labels this interval 0"));
}

TEST_CASE("a directory given as a text file says it is a directory") {
  TempDir dir;
  std::filesystem::create_directories(dir.file("peaks.bed"));
  CHECK(error_of([&] { LineReader reader(dir.file("peaks.bed")); }) ==
        "'" + dir.file("peaks.bed") + "' is a directory, expected a file");
  IntervalReadOptions options;
  CHECK(error_of([&] { read_intervals(dir.file("peaks.bed"), options); }) ==
        "'" + dir.file("peaks.bed") + "' is a directory, expected a file");
  std::filesystem::create_directories(dir.file("genome.fa"));
  CHECK(error_of([&] { FastaReader reader(dir.file("genome.fa")); }) ==
        "FASTA '" + dir.file("genome.fa") + "' is a directory, expected a file");
}

TEST_CASE("CR-only line ends are named, in a FASTA and in a text file") {
  TempDir dir;
  const std::string fasta = dir.write("mac.fa", ">chr1\rACGTACGT\rACGT\r>chr2\rACGT\r");
  CHECK(error_of([&] { FastaReader reader(fasta); })
            .starts_with(fasta + ":1: a carriage return (CR) is followed by more text on the same "
                                 "line: the file has CR-only line ends (classic Mac OS)"));
  // A sequence line broken by a lone CR (a file of mixed line ends).
  const std::string mixed = dir.write("mixed.fa", ">chr1\nACGT\rACGT\n");
  CHECK(error_of([&] { FastaReader reader(mixed); }).find("CR-only line ends") !=
        std::string::npos);
  const std::string bed = dir.write("mac.bed", "chr1\t0\t10\t1\rchr1\t20\t30\t0\r");
  IntervalReadOptions options;
  CHECK(error_of([&] { read_intervals(bed, options); })
            .starts_with(bed + ":1: a carriage return (CR) is followed by more text on the same "
                               "line: the file has CR-only line ends"));
  // CRLF stays accepted.
  const std::string crlf = dir.write("dos.bed", "chr1\t0\t10\t1\r\nchr1\t20\t30\t0\r\n");
  CHECK(read_intervals(crlf, options).size() == 2);
}

TEST_CASE("a fold file nested 100,000 deep is refused before anything copies it") {
  TempDir dir;
  const std::string path = dir.write(
      "deep.json", R"({"train": )" + std::string(100000, '[') + std::string(100000, ']') + "}");
  CHECK(error_of([&] { read_fold_file(path); }) ==
        "fold file '" + path +
            "' nests objects and arrays deeper than 64 levels; a fold file is an object of "
            "three lists");
}

TEST_CASE("an interval listed twice in a labelled file is a warning naming both lines") {
  TempDir dir;
  std::string fasta = ">chr1\n";
  for (int i = 0; i < 400; ++i) fasta += "ACGT"[(i * 5 + i / 7) % 4];
  fasta += "\n";
  LoaderConfig config;
  config.fasta = dir.write("g.fa", fasta);
  config.intervals = dir.write(
      "twice.bed", "chr1\t10\t60\t1\nchr1\t100\t150\t0\nchr1\t10\t60\t1\nchr1\t200\t250\t0\n");
  config.window = 50;
  std::vector<std::string> warnings;
  {
    const ScopedWarningHandler handler(
        [&warnings](std::string_view message) { warnings.emplace_back(message); });
    CHECK(make_source(config)->size() == 4);
  }
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "'" + config.intervals +
                           "': 1 interval(s) repeat an earlier one (line 3 repeats line 1); each "
                           "copy is a sample of its own and weighs as much again in training and "
                           "in the figures");
}

// Found by fuzz/fuzz_folds and fuzz_config (corpus: nul_byte_ends_json.json): nlohmann reads a
// NUL byte as the end of its input, so everything after it was dropped unread.
TEST_CASE("a fold file with a NUL byte is refused, not read up to it") {
  TempDir dir;
  const std::string path = dir.write(
      "nul.json",
      std::string(R"({"train": ["chr1"], "valid": ["chr2"], "test": ["chr8"]})") + '\0' + "{}");
  CHECK(error_of([&] { read_fold_file(path); }) ==
        "fold file '" + path +
            "' holds a NUL byte at offset 56; a fold file is JSON text (a binary or damaged "
            "file?)");
}

// Found by fuzz/fuzz_paths (corpus: pair_one_file_two_spellings.txt): "./,." and "a.bw,./a.bw"
// were pairs of two files until the run made their paths absolute.
TEST_CASE("a stranded pair naming one file in two spellings is refused") {
  for (const std::string entry : {"a.bw,./a.bw", "./,.", "x/../a.bw,a.bw", "a.bw/,a.bw"}) {
    CAPTURE(entry);
    CHECK(error_of([&] {
            parse_track_groups({entry}, "data.profile_bigwigs");
          }).find("is not a bigWig track") != std::string::npos);
  }
  CHECK(parse_track_groups({"a.bw,b.bw"}, "data.profile_bigwigs").size() == 1);
}
