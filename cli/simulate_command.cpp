// `strand simulate`: the simulation catalogue, its flags, and the dataset writers behind them.
#include "cli/simulate_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "app/command_paths.h"
#include "app/data_builder.h"
#include "data/data_error.h"
#include "data/list_syntax.h"
#include "data/loader/available_memory.h"
#include "data/meme.h"
#include "data/simulation/atac_dataset_writer.h"
#include "data/simulation/atac_simulation.h"
#include "data/simulation/fasta_dataset_writer.h"
#include "data/simulation/profile_dataset_writer.h"
#include "data/simulation/profile_simulation.h"
#include "data/simulation/records_dataset_writer.h"
#include "data/simulation/sequence_simulations.h"

namespace strand::cli {

using app::check_output_directory;
using app::ConfigError;
using app::ConfigField;
using app::ConfigKey;
using app::count_field;
using app::field;
using app::find_motif;
using app::kMaxCount;
using app::RunConfig;
using app::simulate_dataset;
using app::SimulatedDataConfig;
using app::validate_config;
using app::validate_numbers;
using app::ValueRange;
namespace {

// One simulation of the catalogue: what it makes and the flags it reads besides the common ones
// (--simulation, --seed, --out, --motif-file, --gc-fraction).
struct SimulationInfo {
  std::string name;
  std::string description;
  std::vector<std::string> flags;
};

// Flags of every sequence-level simulation.
const std::vector<std::string> kSequenceFlags = {"--length", "--validation", "--test"};

std::vector<std::string> with_sequence_flags(std::vector<std::string> flags) {
  flags.insert(flags.end(), kSequenceFlags.begin(), kSequenceFlags.end());
  return flags;
}

const std::vector<SimulationInfo>& simulations() {
  static const std::vector<SimulationInfo> catalogue = {
      {"single_motif_detection",
       "positives hold one instance of --motif anywhere, negatives are background (DragoNN's TAL1 "
       "task; labels: 1 task)",
       with_sequence_flags({"--motif", "--n-pos", "--n-neg"})},
      {"motif_counting",
       "positives hold --min-motifs..--max-motifs instances of --motif, negatives "
       "--neg-min-motifs..--neg-max-motifs (1 task)",
       with_sequence_flags({"--motif", "--n-pos", "--n-neg", "--min-motifs", "--max-motifs",
                            "--mean-motifs", "--neg-min-motifs", "--neg-max-motifs"})},
      {"motif_density_localization",
       "--min-motifs..--max-motifs instances of --motif, inside the central --center-size bases "
       "for positives, anywhere for negatives (1 task)",
       with_sequence_flags({"--motif", "--n-pos", "--n-neg", "--min-motifs", "--max-motifs",
                            "--mean-motifs", "--center-size"})},
      {"multi_motif_embedding",
       "each sequence holds a random subset of --min-motifs..--max-motifs (or a Poisson with "
       "--mean-motifs) of --motifs; one task per motif",
       with_sequence_flags(
           {"--motifs", "--n-seqs", "--min-motifs", "--max-motifs", "--mean-motifs"})},
      {"heterodimer_grammar",
       "positives hold the two --motifs --min-spacing..--max-spacing bases apart, in order and "
       "forward; negatives hold both at independent places and strands (1 task)",
       with_sequence_flags({"--motifs", "--n-pos", "--n-neg", "--min-spacing", "--max-spacing"})},
      {"differential_accessibility",
       "positives hold a subset of --motifs, negatives of --neg-motifs, "
       "--min-motifs..--max-motifs each (1 task)",
       with_sequence_flags({"--motifs", "--neg-motifs", "--n-pos", "--n-neg", "--min-motifs",
                            "--max-motifs", "--mean-motifs"})},
      {"chip_nexus_profile",
       "a genome of --contigs random contigs with --peaks instances of --motifs each (one task "
       "per motif) and ChIP-nexus-like stranded read counts around them: genome.fa, "
       "<motif>.{plus,minus}.bw, control.bw, {train,valid,test}.narrowPeak (BPNet data)",
       {"--motifs", "--contigs", "--contig-length", "--peaks", "--reads-per-peak",
        "--background-rate", "--footprint-offset", "--footprint-width", "--no-control",
        "--control-rate", "--window"}},
      {"atac",
       "a genome of --contigs random contigs where every cut site carries a Tn5-like preference "
       "(motif Tn5_bias) and --peaks accessible peaks each hold one of --motifs (raising the "
       "cuts around it and footprinting its bases): genome.fa, cuts.bw, peaks.narrowPeak, "
       "GC-matched nonpeaks.bed, peaks_nonpeaks.bed (ChromBPNet data: bias model, then "
       "chrombpnet)",
       {"--motifs", "--contigs", "--contig-length", "--peaks", "--cuts-per-peak", "--nonpeak-ratio",
        "--window"}},
  };
  return catalogue;
}

const std::vector<std::string> kCommonFlags = {"--simulation", "--seed",        "--out",
                                               "--motif-file", "--gc-fraction", "--list"};

const SimulationInfo& find_simulation(const std::string& name) {
  for (const SimulationInfo& info : simulations()) {
    if (info.name == name) return info;
  }
  std::vector<std::string> names;
  for (const SimulationInfo& info : simulations()) names.push_back(info.name);
  throw ConfigError(
      fmt::format("--simulation: '{}' is not a simulation; expected one of {} "
                  "(strand simulate --list describes them)",
                  name, fmt::join(names, ", ")));
}

void print_simulations(std::ostream& log) {
  log << "simulations (strand simulate --simulation NAME ... --out DIR):\n";
  for (const SimulationInfo& info : simulations()) {
    log << fmt::format("  {:<28}{}\n", info.name, info.description);
  }
  log << fmt::format(
      "motifs: strand simulate --list motifs names the {} motifs of the library (--motif-file "
      "for another)\n",
      data::MotifLibrary::builtin().size());
}

void print_motifs(const std::string& motif_file, std::ostream& log) {
  const data::MotifLibrary library = data::MotifLibrary::load_or_builtin(motif_file);
  log << fmt::format("{} motifs in {} (name, width, consensus):\n", library.size(),
                     library.source());
  for (const data::Motif& motif : library.motifs()) {
    log << fmt::format("{:<32}{:>4}  {}\n", motif.name, motif.length(), motif.consensus);
  }
}

// The motifs named in "A,B,C", loaded once; an unknown name lists the closest ones.
std::vector<data::Motif> find_motifs(const std::string& names, const std::string& motif_file,
                                     const char* flag) {
  const data::MotifLibrary library = data::MotifLibrary::load_or_builtin(motif_file);
  // Empty entries and repeated names are errors: a repeated motif would make two tasks of one
  // name, whose files (chip_nexus_profile's <motif>.plus.bw) overwrite each other.
  std::vector<std::string> listed;
  try {
    listed = data::parse_name_list(names, flag);
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }
  std::vector<data::Motif> motifs;
  for (const std::string& name : listed) {
    motifs.push_back(library.contains(name) ? library.get(name) : find_motif(name, motif_file));
  }
  return motifs;
}

// An optional count flag's value, or the simulation's default.
size_t count_or(const std::optional<int64_t>& value, int64_t fallback) {
  return static_cast<size_t>(value.value_or(fallback));
}

data::MotifCount motif_count(const SimulateOptions& o, int64_t min, int64_t max) {
  data::MotifCount count;
  count.min = count_or(o.min_motifs, min);
  count.max = count_or(o.max_motifs, max);
  count.poisson_mean = o.mean_motifs.value_or(0.0);
  if (count.min > count.max) {
    throw ConfigError(fmt::format("--min-motifs {} exceeds --max-motifs {}", count.min, count.max));
  }
  return count;
}

// Refuses flags the chosen simulation does not read, so a typo'd setup is not silently ignored.
void check_flags(const SimulationInfo& info, const std::vector<std::string>& given) {
  for (const std::string& flag : given) {
    const bool common =
        std::find(kCommonFlags.begin(), kCommonFlags.end(), flag) != kCommonFlags.end();
    const bool used = std::find(info.flags.begin(), info.flags.end(), flag) != info.flags.end();
    if (!common && !used) {
      throw ConfigError(fmt::format("{}: not used by simulation {} (its flags: {})", flag,
                                    info.name, fmt::join(info.flags, ", ")));
    }
  }
}

// The motifs a simulation embeds, as MEME (data/meme.h) beside its data: what TOMTOM and
// `strand marginalize` read, and what TF-MoDISco's patterns are compared with.
void write_motifs(const std::filesystem::path& dir, const std::vector<data::Motif>& motifs,
                  std::ostream& log) {
  const std::filesystem::path path = dir / "motifs.meme";
  data::write_meme(path, motifs);
  log << fmt::format("motifs: {} ({} in MEME format)\n", path.string(), motifs.size());
}

std::vector<std::string> sim_motif_names(const std::vector<data::Motif>& motifs) {
  std::vector<std::string> names;
  for (const data::Motif& motif : motifs) names.push_back(motif.name);
  return names;
}

std::string records_command(const std::filesystem::path& dir) {
  return fmt::format(
      "strand train --format records --fasta {0}/train.fa --intervals {0}/train.tsv --valid-fasta "
      "{0}/valid.fa --valid-intervals {0}/valid.tsv --test-fasta {0}/test.fa --test-intervals "
      "{0}/test.tsv",
      dir.string());
}

void run_single_motif(const SimulateOptions& options, const RunConfig& config, std::ostream& log) {
  validate_config(config);
  const SimulatedDataConfig& data = config.data.simulated;
  const data::SimulatedDataset dataset = simulate_dataset(data, config.seed);
  data::write_fasta_dataset(options.out, dataset);
  const std::filesystem::path dir(options.out);
  log << fmt::format("simulated {} ({} bp, seed {}): train {}, valid {}, test {} -> {}\n",
                     data.motif, data.simulation.seq_length, config.seed, dataset.train.size(),
                     dataset.validation.size(), dataset.test.size(), dir.string());
  log << fmt::format("train on it with:\n  {}\n", records_command(dir));
  write_motifs(dir, {find_motif(data.motif, data.motif_file)}, log);
}

// The simulated sequences; `motifs` receives the motifs embedded.
data::SequenceDataset simulate_sequences(const SimulateOptions& o, const SimulatedDataConfig& d,
                                         const data::SequenceSimulationConfig& config,
                                         std::vector<data::Motif>& motifs) {
  const std::string& name = o.simulation;
  const size_t n_pos = d.simulation.num_pos;
  const size_t n_neg = d.simulation.num_neg;
  if (name == "motif_counting") {
    const data::MotifCount positives = motif_count(o, 3, 5);
    data::MotifCount negatives;
    negatives.min = count_or(o.neg_min_motifs, 1);
    negatives.max = count_or(o.neg_max_motifs, 2);
    negatives.poisson_mean = positives.poisson_mean;
    motifs = {find_motif(d.motif, d.motif_file)};
    return data::simulate_motif_counting(motifs[0], positives, negatives, n_pos, n_neg, config);
  }
  if (name == "motif_density_localization") {
    motifs = {find_motif(d.motif, d.motif_file)};
    return data::simulate_motif_density_localization(motifs[0], count_or(o.center_size, 150),
                                                     motif_count(o, 2, 4), n_pos, n_neg, config);
  }
  if (name == "multi_motif_embedding") {
    motifs = find_motifs(o.motifs.value_or("CTCF_known1,ZNF143_known2,SIX5_known1"), d.motif_file,
                         "--motifs");
    return data::simulate_multi_motif_embedding(motifs, motif_count(o, 0, 3),
                                                count_or(o.n_seqs, 20000), config);
  }
  if (name == "heterodimer_grammar") {
    const std::vector<data::Motif> pair =
        find_motifs(o.motifs.value_or("SPI1_known4,IRF_known20"), d.motif_file, "--motifs");
    if (pair.size() != 2) {
      throw ConfigError(fmt::format(
          "--motifs: heterodimer_grammar needs exactly two motifs, got {}", pair.size()));
    }
    motifs = pair;
    return data::simulate_heterodimer_grammar(pair[0], pair[1], count_or(o.min_spacing, 2),
                                              count_or(o.max_spacing, 5), n_pos, n_neg, config);
  }
  const std::vector<data::Motif> positive =
      find_motifs(o.motifs.value_or("CTCF_known1,ZNF143_known2"), d.motif_file, "--motifs");
  const std::vector<data::Motif> negative =
      find_motifs(o.neg_motifs.value_or("SIX5_known1,TAL1_known4"), d.motif_file, "--neg-motifs");
  motifs = positive;
  motifs.insert(motifs.end(), negative.begin(), negative.end());
  return data::simulate_differential_accessibility(positive, negative, motif_count(o, 1, 2), n_pos,
                                                   n_neg, config);
}

void run_sequence_simulation(const SimulateOptions& o, const RunConfig& config, std::ostream& log) {
  const data::MotifSimulationConfig& sim = config.data.simulated.simulation;
  const size_t sequences = o.simulation == "multi_motif_embedding" ? count_or(o.n_seqs, 20000)
                                                                   : sim.num_pos + sim.num_neg;
  RunConfig check = config;
  if (o.simulation == "multi_motif_embedding") {
    check.data.simulated.simulation.num_pos = sequences;  // the split checks its total
    check.data.simulated.simulation.num_neg = 0;
  }
  validate_numbers(check);  // lengths, counts, GC and split sizes in range
  data::SequenceSimulationConfig sequence_config;
  sequence_config.seq_length = sim.seq_length;
  sequence_config.gc_fraction = sim.gc_fraction;
  sequence_config.seed = config.seed;
  data::SequenceSplits splits;
  std::vector<data::Motif> motifs;
  try {
    // The codes exist twice while the splits are cut from them.
    data::require_memory(
        2.0 * static_cast<double>(sequences) * (static_cast<double>(sim.seq_length) + 64.0),
        fmt::format("the simulated dataset ({} sequences of {} bases) would", sequences,
                    sim.seq_length),
        "lower the number of sequences or --length");
    const data::SequenceDataset all =
        simulate_sequences(o, config.data.simulated, sequence_config, motifs);
    splits = data::split_dataset(all, sim.test_size, sim.validation_size, config.seed);
  } catch (const std::invalid_argument& error) {
    throw ConfigError(fmt::format("{}: {}", o.simulation, error.what()));
  } catch (const data::DataError& error) {
    throw ConfigError(fmt::format("{}: {}", o.simulation, error.what()));
  }
  data::write_records_dataset(o.out, splits);
  const std::filesystem::path dir(o.out);
  const data::SequenceDataset& train = splits.train;
  log << fmt::format(
      "simulated {} ({} task{}: {}; {} bp, seed {}): train {}, valid {}, test {} -> {}\n",
      o.simulation, train.num_tasks(), train.num_tasks() == 1 ? "" : "s",
      fmt::join(train.task_names, ", "), train.seq_length, config.seed, train.size(),
      splits.validation.size(), splits.test.size(), dir.string());
  log << fmt::format("train on it with:\n  {}\n", records_command(dir));
  if (train.num_tasks() > 1) {
    log << fmt::format("  (the label TSVs hold {} tasks: the model needs {} outputs)\n",
                       train.num_tasks(), train.num_tasks());
  }
  write_motifs(dir, motifs, log);
}

// The profile length the bpnet preset trains on `window`-base windows: its trunk is cropped to
// the profile plus 74 positions for the 75-wide profile head, and its published recipe (2114 in,
// 1000 out) keeps 114 more bases of context; the difference must be even to stay centred.
size_t bpnet_profile_length(size_t window) {
  size_t length = std::min<size_t>(1000, window - 114);
  if ((window - length) % 2 != 0) --length;
  return length;
}

void run_profile_simulation(const SimulateOptions& o, const RunConfig& config, std::ostream& log) {
  data::ProfileSimulationConfig c = o.profile;
  // The printed command trains the bpnet preset, which needs 116 bases at least (a profile of
  // 2 after the 114 bases of context).
  const auto window = static_cast<size_t>(o.window);
  c.flank = std::max(window / 2, c.footprint_offset + c.footprint_width);
  c.gc_fraction = config.data.simulated.simulation.gc_fraction;
  c.seed = config.seed;
  if (!(c.gc_fraction >= 0.0 && c.gc_fraction <= 1.0)) {
    throw ConfigError(fmt::format("--gc-fraction: must be in [0, 1], got {}", c.gc_fraction));
  }
  const std::vector<data::Motif> motifs = find_motifs(o.motifs.value_or("POU5F1_known1,SOX2_1"),
                                                      config.data.simulated.motif_file, "--motifs");
  data::ProfileSimulation sim;
  data::ProfileDatasetFiles files;
  try {
    // Codes plus two float tracks per task and a control track, per base.
    const double bases = static_cast<double>(c.contigs) * static_cast<double>(c.contig_length);
    data::require_memory(bases * (2.0 + 8.0 * static_cast<double>(motifs.size()) + 4.0),
                         fmt::format("the simulated genome ({} contigs of {} bases) would",
                                     c.contigs, c.contig_length),
                         "lower --contigs or --contig-length");
    sim = data::simulate_chip_nexus_profiles(motifs, c);
    files = data::write_profile_dataset(o.out, sim);
  } catch (const std::invalid_argument& error) {
    throw ConfigError(fmt::format("{}: {}", o.simulation, error.what()));
  }
  const std::filesystem::path dir(o.out);
  std::vector<std::string> pairs;
  for (size_t t = 0; t < files.plus.size(); ++t) {
    pairs.push_back(fmt::format("{},{}", files.plus[t].string(), files.minus[t].string()));
  }
  log << fmt::format(
      "simulated {} ({} task{}: {}; {} contigs of {} bp, {} peaks each, seed {}): train {} peaks "
      "(chr1..chr{}), valid {} (chr{}), test {} (chr{}) -> {}\n",
      o.simulation, sim.task_names.size(), sim.task_names.size() == 1 ? "" : "s",
      fmt::join(sim.task_names, ", "), c.contigs, c.contig_length, c.peaks_per_contig, c.seed,
      files.train_peaks, c.contigs - 2, files.validation_peaks, c.contigs - 1, files.test_peaks,
      c.contigs, dir.string());
  const std::string data_flags =
      fmt::format("--format narrowpeak --fasta {} --intervals {} --window {} --profile-bigwigs {}",
                  files.fasta.string(), files.train.string(), window, fmt::join(pairs, " "));
  log << fmt::format("inspect it with:\n  strand inspect {}{}{} --targets counts\n", data_flags,
                     files.control.empty() ? "" : " --control-bigwigs ", files.control.string());
  // The data is BPNet's: per-base profiles and their total counts, trained by the bpnet preset
  // (its profile head covers the window less 114 bases, at most its published 1000).
  const size_t profile_length = bpnet_profile_length(window);
  log << fmt::format(
      "train the bpnet preset on it (profiles per strand and total counts):\n"
      "  strand train --model bpnet {} --profile-length {} --valid-intervals {} "
      "--test-intervals {}\n",
      data_flags, profile_length, files.validation.string(), files.test.string());
  if (!files.control.empty()) {
    log << fmt::format(
        "  ({}: the bpnet preset reads no control track; a graph with a node reading the "
        "\"control\" input takes it with --control-bigwigs, docs/models.md)\n",
        files.control.string());
  }
  write_motifs(dir, motifs, log);
}

// The jitter of a preset's printed command: the preset's, at most a quarter of the window.
std::string jitter_flag(size_t preset_jitter, size_t window) {
  const size_t jitter = std::min(preset_jitter, window / 4);
  return jitter == preset_jitter ? "" : fmt::format(" --jitter {}", jitter);
}

// The ATAC simulation; prints the commands that train the bias model and then ChromBPNet.
void run_atac_simulation(const SimulateOptions& o, const RunConfig& config, std::ostream& log) {
  data::AtacSimulationConfig c = o.atac;
  c.contigs = o.profile.contigs;
  c.contig_length = o.profile.contig_length;
  c.peaks_per_contig = o.profile.peaks_per_contig;
  c.gc_fraction = config.data.simulated.simulation.gc_fraction;
  c.seed = config.seed;
  const bool window_given =
      std::find(o.given_flags.begin(), o.given_flags.end(), "--window") != o.given_flags.end();
  const size_t window = window_given ? static_cast<size_t>(o.window) : 2114;
  c.flank = std::max(c.peak_half_width + c.min_distance / 2, window / 2);
  if (!(c.gc_fraction >= 0.0 && c.gc_fraction <= 1.0)) {
    throw ConfigError(fmt::format("--gc-fraction: must be in [0, 1], got {}", c.gc_fraction));
  }
  const std::vector<data::Motif> motifs = find_motifs(o.motifs.value_or("TAL1_known4,SPI1_known4"),
                                                      config.data.simulated.motif_file, "--motifs");
  data::AtacSimulation sim;
  data::AtacDatasetFiles files;
  try {
    const double bases = static_cast<double>(c.contigs) * static_cast<double>(c.contig_length);
    data::require_memory(bases * (1.0 + 4.0 + 8.0 + 8.0),
                         fmt::format("the simulated genome ({} contigs of {} bases) would",
                                     c.contigs, c.contig_length),
                         "lower --contigs or --contig-length");
    sim = data::simulate_atac(motifs, c);
    files = data::write_atac_dataset(o.out, sim, window, o.nonpeak_ratio);
  } catch (const std::invalid_argument& error) {
    throw ConfigError(fmt::format("{}: {}", o.simulation, error.what()));
  } catch (const data::DataError& error) {
    throw ConfigError(fmt::format("{}: {}", o.simulation, error.what()));
  }
  const std::filesystem::path dir(o.out);
  log << fmt::format(
      "simulated atac ({} TF motif{}: {}; bias motif Tn5_bias {}; {} contigs of {} bp, seed {}): "
      "{} peaks, {} GC-matched non-peaks of {} bp -> {}\n",
      motifs.size(), motifs.size() == 1 ? "" : "s", fmt::join(sim_motif_names(motifs), ", "),
      sim.bias.consensus, c.contigs, c.contig_length, c.seed, files.peak_count, files.nonpeak_count,
      window, dir.string());
  const std::string data_flags = fmt::format(
      "--fasta {} --profile-bigwigs {} --window {} --profile-length {} --valid-chroms chr{} "
      "--test-chroms chr{} --output-dir {}",
      files.fasta.string(), files.cuts.string(), window, bpnet_profile_length(window),
      c.contigs - 1, c.contigs, (dir / "runs").string());
  log << fmt::format(
      "train the bias model on the non-peaks of low counts, then ChromBPNet on peaks and "
      "non-peaks with it:\n"
      "  strand train --model chrombpnet_bias --intervals {} --bias-peaks {} {}{} --run-name "
      "bias\n"
      "  strand train --model chrombpnet --bias-model {} --intervals {} {}{} --run-name "
      "chrombpnet\n",
      files.nonpeaks.string(), files.peaks.string(), data_flags, jitter_flag(50, window),
      (dir / "runs" / "bias").string(), files.peaks_nonpeaks.string(), data_flags,
      jitter_flag(500, window));
  std::vector<data::Motif> written = motifs;
  written.push_back(sim.bias);
  write_motifs(dir, written, log);
}

// A field of SimulateOptions: a count of the library's profile simulation (std::size_t) as an
// integer key, else by its type.
template <typename Select>
ConfigField profile_field(Select select) {
  using Value = app::field_detail::selected_t<SimulateOptions, Select>;
  if constexpr (std::is_same_v<Value, size_t>) {
    return count_field<SimulateOptions>(select);
  } else {
    return field<SimulateOptions>(select);
  }
}

}  // namespace

const std::vector<ConfigKey>& simulate_keys() {
  const std::vector<std::string> simulate = {"simulate"};
  const std::string other = "Other simulations (defaults depend on the simulation)";
  // A count of the other simulations, unset by default: [lo, kMaxCount].
  const auto count = [&](std::string key, auto select, int64_t lo, std::string help) {
    return ConfigKey{.key = key,
                     .field = field<SimulateOptions>(select),
                     .range = IntRange{lo, kMaxCount},
                     .flag = "--" + key,
                     .help = std::move(help),
                     .commands = simulate,
                     .unset = "the simulation's",
                     .group = other};
  };
  // A setting of chip_nexus_profile (data::ProfileSimulationConfig), its default the library's.
  const auto profile = [&](std::string key, auto select, ValueRange range, std::string help) {
    return ConfigKey{.key = key,
                     .field = profile_field(select),
                     .range = range,
                     .flag = "--" + key,
                     .help = "chip_nexus_profile: " + help,
                     .commands = simulate,
                     .group = other};
  };
  static const std::vector<ConfigKey> keys = {
      {.key = "list",
       .field = field<SimulateOptions>([](auto& o) -> auto& { return o.list; }),
       .choices = {"simulations", "motifs"},
       .flag = "--list",
       .help = "Print the simulations (--list, --list simulations) or the motifs of the motif "
               "file with their widths (--list motifs), and exit",
       .commands = simulate,
       .implicit_value = "simulations"},
      {.key = "simulation",
       .field = field<SimulateOptions>([](auto& o) -> auto& { return o.simulation; }),
       .flag = "--simulation",
       .help = "The simulation (--list describes them)",
       .commands = simulate},
      {.key = "out",
       .field = field<SimulateOptions>([](auto& o) -> auto& { return o.out; }),
       .flag = "--out",
       .help = "Output directory (required unless --list)",
       .commands = simulate},
      {.key = "motifs",
       .field = field<SimulateOptions>([](auto& o) -> auto& { return o.motifs; }),
       .flag = "--motifs",
       .help = "Motif names, comma-separated (multi_motif_embedding: "
               "CTCF_known1,ZNF143_known2,SIX5_known1; heterodimer_grammar: the pair "
               "SPI1_known4,IRF_known20; differential_accessibility: the positive set "
               "CTCF_known1,ZNF143_known2; chip_nexus_profile: one task per motif, "
               "POU5F1_known1,SOX2_1; atac: the peaks' TF motifs, TAL1_known4,SPI1_known4)",
       .commands = simulate,
       .unset = "the simulation's",
       .group = other},
      {.key = "neg-motifs",
       .field = field<SimulateOptions>([](auto& o) -> auto& { return o.neg_motifs; }),
       .flag = "--neg-motifs",
       .help = "differential_accessibility: the negative set (SIX5_known1,TAL1_known4)",
       .commands = simulate,
       .unset = "the simulation's",
       .group = other},
      count(
          "n-seqs", [](auto& o) -> auto& { return o.n_seqs; }, 1,
          "multi_motif_embedding: sequences (20000)"),
      count(
          "min-motifs", [](auto& o) -> auto& { return o.min_motifs; }, 0,
          "Fewest motifs per sequence (counting: 3 for positives; localization: 2; "
          "multi-motif: 0; differential: 1)"),
      count(
          "max-motifs", [](auto& o) -> auto& { return o.max_motifs; }, 0,
          "Most motifs per sequence (counting: 5 for positives; localization: 4; multi-motif: "
          "3; differential: 2)"),
      {.key = "mean-motifs",
       .field = field<SimulateOptions>([](auto& o) -> auto& { return o.mean_motifs; }),
       .range = RealRange{0.0, 1e6},
       .flag = "--mean-motifs",
       .help = "> 0: motifs per sequence are Poisson with this mean, redrawn until in "
               "[--min-motifs, --max-motifs] (0: uniform)",
       .commands = simulate,
       .unset = "0",
       .group = other},
      count(
          "neg-min-motifs", [](auto& o) -> auto& { return o.neg_min_motifs; }, 0,
          "motif_counting: fewest motifs of negatives (1)"),
      count(
          "neg-max-motifs", [](auto& o) -> auto& { return o.neg_max_motifs; }, 0,
          "motif_counting: most motifs of negatives (2)"),
      count(
          "center-size", [](auto& o) -> auto& { return o.center_size; }, 1,
          "motif_density_localization: central bases holding the positives' motifs (150)"),
      count(
          "min-spacing", [](auto& o) -> auto& { return o.min_spacing; }, 0,
          "heterodimer_grammar: least gap between the motifs (2)"),
      count(
          "max-spacing", [](auto& o) -> auto& { return o.max_spacing; }, 0,
          "heterodimer_grammar: largest gap between the motifs (5)"),
      profile(
          "contigs", [](auto& o) -> auto& { return o.profile.contigs; }, IntRange{3, kMaxCount},
          "contigs; the last is the test set, the one before it validation (atac too)"),
      profile(
          "contig-length", [](auto& o) -> auto& { return o.profile.contig_length; },
          IntRange{1, kMaxCount}, "bases per contig (atac too)"),
      profile(
          "peaks", [](auto& o) -> auto& { return o.profile.peaks_per_contig; },
          IntRange{0, kMaxCount}, "motif instances (peaks) per contig (atac too)"),
      profile(
          "reads-per-peak", [](auto& o) -> auto& { return o.profile.reads_per_peak; },
          RealRange{0.0, 1e9}, "Poisson mean of a peak's reads, both strands"),
      profile(
          "background-rate", [](auto& o) -> auto& { return o.profile.background_rate; },
          RealRange{0.0, 1e3}, "Poisson reads per base and strand everywhere"),
      profile(
          "footprint-offset", [](auto& o) -> auto& { return o.profile.footprint_offset; },
          IntRange{0, kMaxCount},
          "+ reads centre this far left of the motif centre, - reads as far right"),
      profile(
          "footprint-width", [](auto& o) -> auto& { return o.profile.footprint_width; },
          IntRange{0, kMaxCount}, "half-width of each strand's triangular read pile"),
      profile(
          "no-control", [](auto& o) -> auto& { return o.profile.control; }, {},
          "write no control.bw"),
      profile(
          "control-rate", [](auto& o) -> auto& { return o.profile.control_rate; },
          RealRange{0.0, 1e3}, "Poisson reads per base of control.bw"),
      profile(
          "window", [](auto& o) -> auto& { return o.window; }, IntRange{116, kMaxCount},
          "the training window of the printed command; peaks stay half of it from contig "
          "ends (atac: 2114 unless given)"),
      {.key = "cuts-per-peak",
       .field = field<SimulateOptions>([](auto& o) -> auto& { return o.atac.cuts_per_peak; }),
       .range = RealRange{0.0, 1e9},
       .flag = "--cuts-per-peak",
       .help = "atac: Poisson mean of a peak's cuts before the Tn5 bias",
       .commands = simulate,
       .group = other},
      {.key = "nonpeak-ratio",
       .field = field<SimulateOptions>([](auto& o) -> auto& { return o.nonpeak_ratio; }),
       .range = RealRange{0.0, 1000.0, true},
       .flag = "--nonpeak-ratio",
       .help = "atac: GC-matched non-peak windows per peak",
       .commands = simulate,
       .group = other},
  };
  return keys;
}

void run_simulate(const SimulateOptions& options, const RunConfig& config, std::ostream& log) {
  if (!options.list.empty()) {
    if (options.list == "motifs") {
      print_motifs(config.data.simulated.motif_file, log);
    } else {
      print_simulations(log);
    }
    return;
  }
  const SimulationInfo& info = find_simulation(options.simulation);
  check_flags(info, options.given_flags);
  check_output_directory(options.out, "--out");
  if (info.name == "single_motif_detection") {
    run_single_motif(options, config, log);
  } else if (info.name == "chip_nexus_profile") {
    run_profile_simulation(options, config, log);
  } else if (info.name == "atac") {
    run_atac_simulation(options, config, log);
  } else {
    run_sequence_simulation(options, config, log);
  }
}

}  // namespace strand::cli
