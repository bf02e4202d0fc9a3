// `strand simulate`: writes a simulated single-motif dataset as FASTA + label TSV files that
// `strand train --format records` reads back.
#pragma once

#include <ostream>
#include <string>

#include "cli/run_config.h"

namespace strand::cli {

struct SimulateOptions {
  SimulatedDataConfig data;
  uint64_t seed = 0;
  std::string out;
};

/// Writes <out>/{train,valid,test}.{fa,tsv} and prints the sizes and a training command.
void run_simulate(const SimulateOptions& options, std::ostream& log);

}  // namespace strand::cli
