// `strand simulate` beyond one motif: --list names the simulations and motifs; each simulation
// writes files that strand's readers take back (records FASTA + label TSV; genome FASTA,
// bigWigs and narrowPeaks), deterministic per seed; the printed commands run; flags a
// simulation does not use are refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "data/bigwig.h"
#include "data/fasta_reader.h"
#include "data/intervals.h"
#include "data/record_source.h"

using namespace strand::cli::testing;

namespace {

// The arguments of the printed command line that starts with `prefix` ("strand inspect").
std::vector<std::string> printed_command(const std::string& out, const std::string& prefix) {
  const size_t at = out.find("  " + prefix + " ");
  REQUIRE(at != std::string::npos);
  const size_t end = out.find('\n', at);
  std::istringstream words(out.substr(at + 2 + 7, end - at - 2 - 7));  // after "strand "
  std::vector<std::string> args;
  for (std::string word; words >> word;) args.push_back(word);
  return args;
}

}  // namespace

TEST_CASE("simulate --list names the simulations, --list motifs the motifs with widths") {
  const CliResult simulations = run({"simulate", "--list"});
  REQUIRE(simulations.status == 0);
  for (const char* name : {"single_motif_detection", "motif_counting", "motif_density_localization",
                           "multi_motif_embedding", "heterodimer_grammar",
                           "differential_accessibility", "chip_nexus_profile"}) {
    CHECK(simulations.out.find(std::string("\n  ") + name + " ") != std::string::npos);
  }
  CHECK(run({"simulate", "--list", "simulations"}).out == simulations.out);
  const CliResult motifs = run({"simulate", "--list", "motifs"});
  REQUIRE(motifs.status == 0);
  CHECK(count_lines(motifs.out) == 1 + 2067);
  CHECK(motifs.out.find("\nTAL1_known4                       10  ") != std::string::npos);
  CHECK(run({"simulate", "--list", "genes"}).status == 2);
}

TEST_CASE("simulate multi_motif_embedding: 12 tasks whose labels are the motifs in the FASTA") {
  TempDir dir("sim-multi");
  const std::string motifs =
      "CTCF_known1,ZNF143_known2,SIX5_known1,TAL1_known4,GATA_known1,SPI1_known4,IRF_known20,"
      "POU5F1_known1,SOX2_1,CEBPB_known1,IRF_known1,SPI1_known1";
  const CliResult result =
      run({"simulate", "--simulation", "multi_motif_embedding", "--motifs", motifs, "--n-seqs",
           "300", "--max-motifs", "4", "--length", "300", "--validation", "50", "--test", "50",
           "--seed", "5", "--out", dir.str("multi")});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("simulated multi_motif_embedding (12 tasks: CTCF_known1, ") !=
        std::string::npos);
  CHECK(result.out.find("train 200, valid 50, test 50") != std::string::npos);
  const strand::data::FastaReader fasta(dir.str("multi/train.fa"));
  const strand::data::RecordSource records(fasta, dir.str("multi/train.tsv"));
  REQUIRE(records.size() == 200);
  REQUIRE(records.num_targets() == 12);
  CHECK(records.target_names()[11] == "SPI1_known1");
  // Every record's header names the planted motifs; its labels are 1 exactly for those.
  const std::string text = read_text(dir.path() / "multi" / "train.fa");
  std::istringstream lines(text);
  int64_t index = 0;
  for (std::string header, sequence; std::getline(lines, header) && std::getline(lines, sequence);
       ++index) {
    std::vector<float> labels(12);
    std::vector<uint8_t> mask(12);
    records.labels(index, labels.data(), mask.data());
    for (size_t t = 0; t < 12; ++t) {
      const std::string name = records.target_names()[t];
      const bool listed = header.find("=" + name + "@") != std::string::npos ||
                          header.find("," + name + "@") != std::string::npos;
      CHECK(labels[t] == (listed ? 1.0F : 0.0F));
    }
  }
  CHECK(index == 200);
}

