// The variant scoring pipeline (variants/variant_scorer.h): read a chunk of records, decide
// per ALT whether and how it is scored, cut the windows in data::DataLoader's workers, run
// the model over window pairs, compute the scores and hand the chunk's rows to the sink.
#include "variants/variant_scorer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "core/error.h"
#include "core/stop_signal.h"
#include "data/counter_rng.h"
#include "data/data_error.h"
#include "data/encoding.h"
#include "data/loader/data_loader.h"
#include "data/text_fields.h"
#include "data/warnings.h"
#include "variants/allele_window_source.h"
#include "variants/contig_names.h"
#include "variants/pair_forward.h"

namespace strand::variants {
namespace {

using Clock = std::chrono::steady_clock;

// One (output, task, score) the scorer computes: a column, and the key of a null.
struct Measure {
  size_t output = 0;
  int64_t task = 0;
  size_t score = 0;  // index into score_names(kind)
  Tail tail = Tail::kNone;
};

std::string task_label(const ScoredOutput& output, int64_t task, int64_t count) {
  if (static_cast<int64_t>(output.task_names.size()) == count) {
    return output.task_names[static_cast<size_t>(task)];
  }
  return count == 1 ? output.name : fmt::format("{}_{}", output.name, task);
}

std::string score_description(const ScoredOutput& output, const std::string& task,
                              const std::string& score) {
  const std::string of = fmt::format("output '{}', task '{}'", output.name, task);
  if (score == "ref") return "prediction for the reference allele's window, " + of;
  if (score == "alt") return "prediction for the alternate allele's window, " + of;
  if (score == "diff") return "alt - ref prediction, " + of;
  if (score == "log2fc") {
    return output.kind == OutputKind::kLogCounts
               ? "log2 fold change of the predicted counts, (alt - ref) / ln 2 of log counts, " + of
               : "log2(alt / ref) of the predicted counts, " + of;
  }
  return "Jensen-Shannon distance (base 2) between the alt and ref profiles, " + of;
}

// The tasks an output scores, checked against its size.
std::vector<int64_t> scored_tasks(const ScoredOutput& output, int64_t count) {
  if (output.tasks.empty()) {
    std::vector<int64_t> all(static_cast<size_t>(count));
    for (int64_t t = 0; t < count; ++t) all[static_cast<size_t>(t)] = t;
    return all;
  }
  for (const int64_t task : output.tasks) {
    STRAND_CHECK(task >= 0 && task < count, "variants: output '{}' has {} task(s), not task {}",
                 output.name, count, task);
  }
  return output.tasks;
}

// Tasks per output: the (B, T) or (B, S, Lp) size the options say, checked below against
// the model's shapes (ScoredOutput carries no size: it comes from the model).
struct Layout {
  std::vector<Measure> measures;
  std::vector<ScoreColumn> columns;
  std::vector<int64_t> column_of_measure;  // the score's column
  std::vector<int64_t> pvalue_column;      // its p-value column, or -1
};

Layout make_layout(const VariantScoringOptions& options, const std::vector<int64_t>& task_counts) {
  Layout layout;
  const bool with_null = options.null_shuffles > 0;
  for (size_t o = 0; o < options.outputs.size(); ++o) {
    const ScoredOutput& output = options.outputs[o];
    const std::vector<std::string>& scores = score_names(output.kind);
    for (const int64_t task : scored_tasks(output, task_counts[o])) {
      const std::string label = task_label(output, task, task_counts[o]);
      for (size_t s = 0; s < scores.size(); ++s) {
        Measure measure{o, task, s, score_tail(scores[s])};
        layout.column_of_measure.push_back(static_cast<int64_t>(layout.columns.size()));
        layout.columns.push_back({label + "." + scores[s],
                                  score_description(output, label, scores[s]), o, task, scores[s],
                                  false});
        if (with_null && measure.tail != Tail::kNone) {
          layout.pvalue_column.push_back(static_cast<int64_t>(layout.columns.size()));
          layout.columns.push_back(
              {label + "." + scores[s] + "_pval",
               fmt::format("empirical p-value of {}.{} against the null of every variant's "
                           "alleles in {} dinucleotide-shuffled backgrounds ({})",
                           label, scores[s], options.null_shuffles,
                           measure.tail == Tail::kRight ? "right tail" : "two-sided"),
               o, task, scores[s], true});
        } else {
          layout.pvalue_column.push_back(-1);
        }
        layout.measures.push_back(measure);
      }
    }
  }
  // Two outputs naming tasks alike: every column is prefixed with its output's name.
  std::set<std::string> seen;
  bool clash = false;
  for (const ScoreColumn& column : layout.columns) clash |= !seen.insert(column.name).second;
  if (clash) {
    for (ScoreColumn& column : layout.columns) {
      column.name = options.outputs[column.output].name + "." + column.name;
    }
  }
  return layout;
}

// The size of each scored output's task (or track) dimension, from the model's shapes.
std::vector<int64_t> output_task_counts(const Model& model, const VariantScoringOptions& options) {
  InputShapes inputs;
  inputs.sequence = {options.input_length};
  if (options.control_tracks > 0) {
    inputs.tracks.emplace(kControlInput, Shape{options.control_tracks, options.input_length});
  }
  const std::vector<Shape> shapes = model.output_shapes(inputs);
  const std::vector<std::string> names = model.output_names();
  std::vector<int64_t> counts;
  for (const ScoredOutput& output : options.outputs) {
    STRAND_CHECK(output.index < shapes.size(), "variants: the model has {} output(s), not {}",
                 shapes.size(), output.index + 1);
    const Shape& shape = shapes[output.index];
    const bool profile = output.kind == OutputKind::kProfile;
    if (profile ? shape.size() != 2 : shape.size() != 1) {
      throw Error(
          fmt::format("variants: output '{}' gives ({}) per window; {} output needs {}",
                      names[output.index], fmt::join(shape, ", "), output_kind_name(output.kind),
                      profile ? "(tracks, positions): a profile" : "(tasks): one value per task"));
    }
    if (!output.reverse_tracks.empty()) {
      STRAND_CHECK(static_cast<int64_t>(output.reverse_tracks.size()) == shape[0],
                   "variants: output '{}' has {} tracks but {} reverse-complement mappings",
                   names[output.index], shape[0], output.reverse_tracks.size());
    }
    counts.push_back(shape[0]);
  }
  return counts;
}

// A uniform sample of at most `capacity` values (Algorithm R), seeded.
class Reservoir {
 public:
  Reservoir(int64_t capacity, uint64_t key) : capacity_(capacity), rng_(key) {}
  void add(float value) {
    ++seen_;
    if (static_cast<int64_t>(values_.size()) < capacity_) {
      values_.push_back(value);
      return;
    }
    const uint64_t slot = rng_.below(static_cast<uint64_t>(seen_));
    if (slot < static_cast<uint64_t>(capacity_)) values_[slot] = value;
  }
  std::vector<float> sorted() {
    std::sort(values_.begin(), values_.end());
    return std::move(values_);
  }

