// RunConfig parsing, strict key/type checking, resolution back to JSON, and value validation.
#include "cli/run_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "cli/config_keys.h"
#include "cli/edit_distance.h"
#include "cli/object_reader.h"
#include "cli/presets.h"
#include "core/device.h"
#include "core/parse_number.h"
#include "data/data_error.h"
#include "data/list_syntax.h"
#include "data/signals/signal_tracks.h"
#include "io/json_limits.h"
#include "layers/model.h"
#include "tensor/cuda_runtime.h"

namespace strand::cli {
namespace {

using nlohmann::json;

// A parse callback that refuses a key repeated within one object (nlohmann keeps the last one
// silently). It follows the nesting to name the key by its JSON path, e.g. "model[1].units".
class DuplicateKeyCheck {
 public:
  bool operator()(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        frames_.push_back({event == json::parse_event_t::array_start, 0, {}, ""});
        break;
      case json::parse_event_t::key: {
        Frame& frame = frames_.back();
        std::string key = parsed.get<std::string>();
        if (!frame.keys.insert(key).second) {
          throw ConfigError(fmt::format(
              "{}: duplicate key (a key may appear only once in an object)", path(key)));
        }
        frame.key = std::move(key);
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array = false;
    int64_t index = 0;           // arrays: the element being read
    std::set<std::string> keys;  // objects: the keys seen so far
    std::string key;             // objects: the key being read
  };

  void element_done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  // The path of `key` in the innermost object.
  std::string path(const std::string& key) const {
    std::string out;
    for (size_t i = 0; i + 1 < frames_.size(); ++i) {
      out = frames_[i].array ? fmt::format("{}[{}]", out, frames_[i].index)
                             : join_path(out, frames_[i].key);
    }
    return join_path(out, key);
  }

  std::vector<Frame> frames_;
};

void require(bool ok, const std::string& key, const std::string& what) {
  if (!ok) throw ConfigError(fmt::format("{}: {}", key, what));
}

// A list of layer indices (freeze); validate_config checks that they are in the model.
std::vector<int64_t> parse_layer_indices(const json& value, const std::string& path) {
  if (!value.is_array()) {
    throw ConfigError(
        fmt::format("{}: expected a list of layer indices, got {}", path, value.dump()));
  }
  std::vector<int64_t> indices;
  for (size_t i = 0; i < value.size(); ++i) {
    const json& index = value[i];
    require(index.is_number_integer(), fmt::format("{}[{}]", path, i),
            fmt::format("expected a layer index, got {}", index.dump()));
    indices.push_back(index.get<int64_t>());
  }
  return indices;
}

// A flag's list of layer indices, "0,3" ("" freezes nothing). An empty entry ("0,", "0,,3") is
// an error, as in every list a flag takes.
std::vector<int64_t> parse_index_list(const std::string& text, const std::string& flag) {
  std::vector<int64_t> out;
  if (text.empty()) return out;
  for (size_t begin = 0, position = 1;; ++position) {
    const size_t comma = text.find(',', begin);
    const std::string item =
        text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (item.empty()) {
      throw ConfigError(fmt::format(
          "{}: entry {} of '{}' is empty; expected layer indices separated by single commas "
          "(e.g. {} 0,3)",
          flag, position, text, flag));
    }
    const std::optional<int64_t> index = parse_int64(item);
    if (!index) {
      throw ConfigError(
          fmt::format("{}: '{}' is not a layer index (e.g. {} 0,3)", flag, item, flag));
    }
    out.push_back(*index);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return out;
}

// A list of bigWig entries (data.profile_bigwigs): strings, each one file or a "plus,minus" pair;
// validate_config checks the files.
std::vector<std::string> parse_track_files(const json& value, const std::string& path) {
  if (!value.is_array()) {
    throw ConfigError(fmt::format(
        "{}: expected a list of bigWig files (\"a.bw\" or \"plus.bw,minus.bw\"), got {}", path,
        value.dump()));
  }
  std::vector<std::string> entries;
  for (size_t i = 0; i < value.size(); ++i) {
    require(value[i].is_string(), fmt::format("{}[{}]", path, i),
            fmt::format("expected a file name, got {}", value[i].dump()));
    entries.push_back(value[i].get<std::string>());
  }
  return entries;
}

// Reads `key` from the object `reader` reads into `config`, checked against the key's kind.
// First a default that depends on an earlier key (data.window for records) takes effect.
void read_key(ObjectReader& reader, const ConfigKey& key, RunConfig& config) {
  for (const KeyVariant& variant : key.variants) {
    if (variant.default_value && word_of(config, variant.key) == variant.value) {
      key.field.set(config, *variant.default_value);
    }
  }
  const std::string name = key.name();
  switch (key.kind()) {
    case ConfigKind::kModel:
      if (const json* value = reader.find(name)) {
        key.field.set(config, parse_model_spec(*value, join_path(reader.path(), name)));
      }
      return;
    case ConfigKind::kLayerIndices:
      if (const json* value = reader.find(name)) {
        key.field.set(config, parse_layer_indices(*value, join_path(reader.path(), name)));
      }
      return;
    case ConfigKind::kTrackFiles:
      if (const json* value = reader.find(name)) {
        key.field.set(config, parse_track_files(*value, join_path(reader.path(), name)));
      }
      return;
    case ConfigKind::kWord: {
      std::string word = std::get<std::string>(key.field.get(config));
      reader.read_choice(name, word, key.choices);
      key.field.set(config, std::move(word), join_path(reader.path(), name));
      return;
    }
    default: {
      ConfigValue value = key.field.get(config);
      std::visit(
          [&reader, &name](auto& v) {
            if constexpr (requires { reader.read(name, v); }) reader.read(name, v);
          },
          value);
      key.field.set(config, std::move(value), join_path(reader.path(), name));
    }
  }
}

// A path for an error message: whole when short, else its start and its length (a config
// value may be kilobytes long).
std::string quoted_path(const std::string& path) {
  constexpr size_t kShown = 120;
  if (path.size() <= kShown) return "'" + path + "'";
  return fmt::format("'{}...' ({} characters)", path.substr(0, kShown), path.size());
}

void require_file(const std::string& path, const std::string& key) {
  if (path.empty()) return;
  // The non-throwing overload: a path the system cannot even look up (longer than PATH_MAX,
  // a component that is not a directory, no permission) is a ConfigError naming the key, not
  // a std::filesystem_error (found by fuzz/fuzz_config).
  std::error_code error;
  const bool regular = std::filesystem::is_regular_file(path, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    throw ConfigError(
        fmt::format("{}: file {} cannot be checked: {}", key, quoted_path(path), error.message()));
  }
  if (!regular && std::filesystem::is_directory(path, error)) {
    throw ConfigError(
        fmt::format("{}: {} is a directory, expected a file", key, quoted_path(path)));
  }
  require(regular || std::filesystem::exists(path, error), key,
          fmt::format("file {} does not exist", quoted_path(path)));
  require(regular, key, fmt::format("{} is not a regular file", quoted_path(path)));
}

// The task, split and negatives keys of files data (issue 14): no two keys ask for
// incompatible things (each list was parsed when it was read). Errors name both keys.
void validate_tasks_and_splits(const FilesDataConfig& f) {
  const data::LoaderConfig& l = f.loader;
  const data::SplitConfig& split = f.split;
  const bool records = l.format == data::IntervalFormat::kRecords;
  // The way of splitting data.intervals that is set, by its keys, if any.
  std::vector<std::string> ways;
  if (!split.valid_chroms.empty() || !split.test_chroms.empty()) {
    ways.push_back(!split.valid_chroms.empty() ? "data.valid_chroms" : "data.test_chroms");
  }
  if (!split.folds.empty()) ways.push_back("data.folds");
  if (split.valid_fraction > 0 || split.test_fraction > 0) {
    ways.push_back(split.valid_fraction > 0 ? "data.valid_fraction" : "data.test_fraction");
  }
  require(ways.size() <= 1,
          fmt::format("{} and {}", ways.empty() ? "" : ways[0], ways.size() > 1 ? ways[1] : ""),
          "split data.intervals one way: by chromosomes (data.valid_chroms, data.test_chroms), "
          "by a fold file (data.folds) or by fractions (data.valid_fraction, data.test_fraction)");
  for (const auto& [file, key] : {std::pair{&f.valid_intervals, "data.valid_intervals"},
                                  std::pair{&f.test_intervals, "data.test_intervals"}}) {
    require(file->empty() || ways.empty(),
            fmt::format("{} and {}", key, ways.empty() ? "" : ways[0]),
            "give the validation and test sets as files or split data.intervals, not both");
    require(file->empty() || l.negatives_ratio == 0,
            fmt::format("{} and data.negatives_ratio", key),
            "negatives are drawn for data.intervals alone; split it (data.valid_chroms, "
            "data.folds, data.valid_fraction) or write negatives for each file with "
            "`strand negatives`");
  }
  for (const auto& [file, key] : {std::pair{&f.valid_fasta, "data.valid_fasta"},
                                  std::pair{&f.test_fasta, "data.test_fasta"}}) {
    require(file->empty() || ways.empty(),
            fmt::format("{} and {}", key, ways.empty() ? "" : ways[0]),
            "the parts of a split of data.intervals all come from data.fasta");
  }
  require(split.valid_fraction + split.test_fraction < 1,
          "data.valid_fraction and data.test_fraction",
          fmt::format("{} + {} leave nothing to train on (their sum must be below 1)",
                      split.valid_fraction, split.test_fraction));
  require(
      !records || (split.valid_chroms.empty() && split.test_chroms.empty() && split.folds.empty()),
      ways.empty() ? "data.format" : ways[0] + " and data.format",
      "records have no chromosomes: split them by data.valid_fraction and data.test_fraction");
  require(!records || l.label_columns.empty(), "data.label_columns and data.format",
          "records files label every column after the name; data.label_columns is for bed, "
          "narrowpeak and dream files");
  if (l.negatives_ratio > 0) {
    require(l.format == data::IntervalFormat::kBed || l.format == data::IntervalFormat::kNarrowPeak,
            "data.negatives_ratio and data.format",
            fmt::format("negatives are drawn around bed or narrowpeak peaks, not for {} files "
                        "(they label their own negatives)",
                        data::interval_format_name(l.format)));
    require(l.label_columns.empty(), "data.negatives_ratio and data.label_columns",
            "with negatives the peaks are labelled 1 and the negatives 0; the file's columns are "
            "not read");
    require(l.task_names.size() <= 1, "data.task_names and data.negatives_ratio",
            "peaks and negatives make one task: give one name");
  }
  require(l.blacklist.empty() || l.negatives_ratio > 0, "data.blacklist",
          "a blacklist keeps negatives away from regions; set data.negatives_ratio too");
  require(l.negatives_ratio == 0 || l.signals.targets != data::TargetSource::kCounts,
          "data.negatives_ratio and data.targets",
          "negatives are labelled 0 and peaks 1; count targets label windows by their bigWig "
          "sums instead");
}

// The bigWig keys: every entry a file or a pair of existing files, tracks only for interval
// formats with a window they fit, and count targets with tracks to count.
void validate_signal_tracks(const RunConfig& c) {
  const data::LoaderConfig& f = c.data.files.loader;
  const data::SignalOptions& signals = f.signals;
  const bool counts = signals.targets == data::TargetSource::kCounts;
  const bool peaks =
      f.format == data::IntervalFormat::kBed || f.format == data::IntervalFormat::kNarrowPeak;
  for (const ConfigKey& key : config_keys()) {
    if (key.kind() != ConfigKind::kTrackFiles || !key.applies_to(c)) continue;
    const auto entries = std::get<std::vector<std::string>>(key.field.get(c));
    std::vector<data::TrackGroup> groups;
    try {
      groups = data::parse_track_groups(entries, key.key);
    } catch (const data::DataError& error) {
      throw ConfigError(error.what());
    }
    for (size_t i = 0; i < groups.size(); ++i) {
      for (const std::string& file : groups[i].files) {
        require_file(file, fmt::format("{}[{}]", key.key, i));
      }
    }
  }
  const bool tracks = !signals.profile_bigwigs.empty() || !signals.control_bigwigs.empty() ||
                      !signals.count_bigwigs.empty();
  require(!(tracks || counts) || peaks, "data.format",
          fmt::format("bigWig tracks and count targets need bed or narrowpeak intervals, not {}",
                      data::interval_format_name(f.format)));
  require(counts || signals.count_bigwigs.empty(), "data.count_bigwigs",
          "is used only with data.targets \"counts\"");
  require(!counts || !signals.count_bigwigs.empty() || !signals.profile_bigwigs.empty(),
          "data.targets", "\"counts\" needs data.count_bigwigs or data.profile_bigwigs to count");
  const int64_t profile_length = signals.profile_length;
  require(
      profile_length == 0 || (profile_length <= f.window && (f.window - profile_length) % 2 == 0),
      "data.profile_length",
      fmt::format("{} does not fit the {}-base window: it must be at most the window, with an "
                  "even difference so that the output window stays centred under reverse "
                  "complement (0: the window)",
                  profile_length, f.window));
}

}  // namespace

RunConfig default_config() {
  RunConfig config;
  // A run's defaults where they differ from the library's: no reverse complement unless asked
  // for, and two loader threads.
  config.data.files.loader.rc_probability = 0.0;
  config.data.files.loader.loader_threads = 2;
  const auto layer = [](const std::string& type, LayerOptions options = {}) {
    return LayerSpec{type, find_layer_type(type)->complete(std::move(options))};
  };
  // The DragoNN TAL1 reference model.
  config.model.layers = {layer("Conv1D", {{"filters", int64_t{16}}, {"kernel_size", int64_t{15}}}),
                         layer("ReLU"), layer("GlobalMaxPool1D"),
                         layer("Dense", {{"units", std::string("tasks")}}), layer("Sigmoid")};
  return config;
}

namespace {

// The preset's data keys whose default depends on data.format (data.window: the preset's 600
// bases are those of its BED windows; records take their own length), dropped from the preset's
// data section `base` when `file` reads another format and does not set them itself: so
// `--model basset --format records` trains on the records' length, as `--format records` alone
// does, instead of padding 500-base records to 600 with N.
void drop_format_defaults(json& base, const json& file) {
  const auto format = file.find("format");
  if (format == file.end() || base.value("format", json()) == *format) return;
  for (const ConfigKey& key : config_keys()) {
    if (key.section() != "data" || file.contains(key.name())) continue;
    for (const KeyVariant& variant : key.variants) {
      if (variant.key == "data.format") base.erase(key.name());
    }
  }
}

// `file` over a preset's config `base`: the file's keys win; sections merge key by key, except
// a data section of another source, an optimizer of another name and the model, which replace
// the preset's whole; a data section of another format drops the preset's keys whose default
// the format sets (drop_format_defaults).
json over_preset(json base, const json& file) {
  for (const auto& [key, value] : file.items()) {
    auto it = base.find(key);
    const bool merge = it != base.end() && it->is_object() && value.is_object() && key != "model" &&
                       !(key == "data" && value.value("source", "") != it->value("source", "")) &&
                       !(key == "optimizer" && value.contains("name") &&
                         value.value("name", "") != it->value("name", ""));
    if (merge) {
      if (key == "data") drop_format_defaults(*it, value);
      *it = over_preset(*it, value);
    } else {
      base[key] = value;
    }
  }
  return base;
}

}  // namespace

RunConfig parse_config(const json& given) {
  // A preset's config is the base under the file's keys.
  json value = given;
  if (given.is_object() && given.contains("preset") && given["preset"].is_string() &&
      !given["preset"].get<std::string>().empty()) {
    const std::string name = given["preset"].get<std::string>();
    const std::string_view text = preset_config_text(name);
    if (text.empty()) {
      throw ConfigError(fmt::format("preset: '{}' is not a preset; the presets are {}", name,
                                    fmt::join(preset_names(), ", ")));
    }
    value = over_preset(json::parse(text), given);
  }
  ObjectReader top(value, "");
  RunConfig config = default_config();
  const std::vector<ConfigKey>& keys = config_keys();
  for (auto key = keys.begin(); key != keys.end();) {
    const std::string section = key->section();
    if (section.empty()) {
      read_key(top, *key, config);
      ++key;
      continue;
    }
    // A section's keys are neighbours in the table; those of another data source or optimizer
    // are unknown keys here. An absent section reads as an empty one.
    const json empty = json::object();
    const json* section_value = top.find(section);
    ObjectReader reader(section_value != nullptr ? *section_value : empty, section);
    for (; key != keys.end() && key->section() == section; ++key) {
      if (key->applies_to(config)) read_key(reader, *key, config);
    }
    reader.finish();
  }
  top.finish();
  return config;
}

RunConfig load_config_file(const std::filesystem::path& path, const std::string& preset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("config file '{}' cannot be opened", path.string()));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (const std::optional<size_t> at = io::nul_byte(text)) {
    // nlohmann would stop there and drop the rest unread (found by fuzz/fuzz_config).
    throw ConfigError(fmt::format(
        "config file '{}' holds a NUL byte at offset {}; a config is JSON text (a binary or "
        "damaged file?)",
        path.string(), *at));
  }
  json value;
  try {
    DuplicateKeyCheck duplicates;
    value = json::parse(text, [&duplicates](int depth, json::parse_event_t event, json& parsed) {
      // Refused before the value exists: copying or printing it recurses once per level.
      if (io::opens_too_deep(depth, event)) {
        throw ConfigError(fmt::format(
            "nesting deeper than {} levels of objects and arrays (a config nests at most a few; "
            "strand refuses deeper JSON before reading it)",
            io::kMaxJsonNesting));
      }
      return duplicates(event, parsed);
    });
  } catch (const json::parse_error& error) {
    throw ConfigError(
        fmt::format("config file '{}' is not valid JSON: {}", path.string(), error.what()));
  } catch (const json::out_of_range& error) {
    // nlohmann reports a number beyond a double (1e999) as out_of_range 406, not as a parse
    // error (found by fuzz/fuzz_config).
    throw ConfigError(fmt::format("config file '{}' holds a number out of range: {}", path.string(),
                                  error.what()));
  } catch (const ConfigError& error) {
    throw ConfigError(fmt::format("config file '{}': {}", path.string(), error.what()));
  }
  if (!preset.empty() && value.is_object()) value["preset"] = preset;
  try {
    return parse_config(value);
  } catch (const ConfigError& error) {
    throw ConfigError(fmt::format("{}: {}", path.string(), error.what()));
  }
}

json to_json(const RunConfig& c) {
  json out = json::object();
  for (const ConfigKey& key : config_keys()) {
    if (!key.applies_to(c)) continue;
    const ConfigValue value = key.field.get(c);
    if (key.omitted_when_empty && std::get<std::string>(value).empty()) continue;
    json& slot = key.section().empty() ? out[key.name()] : out[key.section()][key.name()];
    slot = value_json(value);
  }
  return out;
}

void validate_numbers(const RunConfig& c) {
  for (const ConfigKey& key : config_keys()) {
    if (!key.applies_to(c)) continue;
    const ConfigValue value = key.field.get(c);
    const auto [range, note] = key.range_for(c);
    check_range(key.key, value, range, note);
    if (key.kind() == ConfigKind::kModel) validate_model_spec(std::get<ModelSpec>(value), key.key);
  }
  // What no single key's range says.
  if (c.data.source == "files" && c.data.files.loader.window > 0) {
    // A larger shift moves the interval out of its window: the labels (and profiles) would no
    // longer describe the sequence. Records of window 0 take their common length, unknown here.
    const data::LoaderConfig& f = c.data.files.loader;
    require(f.jitter <= f.window / 2, "data.jitter",
            fmt::format("{} is more than half the {}-base window ({}): a shifted window would no "
                        "longer hold its interval's centre",
                        f.jitter, f.window, f.window / 2));
  }
  if (c.data.source == "simulated") {
    const data::MotifSimulationConfig& s = c.data.simulated.simulation;
    require(s.num_pos + s.num_neg > 0, "data.n_pos/data.n_neg", "need at least one sequence");
    require(s.validation_size + s.test_size < s.num_pos + s.num_neg, "data.validation/data.test",
            fmt::format("{} + {} leave no training sequences out of {}", s.validation_size,
                        s.test_size, s.num_pos + s.num_neg));
  }
}

void validate_config(const RunConfig& c) {
  validate_numbers(c);
  const data::LoaderConfig& f = c.data.files.loader;
  if (c.data.source == "files") {
    require(!f.fasta.empty(), "data.fasta", "a FASTA file is required for data.source 'files'");
    require(!f.intervals.empty(), "data.intervals",
            "an intervals (or, for records, labels TSV) file is required");
  }
  for (const ConfigKey& key : config_keys()) {
    if (key.kind() == ConfigKind::kFile && key.applies_to(c)) {
      require_file(std::get<std::string>(key.field.get(c)), key.key);
    }
  }
  if (c.data.source == "files") {
    require(!(f.streaming && f.format == data::IntervalFormat::kRecords), "data.streaming",
            "records are always held in memory");
    validate_tasks_and_splits(c.data.files);
  }
  if (c.data.source == "files") validate_signal_tracks(c);
  require(!c.output_dir.empty(), "output_dir", "must not be empty");
  if (c.threads == 0) resolved_threads(c);  // a malformed OMP_NUM_THREADS stops here
  for (const int64_t index : c.freeze) {
    const auto layers = static_cast<int64_t>(c.model.all_layers().size());
    require(index >= 0 && index < layers, "freeze",
            fmt::format("layer index {} is not in the model (layers 0..{})", index, layers - 1));
  }
  usable_device(c.device, "device");
}

Device usable_device(const std::string& text, const std::string& name) {
  Device device;
  try {
    device = Device::parse(text);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("{}: {}", name, error.what()));
  }
  if (device.is_cuda()) {
    // Never fall back to the CPU silently: a CUDA run without the CUDA module, its libraries or
    // a usable GPU stops here, with the one reason (this loads the module on first use).
    const std::string reason = cuda_unusable_reason();
    require(reason.empty(), name, fmt::format("'{}' requested, but {}", text, reason));
  }
  return device;
}

bool needs_validation(const RunConfig& c) {
  return c.early_stopping.enabled && c.early_stopping.options.monitor.rfind("val_", 0) == 0;
}

void validate_training_config(const RunConfig& c) {
  validate_config(c);
  if (c.data.source == "files") {
    const FilesDataConfig& f = c.data.files;
    const std::vector<std::string>& control_bigwigs = f.loader.signals.control_bigwigs;
    // Control tracks are model inputs: loaded and never read, they only cost time, and the user
    // believes the model corrects for them.
    const bool reads_control =
        c.model.graph() &&
        std::any_of(c.model.nodes.begin(), c.model.nodes.end(), [](const NodeSpec& node) {
          return std::find(node.inputs.begin(), node.inputs.end(), kControlInput) !=
                 node.inputs.end();
        });
    require(control_bigwigs.empty() || reads_control, "data.control_bigwigs",
            fmt::format("{} control track file(s) are given, but no input of the model reads "
                        "them: {}; add a graph node with \"inputs\": [\"control\"] "
                        "(docs/models.md), or leave the control tracks out",
                        control_bigwigs.size(),
                        c.model.graph() ? "no node of the graph takes \"control\""
                                        : "a layer list reads the sequence alone"));
    const bool split_validates =
        !f.split.valid_chroms.empty() || !f.split.folds.empty() || f.split.valid_fraction > 0;
    require(!f.valid_intervals.empty() || split_validates || !needs_validation(c),
            "data.valid_intervals",
            fmt::format("a validation file is required: early stopping monitors '{}' (split "
                        "data.intervals with data.valid_chroms, data.folds or "
                        "data.valid_fraction, train without validation with "
                        "--no-early-stopping, or monitor 'loss')",
                        c.early_stopping.options.monitor));
  }
}

void ConfigOverrides::set(const std::string& path, ConfigValue value) {
  const ConfigKey* key = find_config_key(path);
  if (key == nullptr) throw ConfigError(fmt::format("{}: not a config key", path));
  const bool index_text =
      key->kind() == ConfigKind::kLayerIndices && std::holds_alternative<std::string>(value);
  STRAND_CHECK(index_text || value.index() == key->field.get(RunConfig{}).index(),
               "{}: the override's value is not of the key's type", path);
  for (auto& entry : values_) {
    if (entry.first == path) {
      entry.second = std::move(value);
      return;
    }
  }
  values_.emplace_back(path, std::move(value));
}

const ConfigValue* ConfigOverrides::find(const std::string& path) const {
  for (const auto& entry : values_) {
    if (entry.first == path) return &entry.second;
  }
  return nullptr;
}

std::optional<int64_t> ConfigOverrides::int_value(const std::string& path) const {
  const ConfigValue* value = find(path);
  if (value == nullptr) return std::nullopt;
  return std::get<int64_t>(*value);
}

std::vector<std::string> ConfigOverrides::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : values_) out.push_back(entry.first);
  return out;
}

