// Models from the command line: a graph model from a config file (trained, summarised, predicted
// with --output), the presets by --model (summary on their published data; BPNet trained on a
// small simulated profile dataset with its "auto" counts weight), and the training features'
// keys (adamw, clipping, max-norm, a cosine schedule).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"

using namespace strand::cli::testing;
using nlohmann::json;

namespace {

// A residual graph with one sigmoid head, for the simulated TAL1 data.
json residual_config() {
  return json::parse(R"({
    "model": {
      "nodes": [
        {"name": "conv", "type": "Conv1D", "filters": 8, "kernel_size": 9, "padding": "same"},
        {"name": "relu", "type": "ReLU"},
        {"name": "body", "type": "Conv1D", "filters": 8, "kernel_size": 3, "padding": "same"},
        {"name": "body_relu", "type": "ReLU"},
        {"name": "sum", "type": "Add", "inputs": ["relu", "body_relu"]},
        {"name": "pool", "type": "GlobalMaxPool1D"},
        {"name": "logits", "type": "Dense", "units": "tasks"},
        {"name": "bound", "type": "Sigmoid"}],
      "outputs": [{"name": "bound", "node": "bound", "loss": "binary_crossentropy"}]}})");
}

}  // namespace

TEST_CASE("a graph model from a config file trains, and summary and predict take it") {
  TempDir dir("graph-model");
  write_text(dir.path() / "graph.json", residual_config().dump(2));
  const CliResult trained = run(with(tiny_run(dir, "g", 2), {"--config", dir.str("graph.json")}));
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  CHECK(trained.out.find("sum (Add)") != std::string::npos);
  CHECK(trained.out.find("relu, body_relu") != std::string::npos);
  const json report = json::parse(read_text(dir.path() / "g" / "report.json"));
  CHECK(report["status"] == "completed");
  // The run's config.json holds the graph; summary and predict rebuild it from the run.
  const json saved = json::parse(read_text(dir.path() / "g" / "config.json"));
  CHECK(saved["model"]["nodes"].size() == 8);
  const CliResult summary = run({"summary", "--config", dir.str("g/config.json")});
  REQUIRE_MESSAGE(summary.status == 0, summary.err);
  CHECK(summary.out.find("output 'bound': node 'bound' (None, 1) (trained before its sigmoid)") !=
        std::string::npos);
  const CliResult predicted =
      run({"predict", "--model", dir.str("g"), "--output", "bound", "--out", "-"});
  REQUIRE_MESSAGE(predicted.status == 0, predicted.err);
  CHECK(count_lines(predicted.out) == 81);  // header + the 80 simulated test sequences
  const CliResult wrong =
      run({"predict", "--model", dir.str("g"), "--output", "counts", "--out", "-"});
  CHECK(wrong.status == 1);
  CHECK(wrong.err.find("--output: the model has no output 'counts'; its outputs are bound") !=
        std::string::npos);
}