 private:
  int64_t capacity_;
  data::CounterRng rng_;
  int64_t seen_ = 0;
  std::vector<float> values_;
};

// One ALT of a chunk: why it is not scored, if it is not.
struct ChunkRow {
  std::optional<SkipReason> skipped;
};

// A REF that differs from the FASTA, for the kError policy's message.
struct Mismatch {
  std::string where;
  std::string chrom;
  int64_t position = 0;
  std::string ref;
  std::string fasta;
};

class ScoringRun {
 public:
  ScoringRun(Model& model, const std::string& variants, const std::string& fasta,
             const VariantScoringOptions& options)
      : model_(model), variants_(variants), options_(options), fasta_(fasta) {
    check_options();
    names_.emplace(fasta_.contigs(), options_.contig_aliases, options_.contig_alias_file);
    source_ = std::make_shared<AlleleWindowSource>(fasta_, options_.input_length);
    std::vector<PairOutput> outputs;
    for (const ScoredOutput& output : options_.outputs) {
      outputs.push_back({output.index, output.kind == OutputKind::kProfile, output.reverse_tracks});
    }
    forward_.emplace(model_, std::move(outputs), options_.control_tracks, options_.rc_average,
                     options_.input_length, options_.incremental);
    layout_ = make_layout(options_, output_task_counts(model_, options_));
  }

