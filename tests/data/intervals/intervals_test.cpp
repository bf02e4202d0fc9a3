// Tests for BED / narrowPeak / DREAM TSV parsing, bad-input errors and the kinder policies.
#include <doctest/doctest.h>

#include <string>

#include "data/data_error.h"
#include "data/intervals/intervals.h"
#include "data/test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

IntervalSet read_bed(const TempDir& dir, const std::string& text,
                     BadIntervalPolicy policy = BadIntervalPolicy::kError) {
  IntervalReadOptions options;
  options.policy = policy;
  return read_intervals(dir.write("in.bed", text), options);
}

std::vector<Contig> genome() { return {{"chr1", 1000}, {"chr2", 500}}; }

}  // namespace

TEST_CASE("BED with CRLF blank lines comments and a label column") {
  TempDir dir;
  const auto set =
      read_bed(dir, "track name=x\r\n# comment\r\nchr1\t10\t20\t1\r\n\r\n  \nchr2\t5\t9\t0.5\r\n");
  REQUIRE(set.size() == 2);
  CHECK(set.intervals[0].contig == "chr1");
  CHECK(set.intervals[0].start == 10);
  CHECK(set.intervals[0].end == 20);
  CHECK(set.intervals[1].line == 6);
  CHECK(set.labels == std::vector<float>{1.0F, 0.5F});
  CHECK(set.label_mask == std::vector<uint8_t>{1, 1});
  CHECK(set.stats.lines == 6);
}

TEST_CASE("BED errors name file line expectation and finding") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(read_bed(dir, "chr1\t10\t20\t1\nchr1\t-5\t20\t1\n"),
                       doctest::Contains("in.bed:2: start -5 is negative"), DataError);
  CHECK_THROWS_WITH_AS(read_bed(dir, "chr1\t20\t20\t1\n"),
                       doctest::Contains("in.bed:1: start 20 is not before end 20"), DataError);
  CHECK_THROWS_WITH_AS(
      read_bed(dir, "chr1\t1O\t20\t1\n"),
      doctest::Contains("in.bed:1: start (column 2) must be an integer, found '1O'"), DataError);
  CHECK_THROWS_WITH_AS(read_bed(dir, "chr1\t10\t2e3\t1\n"),
                       doctest::Contains("end (column 3) must be an integer"), DataError);
  CHECK_THROWS_WITH_AS(read_bed(dir, "chr1\t10\t20\t1\nchr1\t10\t20\n"),
                       doctest::Contains("in.bed:2: missing label column 4"), DataError);
  CHECK_THROWS_WITH_AS(read_bed(dir, "chr1\t10\t20\tyes\n"),
                       doctest::Contains("label column 4 must be a finite number"), DataError);
  CHECK_THROWS_WITH_AS(read_bed(dir, ""), doctest::Contains("contains no intervals"), DataError);
  CHECK_THROWS_WITH_AS(read_bed(dir, "\n# only comments\n"),
                       doctest::Contains("contains no intervals"), DataError);
  CHECK_THROWS_WITH_AS(read_bed(dir, "chr1 10 20 1\n"),
                       doctest::Contains("expected at least 3 tab-separated fields"), DataError);
}

TEST_CASE("unknown contig and end past the contig are errors naming the line") {
  TempDir dir;
  auto set = read_bed(dir, "chr1\t10\t20\t1\nchrX\t1\t5\t1\n");
  CHECK_THROWS_WITH_AS(validate_intervals(set, genome(), "g.fa", BadIntervalPolicy::kError),
                       doctest::Contains("in.bed:2: contig 'chrX' is not in FASTA 'g.fa'"),
                       DataError);
  set = read_bed(dir, "chr2\t400\t501\t1\n");
  CHECK_THROWS_WITH_AS(validate_intervals(set, genome(), "g.fa", BadIntervalPolicy::kError),
                       doctest::Contains("in.bed:1: end 501 is past the end of contig 'chr2' "
                                         "(length 500)"),
                       DataError);
}

