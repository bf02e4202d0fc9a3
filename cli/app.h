// The strand command line: subcommands train, predict, simulate, inspect and summary. main()
// only forwards here, so tests drive the exact same flag parsing.
#pragma once

#include <ostream>

namespace strand::cli {

/// Parses argv and runs the subcommand; no arguments at all run `train` (the reference
/// experiment). Errors are printed to `err` as "error: <message>" and
/// give exit status 1 (2 for flag syntax errors); nothing here calls exit().
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace strand::cli
