// Tests for the label TSV header rule (issue 10, item 7): the first line is a header only when
// its first field is not a FASTA record and every label field is a target name; anything else
// is data, parsed strictly, so a typo is an error naming file and line instead of a lost sample.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "data/data_error.h"
#include "data/fasta/fasta_reader.h"
#include "data/sources/record_source.h"
#include "data/test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

struct Records {
  TempDir dir;
  FastaReader reader{dir.write("r.fa", ">r7\nAACCGGTT\n>r8\nACGTACGT\n>name\nTTTTTTTT\n")};
};

bool header(const Records& r, std::vector<std::string_view> fields) {
  return is_label_tsv_header(fields, r.reader);
}

}  // namespace

TEST_CASE("label TSV header rule: target names after a first field that is not a record") {
  Records r;
  CHECK(header(r, {"id", "CTCF", "JUN"}));
  CHECK(header(r, {"sequence", "_x", "HepG2.rep1"}));
  CHECK_FALSE(header(r, {"id", "1x"}));         // a typo, not a name
  CHECK_FALSE(header(r, {"id", "CTCF", "1"}));  // a number
  CHECK_FALSE(header(r, {"id", "NA"}));         // a missing marker
  CHECK_FALSE(header(r, {"id", "inf"}));        // a number, if not a finite one
  CHECK_FALSE(header(r, {"id", ""}));
  CHECK_FALSE(header(r, {"r7", "CTCF"}));    // the first field is a record
  CHECK_FALSE(header(r, {"name", "CTCF"}));  // even one called "name"
  CHECK_FALSE(header(r, {"id"}));
}

TEST_CASE("a typo on the first line is an error naming file and line, not a lost sample") {
  // Reproducer from issue 10: "r7<TAB>1x" was taken as a header and the sample was lost.
  Records r;
  CHECK_THROWS_WITH_AS(RecordSource(r.reader, r.dir.write("t.tsv", "r7\t1x\nr8\t0\n")),
                       doctest::Contains("t.tsv:1: label column 2 must be a finite number, or "
                                         "missing ('.', NA, nan), found '1x' (line 1 is read as "
                                         "a header only when"),
                       DataError);
  // Not a record and not a name: data, so the unknown record is the error.
  CHECK_THROWS_WITH_AS(RecordSource(r.reader, r.dir.write("u.tsv", "r9\t1x\nr8\t0\n")),
                       doctest::Contains("u.tsv:1: record 'r9' is not in FASTA"), DataError);
  CHECK_THROWS_WITH_AS(RecordSource(r.reader, r.dir.write("v.tsv", "id\tCTCF\t1\nr8\t0\t1\n")),
                       doctest::Contains("v.tsv:1: record 'id' is not in FASTA"), DataError);
  // A later line is never a header.
  CHECK_THROWS_WITH_AS(RecordSource(r.reader, r.dir.write("w.tsv", "r7\t1\nid\tCTCF\n")),
                       doctest::Contains("w.tsv:2: record 'id' is not in FASTA"), DataError);
}

TEST_CASE("label TSV: headers, missing first labels and sample names") {
  Records r;
  RecordSource with_header(r.reader, r.dir.write("h.tsv", "\nid\tCTCF\nr8\t1\nr7\t0\n"));
  CHECK(with_header.size() == 2);
  CHECK(with_header.target_names() == std::vector<std::string>{"CTCF"});
  CHECK(with_header.sample_names() == std::vector<std::string>{"r8", "r7"});
  CHECK(with_header.record_length(0) == 8);
  // A first line whose labels are missing is data.
  RecordSource missing_first(r.reader, r.dir.write("m.tsv", "r7\tNA\nr8\t1\n"));
  CHECK(missing_first.size() == 2);
  CHECK(missing_first.target_names() == std::vector<std::string>{"task_0"});
  // A record named "name" is data, not a header.
  RecordSource named(r.reader, r.dir.write("n.tsv", "name\t1\nr8\t0\n"));
  CHECK(named.size() == 2);
  CHECK_THROWS_WITH_AS(RecordSource(r.reader, r.dir.write("d.tsv", "id\tCTCF\tCTCF\nr7\t1\t0\n")),
                       doctest::Contains("d.tsv:1: target name 'CTCF' appears twice"), DataError);
}
