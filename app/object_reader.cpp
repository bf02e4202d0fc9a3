// ObjectReader: typed reads of a JSON object's keys and the unknown-key check.
#include "app/object_reader.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/config_error.h"
#include "app/edit_distance.h"

namespace strand::app {

using nlohmann::json;

std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string type_name_of(const json& value) {
  if (value.is_number_integer() || value.is_number_unsigned()) return "integer";
  if (value.is_number_float()) return "number";
  return value.type_name();
}

ObjectReader::ObjectReader(const json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) {
    throw ConfigError(fmt::format("{}: expected an object, got {}",
                                  path_.empty() ? "config" : path_, type_name_of(object_)));
  }
}

const json* ObjectReader::find(const std::string& key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
  auto it = object_.find(key);
  return it == object_.end() || it->is_null() ? nullptr : &*it;
}

void ObjectReader::read(const std::string& key, std::string& out) {
  if (const json* v = find(key)) {
    expect(key, v->is_string(), "a string", *v);
    out = v->get<std::string>();
  }
}

void ObjectReader::read(const std::string& key, bool& out) {
  if (const json* v = find(key)) {
    expect(key, v->is_boolean(), "true or false", *v);
    out = v->get<bool>();
  }
}

void ObjectReader::read(const std::string& key, double& out) {
  if (const json* v = find(key)) {
    expect(key, v->is_number(), "a number", *v);
    out = v->get<double>();
  }
}

void ObjectReader::read(const std::string& key, int64_t& out) {
  if (const json* v = find(key)) {
    expect(key, v->is_number_integer(), "an integer", *v);
    // Above INT64_MAX the value is held unsigned and would wrap to a negative number.
    expect(key, !v->is_number_unsigned() || v->get<uint64_t>() <= INT64_MAX,
           "an integer of at most 9223372036854775807", *v);
    out = v->get<int64_t>();
  }
}

void ObjectReader::read(const std::string& key, uint64_t& out) {
  if (const json* v = find(key)) {
    expect(key, v->is_number_unsigned(), "a non-negative integer", *v);
    out = v->get<uint64_t>();
  }
}

void ObjectReader::read_choice(const std::string& key, std::string& out,
                               const std::vector<std::string>& choices) {
  read(key, out);
  if (std::find(choices.begin(), choices.end(), out) == choices.end()) {
    throw ConfigError(fmt::format("{}: '{}' is not one of {}", join_path(path_, key), out,
                                  fmt::join(choices, ", ")));
  }
}

void ObjectReader::finish() const {
  for (const auto& [key, value] : object_.items()) {
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::string message = fmt::format("{}: unknown key; expected one of {}", join_path(path_, key),
                                      fmt::join(known_, ", "));
    std::string closest;
    size_t best = 3;  // suggest only near misses (typos), not unrelated keys
    for (const std::string& candidate : known_) {
      const size_t d = edit_distance(key, candidate);
      if (d < best) best = d, closest = candidate;
    }
    if (!closest.empty()) message += fmt::format(" (did you mean '{}'?)", closest);
    throw ConfigError(message);
  }
}

void ObjectReader::expect(const std::string& key, bool ok, const char* wanted,
                          const json& value) const {
  if (!ok) {
    throw ConfigError(fmt::format("{}: expected {}, got {} {}", join_path(path_, key), wanted,
                                  type_name_of(value), value.dump()));
  }
}

}  // namespace strand::app
