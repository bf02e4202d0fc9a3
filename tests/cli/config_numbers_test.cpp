// Config numbers and keys: every number is range-checked with a message naming the key and its
// range, duplicated JSON keys are refused, and a dataset that cannot fit in memory is refused
// with its size before it is allocated.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/data_builder.h"
#include "app/run_config.h"
#include "cli_test_support.h"
#include "data/fasta/fasta_reader.h"
#include "support/child_process.h"
#include "test_helpers.h"

namespace strand::cli {

using app::apply_overrides;
using app::build_run_data;
using app::ConfigError;
using app::ConfigOverrides;
using app::default_config;
using app::load_config_file;
using app::parse_config;
using app::RunConfig;
using app::RunData;
using app::validate_numbers;
namespace {

using nlohmann::json;
using testing::run;
using testing::TempDir;

// The message validate_numbers() gives for `config` ("" when it passes).
std::string numbers_error(const json& config) {
  try {
    validate_numbers(parse_config(config));
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

json files(json data) {
  data["source"] = "files";
  return json{{"data", data}};
}

TEST_CASE("every config number out of its range is refused naming the key and the range") {
  const std::string threads_cap = std::to_string(max_threads());
  const std::vector<std::pair<json, std::string>> cases = {
      // The issue's reproducers: a wrap to a negative int, an undefined cast, a bad_alloc.
      {{{"threads", 2147483648LL}}, "threads: must be in [0, " + threads_cap + "]"},
      {{{"distributed", {{"timeout_s", 1e300}}}}, "distributed.timeout_s: must be in (0, 604800]"},
      {files({{"window", 1000000000}}), "data.window: must be in [1, 10000000]"},
      {files({{"jitter", 1000000000}}), "data.jitter: must be in [0, 10000000]"},
      {files({{"window", 0}}), "data.window: must be in [1, 10000000]"},
      {files({{"format", "records"}, {"window", -1}}), "data.window: must be in [0, 10000000]"},
      {files({{"loader_threads", 1000}}), "data.loader_threads: must be in [1, " + threads_cap},
      {files({{"prefetch", 0}}), "data.prefetch: must be in [1, 1024]"},
      {files({{"rc_probability", 1.5}}), "data.rc_probability: must be in [0, 1]"},
      {{{"data", {{"length", 20000000}}}}, "data.length: must be in [1, 10000000]"},
      {{{"data", {{"n_pos", -1}}}}, "data.n_pos: must be in [0, 1000000000]"},
      {{{"data", {{"gc_fraction", -0.1}}}}, "data.gc_fraction: must be in [0, 1]"},
      {{{"data", {{"validation", 0}}}}, "data.validation: must be in [1, 1000000000]"},
      {{{"batch_size", 0}}, "batch_size: must be in [1, 1048576]"},
      {{{"batch_size", 1LL << 40}}, "batch_size: must be in [1, 1048576]"},
      {{{"epochs", 0}}, "epochs: must be in [1, 1000000000]"},
      {{{"tensorboard_every_steps", -1}}, "tensorboard_every_steps: must be in [0, 1000000000]"},
      {{{"early_stopping", {{"patience", -1}}}}, "early_stopping.patience: must be in [0,"},
      {{{"early_stopping", {{"min_delta", -1.0}}}}, "early_stopping.min_delta: must be in [0,"},
      {{{"optimizer", {{"learning_rate", 0.0}}}}, "optimizer.learning_rate: must be in (0, 1000]"},
      {{{"optimizer", {{"beta2", 1.0}}}}, "optimizer.beta2: must be in [0, 1)"},
      {{{"optimizer", {{"eps", 0.0}}}}, "optimizer.eps: must be in (0, 1]"},
      {{{"optimizer", {{"name", "sgd"}, {"momentum", 2.0}}}},
       "optimizer.momentum: must be in [0, 1]"},
      {{{"optimizer", {{"name", "rmsprop"}, {"alpha", 1.0}}}},
       "optimizer.alpha: must be in [0, 1)"},
      {{{"distributed", {{"bucket_mb", 1e12}}}}, "distributed.bucket_mb: must be in (0, 65536]"},
      {{{"distributed", {{"average_every", 0}}}}, "distributed.average_every: must be in [1,"},
      {{{"model",
         {{{"type", "Conv1D"}, {"filters", 1LL << 40}, {"kernel_size", 5}},
          {{"type", "GlobalMaxPool1D"}},
          {{"type", "Dense"}, {"units", 1}}}}},
       "model[0].filters: must be in [1, 65536]"},
      {{{"model", {{{"type", "Flatten"}}, {{"type", "Dense"}, {"units", 0}}}}},
       "model[1].units: must be in [1, 65536]"},
  };
  for (const auto& [config, expected] : cases) {
    const std::string message = numbers_error(config);
    CHECK_MESSAGE(message.rfind(expected, 0) == 0,
                  config.dump() << " gave '" << message << "', expected '" << expected << "'");
    CHECK_MESSAGE(message.find(", got ") != std::string::npos, message);
  }
  CHECK(numbers_error(json::object()) == "");  // the reference experiment is in range
  // The command line reaches the same checks, before any run directory exists.
  TempDir dir("numbers");
  const auto result = run({"train", "--threads", "2147483648", "--output-dir", dir.str()});
  CHECK(result.status == 1);
  CHECK(result.err.find("error: threads: must be in [0, ") == 0);
  CHECK(result.err.find("got 2147483648") != std::string::npos);
  CHECK(std::filesystem::is_empty(dir.path()));
  CHECK(run({"summary", "--lr", "nan"}).err ==
        "error: --lr: 'nan' is not a finite number within a double's range (magnitudes about "
        "2.2e-308 to 1.8e308, or 0)\n");
}

TEST_CASE("--loader-threads 1000 is refused with its range before a run directory exists") {
  TempDir dir("loader-threads");
  testing::write_text(dir.path() / "g.fa", ">chr1\nACGTACGTACGTACGTACGT\n");
  testing::write_text(dir.path() / "t.bed", "chr1\t2\t8\t1\n");
  const auto result = run({"train", "--fasta", dir.str("g.fa"), "--intervals", dir.str("t.bed"),
                           "--valid-intervals", dir.str("t.bed"), "--window", "10",
                           "--loader-threads", "1000", "--output-dir", dir.str("runs")});
  CHECK(result.status == 1);
  CHECK(result.err.find("error: data.loader_threads: must be in [1, " +
                        std::to_string(max_threads()) +
                        "] (the cap is the larger of 64 and 4 x the ") == 0);
  CHECK(result.err.find("got 1000") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));
}

TEST_CASE("an integer above the int64 range is refused rather than wrapped") {
  std::string message;
  try {
    parse_config(json{{"epochs", 18446744073709551615ULL}});
  } catch (const ConfigError& error) {
    message = error.what();
  }
  CHECK(message.rfind("epochs: expected an integer of at most 9223372036854775807", 0) == 0);
}

TEST_CASE("a duplicated JSON key is refused naming it by its path") {
  TempDir dir("duplicates");
  auto load_error = [&dir](const std::string& text) {
    testing::write_text(dir.path() / "c.json", text);
    try {
      load_config_file(dir.path() / "c.json");
    } catch (const ConfigError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  const std::string prefix = "config file '" + dir.str("c.json") + "': ";
  CHECK(load_error(R"({"epochs": 3, "epochs": 4})") ==
        prefix + "epochs: duplicate key (a key may appear only once in an object)");
  CHECK(load_error(R"({"data": {"source": "files", "window": 5, "window": 6}})")
            .rfind(prefix + "data.window: duplicate key", 0) == 0);
  CHECK(load_error(R"({"model": [{"type": "ReLU"}, {"type": "Dense", "units": 1, "units": 2}]})")
            .rfind(prefix + "model[1].units: duplicate key", 0) == 0);
  CHECK(load_error(R"({"freeze": [0, 1], "model": [[], {"a": 1, "b": {"c": 1, "c": 2}}]})")
            .rfind(prefix + "model[1].b.c: duplicate key", 0) == 0);
  // The same key in different objects is no duplicate.
  CHECK(load_error(R"({"optimizer": {"name": "sgd"}, "distributed": {"mode": "mirrored"},
                       "model": [{"type": "Flatten"}, {"type": "Dense", "units": 1}]})") == "");
  // Through the command line.
  testing::write_text(dir.path() / "d.json", R"({"seed": 1, "seed": 2})");
  const auto result = run({"train", "--config", dir.str("d.json"), "--output-dir", dir.str()});
  CHECK(result.status == 1);
  CHECK(result.err.find("seed: duplicate key") != std::string::npos);
}

// Caps this (child) process's address space at its current size plus `headroom` bytes.
void limit_address_space(int64_t headroom) {
  const int64_t size = strand::testing::proc_status_kib("VmSize") * 1024;
  const rlimit limit{static_cast<rlim_t>(size + headroom), static_cast<rlim_t>(size + headroom)};
  if (::setrlimit(RLIMIT_AS, &limit) != 0) throw std::runtime_error("setrlimit failed");
}

TEST_CASE("an in-memory dataset larger than the available memory is refused with its size") {
  if (strand::testing::kSanitized)
    STRAND_SKIP("address-space limits do not combine with sanitizers");
  TempDir dir("too-big");
  // One 1 Mb contig and 400 intervals with 1 Mb windows: 400 MB of windows held in memory.
  std::string genome = ">chr1\n";
  for (int i = 0; i < 1'000'000 / 50; ++i)
    genome += "ACGTACGTTGCAACGTACGTTGCAACGTACGTTGCAACGTACGTTGCAAC\n";
  testing::write_text(dir.path() / "genome.fa", genome);
  std::string bed;
  for (int i = 0; i < 400; ++i) {
    bed += "chr1\t" + std::to_string(1000 + i * 2000) + "\t" + std::to_string(1200 + i * 2000) +
           "\t" + std::to_string(i % 2) + "\n";
  }
  testing::write_text(dir.path() / "train.bed", bed);
  testing::write_text(dir.path() / "valid.bed", "chr1\t5000\t5200\t1\nchr1\t9000\t9200\t0\n");
  data::FastaReader index_once(dir.str("genome.fa"));
  const std::vector<std::string> args = {"inspect",
                                         "--fasta",
                                         dir.str("genome.fa"),
                                         "--intervals",
                                         dir.str("train.bed"),
                                         "--valid-intervals",
                                         dir.str("valid.bed"),
                                         "--window",
                                         "1000000"};

  // Under a 128 MiB allowance the 400 MB of windows are refused before allocation.
  const auto refused = strand::testing::run_in_child([&args] {
    limit_address_space(int64_t{128} << 20);
    const auto result = run(args);
    return std::to_string(result.status) + " " + result.err;
  });
  REQUIRE_MESSAGE(refused.exited, refused.describe());
  CHECK_MESSAGE(refused.output.rfind("1 error: data (train split): IntervalSource: the in-memory "
                                     "windows of 400 intervals (1000000 bases plus 0 of jitter "
                                     "flank per side each) need 381.5 MiB but only ",
                                     0) == 0,
                refused.output);
  CHECK(refused.output.find("is available (") != std::string::npos);
  CHECK(refused.output.find("strand train --streaming") != std::string::npos);

  // Streaming holds no windows, so the same data builds under the same allowance.
  const auto streamed = strand::testing::run_in_child([&args] {
    limit_address_space(int64_t{128} << 20);
    RunConfig config = default_config();
    ConfigOverrides flags;
    flags.set("data.fasta", args[2]);
    flags.set("data.intervals", args[4]);
    flags.set("data.valid_intervals", args[6]);
    flags.set("data.window", int64_t{1'000'000});
    flags.set("data.streaming", true);
    apply_overrides(config, flags);
    const RunData data = build_run_data(config);
    return std::to_string(data.train.source->size());
  });
  CHECK_MESSAGE(streamed.exited, streamed.describe());
  CHECK_MESSAGE(streamed.exit_code == 0, streamed.describe());
  CHECK(streamed.output == "400");

  // Simulated data is checked the same way, before simulating.
  const auto simulated = strand::testing::run_in_child([] {
    limit_address_space(int64_t{128} << 20);
    const auto result = run({"inspect", "--n-pos", "1000000", "--n-neg", "1000000", "--length",
                             "1000", "--validation", "10", "--test", "10"});
    return std::to_string(result.status) + " " + result.err;
  });
  REQUIRE_MESSAGE(simulated.exited, simulated.describe());
  CHECK_MESSAGE(simulated.output.rfind("1 error: data: the simulated dataset (2000000 sequences "
                                       "of 1000 bases) would need 3.8 GiB but only ",
                                       0) == 0,
                simulated.output);
  CHECK(simulated.output.find("lower data.n_pos, data.n_neg or data.length") != std::string::npos);
}

}  // namespace
}  // namespace strand::cli