// Found by fuzz/fuzz_bed (fuzz/corpus/bed/valid_labels_only_on_dropped_intervals.bed): the
// all-missing check ran before kSkip dropped the intervals that held the valid labels.
TEST_CASE("dropping every interval with a valid label is an error, as an all-missing file is") {
  TempDir dir;
  const std::string text = "chr1\t0\t10\t.\nchrUn\t0\t10\t1\nchr2\t400\t900\t0\n";
  auto skipped = read_bed(dir, text, BadIntervalPolicy::kSkip);
  const std::string expected = "every interval of '" + dir.file("in.bed") +
                               "' with a valid label was dropped as invalid for 'g.fa' (2 skipped)";
  CHECK_THROWS_WITH_AS(validate_intervals(skipped, genome(), "g.fa", BadIntervalPolicy::kSkip),
                       doctest::Contains(expected.c_str()), DataError);
  // Clipping keeps chr2's interval and its valid label; without require_valid (prediction)
  // nothing is required.
  auto clipped = read_bed(dir, text, BadIntervalPolicy::kClip);
  validate_intervals(clipped, genome(), "g.fa", BadIntervalPolicy::kClip);
  CHECK(clipped.size() == 2);
  auto kept = read_bed(dir, text, BadIntervalPolicy::kSkip);
  validate_intervals(kept, genome(), "g.fa", BadIntervalPolicy::kSkip,
                     LabelOptions{.require_valid = false});
  CHECK(kept.size() == 1);
}

TEST_CASE("skip and clip policies report what they changed") {
  TempDir dir;
  const std::string text =
      "chr1\t-5\t20\t1\nchr1\t30\t30\t0\nchr2\t490\t600\t1\nchrX\t1\t5\t0\nchr1\t1\t5\t0\n";
  auto skipped = read_bed(dir, text, BadIntervalPolicy::kSkip);
  validate_intervals(skipped, genome(), "g.fa", BadIntervalPolicy::kSkip);
  CHECK(skipped.size() == 1);
  CHECK(skipped.stats.skipped == 4);
  CHECK(skipped.stats.clipped == 0);
  CHECK(skipped.labels == std::vector<float>{0.0F});

  auto clipped = read_bed(dir, text, BadIntervalPolicy::kClip);
  validate_intervals(clipped, genome(), "g.fa", BadIntervalPolicy::kClip);
  REQUIRE(clipped.size() == 3);
  CHECK(clipped.stats.clipped == 2);
  CHECK(clipped.stats.skipped == 2);
  CHECK(clipped.intervals[0].start == 0);
  CHECK(clipped.intervals[1].end == 500);
  CHECK(clipped.labels == std::vector<float>{1.0F, 1.0F, 0.0F});
}

TEST_CASE("narrowPeak: summit and signalValue label") {
  TempDir dir;
  IntervalReadOptions options;
  options.format = IntervalFormat::kNarrowPeak;
  const auto set = read_intervals(
      dir.write(
          "p.narrowPeak",
          "chr1\t100\t300\tp1\t0\t.\t7.5\t-1\t-1\t40\nchr1\t500\t600\tp2\t0\t.\t2\t-1\t-1\t-1\n"),
      options);
  REQUIRE(set.size() == 2);
  CHECK(set.intervals[0].summit == 140);
  CHECK(set.intervals[1].summit == -1);
  CHECK(set.labels == std::vector<float>{7.5F, 2.0F});
  CHECK_THROWS_WITH_AS(
      read_intervals(dir.write("q.narrowPeak", "chr1\t1\t9\tp\t0\t.\t1\n"), options),
      doctest::Contains("q.narrowPeak:1: narrowPeak needs 10 columns, found 7"), DataError);
}

