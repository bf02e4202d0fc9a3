// ConvPlanTable: what the CUDA backend's Conv1D engine chose (tensor/cuda/conv_engine.h), as
// plain data that outlives the process: per shape, strand's kernel or cuDNN (with the measured
// times), and per cuDNN pass the algorithm cuDNN's heuristics or timed search picked. A run
// directory keeps it (train/cuda_plans.h) so that a resumed or repeated run skips the search.
// The table names the device and cuDNN version it was made with; plans made elsewhere are
// never adopted (conv_plans_foreign_reason). Host code only: no CUDA header.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strand {

/// One shape's choice: `key` is the engine's (pass, dtype, math mode, geometry with the batch),
/// `chosen` "own" or "cudnn", the times in milliseconds (negative where not measured).
struct ConvChoiceRecord {
  std::string key;
  std::string chosen;
  double own_ms = -1.0;
  double cudnn_ms = -1.0;
};

/// One cuDNN pass's algorithm: `key` is (cuDNN pass, dtype, math mode, geometry with the
/// batch), `algorithm` cuDNN's enum value for that pass.
struct ConvAlgorithmRecord {
  std::string key;
  int64_t algorithm = 0;
};

/// Every remembered choice and algorithm of one device.
struct ConvPlanTable {
  std::string device_name;    ///< cudaDeviceProp::name, e.g. "NVIDIA H200"
  int64_t cudnn_version = 0;  ///< cudnnGetVersion(); 0 in a build without cuDNN
  std::vector<ConvChoiceRecord> choices;
  std::vector<ConvAlgorithmRecord> algorithms;

  bool empty() const { return choices.empty() && algorithms.empty(); }
};

/// The table as the JSON text of a plan file (format "strand-cuda-plans", version 1).
std::string conv_plans_to_json(const ConvPlanTable& table);

/// The table of a plan file's text. Throws strand::Error naming `where` (the file) and what is
/// wrong: not JSON, another format or version, a missing or mistyped field.
ConvPlanTable conv_plans_from_json(std::string_view text, const std::string& where);

/// Why `table` must not be adopted on a device named `device_name` with cuDNN `cudnn_version`
/// (another GPU, another cuDNN); empty when it may.
std::string conv_plans_foreign_reason(const ConvPlanTable& table, std::string_view device_name,
                                      int64_t cudnn_version);

}  // namespace strand
