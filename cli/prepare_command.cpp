// Labelled records datasets from positive and negative FASTAs.
#include "cli/prepare_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <set>
#include <vector>

#include "cli/command_paths.h"
#include "cli/run_config.h"
#include "data/data_error.h"
#include "data/fasta_reader.h"
#include "data/intervals.h"
#include "data/labels.h"
#include "data/list_syntax.h"
#include "data/negatives.h"
#include "data/peak_tasks.h"
#include "data/splits.h"
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

std::vector<std::string> name_list(const std::string& text, const char* what) {
  try {
    return data::parse_name_list(text, what);
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }
}

}  // namespace

int64_t run_prepare_peaks(const PrepareOptions& options, std::ostream& log) {
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
  if (options.window < 1 || options.window > kMaxSequenceLength) {
    throw ConfigError(
        fmt::format("--window: must be in [1, {}], got {}", kMaxSequenceLength, options.window));
  }
  if (!(options.negatives_ratio >= 0 && options.negatives_ratio <= data::kMaxNegativesRatio)) {
    throw ConfigError(fmt::format("--negatives-ratio: must be in [0, {}], got {}",
                                  data::kMaxNegativesRatio, options.negatives_ratio));
  }
  if (!options.blacklist.empty() && options.negatives_ratio == 0) {
    throw ConfigError("--blacklist: keeps negatives away from regions; set --negatives-ratio too");
  }
  const std::vector<std::string> files = name_list(options.peaks, "--peaks");
  std::vector<std::pair<std::string, std::string>> inputs = {{options.fasta, "--fasta"},
                                                             {options.blacklist, "--blacklist"}};
  for (const std::string& file : files) inputs.emplace_back(file, "--peaks");
  for (const auto& [path, option] : inputs) check_input_file(path, option);
  refuse_overwriting_input((fs::path(options.out) / "tasks.bed").string(), "--out", inputs);
  std::vector<std::string> tasks;
  if (options.task_names.empty()) {
    for (const std::string& path : files) tasks.push_back(fs::path(path).stem().string());
  } else {
    tasks = name_list(options.task_names, "--task-names");
  }
  if (tasks.size() != files.size()) {
    throw ConfigError(
        fmt::format("--task-names: {} names for {} peak files", tasks.size(), files.size()));
  }
  if (std::set<std::string>(tasks.begin(), tasks.end()).size() != tasks.size()) {
    throw ConfigError(
        fmt::format("--task-names: the task names {} repeat a name (name the files "
                    "apart with --task-names)",
                    fmt::join(tasks, ", ")));
  }
  try {
    const data::FastaReader genome(options.fasta);
    std::vector<data::IntervalSet> sets;
    for (const std::string& path : files) {
      data::IntervalReadOptions read;
      const std::string format = !options.format.empty() ? options.format
                                 : fs::path(path).extension() == ".narrowPeak" ||
                                         fs::path(path).string().ends_with(".narrowPeak.gz")
                                     ? "narrowpeak"
                                     : "bed";
      read.format = data::parse_interval_format(format);
      read.labelled = false;
      data::IntervalSet set = data::read_intervals(path, read);
      data::refuse_non_peaks(path, read.format, "--peaks");
      data::validate_intervals(set, genome.contigs(), genome.path(),
                               data::BadIntervalPolicy::kError);
      sets.push_back(std::move(set));
    }
    data::PeakTaskOptions peak_options;
    peak_options.window = options.window;
    peak_options.negatives_ratio = options.negatives_ratio;
    peak_options.seed = options.seed;
    if (!options.blacklist.empty()) {
      peak_options.excluded =
          data::read_blacklist(options.blacklist, genome.contigs(), genome.path());
    }
    const data::PeakTasks labelled = data::label_peak_tasks(genome, sets, tasks, peak_options);
    const data::IntervalSet& windows = labelled.windows;
    // The BED: a header naming the tasks, then one line per window.
    std::string text = fmt::format("#chrom\tstart\tend\t{}\n", fmt::join(tasks, "\t"));
    std::vector<int64_t> positives(tasks.size(), 0);
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
    const fs::path dir(options.out);
    fs::create_directories(dir);
    const fs::path bed = dir / "tasks.bed";
    io::write_file_atomically(bed, text);
    log << fmt::format(
        "{} peaks of {} file(s) -> {} windows of {} bp ({} near-duplicates "
        "merged, {} GC-matched negatives) in {}\n",
        labelled.peaks, files.size(), windows.size(), options.window, labelled.merged,
        labelled.negatives, bed.string());
    for (size_t t = 0; t < tasks.size(); ++t) {
      log << fmt::format("  {}: {} positive windows\n", tasks[t], positives[t]);
    }
    log << fmt::format(
        "train on it with (hold out chromosomes with --valid-chroms/--test-chroms instead of the "
        "fractions):\n  strand train --fasta {} --intervals {} --label-columns 4-{} --window {} "
        "--valid-fraction 0.1 --test-fraction 0.1\n",
        options.fasta, bed.string(), 3 + tasks.size(), options.window);
    return windows.size();
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }
}

