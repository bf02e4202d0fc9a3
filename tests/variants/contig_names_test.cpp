// Contig names: aliases, and names that differ from the FASTA's by a "chr" prefix explained.
#include <doctest/doctest.h>

#include "data/data_error.h"
#include "variants/contig_names.h"
#include "variants_test_support.h"

namespace strand::variants {
namespace {

using testing::TempDir;
using testing::write_text;

const std::vector<data::Contig> kChrContigs = {{"chr1", 100}, {"chr2", 100}, {"chrX", 50}};

TEST_CASE("contig names: a chr prefix that only one side has is explained, with the fix") {
  const ContigNames names(kChrContigs);
  CHECK(names.resolve("chr2") == 1);
  CHECK(names.resolve("2") == -1);
  const std::string message = names.explain_missing("2", "hg.fa");
  CHECK(message.find("contig '2' is not in FASTA 'hg.fa', which calls it 'chr2'") !=
        std::string::npos);
  CHECK(message.find("without a 'chr' prefix and the FASTA with it") != std::string::npos);
  CHECK(message.find("--chrom-alias") != std::string::npos);
  CHECK(message.find("hg.fa.fai") != std::string::npos);
  const ContigNames plain({{"1", 100}, {"X", 50}});
  CHECK(plain.explain_missing("chrX", "b37.fa").find("which calls it 'X'") != std::string::npos);
  const std::string other = names.explain_missing("chrUn_x", "hg.fa");
  CHECK(other.find("its records: chr1, chr2, chrX") != std::string::npos);
}

TEST_CASE("contig names: an alias file maps variants names to FASTA records") {
  TempDir dir("aliases");
  write_text(dir.str("aliases.tsv"), "# vcf\tfasta\n1\tchr1\nX chrX\n\n");
  const auto aliases = read_contig_aliases(dir.str("aliases.tsv"));
  CHECK(aliases.size() == 2);
  const ContigNames names(kChrContigs, aliases, dir.str("aliases.tsv"));
  CHECK(names.resolve("1") == 0);
  CHECK(names.resolve("X") == 2);
  CHECK(names.resolve("chr2") == 1);
  CHECK(names.resolve("2") == -1);

  write_text(dir.str("bad.tsv"), "1\tchr1\n2\n");
  CHECK_THROWS_WITH_AS(read_contig_aliases(dir.str("bad.tsv")),
                       doctest::Contains("bad.tsv:2: 1 name(s)"), data::DataError);
  write_text(dir.str("twice.tsv"), "1\tchr1\n1\tchr2\n");
  CHECK_THROWS_WITH_AS(read_contig_aliases(dir.str("twice.tsv")),
                       doctest::Contains("twice.tsv:2: '1' is given an alias twice (also line 1)"),
                       data::DataError);
  CHECK_THROWS_WITH_AS(ContigNames(kChrContigs, {{"7", "chr7"}}, "a.tsv"),
                       doctest::Contains("'7' maps to 'chr7', which is not a record of the FASTA"),
                       data::DataError);
}

}  // namespace
}  // namespace strand::variants