  VariantSummary run(VariantScoreSink& sink) {
    const Clock::time_point start = Clock::now();
    if (options_.null_shuffles > 0) {
      null_pass();
      if (summary_.stop_signal != 0) return finish(start);
    }
    VariantReaderOptions reader_options;
    reader_options.keep_records = sink.needs_records();
    reader_options.keep_samples = sink.needs_records();
    reader_options.require_declared_tags = sink.needs_records();
    if (sink.needs_records()) reader_options.declare_contigs = header_contigs();
    VariantReader reader(variants_, reader_options);
    warn_contig_lengths(reader);
    sink.begin(layout_.columns, reader);
    const int64_t null_pairs = summary_.null_pairs;
    summary_ = VariantSummary{};
    summary_.null_pairs = null_pairs;
    std::vector<VariantRecord> records;
    std::vector<ChunkRow> rows;
    std::vector<AllelePair> pairs;
    for (;;) {
      const bool more = read_chunk(reader, records, rows, pairs, false);
      std::vector<float> values(rows.size() * layout_.columns.size(),
                                std::numeric_limits<float>::quiet_NaN());
      if (!pairs.empty()) {
        evaluate(std::move(pairs), [&](int64_t pair, const std::vector<double>& scores) {
          // Observed pairs are one per scored row, in row order.
          const int64_t row = pair_rows_[static_cast<size_t>(pair)];
          float* out = values.data() + row * static_cast<int64_t>(layout_.columns.size());
          for (size_t m = 0; m < layout_.measures.size(); ++m) {
            out[layout_.column_of_measure[m]] = static_cast<float>(scores[m]);
            if (layout_.pvalue_column[m] >= 0) {
              out[layout_.pvalue_column[m]] = static_cast<float>(
                  empirical_p_value(nulls_[m], scores[m], layout_.measures[m].tail));
            }
          }
        });
        pairs.clear();
      }
      if (summary_.stop_signal != 0) return finish(start);
      size_t row = 0;
      for (const VariantRecord& record : records) {
        const size_t width = record.alts.size() * layout_.columns.size();
        sink.write(record,
                   std::span<const float>(values.data() + row * layout_.columns.size(), width));
        row += record.alts.size();
      }
      if (options_.progress) options_.progress(progress_figures(start));
      if (!more) break;
    }
    sink.commit();
    return finish(start);
  }

 private:
  void check_options() const {
    STRAND_CHECK(!options_.outputs.empty(), "variants: no output to score");
    STRAND_CHECK(options_.input_length >= 1, "variants: the input length must be >= 1, got {}",
                 options_.input_length);
    STRAND_CHECK(options_.batch_size >= 1, "variants: the batch size must be >= 1, got {}",
                 options_.batch_size);
    STRAND_CHECK(options_.loader_threads >= 1, "variants: loader threads must be >= 1, got {}",
                 options_.loader_threads);
    STRAND_CHECK(options_.null_shuffles >= 0, "variants: null shuffles must be >= 0, got {}",
                 options_.null_shuffles);
    STRAND_CHECK(options_.null_values_per_score >= 1,
                 "variants: the null must keep at least one value per score");
    STRAND_CHECK(options_.chunk_variants >= 1, "variants: chunks must hold at least one variant");
    const size_t available = model_.output_names().size();
    for (const ScoredOutput& output : options_.outputs) {
      STRAND_CHECK(output.index < available, "variants: the model has {} output(s), not {}",
                   available, output.index + 1);
    }
  }

