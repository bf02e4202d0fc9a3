// Labelled records datasets from positive and negative FASTAs.
#include "cli/prepare_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <set>
#include <vector>

#include "cli/command_paths.h"
#include "cli/run_config.h"
#include "core/stop_signal.h"
#include "data/data_error.h"
#include "data/fasta/fasta_reader.h"
#include "data/intervals/intervals.h"
#include "data/intervals/negatives.h"
#include "data/intervals/peak_tasks.h"
#include "data/intervals/splits.h"
#include "data/labels.h"
#include "data/list_syntax.h"
#include "io/atomic_file.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kBasesPerLine = 60;

// One input record: where it comes from, its name in the output and its labels.
struct Record {
  size_t file = 0;  // index into the inputs
  std::string name;
  std::string output_name;
  std::vector<int> labels;  // (T) 0 or 1
};

// The FASTA text of a record's bases, 60 per line.
std::string fasta_entry(const std::string& name, const std::string& bases) {
  std::string text = ">" + name + "\n";
  for (size_t i = 0; i < bases.size(); i += kBasesPerLine) {
    text += bases.substr(i, kBasesPerLine);
    text += '\n';
  }
  return text;
}

// The task names: --task-names, else the files' stems; one per file, none twice.
std::vector<std::string> task_names(const PrepareOptions& options,
                                    const std::vector<std::string>& files, const char* what) {
  if (options.task_names.empty()) {
    std::vector<std::string> stems;
    for (const std::string& path : files) stems.push_back(fs::path(path).stem().string());
    return stems;
  }
  if (options.task_names.size() != files.size()) {
    throw ConfigError(fmt::format("--task-names: {} names for {} {}", options.task_names.size(),
                                  files.size(), what));
  }
  return options.task_names;
}

// --peaks: the flags that go with it, and its inputs.
void check_peak_flags(const PrepareOptions& options) {
  if (options.fasta.empty()) throw ConfigError("--peaks: give the genome with --fasta");
  check_output_directory(options.out, "--out");
  if (!options.positives.empty() || !options.negatives.empty()) {
    throw ConfigError(
        "--peaks makes a dataset from peak files; --positives and --negatives "
        "make one from FASTAs: give one or the other");
  }
  if (options.valid_fraction > 0 || options.test_fraction > 0) {
    throw ConfigError(
        "--valid-fraction/--test-fraction: a peak dataset is split when training (strand train "
        "--valid-chroms/--test-chroms, or --valid-fraction/--test-fraction)");
  }
  if (!options.blacklist.empty() && options.peak.negatives_ratio == 0) {
    throw ConfigError("--blacklist: keeps negatives away from regions; set --negatives-ratio too");
  }
  std::vector<std::pair<std::string, std::string>> inputs = {{options.fasta, "--fasta"},
                                                             {options.blacklist, "--blacklist"}};
  for (const std::string& file : options.peaks) inputs.emplace_back(file, "--peaks");
  for (const auto& [path, option] : inputs) check_input_file(path, option);
  refuse_overwriting_input((fs::path(options.out) / "tasks.bed").string(), "--out", inputs);
}

// Each peak file, validated against the genome: bed or narrowpeak (by --format, else by name).
std::vector<data::IntervalSet> read_peak_files(const PrepareOptions& options,
                                               const data::FastaReader& genome) {
  std::vector<data::IntervalSet> sets;
  for (const std::string& path : options.peaks) {
    const bool narrowpeak = fs::path(path).extension() == ".narrowPeak" ||
                            fs::path(path).string().ends_with(".narrowPeak.gz");
    data::IntervalReadOptions read;
    read.format = options.format.value_or(narrowpeak ? data::IntervalFormat::kNarrowPeak
                                                     : data::IntervalFormat::kBed);
    read.labelled = false;
    data::IntervalSet set = data::read_intervals(path, read);
    data::refuse_non_peaks(path, read.format, "--peaks");
    data::validate_intervals(set, genome.contigs(), genome.path(), data::BadIntervalPolicy::kError);
    sets.push_back(std::move(set));
  }
  return sets;
}

