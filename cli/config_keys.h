// The config keys of a `strand train` run, each declared once in one table: its JSON path, the
// RunConfig field it maps to (whose C++ type fixes its kind and whose initialiser is its
// default), its range or words, the data source or optimizer it belongs to, its command-line
// flag and its help. Parsing, range checks, to_json (--print-config, config.json), the flags,
// `strand config-keys` and docs/config.md all come from it, so adding a key touches the struct
// field and one row of config_keys() (cli/config_keys.cpp). The `model` is one row whose layers
// come from the layer catalog (layers/layer_catalog.h; cli/model_spec.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cli/run_config.h"

namespace strand::cli {

/// What a key holds; it follows from the C++ type of its field (and, for text, from the row).
enum class ConfigKind {
  kInt,           ///< int64_t
  kUnsigned,      ///< uint64_t (the seed)
  kReal,          ///< double
  kFlag,          ///< bool
  kWord,          ///< std::string, one of the row's choices
  kText,          ///< std::string
  kFile,          ///< std::string: a file that must exist when given
  kDirectory,     ///< std::string: a directory, created when needed
  kLayerIndices,  ///< std::vector<int64_t>: indices into the model list
  kModel,         ///< ModelSpec: the model, a layer list or a graph (the layer catalog)
  kTrackFiles,    ///< std::vector<std::string>: files, an entry may be a "plus,minus" pair
};

/// What a text key names: files are checked to exist, and both kinds of path are made absolute
/// in a run's config.json (with_absolute_paths).
enum class TextKind { kText, kFile, kDirectory };

/// Where a key lives in RunConfig: its field read and written as a ConfigValue.
struct ConfigField {
  std::function<ConfigValue(const RunConfig&)> get;
  std::function<void(RunConfig&, ConfigValue)> set;
  /// From the field's C++ type; kText stands for every std::string (ConfigKey::kind refines it).
  ConfigKind kind = ConfigKind::kText;
};

/// The kind of a field of type Value, before a text field's row refines it.
template <typename Value>
constexpr ConfigKind kind_of_field() {
  if constexpr (std::is_same_v<Value, int64_t>) {
    return ConfigKind::kInt;
  } else if constexpr (std::is_same_v<Value, uint64_t>) {
    return ConfigKind::kUnsigned;
  } else if constexpr (std::is_same_v<Value, double>) {
    return ConfigKind::kReal;
  } else if constexpr (std::is_same_v<Value, bool>) {
    return ConfigKind::kFlag;
  } else if constexpr (std::is_same_v<Value, std::string>) {
    return ConfigKind::kText;
  } else if constexpr (std::is_same_v<Value, std::vector<int64_t>>) {
    return ConfigKind::kLayerIndices;
  } else if constexpr (std::is_same_v<Value, std::vector<std::string>>) {
    return ConfigKind::kTrackFiles;
  } else {
    static_assert(std::is_same_v<Value, ModelSpec>, "not a ConfigValue type");
    return ConfigKind::kModel;
  }
}

/// The field that `select` returns for a RunConfig, written as
/// field([](auto& c) -> auto& { return c.data.files.jitter; }).
template <typename Select>
ConfigField field(Select select) {
  using Value = std::remove_cvref_t<decltype(select(std::declval<RunConfig&>()))>;
  return {[select](const RunConfig& config) -> ConfigValue { return select(config); },
          [select](RunConfig& config, ConfigValue value) {
            select(config) = std::get<Value>(std::move(value));
          },
          kind_of_field<Value>()};
}

/// An inclusive integer range. The thread counts end at the thread cap, max_threads(), which
/// depends on the machine.
struct IntRange {
  int64_t lo = 0;
  int64_t hi = 0;
  bool up_to_thread_cap = false;  ///< hi is max_threads()

  int64_t upper() const;
};

/// A real interval, each end open or closed: (0, 1000] is RealRange{0, 1000, true}. NaN and
/// the infinities are outside every range.
struct RealRange {
  double lo = 0;
  double hi = 0;
  bool lo_open = false;
  bool hi_open = false;
};

/// The values a number key accepts (every number has a range, so that no value wraps,
/// overflows a cast or asks for an impossible allocation).
using ValueRange = std::variant<std::monostate, IntRange, RealRange>;

/// For keys that exist only for some values of another key of their section: data.jitter only
/// with data.source "files", optimizer.eps only with optimizer.name "adam" or "rmsprop".
struct KeyCondition {
  std::string key;  ///< empty: always
  std::vector<std::string> values;
};

/// A key whose default or range differ for one value of another key of its section: data.window
/// for data.format "records", optimizer.learning_rate for optimizer.name "sgd".
struct KeyVariant {
  std::string key;    ///< the other key, "data.format"
  std::string value;  ///< its value, "records"
  std::optional<ConfigValue> default_value{};
  ValueRange range{};        ///< monostate: the key's own range
  std::string range_note{};  ///< replaces the key's own note with this range
};

/// One config key. Rows are written with designated initialisers in this member order.
struct ConfigKey {
  std::string key;                     ///< its JSON path: "data.jitter", "epochs"
  ConfigField field;                   ///< where it lives in RunConfig (and so its default)
  KeyCondition only_when{};            ///< the data source or optimizer it belongs to
  std::vector<std::string> choices{};  ///< a word key: the words allowed
  TextKind text = TextKind::kText;     ///< a text key: what it names
  ValueRange range{};                  ///< a number key: the values allowed
  std::string range_note{};            ///< what an end of the range means, or why it is there
  std::vector<KeyVariant> variants{};  ///< other defaults or ranges for another key's value
  /// Left out of to_json while empty (data.motif_file: config.json then equals
  /// configs/reference.json).
  bool omitted_when_empty = false;
  /// Its command-line flag, "" for none. A flag of a true/false key is a switch: "--no-X" sets
  /// false, any other name sets true. A flag of a data source's or optimizer's key switches to
  /// it; setting a word that other keys depend on (--optimizer) starts that section afresh.
  std::string flag{};
  std::string help{};  ///< what it means, one sentence without the final period

  ConfigKind kind() const;
  /// "data" for "data.jitter"; "" at the top level.
  std::string section() const;
  /// "jitter" for "data.jitter".
  std::string name() const;
  /// The value a switch flag sets (see flag).
  bool switch_value() const;
  /// Whether other keys of its section exist only for some of its words (data.source,
  /// optimizer.name); a flag changing it starts the section afresh.
  bool selects_section() const;
  /// Whether the key exists in `config` (only_when holds).
  bool applies_to(const RunConfig& config) const;
  /// The range and its note for `config` (a variant's when its key has its value).
  std::pair<ValueRange, std::string> range_for(const RunConfig& config) const;
};

/// Every key, in the order config files list them: grouped by section, each section's
/// selectors (data.source, optimizer.name, data.format) before the keys that depend on them.
const std::vector<ConfigKey>& config_keys();
/// The key at `path` ("data.jitter"), or nullptr.
const ConfigKey* find_config_key(const std::string& path);
/// The value of word key `path` in `config` (data.source, optimizer.name, data.format).
std::string word_of(const RunConfig& config, const std::string& path);

/// A key's value as config.json writes it.
nlohmann::json value_json(const ConfigValue& value);

/// The table as Markdown (key, kind, default, values, when, flag, meaning): what
/// `strand config-keys` prints and docs/config.md holds (a test keeps them equal).
std::string config_keys_markdown();

}  // namespace strand::cli