  // A ##contig length that differs from the FASTA's record: the variants were likely called on
  // another assembly (their positions would name other bases). A warning per contig; the REF
  // check then says whether the bases agree.
  void warn_contig_lengths(const VariantReader& reader) const {
    for (const data::Contig& declared : reader.declared_contigs()) {
      const int id = names_->resolve(declared.name);
      if (id < 0) continue;
      const data::Contig& record = fasta_.contigs()[static_cast<size_t>(id)];
      if (record.length == declared.length) continue;
      data::warn(fmt::format(
          "variants file '{}': its header declares contig '{}' with {} bases (##contig), but "
          "FASTA '{}' has {} for '{}': were the variants called on another assembly?",
          reader.path(), declared.name, declared.length, fasta_.path(), record.length,
          record.name));
    }
  }

  // Contigs a written VCF header declares when the input's lacks them: the FASTA's records
  // under the names the variants use (aliases), with their lengths.
  std::vector<data::Contig> header_contigs() const {
    std::vector<data::Contig> contigs;
    std::set<std::string, std::less<>> aliased;
    for (const auto& [from, to] : options_.contig_aliases) {
      aliased.insert(to);
      const int id = fasta_.contig_id(to);
      contigs.push_back({from, fasta_.contigs()[static_cast<size_t>(id)].length});
    }
    for (const data::Contig& contig : fasta_.contigs()) {
      if (aliased.count(contig.name) == 0) contigs.push_back(contig);
    }
    return contigs;
  }

  VariantSummary progress_figures(Clock::time_point start) const {
    VariantSummary figures = summary_;
    figures.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return figures;
  }

  VariantSummary finish(Clock::time_point start) {
    summary_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return summary_;
  }

  // The null: every scorable variant's alleles in N shuffles of its window's bases, one pass
  // over the file before the observed scores (which need the whole null for their p-values).
  void null_pass() {
    VariantReader reader(variants_, {});
    nulls_.assign(layout_.measures.size(), {});
    std::vector<Reservoir> reservoirs;
    for (size_t m = 0; m < layout_.measures.size(); ++m) {
      reservoirs.emplace_back(options_.null_values_per_score,
                              data::mix_key(options_.seed, 0x6e756c6cULL, m));
    }
    std::vector<VariantRecord> records;
    std::vector<ChunkRow> rows;
    std::vector<AllelePair> pairs;
    for (;;) {
      const bool more = read_chunk(reader, records, rows, pairs, true);
      if (!pairs.empty()) {
        evaluate(std::move(pairs), [&](int64_t /*pair*/, const std::vector<double>& scores) {
          ++summary_.null_pairs;
          for (size_t m = 0; m < scores.size(); ++m) {
            if (layout_.measures[m].tail != Tail::kNone && std::isfinite(scores[m])) {
              reservoirs[m].add(static_cast<float>(scores[m]));
            }
          }
        });
        pairs.clear();
      }
      if (summary_.stop_signal != 0) return;
      if (!more) break;
    }
    for (size_t m = 0; m < reservoirs.size(); ++m) nulls_[m] = reservoirs[m].sorted();
  }

  // Reads records until the chunk holds chunk_variants pairs (or 4x that many rows), deciding
  // each ALT. A scorable ALT gives one pair of genome windows, or (`shuffled`) one pair per
  // null shuffle of its window's bases. Returns false at the end of the file or on a stop.
  bool read_chunk(VariantReader& reader, std::vector<VariantRecord>& records,
                  std::vector<ChunkRow>& rows, std::vector<AllelePair>& pairs, bool shuffled) {
    records.clear();
    rows.clear();
    pair_rows_.clear();
    const auto full = [&] {
      return static_cast<int64_t>(pair_rows_.size()) >= options_.chunk_variants ||
             static_cast<int64_t>(rows.size()) >= 4 * options_.chunk_variants;
    };
    while (!full()) {
      if (const int signal = poll_stop_signal(); signal != 0) {
        summary_.stop_signal = signal;
        return false;
      }
      VariantRecord& record = records.emplace_back();
      if (!reader.next(record)) {
        records.pop_back();
        report_mismatches(reader, true);
        return false;
      }
      ++summary_.records;
      decide(reader, record, rows, pairs, shuffled);
      report_mismatches(reader, false);
    }
    return true;
  }

