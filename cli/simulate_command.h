// `strand simulate`: writes a simulated dataset in the formats real data comes in. The
// sequence-level simulations (DragoNN's) write FASTA records + label TSVs that
// `strand train --format records` reads; the ChIP-nexus-like profile simulation writes a genome
// FASTA, stranded bigWigs, a control bigWig and narrowPeak splits; the ATAC simulation a genome
// with a Tn5-like cut bias, a cut bigWig, peaks and non-peaks (ChromBPNet). `--list` names the
// simulations and the motifs.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/config_keys.h"
#include "app/run_config.h"
#include "data/simulation/atac_simulation.h"
#include "data/simulation/profile_simulation.h"

namespace strand::cli {

/// The settings of `strand simulate` of its own (simulate_keys()). The simulated data's common
/// settings (motif, motif file, sizes, length, GC, validation and test sizes, seed) are the run
/// config's keys, whose flags simulate takes too.
struct SimulateOptions {
  std::string out;
  std::string list;  // "" (no listing), "simulations" or "motifs"
  std::string simulation = "single_motif_detection";
  // The sequence simulations' settings; unset: the simulation's default.
  std::optional<std::string> motifs;      // comma-separated motif names
  std::optional<std::string> neg_motifs;  // differential_accessibility's negative set
  std::optional<int64_t> n_seqs, min_motifs, max_motifs, neg_min_motifs, neg_max_motifs;
  std::optional<double> mean_motifs;
  std::optional<int64_t> center_size, min_spacing, max_spacing;
  /// chip_nexus_profile's own settings (its GC fraction and seed are the config's).
  data::ProfileSimulationConfig profile;
  /// atac's own settings (its contigs, contig length and peaks are profile's flags).
  data::AtacSimulationConfig atac;
  double nonpeak_ratio = 2.0;            // atac: GC-matched non-peaks per peak
  int64_t window = 1000;                 // chip_nexus_profile: the printed command's window
  std::vector<std::string> given_flags;  // the flags on the command line, e.g. "--n-pos"
};

/// The rows of SimulateOptions.
const std::vector<app::ConfigKey>& simulate_keys();

/// Runs `strand simulate`: with options.list, prints the simulations or the motifs; otherwise
/// writes the dataset of options.simulation under options.out from the simulated data of
/// `config` (its motif, sizes, GC and seed) and prints its sizes and the commands that inspect
/// and train on it. Throws ConfigError for a flag the simulation does not use, a bad value or an
/// unknown simulation or motif.
void run_simulate(const SimulateOptions& options, const app::RunConfig& config, std::ostream& log);

}  // namespace strand::cli
