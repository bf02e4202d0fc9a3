// Checkpoint save and load through the safetensors codec.
#include "train/checkpoint.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>

#include "core/dtype_dispatch.h"
#include "core/parse_number.h"
#include "io/atomic_file.h"
#include "io/safetensors.h"

namespace strand::train {
namespace {

constexpr const char* kOptimizerPrefix = "optimizer.";

std::string safetensors_dtype(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "F32";
    case DType::kFloat64:
      return "F64";
    case DType::kUInt8:
      return "U8";
    case DType::kInt32:
      return "I32";
    case DType::kInt64:
      return "I64";
  }
  throw Error("unknown dtype");
}

DType dtype_from_safetensors(const std::string& dtype, const std::string& tensor,
                             const std::filesystem::path& path) {
  if (dtype == "F32") return DType::kFloat32;
  if (dtype == "F64") return DType::kFloat64;
  if (dtype == "U8") return DType::kUInt8;
  if (dtype == "I32") return DType::kInt32;
  if (dtype == "I64") return DType::kInt64;
  throw Error(fmt::format("{}: tensor '{}' has dtype {}, which strand does not use", path.string(),
                          tensor, dtype));
}

io::SafetensorsEntry to_entry(const std::string& name, const Tensor& tensor) {
  const Tensor host = tensor.to(Device::cpu()).contiguous();
  io::SafetensorsEntry entry{
      name, safetensors_dtype(host.dtype()), host.shape(),
      std::vector<std::byte>(static_cast<size_t>(host.numel()) * dtype_size(host.dtype()))};
  // Empty tensors may have null data pointers, which memcpy must never see.
  if (!entry.data.empty()) std::memcpy(entry.data.data(), host.raw_data(), entry.data.size());
  return entry;
}

// Loading converts nothing: a tensor stored with another dtype than the one it is loaded into
// (I32 for an F32 weight) means the file is not what it claims, so it is refused.
void check_dtype(const io::SafetensorsEntry& entry, DType expected, const std::string& role,
                 const std::filesystem::path& path) {
  STRAND_CHECK(entry.dtype == safetensors_dtype(expected),
               "{}: tensor '{}' is stored as {} but {} is {}; strand converts no dtypes on load",
               path.string(), entry.name, entry.dtype, role, safetensors_dtype(expected));
}

// The dtype optimizer state `key` must have: "step" is I64, "<index>.<buffer>" that of the
// optimizer's parameter <index>. nullopt when the key names no parameter (load_state refuses it).
std::optional<DType> state_dtype(const std::string& key, const Optimizer& optimizer) {
  if (key == "step") return DType::kInt64;
  const std::optional<int64_t> index = parse_int64(std::string_view(key).substr(0, key.find('.')));
  if (!index || *index < 0 || *index >= static_cast<int64_t>(optimizer.parameters().size())) {
    return std::nullopt;
  }
  return optimizer.parameters()[static_cast<size_t>(*index)].dtype();
}

Tensor from_entry(const io::SafetensorsEntry& entry, const std::filesystem::path& path) {
  Tensor tensor = Tensor::empty(entry.shape, dtype_from_safetensors(entry.dtype, entry.name, path));
  if (!entry.data.empty()) std::memcpy(tensor.raw_data(), entry.data.data(), entry.data.size());
  return tensor;
}

// The first NaN or infinity of a floating-point tensor, by flat index (-1: none).
template <typename T>
int64_t first_non_finite(const Tensor& tensor) {
  const T* values = tensor.data<T>();
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    if (!std::isfinite(values[i])) return i;
  }
  return -1;
}

