// Scoring the variants of a VCF/BCF/TSV with a trained model: for every ALT, the model's
// predictions for windows of the reference and the alternate allele (chrombpnet's windows,
// variants/allele_windows.h), and scores per output and task (variants/variant_scores.h),
// streamed in input order to a sink (a TSV, VCF or BCF: variants/score_files.h, or a caller's
// own). Memory stays flat: variants are read, windowed (through data::DataLoader's worker
// threads), scored and written a chunk at a time.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "layers/model.h"
#include "variants/variant_reader.h"
#include "variants/variant_scores.h"

namespace strand::variants {

/// What to do when a variant's REF differs from the FASTA.
enum class RefMismatchPolicy {
  kError,  ///< stop with an error listing the first mismatches and their lines
  kSkip,   ///< skip the variant (counted)
  kWarn,   ///< score it anyway (REF goes into the ref window, as chrombpnet does), warn
};
/// "error", "skip" or "warn"; throws strand::Error naming the word otherwise.
RefMismatchPolicy parse_ref_mismatch_policy(std::string_view word);

/// What to do with a window that runs past the start or end of its contig.
enum class ContigEndPolicy {
  kPad,   ///< bases beyond the contig are N
  kSkip,  ///< skip the variant (counted)
};
/// "pad" or "skip"; throws strand::Error naming the word otherwise.
ContigEndPolicy parse_contig_end_policy(std::string_view word);

/// Why an ALT was not scored.
enum class SkipReason {
  kSymbolic,          ///< <DEL>, <INS>, a breakend: no sequence to put in the window
  kSpanningDeletion,  ///< '*': the allele is deleted by an overlapping variant
  kTooLong,           ///< REF or ALT longer than the window from its centre to its end
  kContigEnd,         ///< the window runs past the contig (ContigEndPolicy::kSkip)
  kRefMismatch,       ///< REF differs from the FASTA (RefMismatchPolicy::kSkip)
};
inline constexpr size_t kSkipReasons = 5;
/// "symbolic", "spanning_deletion", "too_long", "contig_end" or "ref_mismatch".
const char* skip_reason_name(SkipReason reason);

/// One model output to score.
struct ScoredOutput {
  size_t index = 0;  ///< the model's output index
  std::string name;  ///< the output's name (column prefix when names collide)
  OutputKind kind = OutputKind::kValue;
  /// One name per task ((B, T) outputs) or track (profiles); empty or of another count:
  /// "<name>" for a single task, else "<name>_<i>".
  std::vector<std::string> task_names;
  std::vector<int64_t> tasks;  ///< the tasks or tracks to score, by index; empty: all
  /// With rc_average, the reverse complement's track each track averages with (a stranded
  /// pair swaps: cli::pair_reverse_strands); empty: each with itself.
  std::vector<int64_t> reverse_tracks;
};

/// One column of the scores table.
struct ScoreColumn {
  std::string name;         ///< "<task>.<score>", "<task>.<score>_pval" ("<output>." first on
                            ///< a clash of names between outputs)
  std::string description;  ///< one sentence for a VCF header
  size_t output = 0;        ///< which ScoredOutput (position in the options' list)
  int64_t task = 0;         ///< the task or track index
  std::string score;        ///< ref, alt, diff, log2fc or jsd
  bool p_value = false;     ///< the empirical p-value of `score` rather than the score
};

/// What a run did.
struct VariantSummary {
  int64_t records = 0;                          ///< input records (lines) read
  int64_t variants = 0;                         ///< ALT alleles read: output rows
  int64_t scored = 0;                           ///< ALT alleles scored
  std::array<int64_t, kSkipReasons> skipped{};  ///< per SkipReason
  int64_t ref_mismatches_scored = 0;  ///< scored although REF differs (RefMismatchPolicy::kWarn)
  int64_t padded = 0;                 ///< scored with N beyond a contig end
  /// Records with ALT '.' (monomorphic sites: no alternate allele), skipped; they give no row
  /// (a VCF/BCF output keeps them, without scores).
  int64_t monomorphic = 0;
  int64_t null_pairs = 0;  ///< allele pairs scored in shuffled backgrounds
  double seconds = 0.0;    ///< wall time, null backgrounds included
  int stop_signal = 0;     ///< a stop request (stop_signal()) ended the run
  /// Skipped ALTs in all.
  int64_t skipped_total() const;
  /// Scored ALTs per second of wall time.
  double variants_per_second() const;
};

/// How to score.
struct VariantScoringOptions {
  std::vector<ScoredOutput> outputs;  ///< at least one
  int64_t input_length = 0;           ///< L: the model's input window
  int64_t control_tracks = 0;         ///< Sc of a model with a control input (fed zeros)
  bool rc_average = false;            ///< average with the reverse complement's predictions
  int64_t batch_size = 64;            ///< variants per forward pass (two windows each)
  int loader_threads = 1;             ///< data::DataLoader workers cutting the windows
  /// Compute the alt windows of a Sequential model (convolutions and pooling, then layers
  /// that mix positions, as Basset) from its ref windows' activations, recomputing only the
  /// positions an allele reaches (alternates/alternate_forward.h): the same scores up to float
  /// rounding. Off: two full passes per pair.
  bool incremental = true;
  RefMismatchPolicy ref_mismatch = RefMismatchPolicy::kError;
  ContigEndPolicy contig_end = ContigEndPolicy::kPad;
  /// Variants-file contig name -> FASTA record name (read_contig_aliases()).
  std::map<std::string, std::string, std::less<>> contig_aliases;
  std::string contig_alias_file;  ///< where the aliases came from, for messages
  /// N > 0: every scorable variant's alleles are also scored in N dinucleotide shuffles of its
  /// window's bases (chrombpnet's null), pooled per score into a null distribution, and diff,
  /// log2fc and jsd get empirical p-values (columns "<task>.<score>_pval").
  int64_t null_shuffles = 0;
  uint64_t seed = 1;  ///< seeds the shuffles
  /// The null kept per score: a uniform sample of at most this many values (p-values resolve
  /// to 1 / (this + 1)); memory stays flat over any number of variants.
  int64_t null_values_per_score = 100'000;
  int64_t listed_mismatches = 10;  ///< REF mismatches listed by the kError policy's message
  int64_t warned_mismatches = 10;  ///< REF mismatches warned about one by one (kWarn)
  int64_t chunk_variants = 4096;   ///< variants read, scored and written at a time
  /// Called after each chunk with the figures so far (progress lines).
  std::function<void(const VariantSummary&)> progress;
};

/// Where the rows go, in input order: one call per input record.
class VariantScoreSink {
 public:
  virtual ~VariantScoreSink() = default;
  /// Whether write() needs VariantRecord::raw (the htslib record, to write a VCF/BCF back out).
  virtual bool needs_records() const { return false; }
  /// Called once before the first record with the columns and the open input (its format
  /// and VCF header). Throws when the sink cannot take this input.
  virtual void begin(std::span<const ScoreColumn> columns, const VariantReader& input) = 0;
  /// One record and its values: (record.alts.size(), columns) row-major; NaN for an ALT that
  /// was not scored.
  virtual void write(const VariantRecord& record, std::span<const float> values) = 0;
  /// Publishes what was written; a sink destroyed without commit() leaves nothing behind.
  virtual void commit() = 0;
};

/// The columns score_variants() fills for `model` and `options`, in order: per output, per
/// task, per score, each score followed by its p-value when the null is on.
std::vector<ScoreColumn> score_columns(const Model& model, const VariantScoringOptions& options);

/// Scores every ALT of the variants file `variants` with `model` against the genome `fasta`
/// and writes the rows to `sink` in input order, then commits it. Returns what it did. Throws
/// DataError for bad input, naming the file and line (a contig missing from the FASTA, with an
/// explanation when the names differ by a "chr" prefix; REF mismatches under kError; a
/// malformed line), and strand::Error for options the model does not fit or predictions that
/// are not finite; the sink is then not committed. A stop request (request_stop, as
/// the CLI's SIGINT handler makes) ends the run at the next batch without committing, with
/// VariantSummary::stop_signal set.
VariantSummary score_variants(Model& model, const std::string& variants, const std::string& fasta,
                              VariantScoreSink& sink, const VariantScoringOptions& options);

}  // namespace strand::variants