namespace {

// What names `key` in a message about flags: its flag, else its path.
std::string flag_or_key(const ConfigKey& key) { return key.flag.empty() ? key.key : key.flag; }

bool contains(const std::vector<std::string>& words, const json& word) {
  return word.is_string() &&
         std::find(words.begin(), words.end(), word.get<std::string>()) != words.end();
}

// Refuses flags of two variants of one section (files and simulated data): each would start
// the section afresh without the other's keys.
void refuse_mixed_variants(const ConfigOverrides& overrides) {
  struct Variant {
    const KeyCondition* when;
    std::vector<std::string> flags;
  };
  std::vector<Variant> given;
  for (const std::string& path : overrides.keys()) {
    const ConfigKey& key = *find_config_key(path);
    if (key.only_when.key.empty()) continue;
    auto same = std::find_if(given.begin(), given.end(), [&key](const Variant& v) {
      return v.when->key == key.only_when.key && v.when->values == key.only_when.values;
    });
    if (same == given.end()) same = given.insert(given.end(), Variant{&key.only_when, {}});
    same->flags.push_back(flag_or_key(key));
  }
  for (size_t i = 0; i < given.size(); ++i) {
    for (size_t j = i + 1; j < given.size(); ++j) {
      const KeyCondition& a = *given[i].when;
      const KeyCondition& b = *given[j].when;
      const bool shared = std::any_of(a.values.begin(), a.values.end(), [&b](const auto& word) {
        return std::find(b.values.begin(), b.values.end(), word) != b.values.end();
      });
      if (a.key != b.key || shared) continue;
      const std::string section = a.key.substr(0, a.key.find('.'));
      throw ConfigError(fmt::format("{}: flags for {} {} ({}) and for {} {} ({}) cannot be mixed",
                                    section, fmt::join(a.values, " or "), section,
                                    fmt::join(given[i].flags, ", "), fmt::join(b.values, " or "),
                                    section, fmt::join(given[j].flags, ", ")));
    }
  }
}

// Where `key` goes in a config object: config["section"]["name"] or config["name"].
json& slot_at(json& config, const ConfigKey& key) {
  return key.section().empty() ? config[key.name()] : config[key.section()][key.name()];
}

// The value of `key` in a config object; null when absent.
json value_at(const json& config, const ConfigKey& key) {
  const json* holder = &config;
  if (!key.section().empty()) {
    const auto section = config.find(key.section());
    if (section == config.end()) return json();
    holder = &*section;
  }
  const auto value = holder->find(key.name());
  return value == holder->end() ? json() : *value;
}

// An override as config.json would write it; a flag's text of layer indices is read here.
json override_json(const ConfigKey& key, const ConfigValue& value) {
  if (const auto* text = std::get_if<std::string>(&value);
      text != nullptr && key.kind() == ConfigKind::kLayerIndices) {
    return parse_index_list(*text, flag_or_key(key));
  }
  return value_json(value);
}

// Starts the section of `selector` afresh with `selector` set to `word`: {"source": "files"}.
void start_section(json& config, const ConfigKey& selector, const json& word) {
  config[selector.section()] = json{{selector.name(), word}};
}

}  // namespace

