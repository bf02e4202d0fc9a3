// `--precision bf16` (config key "precision"): refused before a run directory exists on a CPU
// without AVX-512 BF16 or AMX (simulated by the test hook); where the CPU has them, the
// reference preset trains to a test auROC within 0.005 of the fp32 run, config.json and
// report.json record the precision, and the process's precision is fp32 again afterwards;
// `strand predict --precision bf16` scores a trained model within bfloat16's rounding.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "kernels/cpu/gemm_bf16.h"
#include "tensor/precision.h"
#include "test_helpers.h"

namespace strand::cli {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::with;

// The reference preset (the default model) on a small simulation it learns in a few epochs.
std::vector<std::string> reference_run(const TempDir& dir, const std::string& name,
                                       const std::string& precision, int epochs = 6) {
  return {"train",        "--precision", precision,    "--n-pos",  "1500",
          "--n-neg",      "1500",        "--length",   "200",      "--validation",
          "500",          "--test",      "1000",       "--epochs", std::to_string(epochs),
          "--lr",         "0.01",        "--threads",  "2",        "--no-early-stopping",
          "--output-dir", dir.str(),     "--run-name", name};
}

// The last column of a predict table (the score), header left out.
std::vector<double> scores(const std::string& table) {
  std::vector<double> values;
  std::istringstream lines(table);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) values.push_back(std::stod(line.substr(line.rfind('\t') + 1)));
  return values;
}

struct PretendLacking {
  PretendLacking() { kernels::cpu::pretend_cpu_lacks_bf16_for_testing(true); }
  ~PretendLacking() { kernels::cpu::pretend_cpu_lacks_bf16_for_testing(false); }
  PretendLacking(const PretendLacking&) = delete;
  PretendLacking& operator=(const PretendLacking&) = delete;
};

}  // namespace

TEST_CASE("precision bf16 on a CPU without AVX-512 BF16 or AMX stops before the run directory") {
  const PretendLacking lacking;
  TempDir dir("bf16-refused");
  const auto result = run(reference_run(dir, "r", "bf16"));
  CHECK(result.status == 1);
  CHECK(result.err.find("error: precision: bf16 on cpu: this CPU has no AVX-512 BF16 or AMX; "
                        "the CPU runs in fp32 (the default)") == 0);
  CHECK(std::filesystem::is_empty(dir.path()));
  // fp32 and tf32 (a GPU mode the CPU ignores) still train there.
  const auto fp32 = run(reference_run(dir, "f", "fp32", 1));
  CHECK_MESSAGE(fp32.status == 0, fp32.err);
}

TEST_CASE("precision bf16 trains the reference preset within 0.005 test auROC of fp32") {
  const std::string reason = kernels::cpu::bf16_gemm_unavailable_reason();
  if (!reason.empty()) STRAND_SKIP(reason.c_str());
  TempDir dir("bf16-reference");
  const auto fp32 = run(reference_run(dir, "fp32", "fp32"));
  REQUIRE_MESSAGE(fp32.status == 0, fp32.err);
  const auto bf16 = run(reference_run(dir, "bf16", "bf16"));
  REQUIRE_MESSAGE(bf16.status == 0, bf16.err);
  CHECK(bf16.out.find("precision: bf16\n") != std::string::npos);
  CHECK(fp32.out.find("precision:") == std::string::npos);
  CHECK(float32_precision() == Float32Precision::kFp32);  // the run's scope ended
  const json config = json::parse(read_text(dir.path() / "bf16" / "config.json"));
  CHECK(config["precision"] == "bf16");
  const json report_fp32 = json::parse(read_text(dir.path() / "fp32" / "report.json"));
  const json report_bf16 = json::parse(read_text(dir.path() / "bf16" / "report.json"));
  CHECK(report_fp32["precision"] == "fp32");
  CHECK(report_bf16["precision"] == "bf16");
  const double auroc_fp32 = report_fp32["test"]["auroc"].get<double>();
  const double auroc_bf16 = report_bf16["test"]["auroc"].get<double>();
  CAPTURE(auroc_fp32);
  CAPTURE(auroc_bf16);
  CHECK(auroc_fp32 > 0.9);  // the run learned: the comparison means something
  CHECK(std::abs(auroc_bf16 - auroc_fp32) <= 0.005);
  // bf16 took effect: the Dense layer's product changed the losses.
  CHECK(read_text(dir.path() / "fp32" / "steps.csv") !=
        read_text(dir.path() / "bf16" / "steps.csv"));
}

TEST_CASE("predict --precision bf16 scores within bfloat16 rounding, and is refused without it") {
  TempDir dir("bf16-predict");
  const auto trained = run(tiny_run(dir, "r", 1));
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  const std::vector<std::string> predict = {"predict", "--model", dir.str("r"), "--out", "-"};
  const auto fp32 = run(predict);
  REQUIRE_MESSAGE(fp32.status == 0, fp32.err);
  {
    const PretendLacking lacking;
    const auto refused = run(with(predict, {"--precision", "bf16"}));
    CHECK(refused.status == 1);
    CHECK(refused.err.find(
              "error: --precision: bf16 on cpu: this CPU has no AVX-512 BF16 or AMX") == 0);
  }
  const std::string reason = kernels::cpu::bf16_gemm_unavailable_reason();
  if (!reason.empty()) STRAND_SKIP(reason.c_str());
  const auto bf16 = run(with(predict, {"--precision", "bf16"}));
  REQUIRE_MESSAGE(bf16.status == 0, bf16.err);
  CHECK(float32_precision() == Float32Precision::kFp32);  // predict's scope ended
  const std::vector<double> a = scores(fp32.out), b = scores(bf16.out);
  REQUIRE(a.size() == b.size());
  REQUIRE(a.size() == 80);
  double largest = 0.0;
  for (size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a[i] - b[i]));
  // Sigmoid outputs of a Dense(16, 1) on bfloat16 operands: about 2^-8 relative to the logit.
  CHECK(largest > 0.0);
  CHECK(largest < 0.01);
}

}  // namespace strand::cli