int64_t run_prepare(const PrepareOptions& options, std::ostream& log) {
  if (!options.peaks.empty()) return run_prepare_peaks(options, log);
  if (options.positives.empty()) {
    throw ConfigError(
        "--positives: one FASTA of positives (or several, comma-separated, one task each) is "
        "required, or --peaks with --fasta for peak files on a genome");
  }
  check_output_directory(options.out, "--out");
  const auto in_unit = [](double f) { return f >= 0 && f < 1; };
  if (!in_unit(options.valid_fraction) || !in_unit(options.test_fraction) ||
      options.valid_fraction + options.test_fraction >= 1) {
    throw ConfigError(fmt::format(
        "--valid-fraction {} and --test-fraction {}: each must be in [0, 1) and their sum below 1",
        options.valid_fraction, options.test_fraction));
  }
  const std::vector<std::string> positives = name_list(options.positives, "--positives");
  std::vector<std::string> tasks;
  if (options.task_names.empty()) {
    for (const std::string& path : positives) tasks.push_back(fs::path(path).stem().string());
  } else {
    tasks = name_list(options.task_names, "--task-names");
    if (tasks.size() != positives.size()) {
      throw ConfigError(fmt::format("--task-names: {} names for {} positives files", tasks.size(),
                                    positives.size()));
    }
  }
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
  std::vector<Record> records;
  std::set<std::string> names;
  bool names_clash = false;
  try {
    for (size_t f = 0; f < inputs.size(); ++f) {
      readers.push_back(std::make_unique<data::FastaReader>(inputs[f]));
      for (const data::Contig& contig : readers.back()->contigs()) {
        Record record;
        record.file = f;
        record.name = contig.name;
        record.labels.assign(tasks.size(), 0);
        if (f < positives.size()) record.labels[f] = 1;
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

  std::vector<data::SplitPart> parts(records.size(), data::SplitPart::kTrain);
  const bool split = options.valid_fraction > 0 || options.test_fraction > 0;
  if (split) {
    std::vector<int> classes;
    for (const Record& record : records) {
      classes.push_back(
          std::find(record.labels.begin(), record.labels.end(), 1) != record.labels.end() ? 1 : 0);
    }
    try {
      parts = data::split_by_fraction(classes, options.valid_fraction, options.test_fraction,
                                      options.seed);
    } catch (const data::DataError& error) {
      throw ConfigError(fmt::format("--valid-fraction/--test-fraction: {}", error.what()));
    }
  }

  // One FASTA + TSV per part, in temporary files until every one is complete.
  const fs::path dir(options.out);
  const bool created = !fs::exists(dir);
  fs::create_directories(dir);
  struct Output {
    data::SplitPart part = data::SplitPart::kTrain;
    std::string stem;
    int64_t count = 0;
    std::unique_ptr<io::AtomicFileWriter> fasta;
    std::unique_ptr<io::AtomicFileWriter> labels;
  };
  std::vector<Output> outputs;
  int64_t min_length = -1;
  int64_t max_length = 0;
  try {
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
      const Record& record = records[i];
      Output& output = *std::find_if(outputs.begin(), outputs.end(),
                                     [&](const Output& o) { return o.part == parts[i]; });
      const data::FastaReader& reader = *readers[record.file];
      const int64_t length =
          reader.contigs()[static_cast<size_t>(reader.contig_id(record.name))].length;
      min_length = min_length < 0 ? length : std::min(min_length, length);
      max_length = std::max(max_length, length);
      output.fasta->write(fasta_entry(record.output_name, reader.fetch(record.name, 0, length)));
      output.labels->write(
          fmt::format("{}\t{}\n", record.output_name, fmt::join(record.labels, "\t")));
      ++output.count;
    }
    for (Output& output : outputs) {
      output.fasta->commit();
      output.labels->commit();
    }
  } catch (...) {
    outputs.clear();  // removes the temporary files
    std::error_code ignored;
    if (created) fs::remove(dir, ignored);  // only when empty
    throw;
  }

  log << fmt::format("{} records ({} task{}: {}) from {} file{}", records.size(), tasks.size(),
                     tasks.size() == 1 ? "" : "s", fmt::join(tasks, ", "), inputs.size(),
                     inputs.size() == 1 ? "" : "s");
  if (names_clash) log << "; names repeat across files, so every record is named FILE_STEM:NAME";
  log << "\n";
  for (const Output& output : outputs) {
    log << fmt::format("wrote {}.fa + {} ({} records)\n", (dir / output.stem).string(),
                       (dir / (split ? output.stem + ".tsv" : "labels.tsv")).string(),
                       output.count);
  }
  const std::string window =
      min_length == max_length ? "" : fmt::format(" --window {}", max_length);
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
  if (min_length != max_length) {
    log << fmt::format(
        "(records have {} to {} bases: --window {} pads shorter ones with N at the end)\n",
        min_length, max_length, max_length);
  }
  if (tasks.size() > 1) {
    log << fmt::format("(the model's last Dense layer needs units {}, one output per task)\n",
                       tasks.size());
  }
  return static_cast<int64_t>(records.size());
}

}  // namespace strand::cli
