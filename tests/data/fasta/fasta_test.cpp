// Tests for FASTA indexing and random access: samtools-identical sequences, htslib-identical
// indexes, stale/missing/unwritable index handling and malformed input.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/fasta/fasta_reader.h"
#include "data/test_paths.h"
#include "fmt/format.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

struct Region {
  std::string contig;
  int64_t start = 0;
  int64_t end = 0;
  std::string sequence;
};

std::vector<Region> read_regions(const std::string& path) {
  std::ifstream in(path);
  std::vector<Region> regions;
  Region r;
  while (in >> r.contig >> r.start >> r.end >> r.sequence) regions.push_back(r);
  return regions;
}

void check_against_samtools(const FastaReader& reader, const std::string& fixture_file) {
  const auto regions = read_regions(fixture(fixture_file));
  REQUIRE(regions.size() == 40);
  for (const Region& r : regions) {
    CAPTURE(r.contig);
    CAPTURE(r.start);
    CHECK(reader.fetch(r.contig, r.start, r.end) == r.sequence);
    std::vector<uint8_t> codes(r.sequence.size());
    reader.fetch_codes(r.contig, r.start, r.end, codes.data());
    const auto expected = encode(r.sequence);
    CHECK(std::equal(codes.begin(), codes.end(), expected.begin()));
  }
}

void make_older(const std::string& path) {
  const auto t = std::filesystem::last_write_time(path);
  std::filesystem::last_write_time(path, t - std::chrono::hours(1));
}

}  // namespace

TEST_CASE("ce.fa regions are identical to samtools faidx") {
  TempDir dir;
  const std::string fa = dir.copy_in(fixture("genomes/ce.fa"), "ce.fa");
  FastaReader reader(fa);
  CHECK(reader.index_paths().built);
  CHECK(read_text(fa + ".fai") == read_text(fixture("genomes/ce.fa.fai")));
  REQUIRE(reader.contigs().size() == 7);
  CHECK(reader.contigs()[0].name == "CHROMOSOME_I");
  CHECK(reader.contigs()[0].length == 1009800);
  check_against_samtools(reader, "ce_samtools_regions.tsv");
  check_against_samtools(reader.clone(), "ce_samtools_regions.tsv");
}

TEST_CASE("BGZF yeast_small.fa.gz: index like samtools regions identical") {
  TempDir dir;
  const std::string fa = dir.copy_in(fixture("genomes/yeast_small.fa.gz"), "y.fa.gz");
  FastaReader reader(fa);
  CHECK(reader.index_paths().bgzf);
  CHECK(std::filesystem::exists(fa + ".gzi"));
  CHECK(read_text(fa + ".fai") == read_text(fixture("yeast_small.fa.gz.samtools.fai")));
  check_against_samtools(reader, "yeast_samtools_regions.tsv");
}

TEST_CASE("faidx edge cases: the built index matches htslib's expected index") {
  TempDir dir;
  const std::string fa = dir.copy_in(fixture("faidx-edge-cases/faidx.fa"), "faidx.fa");
  FastaOptions options;
  options.allow_loose_headers = true;
  FastaReader reader(fa, options);
  CHECK(read_text(fa + ".fai") == read_text(fixture("faidx-edge-cases/faidx.fa.expected.fai")));
  CHECK(reader.fetch("trailingblank3", 0, 5) == "ACGTA");  // CRLF record
  CHECK(reader.fetch("foo", 0, 8) == "TGCATGCA");
  CHECK(std::filesystem::directory_iterator(dir.path()) != std::filesystem::directory_iterator());
  int tmp_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().string().find(".tmp.") != std::string::npos) ++tmp_files;
  }
  CHECK(tmp_files == 0);
}

TEST_CASE("'> name' headers are rejected by default naming the line") {
  TempDir dir;
  const std::string fa = dir.write("space.fa", ">chr1\nACGT\n> chr2 desc\nACGT\n");
  CHECK_THROWS_WITH_AS(FastaReader{fa}, doctest::Contains("space.fa:3: FASTA header '> chr2 desc'"),
                       DataError);
  CHECK_FALSE(std::filesystem::exists(fa + ".fai"));
}

TEST_CASE("CRLF FASTA is read without carriage returns") {
  TempDir dir;
  const std::string fa = dir.write("crlf.fa", ">a\r\nACGTA\r\nCC\r\n>b\r\nGG\r\n");
  FastaReader reader(fa);
  CHECK(reader.fetch("a", 0, 7) == "ACGTACC");
  CHECK(reader.fetch("b", 0, 2) == "GG");
}

