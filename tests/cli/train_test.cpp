// Training runs end to end: run directory contents, resume equivalence, predict, simulate,
// inspect, summary and fine-tuning.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "app/model_builder.h"
#include "app/run_config.h"
#include "cli_test_support.h"
#include "io/safetensors.h"
#include "layers/sequential.h"
#include "train/checkpoint.h"

namespace strand::cli {

using app::build_model;
using app::default_config;
using app::RunConfig;
namespace {

using nlohmann::json;
using testing::count_lines;
using testing::csv_column;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::with;

TEST_CASE("run directory holds config metrics steps tensorboard checkpoints and report") {
  TempDir dir("rundir");
  const auto result = run(tiny_run(dir, "r"));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  const auto root = dir.path() / "r";
  CHECK(result.out.find("device: cpu") == 0);
  CHECK(result.out.find("threads: 1") != std::string::npos);
  CHECK(result.out.find("train 240, validation 80, test 80") != std::string::npos);
  CHECK(result.out.find("Total params: 993") != std::string::npos);
  CHECK(json::parse(read_text(root / "config.json"))["epochs"] == 3);
  CHECK(count_lines(read_text(root / "metrics.csv")) == 1 + 3);
  CHECK(count_lines(read_text(root / "steps.csv")) == 1 + 3 * 8);
  CHECK(std::filesystem::exists(root / "checkpoints" / "best.safetensors"));
  CHECK(std::filesystem::exists(root / "checkpoints" / "last.safetensors"));
  // TensorBoard's run directories, as Keras lays them out.
  for (const char* run_name : {"train", "validation", "test"}) {
    bool events = false;
    for (const auto& entry : std::filesystem::directory_iterator(root / "tensorboard" / run_name)) {
      events |= entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0;
    }
    CHECK_MESSAGE(events, run_name);
  }
  const json report = json::parse(read_text(root / "report.json"));
  CHECK(report["epochs_run"] == 3);
  CHECK(report["test"]["count"] == 80);
  CHECK(report["test"]["auroc"].get<double>() > 0.0);
  CHECK(report["samples_per_second"].get<double>() > 0.0);
  const train::CheckpointMetadata last =
      train::read_checkpoint_metadata(root / "checkpoints" / "last.safetensors");
  CHECK(last.at("epochs_completed") == "3");
  CHECK(last.at("seed") == "0");
  CHECK(last.count("early_stopping.best") == 1);
  // The same run name again is refused rather than mixing two runs.
  const auto again = run(tiny_run(dir, "r"));
  CHECK(again.status == 1);
  CHECK(again.err.find("--resume") != std::string::npos);
}

TEST_CASE("same seed gives the same numbers") {
  TempDir dir("seed");
  REQUIRE(run(tiny_run(dir, "a", 2)).status == 0);
  REQUIRE(run(tiny_run(dir, "b", 2)).status == 0);
  CHECK(read_text(dir.path() / "a" / "steps.csv") == read_text(dir.path() / "b" / "steps.csv"));
}

TEST_CASE("interrupted and resumed run matches the uninterrupted run bit for bit") {
  TempDir dir("resume");
  REQUIRE(run(tiny_run(dir, "full", 4)).status == 0);
  const auto interrupted = run(with(tiny_run(dir, "cut", 4), {"--stop-after-epochs", "2"}));
  REQUIRE_MESSAGE(interrupted.status == 0, interrupted.err);
  CHECK(interrupted.out.find("interrupted after 2 epoch(s)") != std::string::npos);
  const auto cut = dir.path() / "cut";
  // Steps of the unfinished third epoch were logged before the "kill".
  CHECK(count_lines(read_text(cut / "steps.csv")) > 1 + 2 * 8);
  CHECK_FALSE(std::filesystem::exists(cut / "report.json"));
  const auto resumed = run({"train", "--resume", cut.string()});
  REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  CHECK(resumed.out.find("resume: 2 epochs done (step 16)") != std::string::npos);
  const auto full = dir.path() / "full";
  CHECK(read_text(cut / "steps.csv") == read_text(full / "steps.csv"));
  for (size_t column : {1, 2, 6, 7, 8, 9}) {  // losses, accuracies, validation metrics
    CHECK(csv_column(read_text(cut / "metrics.csv"), column) ==
          csv_column(read_text(full / "metrics.csv"), column));
  }
  const json a = json::parse(read_text(full / "report.json"));
  const json b = json::parse(read_text(cut / "report.json"));
  CHECK(a["test"] == b["test"]);
  CHECK(a["best_epoch"] == b["best_epoch"]);
  // Only --epochs and --threads may change on resume.
  CHECK(run({"train", "--resume", cut.string(), "--lr", "0.1"})
            .err.find("optimizer.learning_rate cannot change") != std::string::npos);
}

TEST_CASE("a model with BatchNorm and Dropout resumes bit for bit") {
  TempDir dir("resume-dropout");
  const auto config = dir.path() / "dropout.json";
  testing::write_text(config, R"({"model": [
    {"type": "Conv1D", "filters": 8, "kernel_size": 9}, {"type": "BatchNorm1D"},
    {"type": "ReLU"}, {"type": "Dropout", "rate": 0.25}, {"type": "GlobalMaxPool1D"},
    {"type": "Dense", "units": 1}, {"type": "Sigmoid"}]})");
  REQUIRE(run(with(tiny_run(dir, "full", 3), {"--config", config.string()})).status == 0);
  const auto cut =
      run(with(tiny_run(dir, "cut", 3), {"--config", config.string(), "--stop-after-epochs", "1"}));
  REQUIRE_MESSAGE(cut.status == 0, cut.err);
  const auto resumed = run({"train", "--resume", (dir.path() / "cut").string()});
  REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  CHECK(read_text(dir.path() / "cut" / "steps.csv") ==
        read_text(dir.path() / "full" / "steps.csv"));
  const json a = json::parse(read_text(dir.path() / "full" / "report.json"));
  const json b = json::parse(read_text(dir.path() / "cut" / "report.json"));
  CHECK(a["test"] == b["test"]);
  const json saved = json::parse(read_text(dir.path() / "full" / "config.json"));
  CHECK(saved["model"][3]["rate"] == 0.25);
  // Dropout's masks follow the training step and BatchNorm's running statistics travel in the
  // checkpoint under PyTorch's names, so the resumed run repeats the uninterrupted one.
  std::vector<std::string> names;
  for (const auto& entry :
       io::read_safetensors(dir.path() / "cut" / "checkpoints" / "last.safetensors").entries) {
    names.push_back(entry.name);
  }
  for (const char* buffer : {"1.running_mean", "1.running_var", "1.num_batches_tracked"}) {
    CHECK(std::find(names.begin(), names.end(), buffer) != names.end());
  }
}

