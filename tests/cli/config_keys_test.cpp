// The config key table: well formed, every key read and written at its own field, every flag
// setting its own key, and docs/config.md equal to `strand config-keys`.
#include "app/config_keys.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "test_helpers.h"

namespace strand::cli {

using app::config_keys;
using app::config_keys_markdown;
using app::ConfigKey;
using app::ConfigKind;
using app::ConfigValue;
using app::default_config;
using app::find_config_key;
using app::KeyVariant;
using app::ModelSpec;
using app::parse_config;
using app::RunConfig;
using app::to_json;
using app::value_json;
namespace {

using nlohmann::json;
using testing::run;

// A value of `key` other than `value` (its kind's type; a word key's next word).
ConfigValue other_value(const ConfigKey& key, const ConfigValue& value) {
  return std::visit(
      [&key](const auto& v) -> ConfigValue {
        using Value = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<Value, bool>) {
          return !v;
        } else if constexpr (std::is_same_v<Value, std::string>) {
          if (key.key == "data.label_columns") return v.empty() ? "4-5" : "";
          if (key.choices.empty()) return v + "x";
          const auto word = std::find(key.choices.begin(), key.choices.end(), v);
          return *word == key.choices.back() ? key.choices.front() : *(word + 1);
        } else if constexpr (std::is_same_v<Value, std::vector<int64_t>>) {
          return std::vector<int64_t>{0, 1};
        } else if constexpr (std::is_same_v<Value, ModelSpec>) {
          ModelSpec shorter;
          shorter.layers.assign(v.layers.begin(), v.layers.begin() + 2);
          return shorter;
        } else if constexpr (std::is_same_v<Value, std::vector<std::string>>) {
          return std::vector<std::string>{"a.bw", "plus.bw,minus.bw"};
        } else if constexpr (std::is_same_v<Value, double>) {
          return v + 0.25;
        } else {
          return v + 1;
        }
      },
      value);
}

// The default config switched to the data source or optimizer `key` belongs to.
RunConfig config_where_applies(const ConfigKey& key) {
  RunConfig config = default_config();
  if (!key.only_when.key.empty()) {
    json edited = to_json(config);
    const ConfigKey& selector = *find_config_key(key.only_when.key);
    edited[selector.section()] = {{selector.name(), key.only_when.values.front()}};
    config = parse_config(edited);
  }
  return config;
}

TEST_CASE("config keys: the table is well formed") {
  std::set<std::string> paths, flags;
  std::string section;
  std::set<std::string> finished_sections;
  const RunConfig defaults = default_config();
  for (const ConfigKey& key : config_keys()) {
    INFO(key.key);
    CHECK(paths.insert(key.key).second);
    CHECK(!key.help.empty());
    if (!key.flag.empty()) CHECK(flags.insert(key.flag).second);
    if (key.kind() == ConfigKind::kModel) CHECK(key.flag.empty());
    // A section's rows are neighbours (parse_config reads a section in one go).
    if (key.section() != section) {
      if (!key.section().empty()) CHECK(finished_sections.count(key.section()) == 0);
      if (!section.empty()) finished_sections.insert(section);
      section = key.section();
    }
    // Every number has a range of its type.
    if (key.kind() == ConfigKind::kInt) CHECK(std::holds_alternative<IntRange>(key.range));
    if (key.kind() == ConfigKind::kReal) CHECK(std::holds_alternative<RealRange>(key.range));
    if (key.kind() != ConfigKind::kInt && key.kind() != ConfigKind::kReal) {
      CHECK(std::holds_alternative<std::monostate>(key.range));
    }
    if (key.kind() == ConfigKind::kWord) {
      const std::string word = std::get<std::string>(key.field.get(defaults));
      CHECK(std::count(key.choices.begin(), key.choices.end(), word) == 1);
    }
    // The keys a key depends on are words of its section listed before it, and name their
    // words.
    std::vector<std::pair<std::string, std::vector<std::string>>> selectors;
    if (!key.only_when.key.empty()) selectors.emplace_back(key.only_when.key, key.only_when.values);
    for (const KeyVariant& variant : key.variants) {
      selectors.push_back({variant.key, {variant.value}});
    }
    for (const auto& [selector_path, words] : selectors) {
      const ConfigKey* selector = find_config_key(selector_path);
      REQUIRE(selector != nullptr);
      CHECK(selector->kind() == ConfigKind::kWord);
      CHECK(selector->section() == key.section());
      CHECK(paths.count(selector_path) == 1);
      for (const std::string& word : words) {
        CHECK(std::count(selector->choices.begin(), selector->choices.end(), word) == 1);
      }
    }
  }
}

TEST_CASE("config keys: each key is read and written at its own field") {
  for (const ConfigKey& key : config_keys()) {
    INFO(key.key);
    const RunConfig base = config_where_applies(key);
    REQUIRE(key.applies_to(base));
    RunConfig changed = base;
    const ConfigValue value = other_value(key, key.field.get(base));
    key.field.set(changed, value);
    const json written = to_json(changed);
    const RunConfig read = parse_config(written);
    CHECK(value_json(key.field.get(read)) == value_json(value));
    // Every other key kept its value: no two rows share a field.
    for (const ConfigKey& other : config_keys()) {
      if (&other == &key || !other.applies_to(base)) continue;
      INFO(other.key);
      CHECK(value_json(other.field.get(read)) == value_json(other.field.get(base)));
    }
  }
}

TEST_CASE("config keys: each flag sets its key, as --help says") {
  const std::string help = run({"train", "--help"}).out;
  for (const ConfigKey& key : config_keys()) {
    if (key.flag.empty()) continue;
    INFO(key.flag);
    CHECK(help.find(key.flag) != std::string::npos);
    CHECK(help.find("(config: " + key.key) != std::string::npos);
    const RunConfig base = config_where_applies(key);
    const ConfigValue value = key.kind() == ConfigKind::kFlag
                                  ? ConfigValue(key.switch_value())
                                  : other_value(key, key.field.get(base));
    std::vector<std::string> args = {"train", "--print-config", key.flag};
    if (key.kind() == ConfigKind::kLayerIndices) {
      args.push_back("0,1");
    } else if (key.kind() == ConfigKind::kTrackFiles) {
      for (const std::string& entry : std::get<std::vector<std::string>>(value)) {
        args.push_back(entry);
      }
    } else if (key.kind() != ConfigKind::kFlag) {
      const json text = value_json(value);
      args.push_back(text.is_string() ? text.get<std::string>() : text.dump());
    }
    const auto result = run(args);
    REQUIRE_MESSAGE(result.status == 0, result.err);
    const json printed = json::parse(result.out);
    const json& holder = key.section().empty() ? printed : printed.at(key.section());
    CHECK(holder.at(key.name()) == value_json(value));
  }
}

TEST_CASE("flags of another data source select it, and the two cannot be mixed") {
  testing::TempDir dir("keys");
  testing::write_text(dir.path() / "files.json",
                      json{{"data", {{"source", "files"}, {"jitter", 7}}}}.dump());
  const auto simulated =
      run({"train", "--config", dir.str("files.json"), "--motif", "CTCF_known1", "--print-config"});
  REQUIRE_MESSAGE(simulated.status == 0, simulated.err);
  json expected = to_json(default_config())["data"];
  expected["motif"] = "CTCF_known1";
  CHECK(json::parse(simulated.out)["data"] == expected);
  const auto mixed = run({"train", "--fasta", "a.fa", "--n-pos", "5", "--motif", "M"});
  CHECK(mixed.status == 1);
  CHECK(mixed.err ==
        "error: data: flags for simulated data (--motif, --n-pos) and for files data (--fasta) "
        "cannot be mixed\n");
}

TEST_CASE("--format sets the window default of the format it names") {
  testing::TempDir dir("format");
  testing::write_text(
      dir.path() / "records.json",
      json{{"data", {{"source", "files"}, {"format", "records"}, {"jitter", 3}}}}.dump());
  const auto bed =
      run({"train", "--config", dir.str("records.json"), "--format", "bed", "--print-config"});
  REQUIRE_MESSAGE(bed.status == 0, bed.err);
  CHECK(json::parse(bed.out)["data"]["window"] == 1000);
  CHECK(json::parse(bed.out)["data"]["jitter"] == 3);
  const auto same = run({"train", "--config", dir.str("records.json"), "--format", "records",
                         "--window", "50", "--print-config"});
  REQUIRE_MESSAGE(same.status == 0, same.err);
  CHECK(json::parse(same.out)["data"]["window"] == 50);
}

TEST_CASE("config-keys prints the table and docs/config.md holds it") {
  const auto listed = run({"config-keys"});
  CHECK(listed.status == 0);
  CHECK(listed.out == config_keys_markdown());
  CHECK(listed.out.find("| `data.jitter` | integer | `0` | 0 to 10000000 | data.source = files | "
                        "`--jitter` |") != std::string::npos);
  std::ifstream in(strand::testing::source_dir() + "/docs/config.md");
  REQUIRE(in);
  const std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  INFO("regenerate the table with `strand config-keys`");
  CHECK(docs.find(config_keys_markdown()) != std::string::npos);
}

}  // namespace
}  // namespace strand::cli