TEST_CASE("simulate heterodimer_grammar: positives keep the spacing, and the data trains") {
  TempDir dir("sim-het");
  const CliResult result =
      run({"simulate", "--simulation", "heterodimer_grammar", "--n-pos", "100", "--n-neg", "100",
           "--min-spacing", "3", "--max-spacing", "3", "--length", "120", "--validation", "40",
           "--test", "40", "--out", dir.str("het")});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  const std::string tsv = read_text(dir.path() / "het" / "train.tsv");
  CHECK(tsv.rfind("name\theterodimer_grammar\n", 0) == 0);
  // Positive headers: SPI1_known4 (14 bp) at s, IRF_known20 at s + 14 + 3, both forward.
  std::istringstream lines(read_text(dir.path() / "het" / "train.fa"));
  int positives = 0;
  for (std::string header; std::getline(lines, header);) {
    if (header.empty() || header[0] != '>') continue;
    const std::string name = header.substr(1, header.find(' ') - 1);
    if (tsv.find(name + "\t1\n") == std::string::npos) continue;
    ++positives;
    const size_t a = header.find("SPI1_known4@"), b = header.find("IRF_known20@");
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    const long first = std::stol(header.substr(a + 12)), second = std::stol(header.substr(b + 12));
    CHECK(second - first == 17);
    CHECK(header.find('-') == std::string::npos);
  }
  CHECK(positives > 40);
  // The printed command trains (one task, the reference model).
  std::vector<std::string> train = printed_command(result.out, "strand train");
  train.insert(train.end(), {"--epochs", "1", "--batch-size", "32", "--threads", "1",
                             "--output-dir", dir.str("runs"), "--run-name", "het"});
  const CliResult trained = run(train);
  CHECK_MESSAGE(trained.status == 0, trained.err);
}

