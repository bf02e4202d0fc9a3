// Every command's flags come from the key tables: each row of a command's own table sets its
// own field, --help lists exactly the rows that name the command, a number outside its row's
// range is refused naming the flag, and docs/config.md holds every command's table.
#include "cli/command_flags.h"

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/config_source.h"
#include "cli/explain_command.h"
#include "cli/marginalize_command.h"
#include "cli/motifs_command.h"
#include "cli/negatives_command.h"
#include "cli/predict_command.h"
#include "cli/prepare_command.h"
#include "cli/program.h"
#include "cli/signal_command.h"
#include "cli/simulate_command.h"
#include "cli/train_command.h"
#include "cli/variants_command.h"
#include "cli_test_support.h"
#include "test_helpers.h"

namespace strand::cli {

using app::config_keys;
using app::config_source_keys;
using app::ConfigKey;
using app::ConfigKind;
using app::ConfigSource;
using app::ConfigValue;
using app::find_config_key;
using app::value_json;
namespace {

using testing::run;

// A value of `key`'s kind other than `value` that its field accepts.
ConfigValue other_value(const ConfigKey& key, const ConfigValue& value) {
  switch (key.kind()) {
    case ConfigKind::kFlag:
      return !std::get<bool>(value);
    case ConfigKind::kInt: {
      const auto& range = std::get<IntRange>(key.range);
      const int64_t v = std::get<int64_t>(value);
      return v < range.upper() ? v + 1 : range.lo;
    }
    case ConfigKind::kUnsigned:
      return std::get<uint64_t>(value) + 1;
    case ConfigKind::kReal: {
      const auto& range = std::get<RealRange>(key.range);
      const double v = std::get<double>(value);
      return v + 0.25 < range.hi ? v + 0.25 : (range.lo + range.hi) / 2;
    }
    case ConfigKind::kWord: {
      const std::vector<std::string>& words = key.choices.empty() ? key.field.words : key.choices;
      const std::string& v = std::get<std::string>(value);
      return v == words.back() ? words.front() : words.back();
    }
    case ConfigKind::kTextList:
    case ConfigKind::kTrackFiles:
      return std::vector<std::string>{"a", "b,c"};
    default: {
      // Text, and lists written as text: a name list and a column list both read "4,6"; the
      // one text with a rule is predict's --out-format.
      if (key.rule) return std::string("bedgraph");
      const std::string& v = std::get<std::string>(value);
      return v == "4,6" ? std::string("5") : std::string("4,6");
    }
  }
}

// Sets every row of `keys` to another value through its flag's setter, and checks that its
// own field took it and no other field moved.
template <typename Options>
void check_rows(const std::vector<ConfigKey>& keys) {
  for (const ConfigKey& key : keys) {
    if (!key.field.of<Options>()) continue;
    for (const std::string& command : key.commands) {
      INFO(command, " ", key.flag);
      Options options{};
      const Options defaults{};
      CommandFlags flags(command);
      flags.options(keys, options);
      const CommandFlag* flag = nullptr;
      for (const CommandFlag& f : flags.flags()) flag = f.key == &key ? &f : flag;
      REQUIRE(flag != nullptr);
      const ConfigValue value = other_value(key, key.field.get(defaults));
      flag->set(value);
      CHECK(value_json(key.field.get(options)) == value_json(value));
      for (const ConfigKey& other : keys) {
        if (&other == &key || !other.field.of<Options>()) continue;
        INFO(other.flag);
        CHECK(value_json(other.field.get(options)) == value_json(other.field.get(defaults)));
      }
    }
  }
}

// The flags `strand COMMAND --help` lists ("--window", ...), without --help.
std::set<std::string> help_flags(const std::string& command) {
  const auto help = run({command, "--help"});
  REQUIRE(help.status == 0);
  std::set<std::string> flags;
  std::istringstream lines(help.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  --", 0) != 0) continue;
    const std::string flag = line.substr(2, line.find(' ', 2) - 2);
    if (flag != "--help") flags.insert(flag);
  }
  return flags;
}

// Every key table: the config's and each command's own.
std::vector<const std::vector<ConfigKey>*> tables() {
  return {&config_keys(),    &config_source_keys(), &train_keys(),    &predict_keys(),
          &explain_keys(),   &marginalize_keys(),   &variants_keys(), &simulate_keys(),
          &negatives_keys(), &prepare_keys(),       &signal_keys(),   &motifs_keys(),
          &motif_hits_keys()};
}

TEST_CASE("command flags: each row of a command's own table sets its own field") {
  check_rows<ConfigSource>(config_source_keys());
  check_rows<TrainFlags>(train_keys());
  check_rows<PredictOptions>(predict_keys());
  check_rows<ExplainOptions>(explain_keys());
  check_rows<MarginalizeOptions>(marginalize_keys());
  check_rows<VariantsOptions>(variants_keys());
  check_rows<SimulateOptions>(simulate_keys());
  check_rows<NegativesOptions>(negatives_keys());
  check_rows<PrepareOptions>(prepare_keys());
  check_rows<SignalOptions>(signal_keys());
  check_rows<MotifsOptions>(motifs_keys());
  check_rows<MotifHitsOptions>(motif_hits_keys());
}

TEST_CASE("command flags: --help lists exactly the rows that name the command") {
  for (const std::string& command : command_names()) {
    INFO(command);
    std::set<std::string> rows;
    for (const std::vector<ConfigKey>* table : tables()) {
      for (const ConfigKey& key : *table) {
        if (key.taken_by(command)) rows.insert(key.flag);
      }
    }
    const std::set<std::string> listed = help_flags(command);
    // config-keys' own --command is declared in app.cpp's table.
    if (command == "config-keys") CHECK(listed.count("--command") == 1);
    std::set<std::string> expected = rows;
    if (command == "config-keys") expected.insert("--command");
    CHECK(listed == expected);
  }
  // A flag several commands take is one row: the simulated data's flags serve train and
  // simulate alike.
  CHECK(find_config_key("data.n_pos")->taken_by("simulate"));
  CHECK(find_config_key("data.n_pos")->taken_by("train"));
}

TEST_CASE("command flags: a command's own number outside its range is refused naming it") {
  for (const std::vector<ConfigKey>* table : tables()) {
    for (const ConfigKey& key : *table) {
      if (table == &config_keys() || key.flag.empty()) continue;
      std::string text;
      if (const auto* ints = std::get_if<IntRange>(&key.range)) {
        text = std::to_string(ints->upper() + 1);
      } else if (const auto* reals = std::get_if<RealRange>(&key.range)) {
        text = fmt::format("{}", reals->hi + 1);
      } else {
        continue;
      }
      for (const std::string& command : key.commands) {
        INFO(command, " ", key.flag, " ", text);
        // `strand motifs hits` is a command under `motifs` (its rows name "motifs-hits").
        const auto result = command == "motifs-hits" ? run({"motifs", "hits", key.flag, text})
                                                     : run({command, key.flag, text});
        CHECK(result.status == 1);
        CHECK(result.err.rfind("error: " + key.flag + ": must be in ", 0) == 0);
      }
    }
  }
}

TEST_CASE("command flags: every command's flags table is in docs/config.md") {
  std::ifstream in(strand::testing::source_dir() + "/docs/config.md");
  REQUIRE(in);
  const std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string& command : command_names()) {
    if (command == "layers") continue;  // no flags
    INFO("regenerate with `strand config-keys --command ", command, "`");
    const auto printed = run({"config-keys", "--command", command});
    REQUIRE(printed.status == 0);
    CHECK(printed.out == command_flags_markdown(command));
    CHECK(docs.find("### `strand " + command + "`\n\n" + printed.out) != std::string::npos);
  }
}

}  // namespace
}  // namespace strand::cli
