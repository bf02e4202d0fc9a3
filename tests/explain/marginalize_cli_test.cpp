// `strand marginalize` on a tiny trained run: one motif's effect per task, a MEME motif by name,
// a pair over a range of spacings with their interaction, and the refusals the issue lists (an
// unparsable MEME file, a motif letter outside ACGT, a spacing beyond the sequence), each
// writing nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "cli/cli_test_support.h"
#include "core/error.h"
#include "cuda/cuda_test_support.h"
#include "explain/marginalize.h"
#include "tensor/cuda_runtime.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::write_text;

// A tiny simulated run (100 bp, TAL1_known4) under dir/r, with its simulation's motifs.meme
// (strand simulate writes it) under dir/sim.
void prepare(const TempDir& dir) {
  REQUIRE(run(tiny_run(dir, "r", 2)).status == 0);
  REQUIRE(run({"simulate", "--n-pos", "20", "--n-neg", "20", "--length", "100", "--validation",
               "10", "--test", "10", "--out", dir.str("sim")})
              .status == 0);
}

std::vector<std::string> marginalize(const TempDir& dir, std::vector<std::string> more) {
  std::vector<std::string> args = {"marginalize",          "--model",   dir.str("r"), "--fasta",
                                   dir.str("sim/test.fa"), "--threads", "1",          "--out",
                                   dir.str("out.tsv")};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST_CASE("marginalize: a motif's effect per task, from a consensus or a MEME file") {
  TempDir dir("marginalize");
  prepare(dir);
  const std::string meme = read_text(dir.path() / "sim/motifs.meme");
  CHECK(meme.find("MOTIF TAL1_known4") != std::string::npos);
  const CliResult named = run(marginalize(
      dir, {"--meme", dir.str("sim/motifs.meme"), "--motif", "TAL1_known4", "--backgrounds", "8"}));
  REQUIRE_MESSAGE(named.status == 0, named.err);
  CHECK(named.out.find("on 8 shuffled backgrounds of 100 bp") != std::string::npos);
  std::istringstream rows(read_text(dir.path() / "out.tsv"));
  std::string header, row;
  std::getline(rows, header);
  std::getline(rows, row);
  CHECK(header == "task\tbefore\tafter\teffect");
  CHECK(row.rfind("task_0\t", 0) == 0);
  // The same motif as a consensus at a given position, into the sequences themselves.
  const CliResult consensus =
      run(marginalize(dir, {"--motif", "cagctg", "--position", "10", "--no-shuffle", "--logits"}));
  REQUIRE_MESSAGE(consensus.status == 0, consensus.err);
  CHECK(consensus.out.find("cagctg at position 10") != std::string::npos);
  CHECK(consensus.out.find("(logits) on 10 sequences") != std::string::npos);
}

TEST_CASE("marginalize: --device cuda is refused, with the reason, where no GPU is usable") {
  if (cuda_usable()) STRAND_SKIP("a CUDA device is usable here: the GPU comparison runs instead");
  TempDir dir("marginalize-no-gpu");
  prepare(dir);
  const CliResult refused =
      run(marginalize(dir, {"--motif", "cagctg", "--no-shuffle", "--device", "cuda"}));
  CHECK(refused.status != 0);
  CHECK(refused.err.find("error: --device: 'cuda' requested, but " + cuda_unusable_reason()) == 0);
  CHECK_FALSE(fs::exists(dir.path() / "out.tsv"));
}

TEST_CASE("marginalize: on the GPU, the same table as the CPU's") {
  STRAND_REQUIRE_GPU();
  TempDir dir("marginalize-gpu");
  prepare(dir);
  const std::vector<std::string> motif = {"--motif", "cagctg", "--position", "10", "--no-shuffle"};
  REQUIRE(run(marginalize(dir, motif)).status == 0);
  const std::string on_cpu = read_text(dir.path() / "out.tsv");
  std::vector<std::string> on_gpu = motif;
  on_gpu.insert(on_gpu.end(), {"--device", "cuda"});
  const CliResult result = run(marginalize(dir, on_gpu));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(testing::tables_agree(on_cpu, read_text(dir.path() / "out.tsv"), 1e-4));
}

TEST_CASE("marginalize: two motifs over a range of spacings, with their interaction") {
  TempDir dir("marginalize-pair");
  prepare(dir);
  const CliResult result = run(marginalize(
      dir, {"--motif", "CAGCTG", "--motif", "GATAA", "--spacing", "-20:20", "--backgrounds", "4"}));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  const std::string table = read_text(dir.path() / "out.tsv");
  CHECK(table.rfind("spacing\ttask\tbackground\ta\tb\tboth\tinteraction\n", 0) == 0);
  // Issue 38: at spacings -5 to 4 the 6- and 5-base motifs overlap, B overwriting part of A, and
  // the "interaction" was an artefact of the overwrite. Those spacings are left out, and said so.
  CHECK(testing::count_lines(table) == 1 + 41 - 10);
  CHECK(table.find("\n-20\ttask_0\t") != std::string::npos);
  CHECK(table.find("\n-6\ttask_0\t") != std::string::npos);
  CHECK(table.find("\n5\ttask_0\t") != std::string::npos);
  for (const char* overlapping : {"\n-5\t", "\n0\t", "\n4\t"}) {
    CHECK(table.find(overlapping) == std::string::npos);
  }
  CHECK(result.out.find("spacings -20 to 20; 10 spacing(s) from -5 to 4 left out: the motifs "
                        "overlap there") != std::string::npos);
}

TEST_CASE("marginalize: pair spacings where the motifs overlap are left out, or refused") {
  // Centres d apart: A (6 bases) and B (5) in 100 bases overlap for d in [-5, 4] (the pair's
  // starts are rounded down: at d = 5, A is [44, 50) and B [50, 55)).
  for (int64_t d = -30; d <= 30; ++d) {
    CAPTURE(d);
    const bool overlap = explain::pair_overlaps(100, 6, 5, d);
    CHECK(overlap == (d >= -5 && d <= 4));
    if (overlap) {
      CHECK_THROWS_WITH_AS(explain::pair_starts(100, 6, 5, d), doctest::Contains("overlap"), Error);
    } else {
      const auto [a, b] = explain::pair_starts(100, 6, 5, d);
      CHECK((a + 6 <= b || b + 5 <= a));
    }
  }
  CHECK(explain::pair_spacings(100, 6, 5, 3, 8) == std::vector<int64_t>{5, 6, 7, 8});
  CHECK_THROWS_WITH_AS(explain::pair_spacings(100, 6, 5, -2, 2),
                       doctest::Contains("--spacing -2:2: motifs of 6 and 5 bases overlap at "
                                         "every spacing of the range"),
                       Error);
  TempDir dir("marginalize-overlap");
  prepare(dir);
  const CliResult refused =
      run(marginalize(dir, {"--motif", "CAGCTG", "--motif", "GATAA", "--spacing", "0:3"}));
  CHECK(refused.status == 1);
  CHECK(refused.err.find("error: --spacing 0:3: motifs of 6 and 5 bases overlap at every "
                         "spacing") == 0);
  CHECK_FALSE(fs::exists(dir.path() / "out.tsv"));
}

TEST_CASE("marginalize: bad motifs, MEME files and spacings are refused, nothing written") {
  TempDir dir("marginalize-errors");
  prepare(dir);
  const auto refused = [&](std::vector<std::string> more, const std::string& message) {
    const CliResult result = run(marginalize(dir, more));
    CHECK(result.status != 0);
    INFO(result.err);
    CHECK(result.err.find(message) != std::string::npos);
    CHECK_FALSE(fs::exists(dir.path() / "out.tsv"));
  };
  write_text(dir.path() / "bad.meme",
             "MEME version 4\n\nMOTIF X\nletter-probability matrix: alength= 4 w= 2\n"
             "0.25 0.25 0.25 0.25\n0.5 0.5 0.5\n");
  refused({"--meme", dir.str("bad.meme"), "--motif", "X"},
          dir.str("bad.meme") + ":6: motif 'X': a matrix row needs the 4 probabilities");
  refused({"--meme", dir.str("sim/motifs.meme"), "--motif", "TAL1_knwon4"},
          "has no motif 'TAL1_knwon4'; did you mean 'TAL1_known4'?");
  refused({"--motif", "CAGNTG"}, "letter 'N' at position 4 is not one of A, C, G, T");
  refused({"--motif", "CAGCTG", "--motif", "GATAA", "--spacing", "0:200"},
          "--spacing 95: motifs of 6 and 5 bases 95 bases apart");
  refused({"--motif", "CAGCTG", "--motif", "GATAA"}, "--spacing: two motifs need");
  refused({"--motif", "CAGCTG", "--position", "96"}, "--position: '96' does not place");
}

}  // namespace
}  // namespace strand::cli
