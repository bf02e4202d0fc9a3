// `strand signal` from the command line: a BAM and its fragment file give the same stranded
// tracks, the summary names the shift, the filters' drops and the cut motif, and bad flags are
// refused naming the flag before any work.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.h"

namespace strand::cli {
namespace {

using testing::CliResult;
using testing::read_text;
using testing::run;
using testing::TempDir;

std::string reads_fixture(const std::string& name) {
  const char* env = std::getenv("STRAND_SOURCE_DIR");
  return std::string(env != nullptr ? env : STRAND_SOURCE_DIR) + "/tests/data/fixtures/reads/" +
         name;
}

}  // namespace

TEST_CASE("signal command: a BAM and its fragments give the same tracks, with a summary") {
  const TempDir dir("signal");
  std::filesystem::copy_file(reads_fixture("genome.fa"), dir.path() / "genome.fa");
  const CliResult bam = run({"signal", "--reads", reads_fixture("reads.bam"), "--fasta",
                             dir.str("genome.fa"), "--assay", "atac", "--min-mapq", "30",
                             "--proper-pairs-only", "--stranded", "--out", dir.str("bam.bw")});
  REQUIRE_MESSAGE(bam.status == 0, bam.err);
  CHECK(bam.out.find("shift: + strand 5' base +4, - strand 5' base -4") != std::string::npos);
  CHECK(bam.out.find("duplicates") != std::string::npos);
  CHECK(bam.out.find("sits +0 bp") != std::string::npos);
  CHECK(bam.err.find("warning: reads '") != std::string::npos);  // chrZ is not in the FASTA
  const CliResult fragments =
      run({"signal", "--reads", reads_fixture("fragments.tsv.gz"), "--fasta", dir.str("genome.fa"),
           "--assay", "atac", "--stranded", "--out", dir.str("frag.bw")});
  REQUIRE_MESSAGE(fragments.status == 0, fragments.err);
  CHECK(fragments.out.find("shift: + strand 5' base +0, - strand 5' base +1") != std::string::npos);
  // bigWig files hold no date: equal tracks are equal bytes.
  for (const std::string strand : {"plus", "minus"}) {
    CHECK(read_text(dir.path() / ("bam." + strand + ".bw")) ==
          read_text(dir.path() / ("frag." + strand + ".bw")));
  }
  CHECK(std::filesystem::exists(dir.path() / "frag.cut_motif.meme"));
}

TEST_CASE("signal command: bad flags are refused naming the flag") {
  const TempDir dir("signal-flags");
  std::filesystem::copy_file(reads_fixture("genome.fa"), dir.path() / "genome.fa");
  const std::vector<std::string> base = {
      "signal", "--reads",      reads_fixture("reads.bam"), "--fasta", dir.str("genome.fa"),
      "--out",  dir.str("x.bw")};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  CHECK(with({"--assay", "atac", "--shift-plus", "4"}).err.find("--shift-plus and --shift-minus") !=
        std::string::npos);
  CHECK(with({"--assay", "chip"}).status != 0);
  CHECK(with({"--assay", "atac", "--motif-width", "23"}).err.find("must be even") !=
        std::string::npos);
  CHECK(with({"--assay", "atac", "--min-mapq", "256"}).status != 0);
  CHECK(run({"signal", "--reads", dir.str("missing.bam"), "--fasta", dir.str("genome.fa"),
             "--assay", "atac", "--out", dir.str("x.bw")})
            .err.find("missing.bam") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.path() / "x.bw"));
}

}  // namespace strand::cli
