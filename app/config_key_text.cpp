// The words of config keys and their values: JSON, kinds, ranges, defaults and the Markdown
// table of docs/config.md (`strand config-keys`).
#include "app/config_keys.h"

#include <fmt/format.h>

namespace strand::app {

nlohmann::json value_json(const ConfigValue& value) {
  return std::visit(
      [](const auto& v) -> nlohmann::json {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, ModelSpec>) {
          return model_spec_json(v);
        } else {
          return v;
        }
      },
      value);
}

std::string kind_text(const ConfigKey& key) {
  switch (key.kind()) {
    case ConfigKind::kInt:
      return "integer";
    case ConfigKind::kUnsigned:
      return "integer >= 0";
    case ConfigKind::kReal:
      return "number";
    case ConfigKind::kFlag:
      return "true/false";
    case ConfigKind::kWord:
      return "word";
    case ConfigKind::kText:
      return "text";
    case ConfigKind::kFile:
      return "file";
    case ConfigKind::kDirectory:
      return "directory";
    case ConfigKind::kLayerIndices:
      return "layer indices";
    case ConfigKind::kModel:
      return "layers or graph";
    case ConfigKind::kTrackFiles:
      return "bigWig list";
    case ConfigKind::kTextList:
      return "text, repeatable";
  }
  return "";
}

std::string value_text(const ConfigValue& value) {
  if (const auto* model = std::get_if<ModelSpec>(&value)) {
    std::vector<std::string> types;
    for (const LayerSpec& layer : model->all_layers()) types.push_back(layer.type);
    return fmt::format("{}{}", model->graph() ? "graph: " : "", fmt::join(types, ", "));
  }
  return value_json(value).dump();
}

std::string default_words(const ConfigValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    if (list->empty()) return "";
  }
  return value_text(value);
}

std::string range_text(const ValueRange& range, const std::string& note) {
  std::string text;
  if (const auto* ints = std::get_if<IntRange>(&range)) {
    text = ints->up_to_thread_cap
               ? fmt::format("{} to max({}, 4 x hardware threads)", ints->lo, kMinThreadCap)
               : fmt::format("{} to {}", ints->lo, ints->hi);
  } else if (const auto* reals = std::get_if<RealRange>(&range)) {
    text = reals->text();
  }
  if (!note.empty()) text += fmt::format(" ({})", note);
  return text;
}

void require_in(const std::string& name, int64_t value, const IntRange& range,
                const std::string& note) {
  std::vector<std::string> notes;
  if (!note.empty()) notes.push_back(note);
  if (range.up_to_thread_cap) notes.push_back(thread_cap_note());
  if (range.contains(value)) return;
  const std::string why = notes.empty() ? "" : fmt::format(" ({})", fmt::join(notes, "; "));
  throw ConfigError(fmt::format("{}: must be in {}{}, got {}", name, range.text(), why, value));
}

void require_in(const std::string& name, double value, const RealRange& range,
                const std::string& note) {
  if (range.contains(value)) return;
  throw ConfigError(fmt::format("{}: must be in {}{}, got {}", name, range.text(),
                                note.empty() ? "" : " (" + note + ")", value));
}

void check_range(const std::string& name, const ConfigValue& value, const ValueRange& range,
                 const std::string& note) {
  if (const auto* ints = std::get_if<IntRange>(&range)) {
    require_in(name, std::get<int64_t>(value), *ints, note);
  } else if (const auto* reals = std::get_if<RealRange>(&range)) {
    require_in(name, std::get<double>(value), *reals, note);
  }
}

namespace {

// The default of `key` in words, and where another word of its section's selector gives it
// another default, that word's: "`0.001`; sgd: `0.01`" (each optimizer's own struct's
// default), "`1000`; records: `0`" (a variant's).
std::string default_text(const ConfigKey& key, const RunConfig& defaults) {
  const std::string main = value_text(key.field.get(defaults));
  std::string text = fmt::format("`{}`", main);
  for (const ConfigKey& selector : config_keys()) {
    if (selector.section() != key.section() || selector.key == key.key ||
        !selector.selects_section()) {
      continue;
    }
    for (const std::string& word : selector.choices) {
      nlohmann::json section = {{selector.name(), word}};
      const RunConfig config = parse_config({{selector.section(), section}});
      if (!key.applies_to(config)) continue;
      const std::string value = value_text(key.field.get(config));
      if (value != main) text += fmt::format("; {}: `{}`", word, value);
    }
  }
  for (const KeyVariant& variant : key.variants) {
    if (variant.default_value) {
      text += fmt::format("; {}: `{}`", variant.value, value_text(*variant.default_value));
    }
  }
  return text;
}

}  // namespace

std::string config_keys_markdown() {
  const RunConfig defaults = default_config();
  std::string text =
      "| key | kind | default | values | when | flag | meaning |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const ConfigKey& key : config_keys()) {
    std::string values = key.kind() == ConfigKind::kWord
                             ? fmt::format("{}", fmt::join(key.choices, ", "))
                             : range_text(key.range, key.range_note);
    for (const KeyVariant& variant : key.variants) {
      if (!std::holds_alternative<std::monostate>(variant.range)) {
        values +=
            fmt::format("; {}: {}", variant.value, range_text(variant.range, variant.range_note));
      }
    }
    const std::string when =
        key.only_when.key.empty()
            ? ""
            : fmt::format("{} = {}", key.only_when.key, fmt::join(key.only_when.values, " or "));
    std::string flag = key.flag.empty() ? "" : fmt::format("`{}`", key.flag);
    if (key.kind() == ConfigKind::kFlag && !key.flag.empty()) {
      flag += fmt::format(" (sets {})", key.switch_value());
    }
    text += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", key.key, kind_text(key),
                        default_text(key, defaults), values, when, flag, key.help);
  }
  return text;
}

}  // namespace strand::app