void apply_overrides(RunConfig& c, const ConfigOverrides& overrides) {
  refuse_mixed_variants(overrides);
  json edited = to_json(c);
  // A flag of another data source or optimizer selects it, with that section's defaults.
  for (const std::string& path : overrides.keys()) {
    const KeyCondition& when = find_config_key(path)->only_when;
    if (when.key.empty()) continue;
    const ConfigKey& selector = *find_config_key(when.key);
    if (!contains(when.values, value_at(edited, selector))) {
      start_section(edited, selector, when.values.front());
    }
  }
  // A flag changing a word that other keys depend on: --optimizer starts its section afresh;
  // --format drops the keys whose default it sets (data.window), so they take the new default.
  for (const std::string& path : overrides.keys()) {
    const ConfigKey& key = *find_config_key(path);
    const json value = override_json(key, *overrides.find(path));
    if (value_at(edited, key) == value) continue;
    if (key.selects_section()) start_section(edited, key, value);
    for (const ConfigKey& other : config_keys()) {
      for (const KeyVariant& variant : other.variants) {
        if (variant.key != key.key) continue;
        json& holder = other.section().empty() ? edited : edited[other.section()];
        if (holder.is_object()) holder.erase(other.name());
      }
    }
  }
  for (const std::string& path : overrides.keys()) {
    const ConfigKey& key = *find_config_key(path);
    slot_at(edited, key) = override_json(key, *overrides.find(path));
  }
  // Flag values get the same checks as the file's.
  c = parse_config(edited);
}