TEST_CASE("a graph whose output does not fit its labels fails before a run directory exists") {
  TempDir dir("graph-bad");
  json config = residual_config();
  config["model"]["nodes"][6]["units"] = 3;
  write_text(dir.path() / "graph.json", config.dump());
  const CliResult result = run(with(tiny_run(dir, "g", 1), {"--config", dir.str("graph.json")}));
  CHECK(result.status == 1);
  CHECK(result.err.find("model.outputs[0] 'bound': the model gives (3) per sample but its target "
                        "'labels' is (1)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "g"));
}

TEST_CASE("summary --model sizes a preset by its published data") {
  const CliResult basset = run({"summary", "--model", "basset"});
  REQUIRE_MESSAGE(basset.status == 0, basset.err);
  CHECK(basset.out.find("input: (600) base codes; 164 task(s) (the basset preset's published "
                        "data)") != std::string::npos);
  CHECK(basset.out.find("Total params: 4140469") != std::string::npos);
  const CliResult bpnet = run({"summary", "--model", "bpnet"});
  REQUIRE_MESSAGE(bpnet.status == 0, bpnet.err);
  CHECK(bpnet.out.find("profile_conv (Conv1D)") != std::string::npos);
  CHECK(bpnet.out.find("(None, 2, 1000)") != std::string::npos);
  CHECK(bpnet.out.find("Total params: 113923") != std::string::npos);
  const CliResult unknown = run({"summary", "--model", "enformer"});
  CHECK(unknown.status != 0);
}

TEST_CASE("the bpnet preset trains on a simulated profile dataset with its auto counts weight") {
  TempDir dir("bpnet");
  REQUIRE(
      run({"simulate", "--simulation", "chip_nexus_profile", "--contigs", "4", "--contig-length",
           "20000", "--peaks", "12", "--window", "400", "--out", dir.str("sim")})
          .status == 0);
  const std::string sim = dir.str("sim") + "/";
  const CliResult trained = run({"train",
                                 "--model",
                                 "bpnet",
                                 "--fasta",
                                 sim + "genome.fa",
                                 "--intervals",
                                 sim + "train.narrowPeak",
                                 "--valid-intervals",
                                 sim + "valid.narrowPeak",
                                 "--test-intervals",
                                 sim + "test.narrowPeak",
                                 "--window",
                                 "400",
                                 "--profile-length",
                                 "100",
                                 "--jitter",
                                 "8",
                                 "--profile-bigwigs",
                                 sim + "POU5F1_known1.plus.bw," + sim + "POU5F1_known1.minus.bw",
                                 "--epochs",
                                 "2",
                                 "--batch-size",
                                 "8",
                                 "--threads",
                                 "1",
                                 "--output-dir",
                                 dir.str("runs"),
                                 "--run-name",
                                 "b"});
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  CHECK(trained.out.find("counts loss weight \"auto\": median total counts") != std::string::npos);
  CHECK(trained.out.find("val_profile_pearson") != std::string::npos);
  CHECK(trained.out.find("val_counts_spearman") != std::string::npos);
  const json config = json::parse(read_text(dir.path() / "runs" / "b" / "config.json"));
  CHECK(config["preset"] == "bpnet");
  CHECK(config["model"]["outputs"][1]["weight"] == "auto");
}

TEST_CASE("adamw, gradient clipping, max-norm and a cosine schedule train from flags") {
  TempDir dir("features");
  const CliResult result = run(with(
      tiny_run(dir, "f", 3), {"--optimizer", "adamw", "--clip-grad-norm", "1", "--max-weight-norm",
                              "3", "--lr-schedule", "cosine", "--warmup-steps", "2"}));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  const json config = json::parse(read_text(dir.path() / "f" / "config.json"));
  CHECK(config["optimizer"]["name"] == "adamw");
  CHECK(config["lr_schedule"]["name"] == "cosine");
  CHECK(config["clip_grad_norm"] == 1.0);
  // The rate logged per epoch decays along the cosine (learning_rate is column 3).
  const std::vector<std::string> rates = csv_column(read_text(dir.path() / "f" / "metrics.csv"), 3);
  REQUIRE(rates.size() == 3);
  CHECK(std::stod(rates[2]) < std::stod(rates[0]));
  const CliResult bad =
      run(with(tiny_run(dir, "g", 1), {"--lr-schedule", "cosine", "--warmup-steps", "100000"}));
  CHECK(bad.status == 1);
  CHECK(bad.err.find("lr_schedule:") != std::string::npos);
}

TEST_CASE("prepare --peaks makes a multi-task BED that trains with the default model") {
  TempDir dir("prepare-peaks");
  REQUIRE(
      run({"simulate", "--simulation", "chip_nexus_profile", "--contigs", "4", "--contig-length",
           "20000", "--peaks", "20", "--window", "300", "--out", dir.str("sim")})
          .status == 0);
  const std::string sim = dir.str("sim") + "/";
  const CliResult prepared =
      run({"prepare", "--peaks", sim + "train.narrowPeak," + sim + "valid.narrowPeak", "--fasta",
           sim + "genome.fa", "--task-names", "early,late", "--window", "300", "--negatives-ratio",
           "1", "--out", dir.str("data")});
  REQUIRE_MESSAGE(prepared.status == 0, prepared.err);
  CHECK(prepared.out.find("--label-columns 4-5 --window 300") != std::string::npos);
  const std::string bed = read_text(dir.path() / "data" / "tasks.bed");
  CHECK(bed.rfind("#chrom\tstart\tend\tearly\tlate\n", 0) == 0);
  const CliResult trained =
      run({"train", "--fasta", sim + "genome.fa", "--intervals", dir.str("data/tasks.bed"),
           "--label-columns", "4-5", "--window", "300", "--valid-fraction", "0.2", "--epochs", "2",
           "--threads", "1", "--output-dir", dir.str("runs"), "--run-name", "p"});
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  const json report = json::parse(read_text(dir.path() / "runs" / "p" / "report.json"));
  CHECK(report["task_names"] == json::array({"early", "late"}));
  // Bad input names the flag.
  const CliResult both = run({"prepare", "--peaks", sim + "train.narrowPeak", "--positives", "x.fa",
                              "--fasta", sim + "genome.fa", "--out", dir.str("x")});
  CHECK(both.status == 1);
  CHECK(both.err.find("give one or the other") != std::string::npos);
  const CliResult no_fasta =
      run({"prepare", "--peaks", sim + "train.narrowPeak", "--out", dir.str("x")});
  CHECK(no_fasta.err.find("--peaks: give the genome with --fasta") != std::string::npos);
}