// The BED of labelled windows: a header naming the tasks, then one line per window; counts each
// task's positive windows into `positives`.
std::string tasks_bed(const data::IntervalSet& windows, const std::vector<std::string>& tasks,
                      std::vector<int64_t>& positives) {
  std::string text = fmt::format("#chrom\tstart\tend\t{}\n", fmt::join(tasks, "\t"));
  positives.assign(tasks.size(), 0);
  for (int64_t i = 0; i < windows.size(); ++i) {
    const data::Interval& w = windows.intervals[static_cast<size_t>(i)];
    text += fmt::format("{}\t{}\t{}", w.contig, w.start, w.end);
    for (size_t t = 0; t < tasks.size(); ++t) {
      const bool one = windows.labels[static_cast<size_t>(i) * tasks.size() + t] > 0.5F;
      positives[t] += one ? 1 : 0;
      text += one ? "\t1" : "\t0";
    }
    text += '\n';
  }
  return text;
}

// Checks the tasks of the positives files: names that read as a label TSV's header, each given
// once.
void check_record_tasks(const std::vector<std::string>& tasks,
                        const std::vector<std::string>& positives) {
  std::set<std::string> seen_tasks;
  for (size_t t = 0; t < tasks.size(); ++t) {
    // The label TSV's header must read as a header (docs/data_formats.md).
    if (!data::is_target_name(tasks[t])) {
      throw ConfigError(fmt::format(
          "task name '{}' (of '{}') must start with a letter or '_' and not be a number or NA; "
          "give names with --task-names",
          tasks[t], positives[t]));
    }
    if (!seen_tasks.insert(tasks[t]).second) {
      throw ConfigError(fmt::format(
          "task name '{}' is given to two positives files; give names with --task-names",
          tasks[t]));
    }
  }
}

// The records of every input FASTA with their labels (one task per positives file), named by
// their FASTA names, or STEM:NAME for all when a name repeats across files (`names_clash`).
std::vector<Record> read_records(const std::vector<std::string>& inputs, size_t positives,
                                 size_t tasks,
                                 std::vector<std::unique_ptr<data::FastaReader>>& readers,
                                 bool& names_clash) {
  std::vector<Record> records;
  std::set<std::string> names;
  names_clash = false;
  try {
    for (size_t f = 0; f < inputs.size(); ++f) {
      readers.push_back(std::make_unique<data::FastaReader>(inputs[f]));
      for (const data::Contig& contig : readers.back()->contigs()) {
        Record record;
        record.file = f;
        record.name = contig.name;
        record.labels.assign(tasks, 0);
        if (f < positives) record.labels[f] = 1;
        names_clash = !names.insert(contig.name).second || names_clash;
        records.push_back(std::move(record));
      }
    }
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }
  for (Record& record : records) {
    record.output_name =
        names_clash
            ? fmt::format("{}:{}", fs::path(inputs[record.file]).stem().string(), record.name)
            : record.name;
    if (record.output_name == "name") {
      throw ConfigError(fmt::format(
          "'{}': a record named 'name' would read as the label file's header; rename it",
          inputs[record.file]));
    }
  }
  return records;
}

// The part each record goes to: all train, or a stratified split by the fractions.
std::vector<data::SplitPart> record_parts(const PrepareOptions& options,
                                          const std::vector<Record>& records) {
  if (options.valid_fraction == 0 && options.test_fraction == 0) {
    return std::vector<data::SplitPart>(records.size(), data::SplitPart::kTrain);
  }
  std::vector<int> classes;
  for (const Record& record : records) {
    classes.push_back(
        std::find(record.labels.begin(), record.labels.end(), 1) != record.labels.end() ? 1 : 0);
  }
  try {
    return data::split_by_fraction(classes, options.valid_fraction, options.test_fraction,
                                   options.seed);
  } catch (const data::DataError& error) {
    throw ConfigError(fmt::format("--valid-fraction/--test-fraction: {}", error.what()));
  }
}

// One part's FASTA and label TSV, in temporary files until every one is complete.
struct Output {
  data::SplitPart part = data::SplitPart::kTrain;
  std::string stem;
  int64_t count = 0;
  std::unique_ptr<io::AtomicFileWriter> fasta;
  std::unique_ptr<io::AtomicFileWriter> labels;
};

// The lengths of the records written, for the --window advice.
struct LengthRange {
  int64_t min = -1;
  int64_t max = 0;
};

