// `strand motifs`: flags, checks, the discovery and its files.
#include "cli/motifs_command.h"

#include <fmt/format.h>
#include <omp.h>

#include <chrono>
#include <filesystem>
#include <limits>

#include "app/command_paths.h"
#include "app/config_error.h"
#include "io/atomic_file.h"
#include "motifs/discover.h"
#include "motifs/hits.h"
#include "motifs/report_html.h"
#include "motifs/results_files.h"
#include "motifs/score_set.h"

namespace strand::cli {

using app::ConfigError;
using app::ConfigKey;
using app::field;
namespace {

motifs::DiscoverOptions discover_options(const MotifsOptions& o) {
  motifs::DiscoverOptions d;
  d.seqlets.window = o.window;
  d.seqlets.flank = o.flank;
  d.seqlets.target_fdr = o.target_fdr;
  d.seqlets.max_seqlets = o.max_seqlets;
  d.leiden_runs = static_cast<int>(o.leiden_runs);
  d.neighbours = o.neighbours;
  d.threads = o.threads > 0 ? static_cast<int>(o.threads) : omp_get_max_threads();
  return d;
}

void print_patterns(const motifs::Discovery& d, std::ostream& log) {
  log << fmt::format("{:<16}{:>9}{:>7}  {}\n", "pattern", "seqlets", "width", "consensus");
  for (const motifs::NamedPattern& named : motifs::named_patterns(d)) {
    const std::vector<double> ppm = named.pattern->mean(motifs::Track::kOneHot);
    const auto [first, last] = motifs::trimmed_span(named.pattern->mean(motifs::Track::kContrib));
    std::string consensus;
    for (int64_t p = first; p < last; ++p) {
      const double* column = ppm.data() + p * 4;
      consensus += "ACGT"[std::max_element(column, column + 4) - column];
    }
    log << fmt::format("{:<16}{:>9}{:>7}  {}\n", named.name, named.pattern->seqlets().size(),
                       last - first, consensus);
  }
}

}  // namespace

const std::vector<ConfigKey>& motifs_keys() {
  const std::vector<std::string> motifs = {"motifs"};
  static const std::vector<ConfigKey> keys = {
      {.key = "scores",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.scores; }),
       .text = app::TextKind::kFile,
       .flag = "--scores",
       .help = "Hypothetical contributions, .npz with arr_0 (N, 4, L) (strand explain --out); "
               "required",
       .commands = motifs},
      {.key = "sequences",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.sequences; }),
       .text = app::TextKind::kFile,
       .flag = "--sequences",
       .help = "One-hot sequences, .npz with arr_0 (N, 4, L)",
       .commands = motifs,
       .unset = "<stem>_onehot.npz beside --scores"},
      {.key = "out",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.out; }),
       .text = app::TextKind::kDirectory,
       .flag = "--out",
       .help = "Folder of results: motifs.meme, patterns.npz, seqlets.tsv, modisco_results.h5, "
               "report.html; required",
       .commands = motifs},
      {.key = "motif-db",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.motif_db; }),
       .text = app::TextKind::kFile,
       .flag = "--motif-db",
       .help = "A MEME file of known motifs: report.html lists each pattern's best matches "
               "(TOMTOM-like p- and q-values)",
       .commands = motifs},
      {.key = "max-seqlets",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.max_seqlets; }),
       .range = IntRange{1, 10000000},
       .flag = "--max-seqlets",
       .help = "Seqlets clustered per sign (modisco's -n)",
       .commands = motifs},
      {.key = "window",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.window; }),
       .range = IntRange{1, 1000},
       .flag = "--window",
       .help = "Sliding window of seqlet calling, bases",
       .commands = motifs},
      {.key = "flank",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.flank; }),
       .range = IntRange{0, 1000},
       .flag = "--flank",
       .help = "Bases added on each side of a seqlet's window",
       .commands = motifs},
      {.key = "target-fdr",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.target_fdr; }),
       .range = RealRange{0.0, 1.0},
       .flag = "--target-fdr",
       .help = "False discovery rate of seqlet windows against the Laplace null",
       .commands = motifs},
      {.key = "leiden-runs",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.leiden_runs; }),
       .range = IntRange{1, 1000},
       .flag = "--leiden-runs",
       .help = "Leiden runs (seeds) per clustering; the best modularity is kept",
       .commands = motifs},
      {.key = "neighbours",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.neighbours; }),
       .range = IntRange{1, 100000},
       .flag = "--neighbours",
       .help = "Coarse nearest neighbours of each seqlet given the aligned similarity",
       .commands = motifs},
      {.key = "threads",
       .field = field<MotifsOptions>([](auto& o) -> auto& { return o.threads; }),
       .range = IntRange{.lo = 0, .up_to_thread_cap = true},
       .range_note = "0: OMP_NUM_THREADS, else all cores",
       .flag = "--threads",
       .help = "CPU threads",
       .commands = motifs},
  };
  return keys;
}

