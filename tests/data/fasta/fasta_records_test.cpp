// Tests for reading a FASTA's records in order without an index (FastaRecordReader,
// UniqueNames) and for StreamedRecordSource, the records of `strand predict --fasta` alone:
// order, names, lengths, N and lowercase bases, windows, and the same errors as the indexed
// reader's content check, naming the file and line.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/fasta/fasta_records.h"
#include "data/fasta/fasta_scan.h"
#include "data/sources/streamed_record_source.h"
#include "data/test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

// Every record of `path`, with its bases.
std::vector<FastaRecord> read_all(const std::string& path) {
  FastaRecordReader reader(path, true);
  std::vector<FastaRecord> records;
  FastaRecord record;
  while (reader.next(record)) records.push_back(record);
  return records;
}

// The codes of sample `index`, fetched by worker 0.
std::string fetched(const StreamedRecordSource& source, int64_t index) {
  std::string codes(static_cast<size_t>(source.length()), '\0');
  source.fetch(index, 0, reinterpret_cast<uint8_t*>(codes.data()), nullptr, 0);
  for (char& c : codes) c = "ACGTN"[static_cast<uint8_t>(c)];
  return codes;
}

}  // namespace

TEST_CASE("FastaRecordReader: records in file order with names, header lines and lengths") {
  TempDir dir;
  const std::string path =
      dir.write("r.fa", ">a first record\nACGT\nAC\n>b\r\nacgtN\r\nNN\r\n\n>c\nGATTACA");
  const std::vector<FastaRecord> records = read_all(path);
  REQUIRE(records.size() == 3);
  CHECK(records[0].name == "a");
  CHECK(records[0].line == 1);
  CHECK(records[0].length == 6);
  CHECK(records[0].bases == "ACGTAC");
  CHECK(records[1].name == "b");
  CHECK(records[1].line == 4);
  CHECK(records[1].bases == "acgtNNN");
  CHECK(records[2].name == "c");
  CHECK(records[2].line == 8);
  CHECK(records[2].bases == "GATTACA");  // a last line without '\n'
  // Without bases: the same records, lengths counted.
  FastaRecordReader names(path, false);
  FastaRecord record;
  int64_t total = 0;
  while (names.next(record)) {
    CHECK(record.bases.empty());
    total += record.length;
  }
  CHECK(total == 6 + 7 + 7);
  CHECK_FALSE(std::filesystem::exists(path + ".fai"));  // no index is built
}

TEST_CASE("FastaRecordReader: a record longer than a read chunk, and many records") {
  TempDir dir;
  std::string text = ">long\n";
  for (int i = 0; i < 3000; ++i) text += std::string(60, "ACGT"[i % 4]) + "\n";
  for (int i = 0; i < 5000; ++i) text += ">r" + std::to_string(i) + "\nACGTACGTAC\n";
  const std::vector<FastaRecord> records = read_all(dir.write("m.fa", text));
  REQUIRE(records.size() == 5001);
  CHECK(records[0].length == 180000);
  CHECK(records[0].bases.substr(59, 2) == "AC");
  CHECK(records[4321].name == "r4320");
  CHECK(records[4321].line == 3000 + 2 + 2 * 4320);
}

TEST_CASE("FastaRecordReader: malformed content fails as the content check does, naming the line") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string(">a\nACGT\nAC\0T\nACGT\n", 17),
       "x.fa:3: byte 0x00 at column 3 is not a base (binary data?)"},
      {">a\nAC GT\nACGT\n", "x.fa:2: a space at column 3 inside a sequence line"},
      {">a\nACGT\nACGTAA\n", "x.fa:3: line is 7 bytes long but line 2, the first of record 'a'"},
      {">a\nACGT\n\nACGT\n", "x.fa:4: sequence of record 'a' continues after line 3"},
      {"ACGT\n>a\nACGT\n", "x.fa:1: sequence before the first header line"},
      {">a\nACGT\n>b\n", "x.fa:3: record 'b' has no sequence lines"},
      {"@r\nACGT\n+\nIIII\n", "x.fa:1: this looks like FASTQ"},
      {"> a\nACGT\n", "x.fa:1: FASTA header '> a' has no name right after '>'"},
      {"", "no FASTA record"},
  };
  for (const auto& [text, expected] : cases) {
    TempDir dir;
    const std::string path = dir.write("x.fa", text);
    CAPTURE(expected);
    CHECK_THROWS_WITH_AS(read_all(path), doctest::Contains(expected.c_str()), DataError);
    // The indexed reader's check says the same.
    CHECK_THROWS_WITH_AS(check_fasta_content(path, false), doctest::Contains(expected.c_str()),
                         DataError);
  }
  TempDir dir;
  CHECK_THROWS_WITH_AS(FastaRecordReader(dir.file("missing.fa"), false),
                       doctest::Contains("does not exist"), DataError);
}

