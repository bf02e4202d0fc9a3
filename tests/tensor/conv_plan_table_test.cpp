// The CUDA conv engine's plan file (tensor/conv_plan_table.h) on the host: the JSON form round
// trips; a file that is not JSON, of another format or version, or with a missing or mistyped
// field is refused with an error naming the file and the field; plans made on another GPU or
// cuDNN are told apart from this one's.
#include <doctest/doctest.h>

#include <string>

#include "core/error.h"
#include "tensor/conv_plan_table.h"

namespace strand {
namespace {

ConvPlanTable sample_table() {
  ConvPlanTable table;
  table.device_name = "NVIDIA H200";
  table.cudnn_version = 91000;
  table.choices = {
      {"backward_weight float32 B128 C300 L194 O200 K11 s1 d1 p0 Lout184", "cudnn", 23.6, 0.61},
      {"forward float32 B16 C4 L500 O16 K15 s1 d1 p0 Lout486", "own", 0.012, -1.0}};
  table.algorithms = {{"forward float32 B128 C300 L194 O200 K11 s1 d1 p0 Lout184", 1},
                      {"backward-filter float32 B16 C4 L500 O16 K15 s1 d1 p0 Lout486", 0}};
  return table;
}

// The error conv_plans_from_json throws for `text`.
std::string error_for(const std::string& text) {
  try {
    conv_plans_from_json(text, "run/cuda_plans.json");
  } catch (const Error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST_CASE("conv plans: the JSON form round-trips") {
  const ConvPlanTable table = sample_table();
  const ConvPlanTable back = conv_plans_from_json(conv_plans_to_json(table), "run/cuda_plans.json");
  CHECK(back.device_name == table.device_name);
  CHECK(back.cudnn_version == table.cudnn_version);
  REQUIRE(back.choices.size() == 2);
  CHECK(back.choices[0].key == table.choices[0].key);
  CHECK(back.choices[0].chosen == "cudnn");
  CHECK(back.choices[0].own_ms == table.choices[0].own_ms);
  CHECK(back.choices[0].cudnn_ms == table.choices[0].cudnn_ms);
  CHECK(back.choices[1].chosen == "own");
  CHECK(back.choices[1].cudnn_ms == -1.0);
  REQUIRE(back.algorithms.size() == 2);
  CHECK(back.algorithms[0].key == table.algorithms[0].key);
  CHECK(back.algorithms[0].algorithm == 1);
  CHECK(back.algorithms[1].algorithm == 0);
  CHECK(conv_plans_to_json(ConvPlanTable{}).find("\"choices\": []") != std::string::npos);
}

TEST_CASE("conv plans: a corrupt or foreign-format file is refused naming the file and field") {
  const std::string good = conv_plans_to_json(sample_table());
  CHECK(error_for("{\"format\": ").find("run/cuda_plans.json: not a JSON plan file") == 0);
  CHECK(error_for("").find("run/cuda_plans.json: not a JSON plan file") == 0);
  CHECK(error_for("[1, 2]").find("expected a JSON object") != std::string::npos);
  CHECK(error_for("{\"format\": \"safetensors\", \"version\": 1}")
            .find("format is 'safetensors', expected 'strand-cuda-plans'") != std::string::npos);
  std::string text = good;
  text.replace(text.find("\"version\": 1"), 12, "\"version\": 7");
  CHECK(error_for(text).find("plan file version 7") != std::string::npos);
  text = good;
  text.replace(text.find("\"cudnn_version\""), 15, "\"cudnn_release\"");
  CHECK(error_for(text).find("has no 'cudnn_version'") != std::string::npos);
  text = good;
  text.replace(text.find("\"chosen\": \"cudnn\""), 17, "\"chosen\": \"gpu\"");
  CHECK(error_for(text).find("choice 1's 'chosen' is 'gpu'") != std::string::npos);
  text = good;
  text.replace(text.find("\"algorithm\": 1"), 14, "\"algorithm\": \"one\"");
  CHECK(error_for(text).find("algorithm 1's 'algorithm' is \"one\", expected an integer") !=
        std::string::npos);
  text = good;
  text.replace(text.find("\"algorithm\": 0"), 14, "\"algorithm\": -3");
  CHECK(error_for(text).find("expected a cuDNN algorithm number") != std::string::npos);
  // Nested far deeper than a plan file: refused while parsing, not walked.
  CHECK(error_for(std::string(100000, '[')).find("not a plan file") != std::string::npos);
}

TEST_CASE("conv plans: plans from another GPU or cuDNN are foreign") {
  const ConvPlanTable table = sample_table();
  CHECK(conv_plans_foreign_reason(table, "NVIDIA H200", 91000).empty());
  CHECK(conv_plans_foreign_reason(table, "NVIDIA A100-SXM4-80GB", 91000)
            .find("made on a 'NVIDIA H200', this device is a 'NVIDIA A100-SXM4-80GB'") !=
        std::string::npos);
  CHECK(conv_plans_foreign_reason(table, "NVIDIA H200", 90100)
            .find("made with cuDNN 91000, this process has cuDNN 90100") != std::string::npos);
}

}  // namespace
}  // namespace strand