// Weights that are NaN or infinite only ever give NaN scores and losses, so such a file is
// refused when loaded, naming the tensor (x: a CPU tensor read from `path`).
void check_finite(const Tensor& x, const std::string& name, const std::filesystem::path& path) {
  int64_t index = -1;
  double value = 0.0;
  if (x.dtype() == DType::kFloat32) {
    index = first_non_finite<float>(x);
    if (index >= 0) value = x.data<float>()[index];
  } else if (x.dtype() == DType::kFloat64) {
    index = first_non_finite<double>(x);
    if (index >= 0) value = x.data<double>()[index];
  }
  STRAND_CHECK(index < 0,
               "{}: tensor '{}' holds {} at element {} of {}: the checkpoint is corrupt or was "
               "saved from a diverged run",
               path.string(), name, value, index, x.numel());
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const Module& model,
                     const Optimizer* optimizer, const CheckpointMetadata& metadata) {
  std::vector<io::SafetensorsEntry> entries;
  for (const auto& [name, parameter] : model.named_parameters()) {
    entries.push_back(to_entry(name, parameter.value()));
  }
  CheckpointMetadata all = metadata;
  all["format"] = "strand-checkpoint-1";
  if (optimizer != nullptr) {
    for (const auto& [key, value] : optimizer->state()) {
      entries.push_back(to_entry(kOptimizerPrefix + key, value));
    }
    all["optimizer"] = optimizer->name();
  }
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path());
  // Temporary files of earlier writes of this checkpoint whose process was killed mid-write.
  io::remove_orphan_temp_files(path);
  io::write_safetensors(path, entries, all);
}

CheckpointMetadata load_checkpoint(const std::filesystem::path& path, Module& model,
                                   Optimizer* optimizer) {
  const io::SafetensorsFile file = io::read_safetensors(path);
  std::map<std::string, const io::SafetensorsEntry*> by_name;
  for (const auto& entry : file.entries) by_name[entry.name] = &entry;
  // Check everything before changing anything, so a bad file leaves the model as it was.
  std::vector<std::pair<Var, Tensor>> updates;
  for (const auto& [name, parameter] : model.named_parameters()) {
    auto it = by_name.find(name);
    STRAND_CHECK(it != by_name.end(), "{}: no tensor '{}' for the model's parameter", path.string(),
                 name);
    check_dtype(*it->second, parameter.dtype(), fmt::format("the model's parameter '{}'", name),
                path);
    Tensor value = from_entry(*it->second, path);
    check_finite(value, name, path);
    STRAND_CHECK(value.shape() == parameter.shape(),
                 "{}: tensor '{}' has shape {} but the model's parameter is {}", path.string(),
                 name, shape_to_string(value.shape()), shape_to_string(parameter.shape()));
    updates.emplace_back(parameter, value.to(parameter.device()));
  }
  if (optimizer != nullptr) {
    OptimizerState state;
    const std::string prefix = kOptimizerPrefix;
    for (const auto& entry : file.entries) {
      if (entry.name.rfind(prefix, 0) == 0) {
        const std::string key = entry.name.substr(prefix.size());
        if (const std::optional<DType> expected = state_dtype(key, *optimizer)) {
          check_dtype(entry, *expected,
                      key == "step" ? std::string("the optimizer's step count")
                                    : fmt::format("{} state of its parameter", optimizer->name()),
                      path);
        }
        Tensor value = from_entry(entry, path);
        check_finite(value, entry.name, path);
        state[key] = std::move(value);
      }
    }
    STRAND_CHECK(!state.empty(), "{}: holds no optimizer state (was it saved without one?)",
                 path.string());
    auto saved_name = file.metadata.find("optimizer");
    STRAND_CHECK(saved_name == file.metadata.end() || saved_name->second == optimizer->name(),
                 "{}: optimizer state is for {}, but training uses {}", path.string(),
                 saved_name->second, optimizer->name());
    try {
      optimizer->load_state(state);
    } catch (const Error& error) {
      throw Error(fmt::format("{}: {}", path.string(), error.what()));
    }
  }
  for (auto& [parameter, value] : updates) parameter.mutable_value() = value;
  return file.metadata;
}

CheckpointMetadata read_checkpoint_metadata(const std::filesystem::path& path) {
  return io::read_safetensors(path).metadata;
}

}  // namespace strand::train