TEST_CASE("UniqueNames: a repeated name is the content check's error, naming both lines") {
  TempDir dir;
  const std::string path = dir.write("dup.fa", ">a\nAC\n>b\nAC\n>c\nAC\n>b\nAC\n>a\nAC\n");
  UniqueNames names;
  for (const FastaRecord& record : read_all(path)) names.add(record.name);
  CHECK_THROWS_WITH_AS(names.check(path),
                       doctest::Contains("dup.fa:7: duplicate record name 'b': line 3 has it too"),
                       DataError);
  CHECK_THROWS_WITH_AS(check_fasta_content(path, false),
                       doctest::Contains("dup.fa:7: duplicate record name 'b': line 3 has it too"),
                       DataError);
  UniqueNames unique;
  for (const char* name : {"a", "b", "c"}) unique.add(name);
  CHECK_NOTHROW(unique.check(path));
}

TEST_CASE("StreamedRecordSource: every record in order, N kept, fetched in any order") {
  TempDir dir;
  const std::string path = dir.write("s.fa", ">r1\nACGTN\nacg\n>r2\nTTTTTTTT\n>r3\nGGGGCCCC\n");
  const StreamedRecordSource source(path, 8, false);
  CHECK(source.size() == 3);
  CHECK(source.length() == 8);
  CHECK(source.num_targets() == 0);
  CHECK(fetched(source, 0) == "ACGTNACG");
  CHECK(fetched(source, 2) == "GGGGCCCC");
  CHECK(fetched(source, 1) == "TTTTTTTT");  // backwards: read again from the start
  CHECK(fetched(source, 1) == "TTTTTTTT");
  // Soft-masked bases in the lower mask.
  std::vector<uint8_t> codes(8), mask(8);
  source.fetch(0, 0, codes.data(), mask.data(), 0);
  CHECK(mask == std::vector<uint8_t>{0, 0, 0, 0, 0, 1, 1, 1});
  CHECK(source.find("r3") == 2);
  CHECK(source.find("r4") == -1);
  // Window 0: the records' common length.
  CHECK(StreamedRecordSource(path, 0, false).length() == 8);
}

TEST_CASE("StreamedRecordSource: --center windows and the lengths that do not fit") {
  TempDir dir;
  const std::string path = dir.write("c.fa", ">a\nAACCGGTT\n>b\nACGTACGTACGT\n");
  const StreamedRecordSource centred(path, 4, true);
  CHECK(fetched(centred, 0) == "CCGG");
  CHECK(fetched(centred, 1) == "ACGT");  // 12 / 2 - 4 / 2 = 4
  FastaRecord b;
  b.name = "b";
  b.length = 12;
  const Interval window = centred.window(b);
  CHECK(window.contig == "b");
  CHECK(window.start == 4);
  CHECK(window.end == 8);
  CHECK_THROWS_WITH_AS(StreamedRecordSource(path, 8, false),
                       doctest::Contains("c.fa: record 'b' has 12 bases but the model takes 8; "
                                         "centring (strand predict --center)"),
                       RecordLengthError);
  CHECK_THROWS_WITH_AS(StreamedRecordSource(path, 10, true),
                       doctest::Contains("record 'a' has 8 bases but the model takes 10 (shorter "
                                         "records are not padded with N)"),
                       RecordLengthError);
  CHECK_THROWS_WITH_AS(
      StreamedRecordSource(path, 0, false),
      doctest::Contains("records 'a' (8 bases) and 'b' (12 bases) differ in length"),
      RecordLengthError);
  const std::string dup = dir.write("d.fa", ">a\nACGT\n>a\nACGT\n");
  CHECK_THROWS_WITH_AS(StreamedRecordSource(dup, 4, false),
                       doctest::Contains("d.fa:3: duplicate record name 'a': line 1 has it too"),
                       DataError);
}