// Writes every part's FASTA + label TSV under `dir` (all or none); returns the outputs.
std::vector<Output> write_records(const fs::path& dir, const std::vector<Record>& records,
                                  const std::vector<data::SplitPart>& parts,
                                  const std::vector<std::string>& tasks,
                                  const std::vector<std::unique_ptr<data::FastaReader>>& readers,
                                  bool split, LengthRange& lengths) {
  std::vector<Output> outputs;
  const std::pair<data::SplitPart, const char*> files[] = {
      {data::SplitPart::kTrain, split ? "train" : "sequences"},
      {data::SplitPart::kValidation, "valid"},
      {data::SplitPart::kTest, "test"}};
  for (const auto& [part, stem] : files) {
    if (std::find(parts.begin(), parts.end(), part) == parts.end()) continue;
    Output output;
    output.part = part;
    output.stem = stem;
    output.fasta = std::make_unique<io::AtomicFileWriter>(dir / (std::string(stem) + ".fa"));
    output.labels = std::make_unique<io::AtomicFileWriter>(
        dir / (split ? std::string(stem) + ".tsv" : std::string("labels.tsv")));
    output.labels->write(fmt::format("name\t{}\n", fmt::join(tasks, "\t")));
    outputs.push_back(std::move(output));
  }
  for (size_t i = 0; i < records.size(); ++i) {
    throw_if_stop_requested();  // before any file is published
    const Record& record = records[i];
    Output& output = *std::find_if(outputs.begin(), outputs.end(),
                                   [&](const Output& o) { return o.part == parts[i]; });
    const data::FastaReader& reader = *readers[record.file];
    const int64_t length =
        reader.contigs()[static_cast<size_t>(reader.contig_id(record.name))].length;
    lengths.min = lengths.min < 0 ? length : std::min(lengths.min, length);
    lengths.max = std::max(lengths.max, length);
    output.fasta->write(fasta_entry(record.output_name, reader.fetch(record.name, 0, length)));
    output.labels->write(
        fmt::format("{}\t{}\n", record.output_name, fmt::join(record.labels, "\t")));
    ++output.count;
  }
  for (Output& output : outputs) {
    output.fasta->commit();
    output.labels->commit();
  }
  return outputs;
}

// What was written, and the `strand train` command for it.
void print_records_summary(const PrepareOptions& options, const std::vector<Output>& outputs,
                           size_t records, const std::vector<std::string>& tasks, size_t inputs,
                           bool names_clash, const LengthRange& lengths, std::ostream& log) {
  const bool split = options.valid_fraction > 0 || options.test_fraction > 0;
  const fs::path dir(options.out);
  log << fmt::format("{} records ({} task{}: {}) from {} file{}", records, tasks.size(),
                     tasks.size() == 1 ? "" : "s", fmt::join(tasks, ", "), inputs,
                     inputs == 1 ? "" : "s");
  if (names_clash) log << "; names repeat across files, so every record is named FILE_STEM:NAME";
  log << "\n";
  for (const Output& output : outputs) {
    log << fmt::format("wrote {}.fa + {} ({} records)\n", (dir / output.stem).string(),
                       (dir / (split ? output.stem + ".tsv" : "labels.tsv")).string(),
                       output.count);
  }
  const std::string window =
      lengths.min == lengths.max ? "" : fmt::format(" --window {}", lengths.max);
  const std::string d = dir.string();
  log << "train on it with:\n  strand train --format records";
  if (split) {
    log << fmt::format(" --fasta {0}/train.fa --intervals {0}/train.tsv", d);
    for (const Output& output : outputs) {
      if (output.part == data::SplitPart::kTrain) continue;
      const char* flag = output.part == data::SplitPart::kValidation ? "valid" : "test";
      log << fmt::format(" --{1}-fasta {0}/{2}.fa --{1}-intervals {0}/{2}.tsv", d, flag,
                         output.stem);
    }
  } else {
    log << fmt::format(
        " --fasta {0}/sequences.fa --intervals {0}/labels.tsv --valid-fraction 0.1 "
        "--test-fraction 0.1",
        d);
  }
  log << window << "\n";
  if (lengths.min != lengths.max) {
    log << fmt::format(
        "(records have {} to {} bases: --window {} pads shorter ones with N at the end)\n",
        lengths.min, lengths.max, lengths.max);
  }
  if (tasks.size() > 1) {
    log << fmt::format("(the model's last Dense layer needs units {}, one output per task)\n",
                       tasks.size());
  }
}

