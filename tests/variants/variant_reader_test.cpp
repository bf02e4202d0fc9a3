// VariantReader: VCF (plain and bgzipped) and chrombpnet TSV records, multi-allelic rows and
// symbolic alleles, and every malformed line an error naming the file and the line.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "data/data_error.h"
#include "variants/variant_reader.h"
#include "variants_test_support.h"

namespace strand::variants {
namespace {

using testing::TempDir;
using testing::vcf_text;
using testing::write_text;

std::vector<VariantRecord> read_all(const std::string& path, VariantReaderOptions options = {}) {
  VariantReader reader(path, std::move(options));
  std::vector<VariantRecord> records;
  VariantRecord record;
  while (reader.next(record)) records.push_back(std::move(record));
  return records;
}

// The DataError message of reading `text` as `name` in a scratch directory.
std::string error_of(const std::string& name, const std::string& text,
                     VariantReaderOptions options = {}) {
  TempDir dir("reader-error");
  write_text(dir.str(name), text);
  try {
    read_all(dir.str(name), std::move(options));
  } catch (const data::DataError& error) {
    return error.what();
  }
  FAIL("no error for " << name);
  return "";
}

TEST_CASE("variant reader: VCF records, one ALT list each, multi-allelic and symbolic kept") {
  TempDir dir("reader-vcf");
  write_text(dir.str("v.vcf"), vcf_text("chr1\t100\trs1\tA\tG\t.\t.\t.\n"
                                        "chr1\t200\t.\tACG\tA,AT,<DEL>,*,C[chr2:5[\t50\tPASS\t.\n"
                                        "\n"
                                        "chr2\t7\trs3\tt\tg\t.\t.\t.\n",
                                        {{"chr1", 1000}, {"chr2", 1000}}));
  VariantReader reader(dir.str("v.vcf"));
  CHECK(reader.format() == VariantFormat::kVcf);
  VariantRecord record;
  REQUIRE(reader.next(record));
  CHECK(record.chrom == "chr1");
  CHECK(record.position == 100);
  CHECK(record.id == "rs1");
  CHECK(record.ref == "A");
  CHECK(record.alts == std::vector<std::string>{"G"});
  CHECK(reader.where(record) == dir.str("v.vcf") + ":5");
  REQUIRE(reader.next(record));
  CHECK(record.id == ".");
  CHECK(record.alts == std::vector<std::string>{"A", "AT", "<DEL>", "*", "C[chr2:5["});
  CHECK(record.line == 6);
  REQUIRE(reader.next(record));
  CHECK(record.ref == "t");
  CHECK(record.line == 8);  // the blank line counts
  CHECK_FALSE(reader.next(record));
}

TEST_CASE("variant reader: bgzipped VCF through HTSlib, records kept with their samples") {
  TempDir dir("reader-bgzf");
  const std::string text = vcf_text("chr1\t100\trs1\tA\tG\t.\t.\t.\tGT\t0/1\n", {{"chr1", 1000}});
  std::string with_samples = text;
  const std::string header_end = "FILTER\tINFO\n";
  with_samples.replace(with_samples.find(header_end), header_end.size(),
                       "FILTER\tINFO\tFORMAT\tS1\n");
  with_samples.insert(with_samples.find("#CHROM"),
                      "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n");
  write_text(dir.str("v.vcf"), with_samples);
  if (std::system("command -v bgzip > /dev/null") != 0)
    STRAND_SKIP("bgzip (Debian tabix) is missing");
  REQUIRE(std::system(("bgzip -f " + dir.str("v.vcf") + " 2>/dev/null").c_str()) == 0);
  VariantReaderOptions options;
  options.keep_records = true;
  options.keep_samples = true;
  const std::vector<VariantRecord> records = read_all(dir.str("v.vcf.gz"), options);
  REQUIRE(records.size() == 1);
  CHECK(records[0].raw != nullptr);
  CHECK(records[0].alts == std::vector<std::string>{"G"});
}

TEST_CASE("variant reader: chrombpnet's TSV, '-' for an empty allele, an optional id") {
  TempDir dir("reader-tsv");
  write_text(dir.str("v.tsv"),
             "chr\tpos\tallele1\tallele2\tvariant_id\n"
             "# a comment\n"
             "chr1\t100\tA\tG\trs1\n"
             "1\t5\t-\tTT\n"
             "chr2\t9\tAC\t-\tdel1\n");
  VariantReader reader(dir.str("v.tsv"));
  CHECK(reader.format() == VariantFormat::kTsv);
  CHECK(reader.header() == nullptr);
  VariantRecord record;
  REQUIRE(reader.next(record));
  CHECK(record.id == "rs1");
  CHECK(record.line == 3);
  REQUIRE(reader.next(record));
  CHECK(record.chrom == "1");
  CHECK(record.ref.empty());
  CHECK(record.alts == std::vector<std::string>{"TT"});
  CHECK(record.id == ".");
  REQUIRE(reader.next(record));
  CHECK(record.alts == std::vector<std::string>{""});
  CHECK_FALSE(reader.next(record));
}

TEST_CASE("variant reader: a malformed VCF line is an error naming the file and line") {
  const std::vector<std::pair<std::string, int64_t>> contigs = {{"chr1", 1000}};
  const std::string good = "chr1\t100\trs1\tA\tG\t.\t.\t.\n";
  std::string message = error_of("v.vcf", vcf_text(good + "chr1\t200\trs2\tA\n", contigs));
  CHECK(message.find("v.vcf:5: 4 tab-separated column(s)") != std::string::npos);
  message = error_of("v.vcf", vcf_text(good + "chr1\t2x0\trs2\tA\tG\t.\t.\t.\n", contigs));
  CHECK(message.find("v.vcf:5: POS '2x0' is not a positive integer") != std::string::npos);
  message = error_of("v.vcf", vcf_text("chr1\t0\trs2\tA\tG\t.\t.\t.\n", contigs));
  CHECK(message.find("v.vcf:4: POS '0'") != std::string::npos);
  message = error_of("v.vcf", vcf_text("chr1\t10\trs2\tR\tG\t.\t.\t.\n", contigs));
  CHECK(message.find("v.vcf:4: REF 'R' is not DNA") != std::string::npos);
  message = error_of("v.vcf", vcf_text("chr1\t10\trs2\tA\tG,,T\t.\t.\t.\n", contigs));
  CHECK(message.find("v.vcf:4: ALT 'G,,T' has an empty allele") != std::string::npos);
  message = error_of("v.vcf", vcf_text("chr1\t10\trs2\tA\tG,X\t.\t.\t.\n", contigs));
  CHECK(message.find("v.vcf:4: ALT allele 'X' is neither DNA") != std::string::npos);
  message = error_of("v.vcf", vcf_text("chr1\t10\trs2\tA\tG\tqual\t.\t.\n", contigs));
  CHECK(message.find("v.vcf:4: QUAL 'qual' is neither '.' nor a number") != std::string::npos);
  message = error_of("v.vcf", vcf_text(good + "#CHROM\tPOS\n", contigs));
  CHECK(message.find("v.vcf:5: a header line after the '#CHROM' line") != std::string::npos);
}

TEST_CASE("variant reader: a NUL byte is an error, not a line cut short") {
  std::string body = "chr1\t10\tr";
  body += '\0';
  body += "s1\tA\tG\t.\t.\t.\n";
  std::string message = error_of("v.vcf", vcf_text(body, {{"chr1", 1000}}));
  CHECK(message.find("v.vcf:4: a NUL byte in the line") != std::string::npos);
  message = error_of("v.tsv", "chr1\t10\tA\tG\n" + body.substr(0, 12) + "\tA\tG\n");
  // HTSlib takes such a file for binary data.
  CHECK(message.find("v.tsv' is neither a VCF, a BCF nor text HTSlib can read") !=
        std::string::npos);
}

TEST_CASE("variant reader: ALT '.' (a monomorphic site, valid VCF) is a record with no ALT") {
  // Issue 38: it aborted the whole file.
  TempDir dir("reader-monomorphic");
  write_text(dir.str("v.vcf"), vcf_text("chr1\t100\trs1\tA\tG\t.\t.\t.\n"
                                        "chr1\t150\trs2\tC\t.\t.\t.\t.\n"
                                        "chr1\t170\trs3\tT\tA\t.\t.\t.\n",
                                        {{"chr1", 1000}}));
  const std::vector<VariantRecord> records = read_all(dir.str("v.vcf"));
  REQUIRE(records.size() == 3);
  CHECK(records[1].id == "rs2");
  CHECK(records[1].ref == "C");
  CHECK(records[1].alts.empty());
  CHECK(records[2].alts == std::vector<std::string>{"A"});
  // In a chrombpnet TSV '.' is no allele ('-' is the empty one): still an error.
  CHECK(error_of("v.tsv", "chr1\t100\tA\t.\n").find("write '-' for an empty allele") !=
        std::string::npos);
}

TEST_CASE("variant reader: a directory, a missing file and a truncated bgzip file are named") {
  TempDir dir("reader-paths");
  std::filesystem::create_directories(dir.str("calls"));
  // Issue 38: a directory was "missing or unreadable", a truncated file a column count.
  const auto error = [](const std::string& path) -> std::string {
    try {
      VariantReader reader(path);
    } catch (const data::DataError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error(dir.str("calls")) == "variants file '" + dir.str("calls") +
                                       "' is a directory; give a VCF, BCF or variant TSV file");
  CHECK(error(dir.str("absent.vcf")) ==
        "variants file '" + dir.str("absent.vcf") + "' does not exist");
  if (std::system("command -v bgzip > /dev/null") != 0)
    STRAND_SKIP("bgzip (Debian tabix) is missing");
  std::string body;
  for (int i = 1; i <= 20000; ++i) body += "chr1\t" + std::to_string(i) + "\t.\tA\tG\t.\t.\t.\n";
  write_text(dir.str("v.vcf"), vcf_text(body, {{"chr1", 50000}}));
  REQUIRE(std::system(("bgzip -f " + dir.str("v.vcf") + " 2>/dev/null").c_str()) == 0);
  CHECK(read_all(dir.str("v.vcf.gz")).size() == 20000);
  // Cut short, as an interrupted download leaves it.
  const auto size = std::filesystem::file_size(dir.str("v.vcf.gz"));
  std::filesystem::resize_file(dir.str("v.vcf.gz"), size / 2);
  CHECK(error(dir.str("v.vcf.gz"))
            .starts_with("variants file '" + dir.str("v.vcf.gz") +
                         "' is truncated: its BGZF end-of-file marker is missing (an incomplete "
                         "download or copy?)"));
}

TEST_CASE("variant reader: a VCF without its header is an error") {
  std::string message = error_of("v.vcf", "chr1\t100\trs1\tA\tG\t.\t.\t.\n");
  CHECK(message.find("v.vcf' has no VCF header") != std::string::npos);
  message = error_of("v.vcf.gz", "chr1\t100\trs1\tA\tG\t.\t.\t.\n");
  CHECK(message.find("has no VCF header") != std::string::npos);
  // Read as a TSV (the file is not named .vcf): its 8 columns are explained.
  message = error_of("variants.txt", "chr1\t100\trs1\tA\tG\t.\t.\t.\n");
  CHECK(message.find("variants.txt:1: 8 tab-separated column(s)") != std::string::npos);
  CHECK(message.find("a VCF needs its header") != std::string::npos);
  message = error_of("v.vcf", "##fileformat=VCFv4.2\nchr1\t100\trs1\tA\tG\t.\t.\t.\n");
  CHECK(message.find("v.vcf:2: a data line before the '#CHROM' header line") != std::string::npos);
}

TEST_CASE("variant reader: an undeclared INFO tag is an error only when records are written") {
  const std::string text = vcf_text("chr1\t100\trs1\tA\tG\t.\t.\tXY=3\n", {{"chr1", 1000}});
  TempDir dir("reader-tags");
  write_text(dir.str("v.vcf"), text);
  CHECK(read_all(dir.str("v.vcf")).size() == 1);
  VariantReaderOptions strict;
  strict.require_declared_tags = true;
  const std::string message = error_of("v.vcf", text, strict);
  CHECK(message.find("v.vcf:4: malformed VCF line") != std::string::npos);
  CHECK(message.find("declare it") != std::string::npos);
}

TEST_CASE("variant reader: a malformed TSV line is an error naming the file and line") {
  std::string message = error_of("v.tsv", "chr1\t100\tA\tG\nchr1\t100\tA\n");
  CHECK(message.find("v.tsv:2: 3 tab-separated column(s)") != std::string::npos);
  message = error_of("v.tsv", "chr1\t-5\tA\tG\n");
  CHECK(message.find("v.tsv:1: pos '-5' is not a positive integer") != std::string::npos);
  message = error_of("v.tsv", "chr1\t5\tA\t.\n");
  CHECK(message.find("v.tsv:1: alt is '.'; write '-' for an empty allele") != std::string::npos);
  message = error_of("v.tsv", "chr1\t5\tZ\tG\n");
  CHECK(message.find("v.tsv:1: ref 'Z' is not DNA") != std::string::npos);
  message = error_of("v.tsv", "chr1\t5\t-\t-\n");
  CHECK(message.find("v.tsv:1: ref and alt are both '-'") != std::string::npos);
}

TEST_CASE("variant reader: symbolic alleles, breakends and '*' are told apart from DNA") {
  CHECK(is_dna_allele("ACGTNacgtn"));
  CHECK_FALSE(is_dna_allele(""));
  CHECK_FALSE(is_dna_allele("AR"));
  CHECK(is_symbolic_allele("<DEL>"));
  CHECK(is_symbolic_allele("<INS:ME:ALU>"));
  CHECK(is_symbolic_allele("G]17:198982]"));
  CHECK(is_symbolic_allele("]13:123456]T"));
  CHECK(is_symbolic_allele("G."));
  CHECK(is_symbolic_allele(".A"));
  CHECK_FALSE(is_symbolic_allele("."));
  CHECK_FALSE(is_symbolic_allele("ACG"));
  CHECK_FALSE(is_symbolic_allele("*"));
  CHECK(is_spanning_deletion("*"));
}

}  // namespace
}  // namespace strand::variants
