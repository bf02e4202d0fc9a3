// `strand simulate`: writes a simulated dataset in the formats real data comes in. The
// sequence-level simulations (DragoNN's) write FASTA records + label TSVs that
// `strand train --format records` reads; the ChIP-nexus-like profile simulation writes a genome
// FASTA, stranded bigWigs, a control bigWig and narrowPeak splits. `--list` names the
// simulations and the motifs.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/run_config.h"

namespace CLI {
class App;
}

namespace strand::cli {

struct SimulateOptions {
  SimulatedDataConfig data;  // motif, motif file, sizes, length, GC, validation and test sizes
  uint64_t seed = 0;
  std::string out;
  std::string list;  // "" (no listing), "simulations" or "motifs"
  std::string simulation = "single_motif_detection";
  // The other simulations' settings; unset: the simulation's default.
  std::optional<std::string> motifs;      // comma-separated motif names
  std::optional<std::string> neg_motifs;  // differential_accessibility's negative set
  std::optional<int64_t> n_seqs, min_motifs, max_motifs, neg_min_motifs, neg_max_motifs;
  std::optional<double> mean_motifs;
  std::optional<int64_t> center_size, min_spacing, max_spacing;
  std::optional<int64_t> contigs, contig_length, peaks, footprint_offset, footprint_width, window;
  std::optional<double> reads_per_peak, background_rate, control_rate;
  bool no_control = false;
  std::vector<std::string> given_flags;  // the flags on the command line, e.g. "--n-pos"
};

/// Declares the flags of `strand simulate` on `command`, writing into `options` (which must
/// outlive the parse); the flags given are recorded in options.given_flags.
void add_simulate_flags(CLI::App* command, SimulateOptions& options);

/// Runs `strand simulate`: with options.list, prints the simulations or the motifs; otherwise
/// writes the dataset of options.simulation under options.out and prints its sizes and the
/// commands that inspect and train on it. Throws ConfigError for a flag the simulation does not
/// use, a bad value or an unknown simulation or motif.
void run_simulate(const SimulateOptions& options, std::ostream& log);

}  // namespace strand::cli
