// --resume on damaged run directories: checkpoint metadata and log rows read strictly.
#include <doctest/doctest.h>

#include "cli_test_support.h"
#include "io/safetensors.h"

namespace strand::cli {
namespace {

using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::write_text;

// Sets metadata `key` of a checkpoint to `value`, in place.
void set_metadata(const std::filesystem::path& path, const std::string& key,
                  const std::string& value) {
  io::SafetensorsFile file = io::read_safetensors(path);
  file.metadata[key] = value;
  io::write_safetensors(path, file.entries, file.metadata);
}

TEST_CASE("resume: epochs_completed '-5' or '1x' in the checkpoint is refused naming it") {
  TempDir dir("resume-metadata");
  REQUIRE(run(tiny_run(dir, "r", 2)).status == 0);
  const auto last = dir.path() / "r" / "checkpoints" / "last.safetensors";
  const io::SafetensorsFile original = io::read_safetensors(last);
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"epochs_completed", "-5"},
                                                        {"epochs_completed", "1x"},
                                                        {"epochs_completed", ""},
                                                        {"global_step", "16.0"},
                                                        {"early_stopping.wait", "0x"},
                                                        {"early_stopping.best", "0.5 "}}) {
    io::write_safetensors(last, original.entries, original.metadata);
    set_metadata(last, key, value);
    const auto result = run({"train", "--resume", dir.str("r"), "--epochs", "3"});
    CHECK(result.status == 1);
    CHECK_MESSAGE(result.err.find("'" + key + "' is '" + value + "'") != std::string::npos,
                  result.err);
  }
  io::write_safetensors(last, original.entries, original.metadata);
  const auto resumed = run({"train", "--resume", dir.str("r"), "--epochs", "3"});
  CHECK_MESSAGE(resumed.status == 0, resumed.err);
}

TEST_CASE("resume: a log row starting with a partial number is refused") {
  TempDir dir("resume-rows");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  const auto steps = dir.path() / "r" / "steps.csv";
  write_text(steps, read_text(steps) + "9x,1,0.5\n");
  const auto result = run({"train", "--resume", dir.str("r"), "--epochs", "2"});
  CHECK(result.status == 1);
  CHECK(result.err.find("row '9x,1,0.5' does not start with a number") != std::string::npos);
}

TEST_CASE("resume: temporary files left by a killed write are removed") {
  TempDir dir("resume-orphans");
  REQUIRE(run(tiny_run(dir, "r", 1)).status == 0);
  const auto root = dir.path() / "r";
  for (const char* orphan : {"checkpoints/last.safetensors.tmp.a1B2c3", "config.json.tmp.XyZ123",
                             "report.json.tmp.000000"}) {
    write_text(root / orphan, "partial");
  }
  write_text(root / "checkpoints" / "notes.tmp.a1B2c3", "not strand's");
  const auto result = run({"train", "--resume", root.string(), "--epochs", "2"});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("resume: removed 3 temporary file(s)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(root / "checkpoints" / "last.safetensors.tmp.a1B2c3"));
  CHECK_FALSE(std::filesystem::exists(root / "config.json.tmp.XyZ123"));
  CHECK_FALSE(std::filesystem::exists(root / "report.json.tmp.000000"));
  CHECK(std::filesystem::exists(root / "checkpoints" / "notes.tmp.a1B2c3"));
}

}  // namespace
}  // namespace strand::cli