TEST_CASE("a stale .fai (older than the FASTA) is rebuilt or rejected on request") {
  TempDir dir;
  const std::string fa = dir.write("s.fa", ">a\nACGT\n");
  { FastaReader first(fa); }
  // Rewrite the FASTA with a longer record and an index that is now older.
  dir.write("s.fa", ">a\nACGTACGTAA\n");
  make_older(fa + ".fai");
  FastaOptions strict;
  strict.stale_index = StaleIndexPolicy::kError;
  CHECK_THROWS_WITH_AS(FastaReader(fa, strict),
                       doctest::Contains("is stale or does not match FASTA"), DataError);
  FastaReader reader(fa);
  CHECK(reader.index_paths().built);
  CHECK(reader.contigs()[0].length == 10);
}

TEST_CASE("a .fai whose lengths do not match the FASTA is stale even when newer") {
  TempDir dir;
  const std::string fa = dir.write("m.fa", ">a\nACGTACGTAA\nACG\n>b\nTT\n");
  dir.write("m.fa.fai", "a\t13\t3\t10\t11\nb\t5\t21\t2\t3\n");  // b claims 5 bases
  make_older(fa);
  FastaOptions strict;
  strict.stale_index = StaleIndexPolicy::kError;
  CHECK_THROWS_WITH_AS(
      FastaReader(fa, strict),
      doctest::Contains("m.fa.fai:2: record 'b' (length 5) ends at byte 28, past the end"),
      DataError);
  FastaReader reader(fa);
  CHECK(reader.contigs()[1].length == 2);
  CHECK(reader.fetch("a", 8, 13) == "AAACG");
}

TEST_CASE("a missing index is an error when building is disabled") {
  TempDir dir;
  const std::string fa = dir.write("n.fa", ">a\nACGT\n");
  FastaOptions options;
  options.build_missing_index = false;
  CHECK_THROWS_WITH_AS(FastaReader(fa, options), doctest::Contains("n.fa.fai' is missing"),
                       DataError);
}

TEST_CASE("an unwritable index directory is named with a way out") {
  TempDir dir;
  const std::string fa = dir.write("u.fa", ">a\nACGT\n");
  FastaOptions options;
  std::string expected_dir;
  if (::geteuid() == 0) {
    // root ignores permission bits; /proc/self refuses new files even for root.
    options.index_path = "/proc/self/u.fa.fai";
    expected_dir = "/proc/self";
  } else {
    const std::string ro = dir.file("ro");
    std::filesystem::create_directory(ro);
    std::filesystem::copy_file(fa, ro + "/u.fa");
    std::filesystem::permissions(
        ro, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    expected_dir = ro;
  }
  const std::string target = options.index_path.empty() ? expected_dir + "/u.fa" : fa;
  CHECK_THROWS_WITH_AS(
      FastaReader(target, options),
      doctest::Contains(fmt::format("directory '{}' is not writable", expected_dir).c_str()),
      DataError);
  CHECK_THROWS_WITH_AS(FastaReader(target, options), doctest::Contains("index_path"), DataError);
  std::error_code ec;  // restore the read-only directory (absent when running as root)
  std::filesystem::permissions(dir.file("ro"), std::filesystem::perms::owner_all, ec);
  // The suggested fix works: an index in a writable place.
  options.index_path = dir.file("elsewhere.fai");
  FastaReader reader(fa, options);
  CHECK(reader.fetch("a", 1, 3) == "CG");
}

TEST_CASE("truncated BGZF and plain gzip are rejected clearly") {
  TempDir dir;
  const std::string full = read_text(fixture("genomes/yeast_small.fa.gz"));
  const std::string cut = dir.write("cut.fa.gz", full.substr(0, full.size() - 100));
  CHECK_THROWS_WITH_AS(FastaReader{cut}, doctest::Contains("is truncated"), DataError);
  // Plain gzip output (no BGZF blocks) cannot be indexed.
  const std::string plain = dir.write("p.fa", ">a\nACGT\n");
  REQUIRE(std::system(("gzip -n -q " + plain).c_str()) == 0);
  CHECK_THROWS_WITH_AS(FastaReader{plain + ".gz"}, doctest::Contains("not BGZF"), DataError);
}

TEST_CASE("out-of-range fetches and unknown contigs name the file") {
  TempDir dir;
  const std::string fa = dir.write("r.fa", ">a\nACGT\n");
  FastaReader reader(fa);
  CHECK_THROWS_WITH_AS(reader.fetch("a", 2, 5), doctest::Contains("outside contig 'a'"), DataError);
  CHECK_THROWS_WITH_AS(reader.fetch("zz", 0, 1), doctest::Contains("contig 'zz' is not in"),
                       DataError);
  CHECK_THROWS_WITH_AS(FastaReader{dir.file("none.fa")}, doctest::Contains("does not exist"),
                       DataError);
}
