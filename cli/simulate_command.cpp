// `strand simulate`: the simulation catalogue, its flags, and the dataset writers behind them.
#include "cli/simulate_command.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cli/data_builder.h"
#include "data/available_memory.h"
#include "data/data_error.h"
#include "data/meme.h"
#include "data/simulation/fasta_dataset_writer.h"
#include "data/simulation/profile_dataset_writer.h"
#include "data/simulation/profile_simulation.h"
#include "data/simulation/records_dataset_writer.h"
#include "data/simulation/sequence_simulations.h"

namespace strand::cli {
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
      data::MotifLibrary::load(data::default_motif_file()).size());
}

void print_motifs(const std::string& motif_file, std::ostream& log) {
  const std::filesystem::path path =
      motif_file.empty() ? data::default_motif_file() : std::filesystem::path(motif_file);
  const data::MotifLibrary library = data::MotifLibrary::load(path);
  log << fmt::format("{} motifs in {} (name, width, consensus):\n", library.size(), path.string());
  for (const data::Motif& motif : library.motifs()) {
    log << fmt::format("{:<32}{:>4}  {}\n", motif.name, motif.length(), motif.consensus);
  }
}

// The motifs named in "A,B,C", loaded once; an unknown name lists the closest ones.
std::vector<data::Motif> find_motifs(const std::string& names, const std::string& motif_file,
                                     const char* flag) {
  const std::filesystem::path path =
      motif_file.empty() ? data::default_motif_file() : std::filesystem::path(motif_file);
  const data::MotifLibrary library = data::MotifLibrary::load(path);
  std::vector<data::Motif> motifs;
  std::stringstream in(names);
  for (std::string name; std::getline(in, name, ',');) {
    if (name.empty()) continue;
    motifs.push_back(library.contains(name) ? library.get(name) : find_motif(name, motif_file));
  }
  if (motifs.empty()) {
    throw ConfigError(
        fmt::format("{}: expected motif names separated by commas, got '{}'", flag, names));
  }
  return motifs;
}

// A count flag's value, or `fallback` when not given: an integer in [lo, kMaxCount].
size_t count_of(const std::optional<int64_t>& value, int64_t fallback, int64_t lo,
                const char* flag) {
  const int64_t v = value.value_or(fallback);
  if (v < lo || v > kMaxCount) {
    throw ConfigError(fmt::format("{}: must be in [{}, {}], got {}", flag, lo, kMaxCount, v));
  }
  return static_cast<size_t>(v);
}

double rate_of(const std::optional<double>& value, double fallback, double hi, const char* flag) {
  const double v = value.value_or(fallback);
  if (!(v >= 0.0 && v <= hi)) {
    throw ConfigError(fmt::format("{}: must be in [0, {}], got {}", flag, hi, v));
  }
  return v;
}

