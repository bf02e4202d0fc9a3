// The config and data-file record of a run's checkpoints, and the resume check against it.
#include "app/run_fingerprint.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "app/config_keys.h"
#include "app/object_reader.h"
#include "data/warnings.h"
#include "io/crc32c.h"

namespace strand::app {
namespace {

using nlohmann::json;

// Keys a resume may change (--epochs, --threads) or that do not change what is trained: the run
// continues in its own directory whatever output_dir says, and init_weights is read only when
// the run starts.
const std::set<std::string>& keys_a_resume_ignores() {
  static const std::set<std::string> keys = {"epochs", "threads", "output_dir", "init_weights"};
  return keys;
}

// Whether the config key at `path` names data files, compared by their content (a file moved
// with its content unchanged is the same data).
bool is_file_key(const std::string& path) {
  const ConfigKey* key = find_config_key(path);
  return key != nullptr &&
         (key->kind() == ConfigKind::kFile || key->kind() == ConfigKind::kTrackFiles);
}

// The data files of `config` by record key: "data.fasta", and for bigWig lists every file of
// every entry, "data.profile_bigwigs[0][1]" (a pair's minus file).
std::map<std::string, std::string> data_files(const RunConfig& config) {
  std::map<std::string, std::string> files;
  for (const ConfigKey& key : config_keys()) {
    if (!key.applies_to(config) || keys_a_resume_ignores().count(key.key) > 0) continue;
    if (key.kind() == ConfigKind::kFile) {
      const std::string path = std::get<std::string>(key.field.get(config));
      if (!path.empty()) files[key.key] = path;
    } else if (key.kind() == ConfigKind::kTrackFiles) {
      const auto entries = std::get<std::vector<std::string>>(key.field.get(config));
      for (size_t i = 0; i < entries.size(); ++i) {
        size_t begin = 0;
        for (size_t j = 0;; ++j) {
          const size_t comma = entries[i].find(',', begin);
          files[fmt::format("{}[{}][{}]", key.key, i, j)] = entries[i].substr(
              begin, comma == std::string::npos ? std::string::npos : comma - begin);
          if (comma == std::string::npos) break;
          begin = comma + 1;
        }
      }
    }
  }
  return files;
}

// The resolved config as key path -> value: "data.window" -> 200; the model stays whole.
void flatten(const json& value, const std::string& path, std::map<std::string, json>& out) {
  if (value.is_object() && path != "model") {
    for (const auto& [key, item] : value.items()) flatten(item, join_path(path, key), out);
  } else {
    out[path] = value;
  }
}

// What config.json would hold, by key, less the keys a resume ignores and the data file keys.
std::map<std::string, json> compared_keys(const json& resolved) {
  std::map<std::string, json> keys;
  flatten(resolved, "", keys);
  for (auto it = keys.begin(); it != keys.end();) {
    const bool skip = keys_a_resume_ignores().count(it->first) > 0 || is_file_key(it->first);
    it = skip ? keys.erase(it) : std::next(it);
  }
  return keys;
}

// A value for a message, cut short: a model is a page of JSON.
std::string shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

}  // namespace

std::string file_fingerprint(const std::string& path, const std::string& key) {
  std::error_code error;
  const auto size = static_cast<int64_t>(std::filesystem::file_size(path, error));
  std::ifstream in(path, std::ios::binary);
  if (error || !in) {
    throw ConfigError(fmt::format("{}: cannot read '{}'{}", key, path,
                                  error ? ": " + error.message() : std::string()));
  }
  std::vector<char> buffer(static_cast<size_t>(kSampledBlockBytes));
  uint32_t crc = 0;
  // Reads `bytes` bytes at `offset` into the checksum.
  const auto add = [&](int64_t offset, int64_t bytes) {
    in.seekg(offset);
    while (bytes > 0) {
      const int64_t n = std::min<int64_t>(bytes, static_cast<int64_t>(buffer.size()));
      if (!in.read(buffer.data(), n)) {
        throw ConfigError(fmt::format("{}: reading '{}' failed at byte {}", key, path, offset));
      }
      crc = io::crc32c_extend(crc, std::span(reinterpret_cast<const std::byte*>(buffer.data()),
                                             static_cast<size_t>(n)));
      offset += n;
      bytes -= n;
    }
  };
  if (size <= kWholeFileHashBytes) {
    add(0, size);
    return fmt::format("size {}, crc32c {:08x}", size, crc);
  }
  for (int64_t b = 0; b < kSampledBlocks; ++b) {
    add((size - kSampledBlockBytes) / (kSampledBlocks - 1) * b, kSampledBlockBytes);
  }
  return fmt::format("size {}, crc32c of {} blocks {:08x}", size, kSampledBlocks, crc);
}

train::CheckpointMetadata run_fingerprint(const RunConfig& config) {
  json resolved = to_json(config);
  for (const std::string& key : keys_a_resume_ignores()) resolved.erase(key);
  json files = json::object();
  for (const auto& [key, path] : data_files(config)) {
    files[key] = {{"path", path}, {"fingerprint", file_fingerprint(path, key)}};
  }
  return {{"run.config", resolved.dump()}, {"run.data_files", files.dump()}};
}

void check_resume_fingerprint(const RunConfig& config, const train::CheckpointMetadata& recorded,
                              const std::string& checkpoint) {
  const auto config_entry = recorded.find("run.config");
  const auto files_entry = recorded.find("run.data_files");
  if (config_entry == recorded.end() || files_entry == recorded.end()) {
    data::warn(fmt::format(
        "--resume: checkpoint '{}' does not record the config and data files it was trained "
        "with (written by an older strand); config.json and the data files are not checked",
        checkpoint));
    return;
  }
  const json then_config = json::parse(config_entry->second, nullptr, false);
  const json then_files = json::parse(files_entry->second, nullptr, false);
  if (!then_config.is_object() || !then_files.is_object()) {
    throw ConfigError(fmt::format(
        "--resume: checkpoint '{}' holds a damaged record of its config (metadata run.config, "
        "run.data_files)",
        checkpoint));
  }
  std::vector<std::string> differences;
  const std::map<std::string, json> before = compared_keys(then_config);
  const std::map<std::string, json> now = compared_keys(to_json(config));
  for (const auto& [key, value] : before) {
    const auto it = now.find(key);
    if (it == now.end()) {
      differences.push_back(
          fmt::format("{}: {} when the run started, absent now", key, shown(value)));
    } else if (it->second != value) {
      differences.push_back(
          fmt::format("{}: {} when the run started, {} now", key, shown(value), shown(it->second)));
    }
  }
  for (const auto& [key, value] : now) {
    if (before.count(key) == 0) {
      differences.push_back(
          fmt::format("{}: absent when the run started, {} now", key, shown(value)));
    }
  }
  const std::map<std::string, std::string> files = data_files(config);
  for (const auto& [key, record] : then_files.items()) {
    const std::string then_path = record.value("path", "");
    const auto it = files.find(key);
    if (it == files.end()) {
      differences.push_back(
          fmt::format("{}: '{}' when the run started, no file now", key, then_path));
      continue;
    }
    const std::string fingerprint = file_fingerprint(it->second, key);
    if (fingerprint != record.value("fingerprint", "")) {
      differences.push_back(fmt::format("{}: '{}' changed since the run started ({}; now {})", key,
                                        it->second, record.value("fingerprint", "?"), fingerprint));
    }
  }
  for (const auto& [key, path] : files) {
    if (!then_files.contains(key)) {
      differences.push_back(fmt::format("{}: no file when the run started, '{}' now", key, path));
    }
  }
  if (differences.empty()) return;
  throw ConfigError(fmt::format(
      "--resume: the run's config.json or data differ from what checkpoint '{}' was trained "
      "with, so the next epochs would train on something else:\n  {}\nRestore them (only "
      "--epochs and --threads may change on a resume), or start a new run from these weights "
      "with --init-weights {}",
      checkpoint, fmt::join(differences, "\n  "), checkpoint));
}

}  // namespace strand::app
