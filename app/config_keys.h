// Every setting of the strand program, each declared once as a row of a key table: its name (a
// config key's JSON path), the field of the library's option struct it binds to (whose C++ type
// fixes its kind and whose initialiser is its default), its range or words, the data source or
// optimizer it belongs to, its command-line flag, the commands that take that flag, and its help.
//
// config_keys() is the table of a `strand train` run (RunConfig). Parsing, range checks, to_json
// (--print-config, config.json), the flags, `strand config-keys` and docs/config.md all come from
// it, so adding a key touches the struct field and one row (app/config_keys.cpp). A command's
// own options (predict's --tile, negatives' --stride, ...) are rows of the same kind bound to its
// own options struct, declared beside the command (predict_keys() in cli/predict_command.cpp);
// cli/command_flags.h turns a command's rows into its flags, help and docs section. The `model`
// is one row whose layers come from the layer catalog (layers/layer_catalog.h; app/model_spec.h).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <variant>
#include <vector>

#include "app/run_config.h"
#include "core/value_range.h"
#include "data/data_error.h"
#include "data/list_syntax.h"

namespace strand::app {

/// What a key holds; it follows from the C++ type of its field (and, for text, from the row).
enum class ConfigKind {
  kInt,           ///< int64_t (int, size_t)
  kUnsigned,      ///< uint64_t (the seed)
  kReal,          ///< double
  kFlag,          ///< bool
  kWord,          ///< one of the row's words: a std::string, or an enum's names
  kText,          ///< std::string, or a list written as text ("4-167", "chr8,chr9")
  kFile,          ///< std::string: a file that must exist when given
  kDirectory,     ///< std::string: a directory, created when needed
  kLayerIndices,  ///< std::vector<int64_t>: indices into the model list
  kModel,         ///< ModelSpec: the model, a layer list or a graph (the layer catalog)
  kTrackFiles,    ///< std::vector<std::string> of files: an entry may be a "plus,minus" pair
  kTextList,      ///< std::vector<std::string>: a flag given once per entry (--tile)
};

/// What a text key names: files are checked to exist, and both kinds of path are made absolute
/// in a run's config.json (with_absolute_paths).
enum class TextKind { kText, kFile, kDirectory };

/// Where a key lives: a field of an options struct (RunConfig for the config keys, a command's
/// own options for its flags), read and written as a ConfigValue. The struct's type is checked
/// on every access.
class ConfigField {
 public:
  using Getter = std::function<ConfigValue(const void*)>;
  using Setter = std::function<void(void*, ConfigValue, std::string_view)>;
  using Presence = std::function<bool(const void*)>;

  ConfigField() = default;
  ConfigField(std::type_index options, ConfigKind field_kind, Getter get, Setter set,
              Presence is_set = {}, std::vector<std::string> enum_words = {})
      : kind(field_kind),
        words(std::move(enum_words)),
        options_(options),
        get_(std::move(get)),
        set_(std::move(set)),
        is_set_(std::move(is_set)) {}

  /// From the field's C++ type; kText stands for every std::string (ConfigKey::kind refines it).
  ConfigKind kind = ConfigKind::kText;
  /// An enum field's words, in the enum's order (its values' names).
  std::vector<std::string> words;

  /// The field's value in `options`.
  template <typename Options>
  ConfigValue get(const Options& options) const {
    return get_(address(options));
  }
  /// Sets the field in `options`. A text that the field parses (a column list) names `what` in
  /// its error (ConfigError).
  template <typename Options>
  void set(Options& options, ConfigValue value, std::string_view what = "") const {
    set_(const_cast<void*>(address(options)), std::move(value), what);
  }
  /// Whether the field holds a value: false for an unset std::optional field.
  template <typename Options>
  bool is_set(const Options& options) const {
    return !is_set_ || is_set_(address(options));
  }
  /// Whether it is a std::optional field (unset by default).
  bool optional() const { return static_cast<bool>(is_set_); }
  /// Whether it is a field of Options.
  template <typename Options>
  bool of() const {
    return options_ == std::type_index(typeid(Options));
  }

