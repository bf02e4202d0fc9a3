// A command's flags from the key tables: CLI11 options, --help text and the Markdown table.
#include "cli/command_flags.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

namespace strand::cli {

using app::check_range;
using app::config_keys;
using app::ConfigKey;
using app::ConfigKind;
using app::ConfigOverrides;
using app::ConfigValue;
using app::default_config;
using app::default_words;
using app::kind_text;
using app::kRunCommands;
using app::range_text;
using app::RunConfig;
namespace {

// The flags of one data source or optimizer are listed together: "Files data".
std::string flag_group(const ConfigKey& key) {
  if (!key.group.empty()) return key.group;
  if (key.only_when.values.size() != 1) return "";
  std::string group = key.only_when.values.front() + " " + key.section();
  group[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(group[0])));
  return group;
}

// The words of a word key: the row's, else its enum's.
const std::vector<std::string>& words_of(const ConfigKey& key) {
  return key.choices.empty() ? key.field.words : key.choices;
}

// The values of `key` in words: its words, else its range.
std::string values_text(const ConfigKey& key) {
  if (key.kind() == ConfigKind::kWord) return fmt::format("{}", fmt::join(words_of(key), ", "));
  return range_text(key.range, key.range_note);
}

bool is_run_command(const std::string& command) {
  return std::find(kRunCommands.begin(), kRunCommands.end(), command) != kRunCommands.end();
}

// Declares `flag` on `app`; `given` records the flags given.
void add_flag(CLI::App* app, const CommandFlag& flag, std::vector<std::string>* given) {
  const ConfigKey& key = *flag.key;
  const auto set = [given, &key, setter = flag.set](ConfigValue value) {
    if (given != nullptr) given->push_back(key.flag);
    setter(std::move(value));
  };
  const auto typed = [&](auto type) {
    using T = decltype(type);
    return app->add_option_function<T>(key.flag, [set](const T& value) { set(value); });
  };
  CLI::Option* option = nullptr;
  switch (key.kind()) {
    case ConfigKind::kFlag:
      option = app->add_flag_function(key.flag, [set, &key](int64_t) { set(key.switch_value()); });
      break;
    case ConfigKind::kInt:
      option = typed(int64_t{});
      break;
    case ConfigKind::kUnsigned:
      option = typed(uint64_t{});
      break;
    case ConfigKind::kReal:
      option = typed(double{});
      break;
    case ConfigKind::kWord:
    case ConfigKind::kText:
    case ConfigKind::kFile:
    case ConfigKind::kDirectory:
    case ConfigKind::kLayerIndices:  // the text "0,3", read by apply_overrides
      option = typed(std::string{});
      break;
    case ConfigKind::kTrackFiles:  // --profile-bigwigs a.bw plus.bw,minus.bw (or repeated)
    case ConfigKind::kTextList:    // --tile chr1 --tile chr2
      option = typed(std::vector<std::string>{});
      break;
    case ConfigKind::kModel:
      throw Error(
          fmt::format("{}: the model has no flag (the --model flag names a preset)", key.key));
  }
  option->description(flag_help(flag));
  // A command's own words and files are flag syntax, checked as CLI11 reads them (exit status
  // 2); the config's are checked as a config file's keys.
  if (!flag.config && key.kind() == ConfigKind::kWord && !key.choices.empty()) {
    option->check(CLI::IsMember(key.choices));
  }
  if (!flag.config && key.kind() == ConfigKind::kFile) option->check(CLI::ExistingFile);
  if (const std::string group = flag_group(key); !group.empty()) option->group(group);
  if (key.required) option->required();
  // A flag given without a value takes its implicit one: `simulate --list`.
  if (!key.implicit_value.empty()) option->expected(0, 1)->default_str(key.implicit_value);
}

}  // namespace

void check_flag_value(const ConfigKey& key, const ConfigValue& value) {
  if (key.rule) key.rule(key.flag, value);
  check_range(key.flag, value, key.range, key.range_note);
}

std::string flag_help(const CommandFlag& flag) {
  const ConfigKey& key = *flag.key;
  std::string help = key.help;
  if (key.kind() == ConfigKind::kWord) {
    help += fmt::format("; one of {}", fmt::join(words_of(key), ", "));
  }
  if (!flag.config) {
    const bool shows_default = key.kind() != ConfigKind::kFlag && !flag.default_text.empty();
    return shows_default ? fmt::format("{} (default: {})", help, flag.default_text) : help;
  }
  std::string config = key.key;
  if (key.kind() == ConfigKind::kFlag) config += fmt::format(" = {}", key.switch_value());
  if (key.selects_section()) config += "; a change resets the other " + key.section() + " keys";
  return fmt::format("{} (config: {})", help, config);
}

CommandFlags& CommandFlags::config(ConfigOverrides& overrides) {
  const RunConfig defaults = default_config();
  for (const ConfigKey& key : config_keys()) {
    if (!key.taken_by(command_)) continue;
    CommandFlag flag;
    flag.key = &key;
    flag.set = [&overrides, &key](ConfigValue value) { overrides.set(key.key, std::move(value)); };
    flag.default_text = default_words(key.field.get(defaults));
    flag.config = true;
    flags_.push_back(std::move(flag));
  }
  return *this;
}

void CommandFlags::add_to(CLI::App* app) const {
  for (const CommandFlag& flag : flags_) add_flag(app, flag, given_);
}

std::string CommandFlags::markdown() const {
  // The run's commands take every config key's flag, listed once in the key table.
  const bool run_command = is_run_command(command_);
  std::string text =
      "| flag | kind | default | values | meaning |\n"
      "|---|---|---|---|---|\n";
  for (const CommandFlag& flag : flags_) {
    if (flag.config && run_command) continue;
    const ConfigKey& key = *flag.key;
    std::string name = fmt::format("`{}`", key.flag);
    if (key.kind() == ConfigKind::kFlag) name += fmt::format(" (sets {})", key.switch_value());
    if (key.required) name += " (required)";
    // One table row: a help of several lines ("...:\n  basset: ...") becomes one.
    std::string help = key.help;
    for (size_t at = help.find(":\n  "); at != std::string::npos; at = help.find(":\n  ")) {
      help.replace(at, 4, ": ");
    }
    for (size_t at = help.find("\n  "); at != std::string::npos; at = help.find("\n  ")) {
      help.replace(at, 3, "; ");
    }
    const std::string meaning =
        flag.config ? fmt::format("{} (config key `{}`)", help, key.key) : help;
    text += fmt::format("| {} | {} | {} | {} | {} |\n", name, kind_text(key),
                        flag.default_text.empty() ? "" : fmt::format("`{}`", flag.default_text),
                        values_text(key), meaning);
  }
  if (run_command) text += "\nand the flag of every config key that has one (the table above).\n";
  return text;
}

}  // namespace strand::cli
