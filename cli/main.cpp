// strand: the command-line entry point (see cli/program.h for the subcommands).
#include <iostream>

#include "cli/program.h"

int main(int argc, char** argv) { return strand::cli::run_cli(argc, argv, std::cout, std::cerr); }
