// The config key table: its rows, and the lookups of a key and its word.
#include "app/config_keys.h"

#include <algorithm>

namespace strand::app {
namespace {

// The option `member` of the chosen optimizer's struct (optimizer.eps is Adam's or RMSprop's);
// an optimizer without it (a key that does not apply) gives Adam's, or the first one's that has
// it.
template <typename T, typename Config>
auto& optimizer_option(Config& o, T AdamOptions::*adam, T SGDOptions::*sgd,
                       T RMSpropOptions::*rmsprop) {
  if (o.name == "sgd" && sgd != nullptr) return o.sgd.*sgd;
  if (o.name == "rmsprop" && rmsprop != nullptr) return o.rmsprop.*rmsprop;
  if (adam != nullptr) return o.adam.*adam;
  return sgd != nullptr ? o.sgd.*sgd : o.rmsprop.*rmsprop;
}

// lr_schedule.min_learning_rate: the cosine schedule's final rate, or the plateau's floor.
template <typename Config>
auto& min_learning_rate(Config& s) {
  return s.name == "plateau" ? s.plateau.min_learning_rate : s.cosine.min_learning_rate;
}

}  // namespace

ConfigKind ConfigKey::kind() const {
  if (field.kind == ConfigKind::kTextList && text == TextKind::kFile) {
    return ConfigKind::kTrackFiles;
  }
  if (field.kind != ConfigKind::kText) return field.kind;
  if (!choices.empty()) return ConfigKind::kWord;
  switch (text) {
    case TextKind::kFile:
      return ConfigKind::kFile;
    case TextKind::kDirectory:
      return ConfigKind::kDirectory;
    case TextKind::kText:
      break;
  }
  return ConfigKind::kText;
}

std::string ConfigKey::section() const {
  const size_t dot = key.find('.');
  return dot == std::string::npos ? "" : key.substr(0, dot);
}

std::string ConfigKey::name() const { return key.substr(key.find('.') + 1); }

bool ConfigKey::switch_value() const { return flag.rfind("--no-", 0) != 0; }

bool ConfigKey::selects_section() const {
  const std::vector<ConfigKey>& keys = config_keys();
  return std::any_of(keys.begin(), keys.end(),
                     [this](const ConfigKey& other) { return other.only_when.key == key; });
}

bool ConfigKey::applies_to(const RunConfig& config) const {
  if (only_when.key.empty()) return true;
  const std::vector<std::string>& values = only_when.values;
  return std::find(values.begin(), values.end(), word_of(config, only_when.key)) != values.end();
}

bool ConfigKey::taken_by(const std::string& command) const {
  return !flag.empty() && std::find(commands.begin(), commands.end(), command) != commands.end();
}

std::pair<ValueRange, std::string> ConfigKey::range_for(const RunConfig& config) const {
  for (const KeyVariant& variant : variants) {
    if (!std::holds_alternative<std::monostate>(variant.range) &&
        word_of(config, variant.key) == variant.value) {
      return {variant.range, variant.range_note};
    }
  }
  return {range, range_note};
}

namespace {

// The rows, each enum field's words listed as its row's choices.
std::vector<ConfigKey> with_enum_choices(std::vector<ConfigKey> keys) {
  for (ConfigKey& key : keys) {
    if (key.choices.empty()) key.choices = key.field.words;
  }
  return keys;
}

}  // namespace

const std::vector<ConfigKey>& config_keys() {
  // The sections' variants.
  const KeyCondition simulated{"data.source", {"simulated"}};
  const KeyCondition files{"data.source", {"files"}};
  const KeyCondition adam{"optimizer.name", {"adam", "adamw"}};
  const KeyCondition sgd{"optimizer.name", {"sgd"}};
  const KeyCondition rmsprop{"optimizer.name", {"rmsprop"}};
  const RealRange unit{0.0, 1.0};
  const RealRange unit_below_one{0.0, 1.0, false, true};
  // The commands taking a key's flag: the run's (train, inspect, summary), and simulate, which
  // writes the simulated data of a run's config.
  const std::vector<std::string>& run = kRunCommands;
  std::vector<std::string> run_and_simulate = kRunCommands;
  run_and_simulate.push_back("simulate");
  static const std::vector<ConfigKey> keys = with_enum_choices({
      {.key = "preset",
       .field = field([](auto& c) -> auto& { return c.preset; }),
       .choices = {"", "reference", "basset", "deepsea", "bpnet", "chrombpnet_bias", "chrombpnet"},
       .omitted_when_empty = true,
       .help = "A preset whose config (configs/<name>.json: reference, basset, deepsea, bpnet, "
               "chrombpnet_bias, chrombpnet) "
               "is the base under this file's keys; `strand train --model NAME`"},
      // ---- data ----
      {.key = "data.source",
       .field = field([](auto& c) -> auto& { return c.data.source; }),
       .choices = {"simulated", "files"},
       .help = "Where the sequences come from: the built-in simulation or FASTA files (a flag "
               "of either kind selects it)"},
      {.key = "data.motif",
       .field = field([](auto& c) -> auto& { return c.data.simulated.motif; }),
       .only_when = simulated,
       .flag = "--motif",
       .help = "Motif planted in the positive sequences, by its name in the motif file",
       .commands = run_and_simulate},
      {.key = "data.motif_file",
       .field = field([](auto& c) -> auto& { return c.data.simulated.motif_file; }),
       .only_when = simulated,
       .text = TextKind::kFile,
       .omitted_when_empty = true,
       .flag = "--motif-file",
       .help = "ENCODE-format motif file; empty: the one shipped with strand",
       .commands = run_and_simulate},
      {.key = "data.n_pos",
       .field = count_field([](auto& c) -> auto& { return c.data.simulated.simulation.num_pos; }),
       .only_when = simulated,
       .range = IntRange{0, kMaxCount},
       .flag = "--n-pos",
       .help = "Sequences with the motif",
       .commands = run_and_simulate},
      {.key = "data.n_neg",
       .field = count_field([](auto& c) -> auto& { return c.data.simulated.simulation.num_neg; }),
       .only_when = simulated,
       .range = IntRange{0, kMaxCount},
       .flag = "--n-neg",
       .help = "Background sequences",
       .commands = run_and_simulate},
      {.key = "data.length",
       .field =
           count_field([](auto& c) -> auto& { return c.data.simulated.simulation.seq_length; }),
       .only_when = simulated,
       .range = IntRange{1, kMaxSequenceLength},
       .flag = "--length",
       .help = "Bases per sequence",
       .commands = run_and_simulate},
      {.key = "data.gc_fraction",
       .field = field([](auto& c) -> auto& { return c.data.simulated.simulation.gc_fraction; }),
       .only_when = simulated,
       .range = unit,
       .flag = "--gc-fraction",
       .help = "GC fraction of the background",
       .commands = run_and_simulate},
      {.key = "data.validation",
       .field = count_field(
           [](auto& c) -> auto& { return c.data.simulated.simulation.validation_size; }),
       .only_when = simulated,
       .range = IntRange{1, kMaxCount},
       .range_note = "early stopping and checkpoints need it",
       .flag = "--validation",
       .help = "Sequences held out for validation",
       .commands = run_and_simulate},
      {.key = "data.test",
       .field = count_field([](auto& c) -> auto& { return c.data.simulated.simulation.test_size; }),
       .only_when = simulated,
       .range = IntRange{1, kMaxCount},
       .flag = "--test",
       .help = "Sequences held out for the test",
       .commands = run_and_simulate},
      {.key = "data.fasta",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.fasta; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--fasta",
       .help = "Training FASTA; required",
       .commands = run},
      {.key = "data.intervals",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.intervals; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--intervals",
       .help = "Training intervals (bed, narrowpeak, dream) or, for records, the label TSV "
               "(name, tab, label); required",
       .commands = run},
      {.key = "data.format",
       .field = enum_field(
           [](auto& c) -> auto& { return c.data.files.loader.format; },
           data::interval_format_names()),
       .only_when = files,
       .flag = "--format",
       .help = "Format of the interval files; with records, each FASTA record is a sample",
       .commands = run},
      {.key = "data.valid_fasta",
       .field = field([](auto& c) -> auto& { return c.data.files.valid_fasta; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--valid-fasta",
       .help = "Validation FASTA; empty: data.fasta",
       .commands = run},
      {.key = "data.valid_intervals",
       .field = field([](auto& c) -> auto& { return c.data.files.valid_intervals; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--valid-intervals",
       .help = "Validation intervals or labels; needed only when early stopping monitors a val_ "
               "metric",
       .commands = run},
      {.key = "data.test_fasta",
       .field = field([](auto& c) -> auto& { return c.data.files.test_fasta; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--test-fasta",
       .help = "Test FASTA; empty: data.fasta",
       .commands = run},
      {.key = "data.test_intervals",
       .field = field([](auto& c) -> auto& { return c.data.files.test_intervals; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--test-intervals",
       .help = "Test intervals or labels; empty: no test metrics",
       .commands = run},
      // ---- tasks, splits of one file and negatives (data/intervals/splits.h,
      // data/intervals/negatives.h) ----
      {.key = "data.label_columns",
       .field = columns_field(
           [](auto& c) -> auto& { return c.data.files.loader.label_columns; }, 4),
       .only_when = files,
       .flag = "--label-columns",
       .help = "Label columns of bed, narrowpeak or dream files, 1-based: 4-167 or 4,6,9-12 (one "
               "task each); empty: bed 4, narrowpeak 7, dream every cell type",
       .commands = run},
      {.key = "data.task_names",
       .field = names_field([](auto& c) -> auto& { return c.data.files.loader.task_names; }),
       .only_when = files,
       .flag = "--task-names",
       .help = "Task names, comma-separated, one per label column; empty: the file's header "
               "(a '#' line for bed), else task_0, task_1, ...",
       .commands = run},
      {.key = "data.valid_chroms",
       .field = names_field([](auto& c) -> auto& { return c.data.files.split.valid_chroms; }),
       .only_when = files,
       .flag = "--valid-chroms",
       .help = "Chromosomes (comma-separated) whose intervals of data.intervals validate; the "
               "rest train",
       .commands = run},
      {.key = "data.test_chroms",
       .field = names_field([](auto& c) -> auto& { return c.data.files.split.test_chroms; }),
       .only_when = files,
       .flag = "--test-chroms",
       .help = "Chromosomes (comma-separated) whose intervals of data.intervals test",
       .commands = run},
      {.key = "data.folds",
       .field = field([](auto& c) -> auto& { return c.data.files.split.folds; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--folds",
       .help = "chrombpnet fold JSON {\"train\": [...], \"valid\": [...], \"test\": [...]} of "
               "chromosomes splitting data.intervals; intervals elsewhere are left out",
       .commands = run},
      {.key = "data.valid_fraction",
       .field = field([](auto& c) -> auto& { return c.data.files.split.valid_fraction; }),
       .only_when = files,
       .range = unit_below_one,
       .flag = "--valid-fraction",
       .help = "Fraction of data.intervals (or records) that validates, drawn at random by seed, "
               "stratified by label (any positive task)",
       .commands = run},
      {.key = "data.test_fraction",
       .field = field([](auto& c) -> auto& { return c.data.files.split.test_fraction; }),
       .only_when = files,
       .range = unit_below_one,
       .flag = "--test-fraction",
       .help = "Fraction of data.intervals (or records) that tests, drawn like data.valid_fraction",
       .commands = run},
      {.key = "data.negatives_ratio",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.negatives_ratio; }),
       .only_when = files,
       .range = data::loader_ranges::kNegativesRatio,
       .range_note = "0: none",
       .flag = "--negatives-ratio",
       .help = "GC-matched background windows of data.fasta per interval: the intervals become "
               "peaks labelled 1, the windows negatives labelled 0 (one task)",
       .commands = run},
      {.key = "data.blacklist",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.blacklist; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--blacklist",
       .help = "BED of regions negatives never overlap (with data.negatives_ratio)",
       .commands = run},
      {.key = "data.window",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.window; }),
       .only_when = files,
       .range = data::loader_ranges::kWindow,
       .variants = {{.key = "data.format",
                     .value = "records",
                     .default_value = int64_t{0},
                     .range = data::loader_ranges::kRecordsWindow,
                     .range_note = "0: the records' common length"}},
       .flag = "--window",
       .help = "Bases per sample",
       .commands = run},
      {.key = "data.jitter",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.jitter; }),
       .only_when = files,
       .range = data::loader_ranges::kJitter,
       .flag = "--jitter",
       .help = "Largest random shift of a training window, in bases",
       .commands = run},
      {.key = "data.rc_probability",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.rc_probability; }),
       .only_when = files,
       .range = data::loader_ranges::kProbability,
       .flag = "--rc",
       .help = "Probability that a training sample is reverse-complemented",
       .commands = run},
      {.key = "data.balanced",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.balanced; }),
       .only_when = files,
       .flag = "--balanced",
       .help = "Half positives in every training batch",
       .commands = run},
      {.key = "data.streaming",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.streaming; }),
       .only_when = files,
       .flag = "--streaming",
       .help = "Read each window from the FASTA when it is sampled instead of holding all in "
               "memory",
       .commands = run},
      {.key = "data.loader_threads",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.loader_threads; }),
       .only_when = files,
       .range = data::loader_ranges::kLoaderThreads,
       .flag = "--loader-threads",
       .help = "Data loader threads",
       .commands = run},
      {.key = "data.prefetch",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.prefetch; }),
       .only_when = files,
       .range = data::loader_ranges::kPrefetch,
       .help = "Batches the loader prepares ahead"},
      {.key = "data.profile_bigwigs",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.signals.profile_bigwigs; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--profile-bigwigs",
       .help = "Per-base target tracks over the output window, as batch profile (B, S, Lp): one "
               "bigWig per unstranded track, a `plus.bw,minus.bw` pair per stranded one (reverse "
               "complement swaps it); bed and narrowpeak only",
       .commands = run},
      {.key = "data.control_bigwigs",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.signals.control_bigwigs; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--control-bigwigs",
       .help = "Per-base control tracks over the whole window, a model input as batch control "
               "(B, Sc, L); entries as for data.profile_bigwigs",
       .commands = run},
      {.key = "data.profile_length",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.signals.profile_length; }),
       .only_when = files,
       .range = data::loader_ranges::kProfileLength,
       .range_note = "0: the window; window - profile_length must be even",
       .flag = "--profile-length",
       .help = "Bases of the output window, centred in the window: the profile tracks' and count "
               "sums' span",
       .commands = run},
      {.key = "data.targets",
       .field = enum_field(
           [](auto& c) -> auto& { return c.data.files.loader.signals.targets; },
           data::target_source_names()),
       .only_when = files,
       .flag = "--targets",
       .help = "Where labels come from: the interval file's label columns, or counts (one task "
               "per data.count_bigwigs entry, else per data.profile_bigwigs entry: its sum over "
               "the output window; the file's label columns are not read)",
       .commands = run},
      {.key = "data.count_bigwigs",
       .field = field([](auto& c) -> auto& { return c.data.files.loader.signals.count_bigwigs; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--count-bigwigs",
       .help = "With targets counts: one task per entry, its summed bigWig(s) over the output "
               "window; empty: the profile tracks",
       .commands = run},
      {.key = "data.bias_peaks",
       .field = field([](auto& c) -> auto& { return c.data.files.bias_peaks; }),
       .only_when = files,
       .text = TextKind::kFile,
       .flag = "--bias-peaks",
       .help = "Peaks (bed or narrowPeak) whose counts cap the training and validation windows, as "
               "chrombpnet trains its bias model: windows whose total counts (profile tracks over "
               "the output window) reach data.bias_threshold_factor x the 1% quantile of the "
               "peaks' totals are left out; empty: every window",
       .commands = run},
      {.key = "data.bias_threshold_factor",
       .field = field([](auto& c) -> auto& { return c.data.files.bias_threshold_factor; }),
       .only_when = files,
       .range = RealRange{0.0, 1e6, true},
       .flag = "--bias-threshold-factor",
       .help = "With data.bias_peaks: the fraction of the peaks' low (1% quantile) counts below "
               "which a window's counts must stay (chrombpnet's bias_threshold_factor)",
       .commands = run},
      // ---- the model, from the layer catalog ----
      {.key = "model",
       .field = field([](auto& c) -> auto& { return c.model; }),
       .help = "The layers, first to last, or a graph {\"nodes\": [...], \"outputs\": [...]} "
               "(docs/models.md); `strand layers` lists the layer types and options"},
      {.key = "loss",
       .field = field([](auto& c) -> auto& { return c.loss; }),
       .choices = loss_names(),
       .flag = "--loss",
       .help = "Loss of a layer-list model (a graph names one per output): binary_crossentropy "
               "and categorical_crossentropy score 0/1 labels (auROC, auPRC); mse and poisson "
               "real values (Pearson, Spearman); poisson needs a final Exp",
       .commands = run},
      // ---- optimizer (the rows of each optimizer in the order its error messages list them)
      {.key = "optimizer.name",
       .field = field([](auto& c) -> auto& { return c.optimizer.name; }),
       .choices = {"adam", "adamw", "sgd", "rmsprop"},
       .flag = "--optimizer",
       .help = "Optimizer (adamw: Adam with decoupled weight decay, as torch.optim.AdamW)",
       .commands = run},
      {.key = "optimizer.learning_rate",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<double>(c.optimizer, &AdamOptions::learning_rate,
                                         &SGDOptions::learning_rate,
                                         &RMSpropOptions::learning_rate);
       }),
       .range = RealRange{0.0, 1e3, true},
       .flag = "--lr",
       .help = "Learning rate",
       .commands = run},
      {.key = "optimizer.weight_decay",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<double>(c.optimizer, &AdamOptions::weight_decay,
                                         &SGDOptions::weight_decay, &RMSpropOptions::weight_decay);
       }),
       .range = RealRange{0.0, 1e3},
       .help = "L2 penalty added to the gradient"},
      {.key = "optimizer.beta1",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<double>(c.optimizer, &AdamOptions::beta1, nullptr, nullptr);
       }),
       .only_when = adam,
       .range = unit_below_one,
       .help = "Decay of Adam's gradient average"},
      {.key = "optimizer.beta2",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<double>(c.optimizer, &AdamOptions::beta2, nullptr, nullptr);
       }),
       .only_when = adam,
       .range = unit_below_one,
       .help = "Decay of Adam's squared-gradient average"},
      {.key = "optimizer.alpha",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<double>(c.optimizer, nullptr, nullptr, &RMSpropOptions::alpha);
       }),
       .only_when = rmsprop,
       .range = unit_below_one,
       .help = "Decay of RMSprop's squared-gradient average"},
      {.key = "optimizer.eps",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<double>(c.optimizer, &AdamOptions::eps, nullptr,
                                         &RMSpropOptions::eps);
       }),
       .only_when = {"optimizer.name", {"adam", "rmsprop"}},
       .range = RealRange{0.0, 1.0, true},
       .help = "Added to the denominator of the update, for stability"},
      {.key = "optimizer.momentum",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<double>(c.optimizer, nullptr, &SGDOptions::momentum,
                                         &RMSpropOptions::momentum);
       }),
       .only_when = {"optimizer.name", {"sgd", "rmsprop"}},
       .range = unit,
       .help = "Momentum"},
      {.key = "optimizer.dampening",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<double>(c.optimizer, nullptr, &SGDOptions::dampening, nullptr);
       }),
       .only_when = sgd,
       .range = unit,
       .help = "Dampening of the momentum"},
      {.key = "optimizer.nesterov",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<bool>(c.optimizer, nullptr, &SGDOptions::nesterov, nullptr);
       }),
       .only_when = sgd,
       .help = "Nesterov momentum"},
      {.key = "optimizer.centered",
       .field = field([](auto& c) -> auto& {
         return optimizer_option<bool>(c.optimizer, nullptr, nullptr, &RMSpropOptions::centered);
       }),
       .only_when = rmsprop,
       .help = "Divide by the gradient's estimated variance instead of its second moment"},
      // ---- schedule ----
      {.key = "batch_size",
       .field = field([](auto& c) -> auto& { return c.batch_size; }),
       .range = data::loader_ranges::kBatchSize,
       .flag = "--batch-size",
       .help = "Samples per training step",
       .commands = run},
      {.key = "epochs",
       .field = field([](auto& c) -> auto& { return c.fit.epochs; }),
       .range = IntRange{1, kMaxCount},
       .flag = "--epochs",
       .help = "Maximum epochs",
       .commands = run},
      {.key = "clip_grad_norm",
       .field = field([](auto& c) -> auto& { return c.fit.clip_grad_norm; }),
       .range = RealRange{0.0, 1e9},
       .range_note = "0: off",
       .flag = "--clip-grad-norm",
       .help = "Clip the gradients to this global L2 norm before every update",
       .commands = run},
      {.key = "max_weight_norm",
       .field = field([](auto& c) -> auto& { return c.fit.max_weight_norm; }),
       .range = RealRange{0.0, 1e9},
       .range_note = "0: off",
       .flag = "--max-weight-norm",
       .help = "Cap every weight matrix's or filter bank's per-output-unit norm after each "
               "update (Basset: 7)",
       .commands = run},
      {.key = "lr_schedule.name",
       .field = field([](auto& c) -> auto& { return c.lr_schedule.name; }),
       .choices = {"none", "step", "cosine", "plateau"},
       .flag = "--lr-schedule",
       .help = "Learning-rate schedule: step decay, cosine decay after a linear warm-up (to the "
               "last step of the last epoch), or reduce on plateau of the early-stopping monitor",
       .commands = run},
      {.key = "lr_schedule.step_size",
       .field = field([](auto& c) -> auto& { return c.lr_schedule.step.step_size; }),
       .only_when = {"lr_schedule.name", {"step"}},
       .range = IntRange{1, kMaxCount},
       .help = "Optimizer steps between decays"},
      {.key = "lr_schedule.gamma",
       .field = field([](auto& c) -> auto& { return c.lr_schedule.step.gamma; }),
       .only_when = {"lr_schedule.name", {"step"}},
       .range = RealRange{0.0, 1.0, true},
       .help = "Factor of each decay"},
      {.key = "lr_schedule.warmup_steps",
       .field = field([](auto& c) -> auto& { return c.lr_schedule.cosine.warmup_steps; }),
       .only_when = {"lr_schedule.name", {"cosine"}},
       .range = IntRange{0, kMaxCount},
       .flag = "--warmup-steps",
       .help = "Steps of linear warm-up before the cosine decay",
       .commands = run},
      {.key = "lr_schedule.min_learning_rate",
       .field = field([](auto& c) -> auto& { return min_learning_rate(c.lr_schedule); }),
       .only_when = {"lr_schedule.name", {"cosine", "plateau"}},
       .range = RealRange{0.0, 1e3},
       .help = "cosine: the rate reached at the end; plateau: the rate is never reduced below"},
      {.key = "lr_schedule.factor",
       .field = field([](auto& c) -> auto& { return c.lr_schedule.plateau.factor; }),
       .only_when = {"lr_schedule.name", {"plateau"}},
       .range = RealRange{0.0, 1.0, true, true},
       .help = "Factor of each reduction"},
      {.key = "lr_schedule.patience",
       .field = field([](auto& c) -> auto& { return c.lr_schedule.plateau.patience; }),
       .only_when = {"lr_schedule.name", {"plateau"}},
       .range = IntRange{0, kMaxCount},
       .help = "Epochs without improvement of the early-stopping monitor before a reduction"},
      {.key = "early_stopping.enabled",
       .field = field([](auto& c) -> auto& { return c.early_stopping.enabled; }),
       .flag = "--no-early-stopping",
       .help = "Stop when the monitored metric stops improving; false: train all epochs",
       .commands = run},
      {.key = "early_stopping.monitor",
       .field = field([](auto& c) -> auto& { return c.early_stopping.options.monitor; }),
       .flag = "--monitor",
       .help = "Metric that early stopping and the best checkpoint follow: any the run logs, "
               "checked before training (loss, accuracy for binary labels, or val_ and a "
               "figure of the evaluation: val_loss, val_auroc, val_auprc, val_mean_auroc, "
               "val_auroc/TASK, val_pearson, val_OUTPUT_loss, ...); losses are minimised, the "
               "others maximised",
       .commands = run},
      {.key = "early_stopping.patience",
       .field = field([](auto& c) -> auto& { return c.early_stopping.options.patience; }),
       .range = IntRange{0, kMaxCount},
       .flag = "--patience",
       .help = "Epochs without improvement before stopping",
       .commands = run},
      {.key = "early_stopping.min_delta",
       .field = field([](auto& c) -> auto& { return c.early_stopping.options.min_delta; }),
       .range = RealRange{0.0, 1e9},
       .help = "Smallest change of the monitored metric that counts as an improvement"},
      {.key = "early_stopping.restore_best_weights",
       .field =
           field([](auto& c) -> auto& { return c.early_stopping.options.restore_best_weights; }),
       .help = "End training with the best epoch's weights"},
      {.key = "seed",
       .field = field([](auto& c) -> auto& { return c.seed; }),
       .flag = "--seed",
       .help = "Seed of data, initialisation and shuffling",
       .commands = run_and_simulate},
      // ---- where and how it runs ----
      {.key = "threads",
       .field = field([](auto& c) -> auto& { return c.threads; }),
       .range = IntRange{.lo = 0, .up_to_thread_cap = true},
       .range_note = "0: OMP_NUM_THREADS, else all cores",
       .flag = "--threads",
       .help = "CPU threads",
       .commands = run},
      {.key = "output_dir",
       .field = field([](auto& c) -> auto& { return c.output_dir; }),
       .text = TextKind::kDirectory,
       .flag = "--output-dir",
       .help = "Parent of the run directory",
       .commands = run},
      {.key = "tensorboard_every_steps",
       .field = field([](auto& c) -> auto& { return c.tensorboard_every_steps; }),
       .range = IntRange{0, kMaxCount},
       .range_note = "0: epoch scalars only",
       .flag = "--tensorboard-every",
       .help = "Steps between the TensorBoard step scalars",
       .commands = run},
      {.key = "device",
       .field = field([](auto& c) -> auto& { return c.device; }),
       .flag = "--device",
       .help = "cpu or cuda[:N]; cuda fails clearly where unsupported",
       .commands = run},
      {.key = "deterministic",
       .field = field([](auto& c) -> auto& { return c.deterministic; }),
       .flag = "--deterministic",
       .help = "Bit-identical repeats on one device: no timed kernel choices, deterministic "
               "cuDNN algorithms",
       .commands = run},
      {.key = "cuda_graph",
       .field = field([](auto& c) -> auto& { return c.fit.cuda_graph; }),
       .flag = "--no-cuda-graph",
       .help = "Single-GPU training replays each step from a CUDA graph; false: every step runs "
               "eagerly",
       .commands = run},
      {.key = "precision",
       .field = field([](auto& c) -> auto& { return c.precision; }),
       .choices = {"fp32", "tf32", "bf16"},
       .flag = "--precision",
       .help = "Float32 matrix math: fp32 (exact); tf32 (GPU: TensorFloat-32 tensor cores in "
               "cuBLAS and cuDNN, about 1e-3 relative error; the CPU computes it as fp32); bf16 "
               "(mixed precision as torch.autocast: matmul and dense-conv operands in bfloat16, "
               "float32 sums, weights and statistics; GPU tensor cores, or a CPU with AVX-512 "
               "BF16 or AMX)",
       .commands = run},
      {.key = "init_weights",
       .field = field([](auto& c) -> auto& { return c.init_weights; }),
       .text = TextKind::kFile,
       .flag = "--init-weights",
       .help = "Checkpoint whose weights start training (fine-tuning); empty: fresh weights",
       .commands = run},
      {.key = "bias_model",
       .field = field([](auto& c) -> auto& { return c.bias_model; }),
       .text = TextKind::kDirectory,
       .flag = "--bias-model",
       .help = "A trained bias model's run directory (ChromBPNet; train it with --model "
               "chrombpnet_bias): frozen, its profile logits are added to the model's and its log "
               "counts by log-sum-exp; the run keeps a copy (bias_model/); empty: none",
       .commands = run},
      {.key = "freeze",
       .field = field([](auto& c) -> auto& { return c.freeze; }),
       .flag = "--freeze",
       .help = "Indices of the layers whose parameters are not trained; as a flag: 0,3",
       .commands = run},
      // ---- data-parallel training under mpirun (ignored in a single process) ----
      {.key = "distributed.mode",
       .field = field([](auto& c) -> auto& { return c.distributed.mode; }),
       .choices = {"mirrored", "averaging"},
       .help = "All-reduce the gradients every step (mirrored) or average the parameters every "
               "few steps (averaging)"},
      {.key = "distributed.bucket_mb",
       .field = field([](auto& c) -> auto& { return c.distributed.bucket_mb; }),
       .range = RealRange{0.0, 65536.0, true},
       .help = "Gradient bucket size of the mirrored all-reduce, in MB"},
      {.key = "distributed.average_every",
       .field = field([](auto& c) -> auto& { return c.distributed.average_every; }),
       .range = IntRange{1, kMaxCount},
       .help = "Averaging: local steps between parameter averages"},
      {.key = "distributed.average_optimizer_state",
       .field = field([](auto& c) -> auto& { return c.distributed.average_optimizer_state; }),
       .help = "Averaging: average the optimizer state too"},
      {.key = "distributed.timeout_s",
       .field = field([](auto& c) -> auto& { return c.distributed.timeout_s; }),
       .range = RealRange{0.0, 604800.0, true},
       .range_note = "a week",
       .help = "Seconds a collective may wait before the job is aborted"},
  });
  return keys;
}

const ConfigKey* find_config_key(const std::string& path) {
  for (const ConfigKey& key : config_keys()) {
    if (key.key == path) return &key;
  }
  return nullptr;
}

std::string word_of(const RunConfig& config, const std::string& path) {
  const ConfigKey* key = find_config_key(path);
  STRAND_CHECK(key != nullptr && key->kind() == ConfigKind::kWord, "'{}' is no word config key",
               path);
  return std::get<std::string>(key->field.get(config));
}

}  // namespace strand::app