const std::vector<ConfigKey>& motif_hits_keys() {
  const std::vector<std::string> hits = {"motifs-hits"};
  static const std::vector<ConfigKey> keys = {
      {.key = "patterns",
       .field = field<MotifHitsOptions>([](auto& o) -> auto& { return o.patterns; }),
       .text = app::TextKind::kDirectory,
       .flag = "--patterns",
       .help = "A folder strand motifs wrote (its patterns.npz)",
       .commands = hits,
       .required = true},
      {.key = "scores",
       .field = field<MotifHitsOptions>([](auto& o) -> auto& { return o.scores; }),
       .text = app::TextKind::kFile,
       .flag = "--scores",
       .help = "Hypothetical contributions, .npz with arr_0 (N, 4, L)",
       .commands = hits,
       .required = true},
      {.key = "sequences",
       .field = field<MotifHitsOptions>([](auto& o) -> auto& { return o.sequences; }),
       .text = app::TextKind::kFile,
       .flag = "--sequences",
       .help = "One-hot sequences, .npz with arr_0 (N, 4, L)",
       .commands = hits,
       .unset = "<stem>_onehot.npz beside --scores"},
      {.key = "out",
       .field = field<MotifHitsOptions>([](auto& o) -> auto& { return o.out; }),
       .flag = "--out",
       .help = "TSV of hits: example start end strand pattern similarity contribution",
       .commands = hits,
       .required = true},
      {.key = "min-similarity",
       .field = field<MotifHitsOptions>([](auto& o) -> auto& { return o.min_similarity; }),
       .range = RealRange{-1.0, 1.0},
       .flag = "--min-similarity",
       .help = "Smallest Jaccard similarity of a seqlet with its best pattern to call a hit",
       .commands = hits},
      {.key = "threads",
       .field = field<MotifHitsOptions>([](auto& o) -> auto& { return o.threads; }),
       .range = IntRange{.lo = 0, .up_to_thread_cap = true},
       .range_note = "0: OMP_NUM_THREADS, else all cores",
       .flag = "--threads",
       .help = "CPU threads",
       .commands = hits},
  };
  return keys;
}

void run_motif_hits(const MotifHitsOptions& options, std::ostream& log) {
  const std::string sequences = options.sequences.empty()
                                    ? motifs::default_sequences_path(options.scores).string()
                                    : options.sequences;
  app::check_input_file(options.scores, "--scores");
  app::check_input_file(sequences, "--sequences");
  app::check_output_file(options.out, "--out");
  if (!std::filesystem::is_regular_file(std::filesystem::path(options.patterns) / "patterns.npz")) {
    throw ConfigError(
        fmt::format("--patterns: '{}' holds no patterns.npz (expected a folder "
                    "that strand motifs wrote)",
                    options.patterns));
  }
  std::vector<motifs::KnownPattern> patterns;
  motifs::ScoreSet scores;
  try {
    patterns = motifs::read_patterns(options.patterns);
    scores = motifs::read_score_set(options.scores, sequences);
  } catch (const std::runtime_error& error) {
    throw ConfigError(error.what());
  }
  motifs::SeqletOptions seqlets;
  seqlets.max_seqlets = std::numeric_limits<int64_t>::max();
  seqlets.threads = options.threads > 0 ? static_cast<int>(options.threads) : omp_get_max_threads();
  const std::vector<motifs::Hit> hits =
      motifs::find_hits(scores, patterns, seqlets, options.min_similarity);
  io::write_file_atomically(options.out, motifs::hits_tsv(hits, patterns));
  log << fmt::format("{} hits of {} patterns in {} sequences -> {}\n", hits.size(), patterns.size(),
                     scores.sequences, options.out);
}

void run_motifs(const MotifsOptions& options, std::ostream& log) {
  if (options.scores.empty()) throw ConfigError("--scores: the contribution scores are required");
  if (options.out.empty()) throw ConfigError("--out: the results folder is required");
  const std::string sequences = options.sequences.empty()
                                    ? motifs::default_sequences_path(options.scores).string()
                                    : options.sequences;
  app::check_input_file(options.scores, "--scores");
  app::check_input_file(sequences,
                        options.sequences.empty() ? "--sequences (default)" : "--sequences");
  app::check_input_file(options.motif_db, "--motif-db");
  const auto start = std::chrono::steady_clock::now();
  std::vector<motifs::Motif> database;
  motifs::ScoreSet scores;
  try {
    if (!options.motif_db.empty()) database = motifs::read_meme(options.motif_db);
    scores = motifs::read_score_set(options.scores, sequences);
  } catch (const std::runtime_error& error) {
    throw ConfigError(error.what());
  }
  log << fmt::format("read {} sequences of {} bases\n", scores.sequences, scores.length);
  const motifs::DiscoverOptions d = discover_options(options);
  const motifs::Discovery found =
      motifs::discover(scores, d, [&log](const std::string& line) { log << line << "\n"; });
  motifs::write_results(options.out, found, scores, scores.length);
  io::write_file_atomically(
      std::filesystem::path(options.out) / "report.html",
      motifs::report_html(found, database, "strand motifs: " + options.scores));
  print_patterns(found, log);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log << fmt::format("wrote {} ({:.1f} s, {} threads)\n", options.out, seconds, d.threads);
}

}  // namespace strand::cli