  void decide(const VariantReader& reader, const VariantRecord& record, std::vector<ChunkRow>& rows,
              std::vector<AllelePair>& pairs, bool shuffled) {
    const int64_t length = options_.input_length;
    if (record.alts.empty()) {  // ALT '.': a monomorphic site, nothing to score
      ++summary_.monomorphic;
      return;
    }
    const int contig = names_->resolve(record.chrom);
    if (contig < 0) {
      throw data::DataError(fmt::format("{}: {}", reader.where(record),
                                        names_->explain_missing(record.chrom, fasta_.path())));
    }
    const data::Contig& fasta_contig = fasta_.contigs()[static_cast<size_t>(contig)];
    bool ref_checked = false, ref_matches = true;
    for (const std::string& alt : record.alts) {
      ++summary_.variants;
      ChunkRow& row = rows.emplace_back();
      if (is_spanning_deletion(alt)) {
        row.skipped = SkipReason::kSpanningDeletion;
      } else if (is_symbolic_allele(alt)) {
        row.skipped = SkipReason::kSymbolic;
      } else if (!alleles_fit(length, record.ref, alt)) {
        row.skipped = SkipReason::kTooLong;
      }
      if (!row.skipped && !ref_checked) {
        ref_checked = true;
        ref_matches = check_ref(reader, record, fasta_contig);
      }
      if (!row.skipped && !ref_matches && options_.ref_mismatch != RefMismatchPolicy::kWarn) {
        row.skipped = SkipReason::kRefMismatch;
      }
      const AlleleSource source = allele_source(record.position, length, record.ref, alt);
      const bool near_end = source.start < 0 || source.start + source.length > fasta_contig.length;
      if (!row.skipped && near_end && options_.contig_end == ContigEndPolicy::kSkip) {
        row.skipped = SkipReason::kContigEnd;
      }
      if (row.skipped) {
        ++summary_.skipped[static_cast<size_t>(*row.skipped)];
        continue;
      }
      // Under kError a mismatch stops the run once its list is full; until then the rows
      // are only read.
      if (!mismatches_.empty()) continue;
      ++summary_.scored;
      summary_.padded += near_end ? 1 : 0;
      summary_.ref_mismatches_scored += ref_matches ? 0 : 1;
      const int64_t row_index = static_cast<int64_t>(rows.size()) - 1;
      const int64_t copies = shuffled ? options_.null_shuffles : 1;
      for (int64_t copy = 0; copy < copies; ++copy) {
        AllelePair& pair = pairs.emplace_back();
        pair.contig = contig;
        pair.source = source;
        pair.ref = record.ref;
        pair.alt = alt;
        if (shuffled) {
          pair.shuffled = true;
          pair.shuffle_key = data::mix_key(options_.seed, static_cast<uint64_t>(summary_.variants),
                                           static_cast<uint64_t>(copy));
        }
        pair_rows_.push_back(row_index);
      }
    }
  }

  // Whether REF equals the FASTA's bases (case-insensitively); a mismatch is listed (kError),
  // warned about (kWarn) or only counted (kSkip).
  bool check_ref(const VariantReader& reader, const VariantRecord& record,
                 const data::Contig& fasta_contig) {
    const int64_t begin = record.position - 1;
    const auto lr = static_cast<int64_t>(record.ref.size());
    std::string genome;
    if (begin + lr > fasta_contig.length) {
      genome = fmt::format("past the end of {} ({} bases)", fasta_contig.name, fasta_contig.length);
    } else {
      genome = fasta_.fetch(fasta_contig.name, begin, begin + lr);
      bool same = true;
      for (int64_t i = 0; i < lr; ++i) {
        const auto a = static_cast<unsigned char>(record.ref[static_cast<size_t>(i)]);
        const auto b = static_cast<unsigned char>(genome[static_cast<size_t>(i)]);
        same = same && std::toupper(a) == std::toupper(b);
      }
      if (same) return true;
    }
    const std::string where = reader.where(record);
    switch (options_.ref_mismatch) {
      case RefMismatchPolicy::kError:
        mismatches_.push_back({where, record.chrom, record.position, record.ref, genome});
        break;
      case RefMismatchPolicy::kWarn:
        if (++warned_ <= options_.warned_mismatches) {
          data::warn(fmt::format(
              "{}: REF '{}' at {}:{} differs from FASTA '{}' ('{}'); scored "
              "with REF in the ref window{}",
              where, data::excerpt(record.ref), record.chrom, record.position, fasta_.path(),
              data::excerpt(genome),
              warned_ == options_.warned_mismatches ? " (further mismatches are only counted)"
                                                    : ""));
        }
        break;
      case RefMismatchPolicy::kSkip:
        break;
    }
    return false;
  }