// --positives: the flags that go with them, and the inputs.
void check_record_flags(const PrepareOptions& options) {
  if (options.positives.empty()) {
    throw ConfigError(
        "--positives: one FASTA of positives (or several, comma-separated, one task each) is "
        "required, or --peaks with --fasta for peak files on a genome");
  }
  check_output_directory(options.out, "--out");
  if (options.valid_fraction + options.test_fraction >= 1) {
    throw ConfigError(fmt::format(
        "--valid-fraction {} and --test-fraction {}: each must be in [0, 1) and their sum below 1",
        options.valid_fraction, options.test_fraction));
  }
}

}  // namespace

const std::vector<ConfigKey>& prepare_keys() {
  const std::vector<std::string> prepare = {"prepare"};
  static const std::vector<ConfigKey> keys = {
      {.key = "positives",
       .field = names_field<PrepareOptions>([](auto& o) -> auto& { return o.positives; }),
       .flag = "--positives",
       .help = "FASTA of positives; several, comma-separated, are several tasks named by their "
               "file stems",
       .commands = prepare},
      {.key = "peaks",
       .field = names_field<PrepareOptions>([](auto& o) -> auto& { return o.peaks; }),
       .flag = "--peaks",
       .help = "Peak files (narrowPeak or BED) on the --fasta genome, comma-separated: one task "
               "each, named by their file stems; windows merged across files",
       .commands = prepare},
      {.key = "fasta",
       .field = field<PrepareOptions>([](auto& o) -> auto& { return o.fasta; }),
       .flag = "--fasta",
       .help = "With --peaks: the genome FASTA",
       .commands = prepare},
      {.key = "format",
       .field = enum_field<PrepareOptions>(
           [](auto& o) -> auto& { return o.format; }, data::interval_format_names(),
           data::parse_interval_format),
       .flag = "--format",
       .help = "With --peaks: the peaks' format, bed or narrowpeak",
       .commands = prepare,
       .unset = "narrowpeak for *.narrowPeak, else bed"},
      {.key = "window",
       .field = field<PrepareOptions>([](auto& o) -> auto& { return o.peak.window; }),
       .range = data::loader_ranges::kWindow,
       .flag = "--window",
       .help = "With --peaks: bases of each window, centred on the summit",
       .commands = prepare},
      {.key = "negatives-ratio",
       .field = field<PrepareOptions>([](auto& o) -> auto& { return o.peak.negatives_ratio; }),
       .range = data::loader_ranges::kNegativesRatio,
       .flag = "--negatives-ratio",
       .help = "With --peaks: GC-matched background windows per window, labelled 0",
       .commands = prepare},
      {.key = "blacklist",
       .field = field<PrepareOptions>([](auto& o) -> auto& { return o.blacklist; }),
       .flag = "--blacklist",
       .help = "With --peaks: BED of regions the negatives avoid",
       .commands = prepare},
      {.key = "negatives",
       .field = field<PrepareOptions>([](auto& o) -> auto& { return o.negatives; }),
       .flag = "--negatives",
       .help = "FASTA of negatives (label 0 for every task)",
       .commands = prepare},
      {.key = "task-names",
       .field = names_field<PrepareOptions>([](auto& o) -> auto& { return o.task_names; }),
       .flag = "--task-names",
       .help = "Task names instead of the file stems, comma-separated",
       .commands = prepare},
      {.key = "valid-fraction",
       .field = field<PrepareOptions>([](auto& o) -> auto& { return o.valid_fraction; }),
       .range = RealRange{0.0, 1.0, false, true},
       .flag = "--valid-fraction",
       .help = "Fraction of records for validation (stratified, seeded): writes train/valid/test "
               "files instead of sequences.fa + labels.tsv",
       .commands = prepare},
      {.key = "test-fraction",
       .field = field<PrepareOptions>([](auto& o) -> auto& { return o.test_fraction; }),
       .range = RealRange{0.0, 1.0, false, true},
       .flag = "--test-fraction",
       .help = "Fraction of records for the test",
       .commands = prepare},
      {.key = "seed",
       .field = field<PrepareOptions>([](auto& o) -> auto& { return o.seed; }),
       .flag = "--seed",
       .help = "Seed of the split and the negatives",
       .commands = prepare},
      {.key = "out",
       .field = field<PrepareOptions>([](auto& o) -> auto& { return o.out; }),
       .flag = "--out",
       .help = "Output directory",
       .commands = prepare,
       .required = true},
  };
  return keys;
}