TEST_CASE("DREAM TSV: B/U/A per cell type ambiguous masked") {
  TempDir dir;
  IntervalReadOptions options;
  options.format = IntervalFormat::kDreamTsv;
  const auto set = read_intervals(
      dir.write("d.tsv",
                "chrom\tstart\tend\tHepG2\tK562\nchr1\t0\t200\tB\tA\nchr1\t50\t250\tU\tB\n"),
      options);
  CHECK(set.target_names == std::vector<std::string>{"HepG2", "K562"});
  CHECK(set.labels == std::vector<float>{1.0F, 0.0F, 0.0F, 1.0F});
  CHECK(set.label_mask == std::vector<uint8_t>{1, 0, 1, 1});
  CHECK(set.stats.masked_labels == 1);
  CHECK_THROWS_WITH_AS(
      read_intervals(dir.write("e.tsv", "chrom\tstart\tend\tHepG2\nchr1\t0\t200\tX\n"), options),
      doctest::Contains("e.tsv:2: label column 4 must be B, U or A, found 'X'"), DataError);
  CHECK_THROWS_WITH_AS(read_intervals(dir.write("h.tsv", "chr1\t0\t200\tB\n"), options),
                       doctest::Contains("h.tsv:1: expected a header"), DataError);
  CHECK_THROWS_WITH_AS(read_intervals(dir.write("z.tsv", ""), options),
                       doctest::Contains("z.tsv' is empty"), DataError);
  CHECK_THROWS_WITH_AS(
      read_intervals(dir.write("m.tsv", "chrom\tstart\tend\tHepG2\nchr1\t0\t200\n"), options),
      doctest::Contains("m.tsv:2: missing label column 4"), DataError);
}

TEST_CASE("interval format names parse unknown ones are rejected") {
  CHECK(parse_interval_format("narrowPeak") == IntervalFormat::kNarrowPeak);
  CHECK(parse_interval_format("BED") == IntervalFormat::kBed);
  CHECK_THROWS_WITH_AS(parse_interval_format("gff"), doctest::Contains("unknown interval format"),
                       DataError);
}

TEST_CASE("BED: contigs named track1 and browserX are data, track and browser lines are not") {
  // Reproducer from issue 10, item 5: both intervals used to be dropped as track lines.
  TempDir dir;
  const auto set = read_bed(dir,
                            "track\nbrowser position chr1:1-100\ntrack\tname=x\n"
                            "track1\t10\t20\t1\nbrowserX\t5\t9\t0\ntracks\t1\t2\t1\n");
  REQUIRE(set.size() == 3);
  CHECK(set.intervals[0].contig == "track1");
  CHECK(set.intervals[1].contig == "browserX");
  CHECK(set.intervals[2].contig == "tracks");
  CHECK(set.intervals[0].line == 4);
}

TEST_CASE("narrowPeak: summit offsets that overflow or lie outside are errors, -1 means none") {
  // Reproducer from issue 10, item 8: start + offset overflowed int64 (undefined behaviour,
  // caught by the UBSan build) before the summit was checked.
  TempDir dir;
  IntervalReadOptions options;
  options.format = IntervalFormat::kNarrowPeak;
  const auto peak = [&](const std::string& start, const std::string& summit) {
    return dir.write("p.narrowPeak",
                     "chr1\t" + start + "\t300\tp\t0\t.\t1\t-1\t-1\t" + summit + "\n");
  };
  CHECK_THROWS_WITH_AS(
      read_intervals(peak("100", "9223372036854775000"), options),
      doctest::Contains("p.narrowPeak:1: summit offset 9223372036854775000 (column 10) lies "
                        "outside the interval [100, 300)"),
      DataError);
  CHECK_THROWS_WITH_AS(read_intervals(peak("100", "9223372036854775807"), options),
                       doctest::Contains("lies outside the interval"), DataError);
  CHECK_THROWS_WITH_AS(read_intervals(peak("100", "200"), options),
                       doctest::Contains("summit offset 200 (column 10) lies outside"), DataError);
  CHECK(read_intervals(peak("100", "199"), options).intervals[0].summit == 299);
  CHECK(read_intervals(peak("100", "-1"), options).intervals[0].summit == -1);
  // Other negative offsets used to mean "no summit" silently.
  CHECK_THROWS_WITH_AS(read_intervals(peak("100", "-5"), options),
                       doctest::Contains("summit (column 10) must be -1 (no summit)"), DataError);
  CHECK_THROWS_WITH_AS(read_intervals(peak("100", "99999999999999999999"), options),
                       doctest::Contains("summit (column 10) must be an integer"), DataError);
  // Clipping keeps a summit inside the clipped interval and drops one in the cut-away part.
  options.policy = BadIntervalPolicy::kClip;
  CHECK(read_intervals(peak("-50", "60"), options).intervals[0].summit == 10);
  CHECK(read_intervals(peak("-50", "20"), options).intervals[0].summit == -1);
  CHECK(read_intervals(peak("-9223372036854775808", "9223372036854775807"), options)
            .intervals[0]
            .summit == -1);
}
