// bigWig tracks from the command line: the data.*_bigwigs keys reach the loader (strand inspect
// reports each track's totals), config files list them as arrays made absolute in a run's
// config, and bad track settings are errors naming the key, file or contig.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "data/bigwig.h"
#include "fmt/format.h"

using namespace strand::cli::testing;
using nlohmann::json;

namespace {

// genome.fa (chr1: 1000 bases, chr2: 600) with plus/minus/control bigWigs of known values and
// peaks.narrowPeak with summits.
void write_dataset(const TempDir& dir) {
  std::string fasta = ">chr1\n";
  for (int i = 0; i < 1000; ++i) fasta += "ACGT"[(i * 3) % 4];
  fasta += "\n>chr2\n";
  for (int i = 0; i < 600; ++i) fasta += "TTGCA"[i % 5];
  write_text(dir.path() / "genome.fa", fasta + "\n");
  const std::vector<strand::data::Contig> contigs = {{"chr1", 1000}, {"chr2", 600}};
  const auto track = [&](const std::string& name, float value) {
    strand::data::BigWigWriter writer(dir.path() / name, contigs);
    writer.add_values("chr1", 0, std::vector<float>(1000, value));
    writer.add_values("chr2", 0, std::vector<float>(600, 2.0F * value));
    writer.finish();
  };
  track("plus.bw", 1.0F);
  track("minus.bw", 0.5F);
  track("control.bw", 0.25F);
  // Two peaks on chr1 (summits 300 and 600) and one on chr2 (summit 300).
  write_text(dir.path() / "peaks.narrowPeak",
             "chr1\t250\t350\tp1\t0\t.\t5\t-1\t-1\t50\n"
             "chr1\t550\t650\tp2\t0\t.\t7\t-1\t-1\t50\n"
             "chr2\t200\t400\tp3\t0\t.\t9\t-1\t-1\t100\n");
}

std::vector<std::string> track_flags(const TempDir& dir) {
  return {"--fasta",           dir.str("genome.fa"),
          "--intervals",       dir.str("peaks.narrowPeak"),
          "--format",          "narrowpeak",
          "--window",          "200",
          "--profile-bigwigs", dir.str("plus.bw") + "," + dir.str("minus.bw"),
          "--control-bigwigs", dir.str("control.bw"),
          "--profile-length",  "100",
          "--targets",         "counts"};
}

// A graph that reads the control track beside the sequence (dir/control_model.json): a run with
// control tracks needs a model input that reads them.
std::string control_model(const TempDir& dir) {
  write_text(dir.path() / "control_model.json", R"({"model": {
    "nodes": [
      {"name": "seq", "type": "Conv1D", "filters": 4, "kernel_size": 5, "padding": "same",
       "inputs": ["sequence"]},
      {"name": "ctl", "type": "Conv1D", "filters": 4, "kernel_size": 5, "padding": "same",
       "inputs": ["control"]},
      {"name": "sum", "type": "Add", "inputs": ["seq", "ctl"]},
      {"name": "pool", "type": "GlobalMaxPool1D"},
      {"name": "out", "type": "Dense", "units": "tasks"}],
    "outputs": [{"name": "out", "node": "out", "loss": "mse", "target": "labels"}]}})");
  return dir.str("control_model.json");
}

}  // namespace

TEST_CASE("strand inspect reports the bigWig tracks of a dataset and its count labels") {
  TempDir dir("signals-inspect");
  write_dataset(dir);
  const CliResult result = run(with({"inspect"}, track_flags(dir)));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  // Output windows of 100 bases: 2 on chr1 (value 1 plus, 0.5 minus), 1 on chr2 (doubled).
  CHECK(
      result.out.find("bigWig tracks: 2 profile (100 bp output window), 1 control, count labels") !=
      std::string::npos);
  CHECK(result.out.find(fmt::format("{:<12}{:<9}{:<32}{:>16.1f}{:>14.3f}", "train", "profile",
                                    "plus.bw", 400.0, 400.0 / 3)) != std::string::npos);
  CHECK(result.out.find(fmt::format("{:<12}{:<9}{:<32}{:>16.1f}{:>14.3f}", "train", "profile",
                                    "minus.bw", 200.0, 200.0 / 3)) != std::string::npos);
  // The control track spans the whole 200-base window.
  CHECK(result.out.find(fmt::format("{:<12}{:<9}{:<32}{:>16.1f}{:>14.3f}", "train", "control",
                                    "control.bw", 200.0, 200.0 / 3)) != std::string::npos);
  // The count label (plus + minus over the output window): 150, 150 and 300; mean 200.
  CHECK(result.out.find("200.0000") != std::string::npos);
}

