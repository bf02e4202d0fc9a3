// The conv engine's plans in a run directory's file (train/cuda_plans.h).
#include "train/cuda_plans.h"

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <utility>

#include "core/error.h"
#include "io/atomic_file.h"
#include "tensor/conv_plan_table.h"
#include "tensor/cuda_runtime.h"

namespace strand::train {
namespace {

int64_t entries(const ConvPlanTable& table) {
  return static_cast<int64_t>(table.choices.size() + table.algorithms.size());
}

}  // namespace

std::string load_cuda_plans(const std::filesystem::path& path, Device device) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return "";
  const std::string name = path.string();
  std::ifstream in(path, std::ios::binary);
  const std::string text = in ? std::string(std::istreambuf_iterator<char>(in), {}) : "";
  if (!in.good() && !in.eof()) {
    return fmt::format("warning: CUDA plans '{}' could not be read; choosing anew", name);
  }
  ConvPlanTable table;
  try {
    table = conv_plans_from_json(text, name);
  } catch (const Error& bad) {
    return fmt::format("warning: CUDA plans ignored: {}; choosing anew", bad.what());
  }
  const std::string foreign = cuda_runtime().adopt_conv_plans(table, device);
  if (!foreign.empty()) {
    return fmt::format("warning: CUDA plans '{}' ignored: {}; choosing anew", name, foreign);
  }
  return "";
}

int64_t save_cuda_plans(const std::filesystem::path& path, Device device) {
  const ConvPlanTable table = cuda_runtime().conv_plans(device);
  io::write_file_atomically(path, conv_plans_to_json(table));
  return entries(table);
}

CudaPlanSaver::CudaPlanSaver(std::filesystem::path path, Device device)
    : path_(std::move(path)), device_(device) {}

void CudaPlanSaver::save_if_grown() {
  const ConvPlanTable table = cuda_runtime().conv_plans(device_);
  if (entries(table) == saved_ || table.empty()) return;
  io::write_file_atomically(path_, conv_plans_to_json(table));
  saved_ = entries(table);
}

void CudaPlanSaver::on_epoch_end(FitContext&, const EpochLogs&) { save_if_grown(); }
void CudaPlanSaver::on_train_end(FitContext&) { save_if_grown(); }
void CudaPlanSaver::on_train_interrupted(FitContext&, const PartialEpoch&) { save_if_grown(); }

}  // namespace strand::train