data::MotifCount motif_count(const SimulateOptions& o, int64_t min, int64_t max) {
  data::MotifCount count;
  count.min = count_of(o.min_motifs, min, 0, "--min-motifs");
  count.max = count_of(o.max_motifs, max, 0, "--max-motifs");
  count.poisson_mean = rate_of(o.mean_motifs, 0.0, 1e6, "--mean-motifs");
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

std::string records_command(const std::filesystem::path& dir) {
  return fmt::format(
      "strand train --format records --fasta {0}/train.fa --intervals {0}/train.tsv --valid-fasta "
      "{0}/valid.fa --valid-intervals {0}/valid.tsv --test-fasta {0}/test.fa --test-intervals "
      "{0}/test.tsv",
      dir.string());
}

void run_single_motif(const SimulateOptions& options, std::ostream& log) {
  RunConfig check;
  check.data.simulated = options.data;
  validate_config(check);
  const data::SimulatedDataset dataset = simulate_dataset(options.data, options.seed);
  data::write_fasta_dataset(options.out, dataset);
  const std::filesystem::path dir(options.out);
  log << fmt::format("simulated {} ({} bp, seed {}): train {}, valid {}, test {} -> {}\n",
                     options.data.motif, options.data.length, options.seed, dataset.train.size(),
                     dataset.validation.size(), dataset.test.size(), dir.string());
  log << fmt::format("train on it with:\n  {}\n", records_command(dir));
  write_motifs(dir, {find_motif(options.data.motif, options.data.motif_file)}, log);
}

// The simulated sequences; `motifs` receives the motifs embedded.
data::SequenceDataset simulate_sequences(const SimulateOptions& o,
                                         const data::SequenceSimulationConfig& config,
                                         std::vector<data::Motif>& motifs) {
  const std::string& name = o.simulation;
  const SimulatedDataConfig& d = o.data;
  const auto n_pos = static_cast<size_t>(d.n_pos);
  const auto n_neg = static_cast<size_t>(d.n_neg);
  if (name == "motif_counting") {
    const data::MotifCount positives = motif_count(o, 3, 5);
    data::MotifCount negatives;
    negatives.min = count_of(o.neg_min_motifs, 1, 0, "--neg-min-motifs");
    negatives.max = count_of(o.neg_max_motifs, 2, 0, "--neg-max-motifs");
    negatives.poisson_mean = positives.poisson_mean;
    motifs = {find_motif(d.motif, d.motif_file)};
    return data::simulate_motif_counting(motifs[0], positives, negatives, n_pos, n_neg, config);
  }
  if (name == "motif_density_localization") {
    motifs = {find_motif(d.motif, d.motif_file)};
    return data::simulate_motif_density_localization(
        motifs[0], count_of(o.center_size, 150, 1, "--center-size"), motif_count(o, 2, 4), n_pos,
        n_neg, config);
  }
  if (name == "multi_motif_embedding") {
    motifs = find_motifs(o.motifs.value_or("CTCF_known1,ZNF143_known2,SIX5_known1"), d.motif_file,
                         "--motifs");
    return data::simulate_multi_motif_embedding(motifs, motif_count(o, 0, 3),
                                                count_of(o.n_seqs, 20000, 1, "--n-seqs"), config);
  }
  if (name == "heterodimer_grammar") {
    const std::vector<data::Motif> pair =
        find_motifs(o.motifs.value_or("SPI1_known4,IRF_known20"), d.motif_file, "--motifs");
    if (pair.size() != 2) {
      throw ConfigError(fmt::format(
          "--motifs: heterodimer_grammar needs exactly two motifs, got {}", pair.size()));
    }
    motifs = pair;
    return data::simulate_heterodimer_grammar(
        pair[0], pair[1], count_of(o.min_spacing, 2, 0, "--min-spacing"),
        count_of(o.max_spacing, 5, 0, "--max-spacing"), n_pos, n_neg, config);
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

void run_sequence_simulation(const SimulateOptions& o, std::ostream& log) {
  const size_t sequences = o.simulation == "multi_motif_embedding"
                               ? count_of(o.n_seqs, 20000, 1, "--n-seqs")
                               : static_cast<size_t>(o.data.n_pos + o.data.n_neg);
  RunConfig check;
  check.data.simulated = o.data;
  if (o.simulation == "multi_motif_embedding") {
    check.data.simulated.n_pos = static_cast<int64_t>(sequences);  // the split checks its total
    check.data.simulated.n_neg = 0;
  }
  validate_numbers(check);  // lengths, counts, GC and split sizes in range
  data::SequenceSimulationConfig config;
  config.seq_length = static_cast<size_t>(o.data.length);
  config.gc_fraction = o.data.gc_fraction;
  config.seed = o.seed;
  data::SequenceSplits splits;
  std::vector<data::Motif> motifs;
  try {
    // The codes exist twice while the splits are cut from them.
    data::require_memory(
        2.0 * static_cast<double>(sequences) * (static_cast<double>(o.data.length) + 64.0),
        fmt::format("the simulated dataset ({} sequences of {} bases) would", sequences,
                    o.data.length),
        "lower the number of sequences or --length");
    const data::SequenceDataset all = simulate_sequences(o, config, motifs);
    splits = data::split_dataset(all, static_cast<size_t>(o.data.test),
                                 static_cast<size_t>(o.data.validation), o.seed);
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
      fmt::join(train.task_names, ", "), train.seq_length, o.seed, train.size(),
      splits.validation.size(), splits.test.size(), dir.string());
  log << fmt::format("train on it with:\n  {}\n", records_command(dir));
  if (train.num_tasks() > 1) {
    log << fmt::format("  (the label TSVs hold {} tasks: the model needs {} outputs)\n",
                       train.num_tasks(), train.num_tasks());
  }
  write_motifs(dir, motifs, log);
}

void run_profile_simulation(const SimulateOptions& o, std::ostream& log) {
  data::ProfileSimulationConfig c;
  c.contigs = count_of(o.contigs, 5, 3, "--contigs");
  c.contig_length = count_of(o.contig_length, 200000, 1, "--contig-length");
  c.peaks_per_contig = count_of(o.peaks, 100, 0, "--peaks");
  c.reads_per_peak = rate_of(o.reads_per_peak, 200.0, 1e9, "--reads-per-peak");
  c.background_rate = rate_of(o.background_rate, 0.01, 1e3, "--background-rate");
  c.footprint_offset = count_of(o.footprint_offset, 15, 0, "--footprint-offset");
  c.footprint_width = count_of(o.footprint_width, 10, 0, "--footprint-width");
  c.control = !o.no_control;
  c.control_rate = rate_of(o.control_rate, 0.05, 1e3, "--control-rate");
  const size_t window = count_of(o.window, 1000, 2, "--window");
  c.flank = std::max(window / 2, c.footprint_offset + c.footprint_width);
  c.gc_fraction = o.data.gc_fraction;
  c.seed = o.seed;
  if (!(c.gc_fraction >= 0.0 && c.gc_fraction <= 1.0)) {
    throw ConfigError(fmt::format("--gc-fraction: must be in [0, 1], got {}", c.gc_fraction));
  }
  const std::vector<data::Motif> motifs =
      find_motifs(o.motifs.value_or("POU5F1_known1,SOX2_1"), o.data.motif_file, "--motifs");
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
      fmt::join(sim.task_names, ", "), c.contigs, c.contig_length, c.peaks_per_contig, o.seed,
      files.train_peaks, c.contigs - 2, files.validation_peaks, c.contigs - 1, files.test_peaks,
      c.contigs, dir.string());
  const std::string data_flags = fmt::format(
      "--format narrowpeak --fasta {} --intervals {} --window {} --profile-bigwigs {}{}{}",
      files.fasta.string(), files.train.string(), window, fmt::join(pairs, " "),
      files.control.empty() ? "" : " --control-bigwigs ", files.control.string());
  log << fmt::format("inspect it with:\n  strand inspect {} --targets counts\n", data_flags);
  log << fmt::format(
      "train on it with (count labels per task; the profiles arrive as batch.profile):\n"
      "  strand train {} --valid-intervals {} --test-intervals {} --targets counts --loss mse\n",
      data_flags, files.validation.string(), files.test.string());
  write_motifs(dir, motifs, log);
}

}  // namespace

void add_simulate_flags(CLI::App* simulate, SimulateOptions& o) {
  simulate
      ->add_option("--list", o.list,
                   "Print the simulations (--list, --list simulations) or the motifs of the "
                   "motif file with their widths (--list motifs), and exit")
      ->expected(0, 1)
      ->default_str("simulations")
      ->check(CLI::IsMember({"simulations", "motifs"}));
  simulate->add_option("--simulation", o.simulation, "The simulation (--list describes them)")
      ->capture_default_str();
  simulate->add_option("--motif", o.data.motif, "Motif name (one-motif simulations)")
      ->capture_default_str();
  simulate->add_option("--motif-file", o.data.motif_file,
                       "ENCODE-format motif file (default: the shipped one)");
  simulate->add_option("--n-pos", o.data.n_pos, "Positive sequences")->capture_default_str();
  simulate->add_option("--n-neg", o.data.n_neg, "Negative sequences")->capture_default_str();
  simulate->add_option("--length", o.data.length, "Sequence length")->capture_default_str();
  simulate->add_option("--gc-fraction", o.data.gc_fraction, "Background GC")->capture_default_str();
  simulate->add_option("--validation", o.data.validation, "Validation sequences")
      ->capture_default_str();
  simulate->add_option("--test", o.data.test, "Test sequences")->capture_default_str();
  simulate->add_option("--seed", o.seed, "Seed")->capture_default_str();
  simulate->add_option("--out", o.out, "Output directory (required unless --list)");
  const std::string group = "Other simulations (defaults depend on the simulation)";
  const auto add = [&](const std::string& flag, auto& target, const std::string& help) {
    simulate->add_option(flag, target, help)->group(group);
  };
  add("--motifs", o.motifs,
      "Motif names, comma-separated (multi_motif_embedding: CTCF_known1,ZNF143_known2,SIX5_known1; "
      "heterodimer_grammar: the pair SPI1_known4,IRF_known20; differential_accessibility: the "
      "positive set CTCF_known1,ZNF143_known2; chip_nexus_profile: one task per motif, "
      "POU5F1_known1,SOX2_1)");
  add("--neg-motifs", o.neg_motifs,
      "differential_accessibility: the negative set (SIX5_known1,TAL1_known4)");
  add("--n-seqs", o.n_seqs, "multi_motif_embedding: sequences (20000)");
  add("--min-motifs", o.min_motifs,
      "Fewest motifs per sequence (counting: 3 for positives; localization: 2; multi-motif: 0; "
      "differential: 1)");
  add("--max-motifs", o.max_motifs,
      "Most motifs per sequence (counting: 5 for positives; localization: 4; multi-motif: 3; "
      "differential: 2)");
  add("--mean-motifs", o.mean_motifs,
      "> 0: motifs per sequence are Poisson with this mean, redrawn until in "
      "[--min-motifs, --max-motifs] (0: uniform)");
  add("--neg-min-motifs", o.neg_min_motifs, "motif_counting: fewest motifs of negatives (1)");
  add("--neg-max-motifs", o.neg_max_motifs, "motif_counting: most motifs of negatives (2)");
  add("--center-size", o.center_size,
      "motif_density_localization: central bases holding the positives' motifs (150)");
  add("--min-spacing", o.min_spacing, "heterodimer_grammar: least gap between the motifs (2)");
  add("--max-spacing", o.max_spacing, "heterodimer_grammar: largest gap between the motifs (5)");
  add("--contigs", o.contigs,
      "chip_nexus_profile: contigs; the last is the test set, the one before it validation (5)");
  add("--contig-length", o.contig_length, "chip_nexus_profile: bases per contig (200000)");
  add("--peaks", o.peaks, "chip_nexus_profile: motif instances (peaks) per contig (100)");
  add("--reads-per-peak", o.reads_per_peak,
      "chip_nexus_profile: Poisson mean of a peak's reads, both strands (200)");
  add("--background-rate", o.background_rate,
      "chip_nexus_profile: Poisson reads per base and strand everywhere (0.01)");
  add("--footprint-offset", o.footprint_offset,
      "chip_nexus_profile: + reads centre this far left of the motif centre, - reads as far "
      "right (15)");
  add("--footprint-width", o.footprint_width,
      "chip_nexus_profile: half-width of each strand's triangular read pile (10)");
  add("--control-rate", o.control_rate,
      "chip_nexus_profile: Poisson reads per base of control.bw (0.05)");
  add("--window", o.window,
      "chip_nexus_profile: the training window of the printed command; peaks stay half of it "
      "from contig ends (1000)");
  simulate->add_flag("--no-control", o.no_control, "chip_nexus_profile: write no control.bw")
      ->group(group);
  // Which flags were given, so that run_simulate can refuse those the simulation ignores.
  simulate->final_callback([simulate, &o] {
    o.given_flags.clear();
    for (const CLI::Option* option : simulate->get_options()) {
      if (option->count() > 0 && option->get_name() != "--help") {
        o.given_flags.push_back(option->get_name());
      }
    }
  });
}

void run_simulate(const SimulateOptions& options, std::ostream& log) {
  if (!options.list.empty()) {
    if (options.list == "motifs") {
      print_motifs(options.data.motif_file, log);
    } else {
      print_simulations(log);
    }
    return;
  }
  const SimulationInfo& info = find_simulation(options.simulation);
  check_flags(info, options.given_flags);
  if (options.out.empty()) throw ConfigError("--out: an output directory is required");
  if (info.name == "single_motif_detection") {
    run_single_motif(options, log);
  } else if (info.name == "chip_nexus_profile") {
    run_profile_simulation(options, log);
  } else {
    run_sequence_simulation(options, log);
  }
}

}  // namespace strand::cli