TEST_CASE("bigWig keys: config files list tracks, and a run's config makes them absolute") {
  TempDir dir("signals-config");
  write_dataset(dir);
  const CliResult printed =
      run(with({"train", "--print-config", "--config", control_model(dir)}, track_flags(dir)));
  REQUIRE_MESSAGE(printed.status == 0, printed.err);
  const json data = json::parse(printed.out)["data"];
  CHECK(data["profile_bigwigs"] == json::array({dir.str("plus.bw") + "," + dir.str("minus.bw")}));
  CHECK(data["control_bigwigs"] == json::array({dir.str("control.bw")}));
  CHECK(data["count_bigwigs"] == json::array());
  CHECK(data["profile_length"] == 100);
  CHECK(data["targets"] == "counts");
  // The same keys from a file, with relative paths (resolved against the working directory).
  json config = json::parse(printed.out);
  config["data"]["profile_bigwigs"] = json::array({"plus.bw,minus.bw"});
  config["data"]["control_bigwigs"] = json::array({"control.bw"});
  write_text(dir.path() / "run.json", config.dump());
  const auto here = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const CliResult from_file = run({"inspect", "--config", dir.str("run.json")});
  std::filesystem::current_path(here);
  REQUIRE_MESSAGE(from_file.status == 0, from_file.err);
  CHECK(from_file.out.find("control.bw") != std::string::npos);
}

// Issue 23 (4): the command `strand simulate` printed trained the default Sigmoid model with MSE
// on read counts around 200 (predictions stuck in 0.5-0.88) and loaded a control track that no
// input of the model read; the run reported "completed".
TEST_CASE("a control track no input reads, and a Sigmoid on count labels, are errors") {
  TempDir dir("signals-models");
  write_dataset(dir);
  const std::vector<std::string> train = {
      "train",     "--loss", "mse",          "--epochs",     "1", "--no-early-stopping",
      "--threads", "1",      "--output-dir", dir.str("runs")};
  const CliResult control = run(with(train, track_flags(dir)));
  CHECK(control.status == 1);
  CHECK(control.err ==
        "error: data.control_bigwigs: 1 control track file(s) are given, but no input of the "
        "model reads them: a layer list reads the sequence alone; add a graph node with "
        "\"inputs\": [\"control\"] (docs/models.md), or leave the control tracks out\n");
  std::vector<std::string> without_control = track_flags(dir);
  const auto flag = std::find(without_control.begin(), without_control.end(), "--control-bigwigs");
  without_control.erase(flag, flag + 2);
  const CliResult sigmoid = run(with(train, without_control));
  CHECK(sigmoid.status == 1);
  CHECK(sigmoid.err ==
        "error: model[4] (Sigmoid): its labels are bigWig read counts (data.targets \"counts\": "
        "sums over each window, often hundreds), but it ends in sigmoid, whose outputs lie in "
        "(0, 1): it cannot fit them; end the model in a linear output and train with mse or "
        "poisson, or train the bpnet preset (--model bpnet) on the profiles\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));
  // A model that reads the control track trains on the counts.
  const CliResult trained =
      run(with(with(train, {"--config", control_model(dir)}), track_flags(dir)));
  CHECK_MESSAGE(trained.status == 0, trained.err);
}

TEST_CASE("bigWig keys: bad settings are errors naming the key, file or contig") {
  TempDir dir("signals-errors");
  write_dataset(dir);
  // `inspect` with the dataset's flags, each flag of `changes` given its new value instead.
  const auto error = [&](const std::vector<std::string>& changes) {
    std::vector<std::string> args = with({"inspect"}, track_flags(dir));
    for (size_t i = 0; i + 1 < changes.size(); i += 2) {
      const auto flag = std::find(args.begin(), args.end(), changes[i]);
      if (flag == args.end()) {
        args.insert(args.end(), {changes[i], changes[i + 1]});
      } else {
        *(flag + 1) = changes[i + 1];
      }
    }
    const CliResult result = run(args);
    CHECK(result.status == 1);
    return result.err;
  };
  CHECK(error({"--control-bigwigs", dir.str("absent.bw")}) ==
        "error: data.control_bigwigs[0]: file '" + dir.str("absent.bw") + "' does not exist\n");
  CHECK(error({"--profile-length", "99"})
            .find("data.profile_length: 99 does not fit the 200-base "
                  "window") != std::string::npos);
  CHECK(error({"--profile-bigwigs", "a.bw,b.bw,c.bw"})
            .find("data.profile_bigwigs entry 1 'a.bw,b.bw,c.bw' is not a bigWig track") !=
        std::string::npos);
  CHECK(error({"--targets", "labels", "--count-bigwigs", dir.str("plus.bw")}) ==
        "error: data.count_bigwigs: is used only with data.targets \"counts\"\n");
  // A bigWig of another assembly: chr2 has another length.
  strand::data::BigWigWriter other(dir.path() / "other.bw", {{"chr1", 1000}, {"chr2", 650}});
  other.add_values("chr1", 0, std::vector<float>{1.0F});
  other.finish();
  CHECK(error({"--control-bigwigs", dir.str("other.bw")})
            .find("contig 'chr2' has 650 bases in bigWig '" + dir.str("other.bw") +
                  "' but 600 in "
                  "FASTA") != std::string::npos);
  // Records have no genome coordinates to read tracks at.
  write_text(dir.path() / "r.fa", ">r0\nACGT\n");
  write_text(dir.path() / "r.tsv", "r0\t1\n");
  CHECK(error({"--format", "records", "--fasta", dir.str("r.fa"), "--intervals", dir.str("r.tsv"),
               "--window", "0", "--profile-length", "0"})
            .find("need bed or narrowpeak intervals, not records") != std::string::npos);
}