TEST_CASE("simulate chip_nexus_profile: FASTA, bigWigs and peaks read back, and inspect runs") {
  TempDir dir("sim-profile");
  const std::vector<std::string> args = {"simulate",
                                         "--simulation",
                                         "chip_nexus_profile",
                                         "--motifs",
                                         "TAL1_known4",
                                         "--contigs",
                                         "3",
                                         "--contig-length",
                                         "20000",
                                         "--peaks",
                                         "10",
                                         "--window",
                                         "400",
                                         "--seed",
                                         "9",
                                         "--out",
                                         dir.str("p")};
  const CliResult result = run(args);
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("train 10 peaks (chr1..chr1), valid 10 (chr2), test 10 (chr3)") !=
        std::string::npos);
  const strand::data::FastaReader genome(dir.str("p/genome.fa"));
  REQUIRE(genome.contigs().size() == 3);
  CHECK(genome.contigs()[2].length == 20000);
  // The peaks' read counts are in the bigWigs: each peak's reads lie within 25 bases of its
  // summit (offset 15 + width 10), on top of a sparse background.
  strand::data::IntervalReadOptions read;
  read.format = strand::data::IntervalFormat::kNarrowPeak;
  read.label_columns = {7};  // signalValue: the peak's reads
  const strand::data::IntervalSet peaks = read_intervals(dir.str("p/test.narrowPeak"), read);
  REQUIRE(peaks.size() == 10);
  const strand::data::BigWigReader plus(dir.str("p/TAL1_known4.plus.bw"));
  const strand::data::BigWigReader minus(dir.str("p/TAL1_known4.minus.bw"));
  for (int64_t i = 0; i < peaks.size(); ++i) {
    const strand::data::Interval& peak = peaks.intervals[static_cast<size_t>(i)];
    std::vector<float> p(51), m(51);
    plus.read("chr3", peak.summit - 25, peak.summit + 26, p.data());
    minus.read("chr3", peak.summit - 25, peak.summit + 26, m.data());
    const double left = std::accumulate(p.begin(), p.begin() + 25, 0.0);
    const double right = std::accumulate(m.begin() + 26, m.end(), 0.0);
    const double reads = peaks.labels[static_cast<size_t>(i)];
    CHECK(left + right >= reads);
    CHECK(left + right <= reads + 10);  // background: 0.01 per base and strand
  }
  // Same seed, same files.
  const std::vector<std::string> again = {"simulate",
                                          "--simulation",
                                          "chip_nexus_profile",
                                          "--motifs",
                                          "TAL1_known4",
                                          "--contigs",
                                          "3",
                                          "--contig-length",
                                          "20000",
                                          "--peaks",
                                          "10",
                                          "--window",
                                          "400",
                                          "--seed",
                                          "9",
                                          "--out",
                                          dir.str("q")};
  REQUIRE(run(again).status == 0);
  for (const char* file : {"genome.fa", "TAL1_known4.plus.bw", "control.bw", "train.narrowPeak"}) {
    CHECK(read_text(dir.path() / "p" / file) == read_text(dir.path() / "q" / file));
  }
  // The printed commands: inspect reads the dataset; train trains the bpnet preset (issue 23: it
  // trained the default Sigmoid model with MSE on counts around 200, and loaded a control track
  // no input read), with a profile head that fits the 400-base window.
  const CliResult inspected = run(printed_command(result.out, "strand inspect"));
  REQUIRE_MESSAGE(inspected.status == 0, inspected.err);
  CHECK(inspected.out.find("profile  TAL1_known4.plus.bw") != std::string::npos);
  CHECK(inspected.out.find("control  control.bw") != std::string::npos);
  const std::vector<std::string> train = printed_command(result.out, "strand train");
  const CliResult printed = run(with(train, {"--print-config"}));
  REQUIRE_MESSAGE(printed.status == 0, printed.err);
  const nlohmann::json config = nlohmann::json::parse(printed.out);
  CHECK(config["preset"] == "bpnet");
  CHECK(config["data"]["targets"] == "labels");
  CHECK(config["data"]["window"] == 400);
  CHECK(config["data"]["profile_length"] == 286);
  CHECK(config["data"]["control_bigwigs"].empty());
  CHECK(result.out.find("control.bw: the bpnet preset reads no control track") !=
        std::string::npos);
  const CliResult trained = run(with(train, {"--epochs", "1", "--threads", "1", "--output-dir",
                                             dir.str("runs"), "--run-name", "bpnet"}));
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  const nlohmann::json report =
      nlohmann::json::parse(read_text(dir.path() / "runs" / "bpnet" / "report.json"));
  CHECK(report["status"] == "completed");
  CHECK(report["test"]["outputs"].contains("profile"));
  CHECK(report["test"]["outputs"].contains("counts"));
  CHECK(config["data"]["profile_bigwigs"].size() == 1);
}

TEST_CASE("simulate: unknown simulations, unused flags and a missing --out are errors") {
  TempDir dir("sim-errors");
  const CliResult unknown = run({"simulate", "--simulation", "grammar", "--out", dir.str("x")});
  CHECK(unknown.status == 1);
  CHECK(unknown.err.find("--simulation: 'grammar' is not a simulation") != std::string::npos);
  const CliResult unused = run({"simulate", "--simulation", "multi_motif_embedding", "--n-pos",
                                "10", "--out", dir.str("x")});
  CHECK(unused.status == 1);
  CHECK(unused.err.find("--n-pos: not used by simulation multi_motif_embedding") !=
        std::string::npos);
  const CliResult no_out = run({"simulate", "--simulation", "heterodimer_grammar"});
  CHECK(no_out.status == 1);
  CHECK(no_out.err == "error: --out: an output directory is required\n");
  const CliResult pair = run({"simulate", "--simulation", "heterodimer_grammar", "--motifs",
                              "CTCF_known1", "--out", dir.str("x")});
  CHECK(pair.err.find("needs exactly two motifs, got 1") != std::string::npos);
  const CliResult crowded = run({"simulate", "--simulation", "multi_motif_embedding", "--motifs",
                                 "CTCF_known1", "--max-motifs", "2", "--n-seqs", "10",
                                 "--validation", "2", "--test", "2", "--out", dir.str("x")});
  CHECK(crowded.err.find("up to 2 motifs per sequence asked for, but only 1 motifs given") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "x"));
}
