// Tests for the FASTA content check run before strand builds an index (issue 10, item 3):
// binary bytes, whitespace inside sequence lines and uneven lines, which htslib indexes with a
// wrong geometry and then reads misaligned, are errors naming the file and line.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "data/data_error.h"
#include "data/fasta/fasta_reader.h"
#include "data/fasta/fasta_scan.h"
#include "test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

// Opens a FASTA written from `text`; the index must not be left behind on error.
FastaReader open_fasta(const TempDir& dir, const std::string& text) {
  return FastaReader(dir.write("x.fa", text));
}

void check_refused(const std::string& text, const std::string& expected) {
  TempDir dir;
  CAPTURE(expected);
  CHECK_THROWS_WITH_AS(open_fasta(dir, text), doctest::Contains(expected.c_str()), DataError);
  CHECK_FALSE(std::filesystem::exists(dir.file("x.fa.fai")));
}

}  // namespace

TEST_CASE("FASTA with a NUL byte is refused naming file line and column") {
  // Reproducer from issue 10, item 3: htslib indexed this without a word (record length 11,
  // the NUL skipped) and read the bases after it from shifted offsets.
  check_refused(std::string(">a\nACGT\nAC\0T\nACGT\n", 17),
                "x.fa:3: byte 0x00 at column 3 is not a base (binary data?)");
  check_refused(std::string(">a\nACGT\nACGT\n\0\0\0\0\n", 19), "x.fa:4: byte 0x00 at column 1");
  check_refused(">a\nACGT\nAC\xff\xfe\n", "x.fa:3: byte 0xff at column 3");
  check_refused(">a\nAC\x01T\n", "x.fa:2: byte 0x01 at column 3");
  check_refused(std::string(">a\0b\nACGT\n", 10), "x.fa:1: byte 0x00 in a FASTA header");
}

TEST_CASE("whitespace inside a sequence line is refused, consistent trailing blanks are read") {
  check_refused(">a\nAC GT\nACGT\n", "x.fa:2: a space at column 3 inside a sequence line");
  check_refused(">a\nACGT\nAC\tGT\n", "x.fa:3: a tab at column 3");
  check_refused(">a\nAC\rGT\n", "x.fa:2: a carriage return at column 3");
  check_refused(">a\n ACGT\n", "x.fa:2: a space at column 1");
  check_refused(">a\nACGT \nACGTA\nAC\n",
                "x.fa:3: line has 5 bases but line 2 of record 'a' has 4");
  check_refused(">a\nACGT\n  \n", "x.fa:3: line holds only spaces or tabs");
  TempDir dir;
  const FastaReader reader = open_fasta(dir, ">a\nACGT  \nTTGG  \nCA\n>b\nGG\n");
  CHECK(reader.fetch("a", 0, 10) == "ACGTTTGGCA");
  CHECK(reader.fetch("b", 0, 2) == "GG");
}

TEST_CASE("uneven lines inside a record are refused naming both lines") {
  check_refused(">a\nACGT\nACGTAA\n",
                "x.fa:3: line is 7 bytes long but line 2, the first of record 'a', is 5");
  check_refused(">a\nACGT\nAC\nACGT\n>b\nA\n",
                "x.fa:4: sequence of record 'a' continues after line 3, which is shorter");
  check_refused(">a\nACGT\n\nACGT\n",
                "x.fa:4: sequence of record 'a' continues after line 3, which is blank");
  check_refused(">a\nACGT\r\nACGT\n\nAC\n",
                "x.fa:5: sequence of record 'a' continues after line 3, which is shorter");
}

TEST_CASE("structural problems: no header, empty records, FASTQ, empty file") {
  check_refused("ACGT\n>a\nACGT\n", "x.fa:1: sequence before the first header line");
  check_refused(">a\n>b\nACGT\n", "x.fa:1: record 'a' has no sequence lines");
  check_refused(">a\nACGT\n>b\n", "x.fa:3: record 'b' has no sequence lines");
  check_refused(">a\nACGT\n>b\n\n>c\nAA\n", "x.fa:3: record 'b' has no sequence lines");
  check_refused("@r\nACGT\n+\nIIII\n", "x.fa:1: this looks like FASTQ");
  check_refused("", "no FASTA record");
  check_refused("\n\n", "no FASTA record");
}

TEST_CASE("valid shapes pass the content check") {
  TempDir dir;
  // Blank lines between records and at the end, CRLF, no final newline, a long single line.
  CHECK_NOTHROW(check_fasta_content(
      dir.write("a.fa", "\n>a x\nACGT\nAC\n\n>b\r\nAC\r\nA\r\n\r\n>c\nA"), false));
  CHECK_NOTHROW(
      check_fasta_content(dir.write("b.fa", ">big\n" + std::string(3 << 20, 'A') + "\n"), false));
  const FastaReader reader = open_fasta(dir, ">c\nACGTACGTAC\nGGGGGGGGGG\nTT");
  CHECK(reader.fetch("c", 8, 22) == "ACGGGGGGGGGGTT");
}

TEST_CASE("a binary file is refused with a short error") {
  TempDir dir;
  std::string junk(5000, '\0');
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<char>((i * 131 + 7) % 256);
  try {
    open_fasta(dir, ">a\n" + junk);
    FAIL("no error");
  } catch (const DataError& error) {
    CHECK(std::string(error.what()).find("x.fa:") != std::string::npos);
    CHECK(std::string(error.what()).size() < 300);
  }
}

TEST_CASE("digits, '.' and '*' in a sequence line are refused naming the line (issue 38)") {
  // htslib indexes them as bases; strand read them as N without a word.
  check_refused(">a\nACGT\nAC5T\n",
                "x.fa:3: '5' at column 3 of record 'a' is not a base letter (A, C, G, T, N, the "
                "other IUPAC codes, or '-' for a gap; strand would read it as N): a position "
                "number (GenBank/EMBL style)? keep only the bases");
  check_refused(">a\nAC.T\n", "x.fa:2: '.' at column 3 of record 'a' is not a base letter");
  check_refused(">a\nACGT\n>b\nAC*\n", "x.fa:4: '*' at column 3 of record 'b'");
  // A GenBank listing's line: the position number is named (the blanks before it would be too).
  check_refused(">a\n        1 acgtacgtac\n", "x.fa:2: '1' at column 9 of record 'a'");
  check_refused(">a\n1 acgt\n", "x.fa:2: '1' at column 1 of record 'a'");
  // IUPAC codes, other letters and '-' are sequence letters (read as N).
  TempDir dir;
  const FastaReader reader = open_fasta(dir, ">a\nACRYKM\nXN-acg\n");
  CHECK(reader.fetch("a", 0, 12) == "ACRYKMXN-acg");
}

TEST_CASE("a letter htslib indexed (an existing .fai) is refused when read, naming the line") {
  TempDir dir;
  const std::string fasta = dir.write("x.fa", ">a\nACGT\nAC5T\nGG\n>b\nACGT\n");
  // As `samtools faidx` writes it: the '5' counts as a base.
  dir.write("x.fa.fai", "a\t10\t3\t4\t5\nb\t4\t19\t4\t5\n");
  const FastaReader reader(fasta);
  CHECK(reader.fetch("a", 0, 4) == "ACGT");
  CHECK(reader.fetch("b", 0, 4) == "ACGT");
  CHECK_THROWS_WITH_AS(reader.fetch("a", 2, 9),
                       doctest::Contains((fasta + ":3: '5' at column 3 of record 'a' is not a base "
                                                  "letter")
                                             .c_str()),
                       DataError);
}
