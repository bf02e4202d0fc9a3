// Simulated dataset export through data::write_fasta_dataset.
#include "cli/simulate_command.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/data_builder.h"
#include "data/simulation/fasta_dataset_writer.h"

namespace strand::cli {

void run_simulate(const SimulateOptions& options, std::ostream& log) {
  if (options.out.empty()) throw ConfigError("--out: an output directory is required");
  RunConfig check;
  check.data.simulated = options.data;
  validate_config(check);
  const data::SimulatedDataset dataset = simulate_dataset(options.data, options.seed);
  data::write_fasta_dataset(options.out, dataset);
  const std::filesystem::path dir(options.out);
  log << fmt::format("simulated {} ({} bp, seed {}): train {}, valid {}, test {} -> {}\n",
                     options.data.motif, options.data.length, options.seed, dataset.train.size(),
                     dataset.validation.size(), dataset.test.size(), dir.string());
  log << fmt::format(
      "train on it with:\n  strand train --format records --fasta {0}/train.fa --intervals "
      "{0}/train.tsv --valid-fasta {0}/valid.fa --valid-intervals {0}/valid.tsv --test-fasta "
      "{0}/test.fa --test-intervals {0}/test.tsv\n",
      dir.string());
}

}  // namespace strand::cli