TEST_CASE("resume with early stopping keeps the best checkpoint and stopping state") {
  TempDir dir("resume-es");
  auto base = tiny_run(dir, "full", 6);
  base.erase(std::find(base.begin(), base.end(), "--no-early-stopping"));
  base = with(base, {"--patience", "1", "--lr", "0.05"});
  REQUIRE(run(base).status == 0);
  std::vector<std::string> cut_args = base;
  *std::find(cut_args.begin(), cut_args.end(), "full") = "cut";
  REQUIRE(run(with(cut_args, {"--stop-after-epochs", "1"})).status == 0);
  REQUIRE(run({"train", "--resume", dir.str("cut")}).status == 0);
  CHECK(read_text(dir.path() / "cut" / "steps.csv") ==
        read_text(dir.path() / "full" / "steps.csv"));
  // The best checkpoints hold the same epoch and weights (timings in their metadata differ).
  const RunConfig config = default_config();
  auto full_best = build_model(config.model, {.length = 100, .tasks = 1});
  auto cut_best = build_model(config.model, {.length = 100, .tasks = 1});
  const auto full_meta =
      train::load_checkpoint(dir.path() / "full" / "checkpoints" / "best.safetensors", *full_best);
  const auto cut_meta =
      train::load_checkpoint(dir.path() / "cut" / "checkpoints" / "best.safetensors", *cut_best);
  CHECK(full_meta.at("epoch") == cut_meta.at("epoch"));
  for (size_t i = 0; i < full_best->parameters().size(); ++i) {
    CHECK(full_best->parameters()[i].value().to_vector<float>() ==
          cut_best->parameters()[i].value().to_vector<float>());
  }
  const json a = json::parse(read_text(dir.path() / "full" / "report.json"));
  const json b = json::parse(read_text(dir.path() / "cut" / "report.json"));
  CHECK(a["epochs_run"] == b["epochs_run"]);
  CHECK(a["test"] == b["test"]);
}

TEST_CASE("predict writes one line per sample") {
  TempDir dir("predict");
  REQUIRE(run(tiny_run(dir, "r", 2)).status == 0);
  const auto result =
      run({"predict", "--model", dir.str("r"), "--out", dir.str("scores.tsv"), "--threads", "1"});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  const std::string text = read_text(dir.path() / "scores.tsv");
  CHECK(count_lines(text) == 1 + 80);
  CHECK(text.rfind("name\tchrom\tstart\tend\tlabel_task_0\ttask_0\nseq", 0) == 0);
  // A checkpoint file works too (its run's config.json is found next to checkpoints/).
  const auto from_file = run({"predict", "--model", dir.str("r/checkpoints/last.safetensors"),
                              "--out", dir.str("last.tsv")});
  CHECK(from_file.status == 0);
  CHECK(count_lines(read_text(dir.path() / "last.tsv")) == 1 + 80);
}

