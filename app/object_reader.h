// ObjectReader: reads one JSON object of a config field by field, checking each value's type,
// and names every key it was not asked for (with the closest known key) as an error. Errors
// name the key by its JSON path ("optimizer.learnig_rate: unknown key; ...").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace strand::app {

/// `path` + "." + `key` ("data" + "window" -> "data.window"), or `key` at the top.
std::string join_path(const std::string& path, const std::string& key);

/// The kind of a JSON value as an error message names it: "integer", "number", "string", ...
std::string type_name_of(const nlohmann::json& value);

class ObjectReader {
 public:
  /// Throws ConfigError naming `path` when `object` is not a JSON object.
  ObjectReader(const nlohmann::json& object, std::string path);

  /// The value of `key` (nullptr when absent or null), remembering that `key` is known.
  const nlohmann::json* find(const std::string& key);

  /// Each reads `key` into `out` when present, or throws ConfigError naming the key, the type
  /// expected and the value found; absent keys leave `out` alone.
  void read(const std::string& key, std::string& out);
  void read(const std::string& key, bool& out);
  void read(const std::string& key, double& out);
  void read(const std::string& key, int64_t& out);
  void read(const std::string& key, uint64_t& out);
  /// read() of a word that must be one of `choices`.
  void read_choice(const std::string& key, std::string& out,
                   const std::vector<std::string>& choices);

  /// Throws ConfigError for the first key of the object that no find() asked for, listing the
  /// known keys and the closest one.
  void finish() const;

  /// The object's JSON path.
  const std::string& path() const { return path_; }

 private:
  void expect(const std::string& key, bool ok, const char* wanted,
              const nlohmann::json& value) const;

  const nlohmann::json& object_;
  std::string path_;
  std::vector<std::string> known_;
};

}  // namespace strand::app