RunConfig with_absolute_paths(RunConfig c) {
  for (const ConfigKey& key : config_keys()) {
    if (key.kind() == ConfigKind::kTrackFiles) {
      // Each file of each entry ("plus.bw,minus.bw" stays a pair).
      std::vector<std::string> entries = std::get<std::vector<std::string>>(key.field.get(c));
      for (std::string& entry : entries) {
        // Every comma-separated part, empty ones included: "plus.bw," must stay an entry with an
        // empty path, which validation refuses (std::getline would drop the last empty part).
        std::vector<std::string> files;
        for (size_t begin = 0;;) {
          const size_t comma = entry.find(',', begin);
          const std::string file =
              entry.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
          files.push_back(
              file.empty() ? file : std::filesystem::absolute(file).lexically_normal().string());
          if (comma == std::string::npos) break;
          begin = comma + 1;
        }
        entry = fmt::format("{}", fmt::join(files, ","));
      }
      key.field.set(c, std::move(entries));
      continue;
    }
    if (key.kind() != ConfigKind::kFile && key.kind() != ConfigKind::kDirectory) continue;
    const std::string path = std::get<std::string>(key.field.get(c));
    if (!path.empty()) {
      key.field.set(c, std::filesystem::absolute(path).lexically_normal().string());
    }
  }
  return c;
}

int resolved_threads(const RunConfig& config) {
  if (config.threads > 0) return static_cast<int>(config.threads);
  // As every OpenMP program does, threads 0 follows OMP_NUM_THREADS when it is set (its first
  // level: 8 of "8,2").
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (env == nullptr) return hardware_threads();
  std::string text(env);
  text = text.substr(0, text.find(','));
  const size_t first = text.find_first_not_of(" \t");
  const size_t last = text.find_last_not_of(" \t");
  text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
  int64_t value = 0;
  const bool digits = !text.empty() && text.size() <= 18 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (digits) value = std::stoll(text);
  if (!digits || value < 1 || value > max_threads()) {
    throw ConfigError(fmt::format(
        "OMP_NUM_THREADS: '{}' is not a thread count in [1, {}] (with threads 0 it sets the "
        "threads; unset it to use all {} cores)",
        env, max_threads(), hardware_threads()));
  }
  return static_cast<int>(value);
}
}  // namespace strand::cli