  void report_mismatches(const VariantReader& reader, bool at_end) {
    if (mismatches_.empty()) return;
    if (!at_end && static_cast<int64_t>(mismatches_.size()) < options_.listed_mismatches) return;
    std::string list;
    for (const Mismatch& m : mismatches_) {
      list += fmt::format("\n  {}: {}:{} REF '{}', FASTA '{}'", m.where, m.chrom, m.position,
                          data::excerpt(m.ref), data::excerpt(m.fasta));
    }
    throw data::DataError(fmt::format(
        "'{}': REF differs from FASTA '{}' at {} {}(nothing written):{}\nIs the FASTA the "
        "assembly the variants were called on? --ref-mismatch skip leaves such variants out, "
        "--ref-mismatch warn scores them with REF in the ref window",
        reader.path(), fasta_.path(), mismatches_.size(),
        at_end ? "variant(s) " : "variants, the first ones listed; reading stopped at the last ",
        list));
  }

  // Runs the pairs through the loader and the model, calling on_scores(pair, scores) per
  // pair in order with one value per measure.
  template <typename OnScores>
  void evaluate(std::vector<AllelePair> pairs, OnScores on_scores) {
    const auto count = static_cast<int64_t>(pairs.size());
    source_->set_pairs(std::move(pairs));
    data::LoaderOptions loader_options;
    loader_options.sampler.batch_size = 2 * options_.batch_size;
    loader_options.sampler.shuffle = false;
    loader_options.loader_threads = options_.loader_threads;
    data::DataLoader loader(source_, std::move(loader_options));
    const int64_t length = options_.input_length;
    std::vector<double> scores(layout_.measures.size());
    std::vector<ChangedRange> changed;
    int64_t pair = 0;
    while (auto batch = loader.next()) {
      if (const int signal = poll_stop_signal(); signal != 0) {
        summary_.stop_signal = signal;
        return;
      }
      const int64_t b = batch->size / 2;
      Tensor ref = Tensor::empty({b, length}, DType::kUInt8);
      Tensor alt = Tensor::empty({b, length}, DType::kUInt8);
      for (int64_t i = 0; i < b; ++i) {
        std::memcpy(ref.data<uint8_t>() + i * length, batch->codes + (2 * i) * length,
                    static_cast<size_t>(length));
        std::memcpy(alt.data<uint8_t>() + i * length, batch->codes + (2 * i + 1) * length,
                    static_cast<size_t>(length));
      }
      changed.clear();
      for (int64_t i = 0; i < b; ++i) {
        STRAND_CHECK(batch->sample_index[2 * i] == 2 * (pair + i),
                     "variants: the loader delivered window {} for pair {}",
                     batch->sample_index[2 * i], pair + i);
        const AllelePair& p = source_->pairs()[static_cast<size_t>(pair + i)];
        changed.push_back(changed_range(length, p.ref, p.alt));
      }
      const PairPredictions predictions = forward_->run(ref, alt, changed);
      check_finite(predictions, pair);
      for (int64_t i = 0; i < b; ++i) {
        compute_scores(predictions, i, scores);
        on_scores(pair + i, scores);
      }
      pair += b;
    }
    STRAND_CHECK(pair == count, "variants: {} of {} pairs came back from the loader", pair, count);
  }