int64_t run_prepare_peaks(const PrepareOptions& options, std::ostream& log) {
  check_peak_flags(options);
  const std::vector<std::string> tasks = task_names(options, options.peaks, "peak files");
  if (std::set<std::string>(tasks.begin(), tasks.end()).size() != tasks.size()) {
    throw ConfigError(
        fmt::format("--task-names: the task names {} repeat a name (name the files "
                    "apart with --task-names)",
                    fmt::join(tasks, ", ")));
  }
  try {
    const data::FastaReader genome(options.fasta);
    const std::vector<data::IntervalSet> sets = read_peak_files(options, genome);
    data::PeakTaskOptions peak_options = options.peak;
    peak_options.seed = options.seed;
    if (!options.blacklist.empty()) {
      peak_options.excluded =
          data::read_blacklist(options.blacklist, genome.contigs(), genome.path());
    }
    const data::PeakTasks labelled = data::label_peak_tasks(genome, sets, tasks, peak_options);
    const data::IntervalSet& windows = labelled.windows;
    std::vector<int64_t> positives;
    const std::string text = tasks_bed(windows, tasks, positives);
    const fs::path dir(options.out);
    fs::create_directories(dir);
    const fs::path bed = dir / "tasks.bed";
    io::write_file_atomically(bed, text);
    const int64_t window = options.peak.window;
    log << fmt::format(
        "{} peaks of {} file(s) -> {} windows of {} bp ({} near-duplicates "
        "merged, {} GC-matched negatives) in {}\n",
        labelled.peaks, options.peaks.size(), windows.size(), window, labelled.merged,
        labelled.negatives, bed.string());
    for (size_t t = 0; t < tasks.size(); ++t) {
      log << fmt::format("  {}: {} positive windows\n", tasks[t], positives[t]);
    }
    log << fmt::format(
        "train on it with (hold out chromosomes with --valid-chroms/--test-chroms instead of the "
        "fractions):\n  strand train --fasta {} --intervals {} --label-columns 4-{} --window {} "
        "--valid-fraction 0.1 --test-fraction 0.1\n",
        options.fasta, bed.string(), 3 + tasks.size(), window);
    return windows.size();
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }
}

int64_t run_prepare(const PrepareOptions& options, std::ostream& log) {
  if (!options.peaks.empty()) return run_prepare_peaks(options, log);
  check_record_flags(options);
  const std::vector<std::string>& positives = options.positives;
  const std::vector<std::string> tasks = task_names(options, positives, "positives files");
  check_record_tasks(tasks, positives);
  if (options.negatives.empty() && positives.size() == 1) {
    throw ConfigError(
        "--negatives: one task needs a FASTA of negatives (with several positives files, each "
        "task's negatives are the other tasks' positives)");
  }
  std::vector<std::string> inputs = positives;
  if (!options.negatives.empty()) inputs.push_back(options.negatives);
  std::vector<std::pair<std::string, std::string>> input_options;
  for (const std::string& path : positives) input_options.emplace_back(path, "--positives");
  input_options.emplace_back(options.negatives, "--negatives");
  for (const auto& [path, option] : input_options) check_input_file(path, option);
  for (const char* written : {"sequences.fa", "labels.tsv", "train.fa", "train.tsv", "valid.fa",
                              "valid.tsv", "test.fa", "test.tsv"}) {
    refuse_overwriting_input((fs::path(options.out) / written).string(), "--out", input_options);
  }
  // Every input is read (and its index checked) before anything is written.
  std::vector<std::unique_ptr<data::FastaReader>> readers;
  bool names_clash = false;
  const std::vector<Record> records =
      read_records(inputs, positives.size(), tasks.size(), readers, names_clash);
  const std::vector<data::SplitPart> parts = record_parts(options, records);
  const bool split = options.valid_fraction > 0 || options.test_fraction > 0;
  const fs::path dir(options.out);
  const bool created = !fs::exists(dir);
  fs::create_directories(dir);
  LengthRange lengths;
  std::vector<Output> outputs;
  try {
    outputs = write_records(dir, records, parts, tasks, readers, split, lengths);
  } catch (...) {
    std::error_code ignored;
    if (created) fs::remove(dir, ignored);  // only when empty
    throw;
  }
  print_records_summary(options, outputs, records.size(), tasks, inputs.size(), names_clash,
                        lengths, log);
  return static_cast<int64_t>(records.size());
}

}  // namespace strand::cli
