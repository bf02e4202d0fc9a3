// The strand command line: subcommands train, predict, simulate, negatives, prepare, inspect,
// summary, layers and config-keys. main() only forwards here, so tests drive the exact same flag
// parsing. Every command's flags come from the key tables (app/config_keys.h,
// cli/command_flags.h).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace strand::cli {

/// Parses argv and runs the subcommand; no arguments at all run `train` (the reference
/// experiment). Errors are printed to `err` as "error: <message>" and
/// give exit status 1 (2 for flag syntax errors); nothing here calls exit().
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

/// The commands, in the order `strand --help` lists them.
std::vector<std::string> command_names();

/// The flags of `command` as a Markdown table: its section of docs/config.md (a test keeps
/// them equal).
std::string command_flags_markdown(const std::string& command);

}  // namespace strand::cli