  void check_finite(const PairPredictions& predictions, int64_t first_pair) const {
    for (size_t o = 0; o < predictions.ref.size(); ++o) {
      for (const Tensor* t : {&predictions.ref[o], &predictions.alt[o]}) {
        const float* v = t->data<float>();
        for (int64_t i = 0; i < t->numel(); ++i) {
          if (!std::isfinite(v[i])) {
            throw Error(fmt::format(
                "variants: output '{}' of the model is {} for a window of pair {} of this chunk; "
                "the weights give no usable scores (nothing written)",
                options_.outputs[o].name, v[i], first_pair + i / (t->numel() / t->size(0))));
          }
        }
      }
    }
  }

  void compute_scores(const PairPredictions& predictions, int64_t row,
                      std::vector<double>& scores) const {
    for (size_t m = 0; m < layout_.measures.size(); ++m) {
      const Measure& measure = layout_.measures[m];
      const ScoredOutput& output = options_.outputs[measure.output];
      const Tensor& ref = predictions.ref[measure.output];
      const Tensor& alt = predictions.alt[measure.output];
      const std::string& score = score_names(output.kind)[measure.score];
      if (output.kind == OutputKind::kProfile) {
        const int64_t tracks = ref.size(1), positions = ref.size(2);
        const int64_t offset = (row * tracks + measure.task) * positions;
        scores[m] = jensen_shannon_distance(alt.data<float>() + offset, ref.data<float>() + offset,
                                            positions);
        continue;
      }
      const int64_t tasks = ref.size(1);
      const double r = ref.data<float>()[row * tasks + measure.task];
      const double a = alt.data<float>()[row * tasks + measure.task];
      if (score == "ref") {
        scores[m] = r;
      } else if (score == "alt") {
        scores[m] = a;
      } else if (score == "diff") {
        scores[m] = a - r;
      } else {
        scores[m] = log2_fold_change(output.kind, r, a);
      }
    }
  }

  Model& model_;
  std::string variants_;
  const VariantScoringOptions& options_;
  data::FastaReader fasta_;
  std::optional<ContigNames> names_;
  std::shared_ptr<AlleleWindowSource> source_;
  std::optional<PairForward> forward_;
  Layout layout_;
  VariantSummary summary_;
  std::vector<std::vector<float>> nulls_;  // per measure, sorted
  std::vector<int64_t> pair_rows_;         // per pair of the chunk: its row
  std::vector<Mismatch> mismatches_;
  int64_t warned_ = 0;
};

}  // namespace

RefMismatchPolicy parse_ref_mismatch_policy(std::string_view word) {
  if (word == "error") return RefMismatchPolicy::kError;
  if (word == "skip") return RefMismatchPolicy::kSkip;
  if (word == "warn") return RefMismatchPolicy::kWarn;
  throw Error(fmt::format("REF mismatch policy '{}' is not one of error, skip, warn", word));
}

ContigEndPolicy parse_contig_end_policy(std::string_view word) {
  if (word == "pad") return ContigEndPolicy::kPad;
  if (word == "skip") return ContigEndPolicy::kSkip;
  throw Error(fmt::format("contig end policy '{}' is not one of pad, skip", word));
}

const char* skip_reason_name(SkipReason reason) {
  switch (reason) {
    case SkipReason::kSymbolic:
      return "symbolic";
    case SkipReason::kSpanningDeletion:
      return "spanning_deletion";
    case SkipReason::kTooLong:
      return "too_long";
    case SkipReason::kContigEnd:
      return "contig_end";
    case SkipReason::kRefMismatch:
      return "ref_mismatch";
  }
  return "?";
}

int64_t VariantSummary::skipped_total() const {
  int64_t total = 0;
  for (const int64_t count : skipped) total += count;
  return total;
}

double VariantSummary::variants_per_second() const {
  return seconds > 0.0 ? static_cast<double>(scored) / seconds : 0.0;
}

std::vector<ScoreColumn> score_columns(const Model& model, const VariantScoringOptions& options) {
  return make_layout(options, output_task_counts(model, options)).columns;
}

VariantSummary score_variants(Model& model, const std::string& variants, const std::string& fasta,
                              VariantScoreSink& sink, const VariantScoringOptions& options) {
  ScoringRun run(model, variants, fasta, options);
  return run.run(sink);
}

}  // namespace strand::variants
