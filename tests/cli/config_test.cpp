// Config parsing and validation: strict keys, types, files, models, flag overrides, devices.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "app/model_builder.h"
#include "app/run_config.h"
#include "cli_test_support.h"
#include "cuda/cuda_test_support.h"
#include "tensor/backend.h"
#include "tensor/cuda_runtime.h"

namespace strand::cli {

using app::build_sequential;
using app::ConfigError;
using app::default_config;
using app::LayerSpec;
using app::load_config_file;
using app::parse_config;
using app::RunConfig;
using app::to_json;
using app::validate_config;
namespace {

using nlohmann::json;
using testing::run;
using testing::TempDir;

std::string source_dir() {
  const char* env = std::getenv("STRAND_SOURCE_DIR");
  return env != nullptr ? env : STRAND_SOURCE_DIR;
}

std::string parse_error(const json& value) {
  try {
    parse_config(value);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST_CASE("reference config file equals the defaults") {
  const RunConfig reference = load_config_file(source_dir() + "/configs/reference.json");
  CHECK(to_json(reference) == to_json(default_config()));
  CHECK(reference.model.layers.size() == 5);
  CHECK(reference.data.simulated.motif == "TAL1_known4");
}

TEST_CASE("resolved config round-trips through JSON") {
  RunConfig config = default_config();
  config.optimizer =
      parse_config(json{{"optimizer", {{"name", "sgd"}, {"momentum", 0.9}}}}).optimizer;
  config.freeze = {0};
  CHECK(to_json(parse_config(to_json(config))) == to_json(config));
}

TEST_CASE("unknown key is named by its JSON path with the allowed keys") {
  const std::string message = parse_error(json{{"optimizer", {{"learnig_rate", 0.01}}}});
  CHECK(message.find("optimizer.learnig_rate: unknown key") != std::string::npos);
  CHECK(message.find("learning_rate") != std::string::npos);
  CHECK(message.find("did you mean 'learning_rate'") != std::string::npos);
  CHECK(parse_error(json{{"epoch", 3}}).find("epoch: unknown key") == 0);
  CHECK(parse_error(json{{"model", {{{"type", "Dense"}, {"units", 1}, {"unit", 2}}}}})
            .find("model[0].unit: unknown key") == 0);
  // A misspelt required option of a layer is named as misspelt, not as missing.
  CHECK(parse_error(json{{"model", {{{"type", "Conv1D"}, {"filters", 8}, {"kernal_size", 3}}}}})
            .find("model[0].kernal_size: unknown key; expected one of type, filters, kernel_size, "
                  "padding, stride, dilation, use_bias (did you mean 'kernel_size'?)") == 0);
}

TEST_CASE("wrong type and bad enum values name the key") {
  CHECK(parse_error(json{{"batch_size", "big"}}).find("batch_size: expected an integer") == 0);
  CHECK(parse_error(json{{"data", {{"n_pos", 1.5}}}}).find("data.n_pos: expected an integer") == 0);
  CHECK(parse_error(json{{"optimizer", {{"name", "adamax"}}}}).find("optimizer.name: 'adamax'") ==
        0);
  CHECK(parse_error(json{{"early_stopping", 3}}).find("early_stopping: expected an object") == 0);
  CHECK(parse_error(json{{"model", {{{"type", "Conv1D"}, {"filters", 8}}}}})
            .find("model[0]: Conv1D needs") == 0);
}

TEST_CASE("missing data file is an error naming the key before training") {
  TempDir dir("missing");
  const auto result = run({"train", "--format", "records", "--fasta", dir.str("nope.fa"),
                           "--intervals", dir.str("nope.tsv"), "--valid-intervals",
                           dir.str("nope.tsv"), "--output-dir", dir.str()});
  CHECK(result.status == 1);
  CHECK(result.err.find("error: data.fasta: file '") == 0);
  CHECK(result.err.find("does not exist") != std::string::npos);
  CHECK(std::filesystem::is_empty(dir.path()));
}

// Found by fuzz/fuzz_config; the inputs are fuzz/corpus/config/number_overflow.json and
// long_path.json. Both escaped as nlohmann / std::filesystem exceptions without file or key.
TEST_CASE("a number beyond a double in the config file is a ConfigError naming the file") {
  TempDir dir("overflow");
  testing::write_text(dir.path() / "big.json", R"({"epochs": 1e999})");
  const std::string expected = dir.str("big.json") + "' holds a number out of range";
  CHECK_THROWS_WITH_AS(load_config_file(dir.path() / "big.json"),
                       doctest::Contains(expected.c_str()), ConfigError);
}

TEST_CASE("a path too long to look up is a ConfigError naming the key, quoted short") {
  RunConfig config = default_config();
  config.init_weights = std::string(5000, 'x');
  std::string message;
  try {
    validate_config(config);
  } catch (const ConfigError& error) {
    message = error.what();
  }
  CHECK(message.rfind("init_weights: file 'xxx", 0) == 0);
  CHECK(message.find("...' (5000 characters) cannot be checked: File name too long") !=
        std::string::npos);
  CHECK(message.size() < 300);
}

TEST_CASE("impossible model is an error naming the layer before training") {
  TempDir dir("model");
  const json config = {{"model",
                        {{{"type", "Conv1D"}, {"filters", 8}, {"kernel_size", 5}},
                         {{"type", "ReLU"}},
                         {{"type", "Dense"}, {"units", 1}},
                         {{"type", "Sigmoid"}}}},
                       {"output_dir", dir.str("runs")}};
  testing::write_text(dir.path() / "bad.json", config.dump());
  const auto result = run({"train", "--config", dir.str("bad.json")});
  CHECK(result.status == 1);
  CHECK(result.err.find("model[2] (Dense)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));
  // A kernel longer than the sequence is caught by the layer's own shape check.
  std::vector<LayerSpec> layers = default_config().model.layers;
  layers[0].options["kernel_size"] = int64_t{50};
  CHECK_THROWS_WITH_AS(build_sequential(layers, {.length = 20, .tasks = 1}),
                       doctest::Contains("model[0] (Conv1D)"), ConfigError);
}

TEST_CASE("flags override the config file") {
  TempDir dir("override");
  testing::write_text(dir.path() / "run.json",
                      json{{"epochs", 7},
                           {"batch_size", 64},
                           {"optimizer", {{"name", "adam"}, {"learning_rate", 0.01}}}}
                          .dump());
  const auto result = run({"train", "--config", dir.str("run.json"), "--epochs", "2", "--lr", "0.5",
                           "--seed", "9", "--print-config"});
  REQUIRE(result.status == 0);
  const json resolved = json::parse(result.out);
  CHECK(resolved["epochs"] == 2);
  CHECK(resolved["batch_size"] == 64);
  CHECK(resolved["optimizer"]["learning_rate"] == 0.5);
  CHECK(resolved["seed"] == 9);
  // A files flag switches the data section to files; records default to their own length.
  const auto files = run({"train", "--format", "records", "--print-config"});
  REQUIRE(files.status == 0);
  CHECK(json::parse(files.out)["data"]["source"] == "files");
  CHECK(json::parse(files.out)["data"]["window"] == 0);
}

namespace {

// `strand train` of the small records dataset on `device` (2 epochs of 3 full batches and a
// smaller one); returns its report.json.
nlohmann::json train_small_run(const TempDir& dir, const std::string& device) {
  testing::simulate_small_dataset(dir);
  const auto result = run(testing::with(testing::small_dataset_train_args(dir, "train.tsv", "r"),
                                        {"--no-early-stopping", "--device", device}));
  INFO(result.err);
  REQUIRE(result.status == 0);
  return nlohmann::json::parse(testing::read_text(dir.path() / "runs" / "r" / "report.json"));
}

}  // namespace

TEST_CASE("report.json of a CPU run has no CUDA graph figure") {
  TempDir dir("cpu-report");
  CHECK_FALSE(train_small_run(dir, "cpu").contains("cuda_graph_replays"));
}

TEST_CASE("report.json says how many steps a GPU run replayed from its CUDA graph") {
  STRAND_REQUIRE_GPU();
  TempDir dir("gpu-report");
  const nlohmann::json report = train_small_run(dir, "cuda");
  // 8 steps: the first warms up, each epoch's last (smaller) batch runs eagerly.
  REQUIRE(report.contains("cuda_graph_replays"));
  CHECK(report["cuda_graph_replays"].get<int64_t>() >= 4);
  CHECK(report["cuda_graph_replays"].get<int64_t>() <= 6);
}

TEST_CASE("device cuda errors clearly without falling back") {
  if (cuda_usable()) {
    MESSAGE("skipped: a CUDA device is present, so --device cuda is valid here");
    return;
  }
  TempDir dir("cuda");
  const auto result = run({"train", "--device", "cuda", "--output-dir", dir.str()});
  CHECK(result.status == 1);
  // One error, with the one reason: no backend in this build, the CUDA module or its libraries
  // missing (tests/cuda/run_without_cuda_libraries.sh), or no device.
  CHECK(result.err.find("error: device: 'cuda' requested, but " + cuda_unusable_reason()) == 0);
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  if (!backend_built(DeviceType::kCUDA)) {
    CHECK(result.err.find("this build of strand has no CUDA backend") != std::string::npos);
  }
  CHECK(std::filesystem::is_empty(dir.path()));
  CHECK(run({"train", "--device", "tpu", "--output-dir", dir.str()}).err.find("error: device:") ==
        0);
}

TEST_CASE("help documents every train flag") {
  const auto result = run({"train", "--help"});
  CHECK(result.status == 0);
  for (const char* flag : {"--config",
                           "--epochs",
                           "--batch-size",
                           "--lr",
                           "--seed",
                           "--threads",
                           "--output-dir",
                           "--device",
                           "--patience",
                           "--fasta",
                           "--intervals",
                           "--valid-intervals",
                           "--test-intervals",
                           "--format",
                           "--window",
                           "--jitter",
                           "--rc",
                           "--balanced",
                           "--streaming",
                           "--resume",
                           "--stop-after-epochs",
                           "--init-weights",
                           "--freeze"}) {
    CHECK_MESSAGE(result.out.find(flag) != std::string::npos, flag);
  }
}

}  // namespace
}  // namespace strand::cli