 private:
  template <typename Options>
  const void* address(const Options& options) const {
    STRAND_CHECK(of<Options>(), "a config field of {} read or written in a {}", options_.name(),
                 typeid(Options).name());
    return &options;
  }

  std::type_index options_ = std::type_index(typeid(void));
  Getter get_;
  Setter set_;
  Presence is_set_;
};

namespace field_detail {

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {
  using type = T;
};

/// The kind of a field of type Value, before a text field's row refines it.
template <typename Value>
constexpr ConfigKind kind_of() {
  if constexpr (is_optional<Value>::value) {
    return kind_of<typename is_optional<Value>::type>();
  } else if constexpr (std::is_same_v<Value, uint64_t>) {
    return ConfigKind::kUnsigned;
  } else if constexpr (std::is_same_v<Value, bool>) {
    return ConfigKind::kFlag;
  } else if constexpr (std::is_integral_v<Value>) {
    return ConfigKind::kInt;
  } else if constexpr (std::is_same_v<Value, double>) {
    return ConfigKind::kReal;
  } else if constexpr (std::is_same_v<Value, std::string>) {
    return ConfigKind::kText;
  } else if constexpr (std::is_same_v<Value, std::vector<int64_t>>) {
    return ConfigKind::kLayerIndices;
  } else if constexpr (std::is_same_v<Value, std::vector<std::string>>) {
    return ConfigKind::kTextList;
  } else {
    static_assert(std::is_same_v<Value, ModelSpec>, "not a config field type");
    return ConfigKind::kModel;
  }
}

/// A field's value as the ConfigValue of its kind (int and size_t as int64_t).
template <typename Value>
ConfigValue to_value(const Value& value) {
  if constexpr (is_optional<Value>::value) {
    return to_value(value.value_or(typename is_optional<Value>::type{}));
  } else if constexpr (std::is_integral_v<Value> && !std::is_same_v<Value, bool> &&
                       !std::is_same_v<Value, uint64_t>) {
    return static_cast<int64_t>(value);
  } else {
    return value;
  }
}

/// The ConfigValue of a field's kind as the field's type (its range was checked, or is checked
/// before use, so the cast keeps the value).
template <typename Value>
Value from_value(ConfigValue value) {
  if constexpr (is_optional<Value>::value) {
    return from_value<typename is_optional<Value>::type>(std::move(value));
  } else if constexpr (std::is_integral_v<Value> && !std::is_same_v<Value, bool> &&
                       !std::is_same_v<Value, uint64_t>) {
    return static_cast<Value>(std::get<int64_t>(value));
  } else {
    return std::get<Value>(std::move(value));
  }
}

template <typename Options, typename Select>
using selected_t = std::remove_cvref_t<decltype(std::declval<Select>()(std::declval<Options&>()))>;

// The getter, setter and presence test of the field `select` returns, with `read` and `write`
// converting between its type and a ConfigValue.
template <typename Options, typename Select, typename Read, typename Write>
ConfigField bind(ConfigKind kind, Select select, Read read, Write write,
                 std::vector<std::string> words = {}) {
  using Value = selected_t<Options, Select>;
  ConfigField::Presence is_set;
  if constexpr (is_optional<Value>::value) {
    is_set = [select](const void* o) {
      return select(*static_cast<const Options*>(o)).has_value();
    };
  }
  return ConfigField(
      typeid(Options), kind,
      [select, read](const void* o) -> ConfigValue {
        return read(select(*static_cast<const Options*>(o)));
      },
      [select, write](void* o, ConfigValue value, std::string_view what) {
        select(*static_cast<Options*>(o)) = write(std::move(value), what);
      },
      std::move(is_set), std::move(words));
}

// The enum of an enum field's type (its std::optional's value type).
template <typename Value>
auto from_enum_value() {
  if constexpr (is_optional<Value>::value) {
    return typename is_optional<Value>::type{};
  } else {
    return Value{};
  }
}

// A DataError of a list parser as a ConfigError (its message names `what`).
template <typename Parse>
auto parsed(Parse parse) {
  try {
    return parse();
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }
}

}  // namespace field_detail

/// The field that `select` returns for an Options (RunConfig by default), written as
/// field([](auto& c) -> auto& { return c.data.files.loader.jitter; }). Its kind follows from its
/// type (int and size_t are integers; a std::optional is unset by default).
template <typename Options = RunConfig, typename Select>
ConfigField field(Select select) {
  using Value = field_detail::selected_t<Options, Select>;
  return field_detail::bind<Options>(
      field_detail::kind_of<Value>(), select,
      [](const Value& value) { return field_detail::to_value(value); },
      [](ConfigValue value, std::string_view) {
        return field_detail::from_value<Value>(std::move(value));
      });
}

/// An enum field (or std::optional enum) read and written by its values' names, `words` in the
/// enum's order: the data format as "bed", "narrowpeak", "dream", "records"; an unset optional
/// is "". A flag's word that is none of them is given to `parse` when there is one (the
/// library's own parser, which may know aliases and ignore case), else refused.
template <typename Options = RunConfig, typename Select, typename Parse = std::nullptr_t>
ConfigField enum_field(Select select, const std::vector<std::string>& words,
                       Parse parse = nullptr) {
  using Value = field_detail::selected_t<Options, Select>;
  using Enum = decltype(field_detail::from_enum_value<Value>());
  return field_detail::bind<Options>(
      ConfigKind::kWord, select,
      [words](const Value& value) -> ConfigValue {
        if constexpr (field_detail::is_optional<Value>::value) {
          if (!value) return std::string();
          return words[static_cast<size_t>(*value)];
        } else {
          return words[static_cast<size_t>(value)];
        }
      },
      [words, parse](ConfigValue value, std::string_view what) -> Value {
        const std::string word = std::get<std::string>(value);
        if constexpr (field_detail::is_optional<Value>::value) {
          if (word.empty()) return std::nullopt;
        }
        for (size_t i = 0; i < words.size(); ++i) {
          if (words[i] == word) return static_cast<Enum>(i);
        }
        if constexpr (!std::is_null_pointer_v<Parse>) {
          return field_detail::parsed([&] { return parse(word); });
        }
        throw ConfigError(
            fmt::format("{}: '{}' is not one of {}", what, word, fmt::join(words, ", ")));
      },
      words);
}

/// A count of a library struct (std::size_t, which is uint64_t here and would read as the
/// unsigned seed) as an integer key, range-checked as int64_t.
template <typename Options = RunConfig, typename Select>
ConfigField count_field(Select select) {
  return field_detail::bind<Options>(
      ConfigKind::kInt, select,
      [](const size_t& value) -> ConfigValue { return static_cast<int64_t>(value); },
      [](ConfigValue value, std::string_view) {
        return static_cast<size_t>(std::get<int64_t>(value));
      });
}

/// A list of 1-based columns (std::vector<int>) written as text, "4-167" or "4,6,9-12"
/// (data/list_syntax.h); "" is the empty list. Columns below `first_allowed` are refused.
template <typename Options = RunConfig, typename Select>
ConfigField columns_field(Select select, int first_allowed) {
  return field_detail::bind<Options>(
      ConfigKind::kText, select,
      [](const std::vector<int>& columns) -> ConfigValue {
        return data::format_column_list(columns);
      },
      [first_allowed](ConfigValue value, std::string_view what) {
        const std::string text = std::get<std::string>(value);
        if (text.empty()) return std::vector<int>{};
        return field_detail::parsed(
            [&] { return data::parse_column_list(text, what, first_allowed); });
      });
}

/// A list of names (std::vector<std::string>) written as text, "chr8,chr9"; "" is the empty
/// list (data/list_syntax.h).
template <typename Options = RunConfig, typename Select>
ConfigField names_field(Select select) {
  return field_detail::bind<Options>(
      ConfigKind::kText, select,
      [](const std::vector<std::string>& names) -> ConfigValue {
        return data::format_name_list(names);
      },
      [](ConfigValue value, std::string_view what) {
        const std::string text = std::get<std::string>(value);
        if (text.empty()) return std::vector<std::string>{};
        return field_detail::parsed([&] { return data::parse_name_list(text, what); });
      });
}

/// The values a number key accepts (every number has a range, so that no value wraps,
/// overflows a cast or asks for an impossible allocation). The data loader's ranges are the
/// library's own declarations (data::loader_ranges).
using ValueRange = std::variant<std::monostate, IntRange, RealRange>;

/// For keys that exist only for some values of another key of their section: data.jitter only
/// with data.source "files", optimizer.eps only with optimizer.name "adam" or "rmsprop".
struct KeyCondition {
  std::string key;  ///< empty: always
  std::vector<std::string> values;
};

/// A key whose default or range differ for one value of another key of its section that no
/// library struct tells apart: data.window for data.format "records". (A key bound to each
/// optimizer's own struct takes that struct's default by itself: optimizer.learning_rate.)
struct KeyVariant {
  std::string key;    ///< the other key, "data.format"
  std::string value;  ///< its value, "records"
  std::optional<ConfigValue> default_value{};
  ValueRange range{};        ///< monostate: the key's own range
  std::string range_note{};  ///< replaces the key's own note with this range
};

/// The commands that take the flags of the run's config (its data, model and training).
inline const std::vector<std::string> kRunCommands = {"train", "inspect", "summary"};

/// One setting. Rows are written with designated initialisers in this member order.
struct ConfigKey {
  /// A config key's JSON path ("data.jitter", "epochs"); for a command's own option, its flag's
  /// name ("tile").
  std::string key;
  ConfigField field;                   ///< where it lives (and so its default)
  KeyCondition only_when{};            ///< the data source or optimizer it belongs to
  std::vector<std::string> choices{};  ///< a word key: the words allowed (an enum's: its words)
  TextKind text = TextKind::kText;     ///< a text key or text list: what it names
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
  /// The commands whose flags include it (kRunCommands for the run's config keys).
  std::vector<std::string> commands{};
  /// An optional field's default, in words ("the run's window").
  std::string unset{};
  bool required = false;  ///< the flag must be given
  /// The value of the flag given without one (`simulate --list`: "simulations"); "": the flag
  /// takes a value.
  std::string implicit_value{};
  /// The help section its flag is listed in; "": the section of its data source or optimizer.
  std::string group{};
  /// A rule on a flag's value that no range states (predict's --window: >= 1, or 0 for
  /// records), checked before the range; throws ConfigError naming the flag (`name`).
  std::function<void(const std::string& name, const ConfigValue& value)> rule{};

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
  /// Whether `command`'s flags include it.
  bool taken_by(const std::string& command) const;
};

/// Every key of a run's config, in the order config files list them: grouped by section, each
/// section's selectors (data.source, optimizer.name, data.format) before the keys that depend
/// on them.
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

/// The kind of `key` in words ("integer", "file", ...).
std::string kind_text(const ConfigKey& key);
/// A value as a config file writes it; the model as its layer types.
std::string value_text(const ConfigValue& value);
/// A default as flags' help and the commands' tables show it: a text unquoted, "" for an empty
/// text or list, other values as a config file writes them.
std::string default_words(const ConfigValue& value);
/// "[0, 1]", "1 to 1000" with its note, as the tables print a range.
std::string range_text(const ValueRange& range, const std::string& note);

/// Checks `value` of `key` against the key's range (`range`, `note`): "--ratio: must be in
/// (0, 1000], got 0", naming `name` (the key or its flag).
void check_range(const std::string& name, const ConfigValue& value, const ValueRange& range,
                 const std::string& note);

/// Checks every number of `options` that a row of `keys` binds (and that is set) against the
/// row's range, naming the row's flag: "--ratio: must be in (0, 1000], got 0". A command's own
/// options are checked so after their flags are read.
template <typename Options>
void check_flag_ranges(const std::vector<ConfigKey>& keys, const Options& options) {
  for (const ConfigKey& key : keys) {
    if (!key.field.of<Options>() || !key.field.is_set(options)) continue;
    check_range(key.flag.empty() ? key.key : key.flag, key.field.get(options), key.range,
                key.range_note);
  }
}

/// An integer within its range: "data.window: must be in [1, 10000000], got 1000000000".
void require_in(const std::string& name, int64_t value, const IntRange& range,
                const std::string& note);
/// A real within its range; NaN and infinities are outside every range.
void require_in(const std::string& name, double value, const RealRange& range,
                const std::string& note);

}  // namespace strand::app