TEST_CASE("simulate writes files that train with the records format") {
  TempDir dir("simulate");
  const auto sim =
      run({"simulate", "--n-pos", "150", "--n-neg", "150", "--length", "80", "--validation", "60",
           "--test", "60", "--seed", "3", "--out", dir.str("data")});
  REQUIRE_MESSAGE(sim.status == 0, sim.err);
  for (const char* file :
       {"train.fa", "train.tsv", "valid.fa", "valid.tsv", "test.fa", "test.tsv"}) {
    CHECK(std::filesystem::exists(dir.path() / "data" / file));
  }
  const std::string d = dir.str("data");
  const auto train = run({"train",
                          "--format",
                          "records",
                          "--fasta",
                          d + "/train.fa",
                          "--intervals",
                          d + "/train.tsv",
                          "--valid-fasta",
                          d + "/valid.fa",
                          "--valid-intervals",
                          d + "/valid.tsv",
                          "--test-fasta",
                          d + "/test.fa",
                          "--test-intervals",
                          d + "/test.tsv",
                          "--epochs",
                          "2",
                          "--batch-size",
                          "32",
                          "--threads",
                          "1",
                          "--output-dir",
                          dir.str(),
                          "--run-name",
                          "rec"});
  REQUIRE_MESSAGE(train.status == 0, train.err);
  CHECK(train.out.find("train 180, validation 60, test 60") != std::string::npos);
  CHECK(json::parse(read_text(dir.path() / "rec" / "report.json"))["test"]["count"] == 60);
  const auto scores = run({"predict", "--model", dir.str("rec"), "--fasta", d + "/test.fa",
                           "--intervals", d + "/test.tsv", "--out", dir.str("test.tsv")});
  REQUIRE_MESSAGE(scores.status == 0, scores.err);
  CHECK(count_lines(read_text(dir.path() / "test.tsv")) == 1 + 60);
}

TEST_CASE("unknown motif lists close names") {
  TempDir dir("motif");
  const auto result = run({"simulate", "--motif", "TAL1", "--out", dir.str("x")});
  CHECK(result.status == 1);
  CHECK(result.err.find("motif 'TAL1' is not in") != std::string::npos);
  CHECK(result.err.find("TAL1_known") != std::string::npos);
}

TEST_CASE("summary shows the reference model with 993 parameters") {
  const auto result = run({"summary"});
  CHECK(result.status == 0);
  CHECK(result.out.find("Total params: 993") != std::string::npos);
  CHECK(result.out.find("(None, 16, 486)") != std::string::npos);
}

TEST_CASE("layers prints the layer catalog's table") {
  const auto listed = run({"layers"});
  CHECK(listed.status == 0);
  CHECK(listed.out == strand::layer_catalog_markdown());
  CHECK(listed.out.find("| | `kernel_size` | integer | required | 1 to 10000000 |") !=
        std::string::npos);
}

TEST_CASE("inspect reports counts and class balance") {
  const auto result = run({"inspect", "--n-pos", "100", "--n-neg", "300", "--length", "60",
                           "--validation", "40", "--test", "40"});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("train") != std::string::npos);
  CHECK(result.out.find("320") != std::string::npos);
  CHECK(result.out.find("0.2") != std::string::npos);  // mean label near 100/400
  CHECK(result.out.find("60-60") != std::string::npos);
}

TEST_CASE("init weights and freeze fine-tune only the unfrozen layers") {
  TempDir dir("finetune");
  REQUIRE(run(tiny_run(dir, "base", 1)).status == 0);
  const std::string init = dir.str("base/checkpoints/last.safetensors");
  const auto tuned =
      run(with(tiny_run(dir, "tuned", 1), {"--init-weights", init, "--freeze", "0"}));
  REQUIRE_MESSAGE(tuned.status == 0, tuned.err);
  CHECK(tuned.out.find("Non-trainable params: 976") != std::string::npos);
  const RunConfig config = default_config();
  auto before = build_model(config.model, {.length = 100, .tasks = 1});
  auto after = build_model(config.model, {.length = 100, .tasks = 1});
  train::load_checkpoint(init, *before);
  train::load_checkpoint(dir.path() / "tuned" / "checkpoints" / "last.safetensors", *after);
  const auto b = before->named_parameters();
  const auto a = after->named_parameters();
  CHECK(a[0].second.value().to_vector<float>() == b[0].second.value().to_vector<float>());
  CHECK(a[2].second.value().to_vector<float>() != b[2].second.value().to_vector<float>());
}

}  // namespace
}  // namespace strand::cli
