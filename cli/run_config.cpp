// RunConfig parsing, strict key/type checking, resolution back to JSON, and value validation.
#include "cli/run_config.h"
#include "cli/edit_distance.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "core/device.h"
#ifdef STRAND_WITH_CUDA
#include "tensor/cuda/device.h"
#endif

namespace strand::cli {
namespace {

using nlohmann::json;

std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string type_name_of(const json& value) {
  if (value.is_number_integer() || value.is_number_unsigned()) return "integer";
  if (value.is_number_float()) return "number";
  return value.type_name();
}

// Reads one JSON object field by field, remembering which keys were asked for, so that
// finish() can name every other key as unknown together with the keys that are allowed.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string path) : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) {
      throw ConfigError(fmt::format("{}: expected an object, got {}",
                                    path_.empty() ? "config" : path_, type_name_of(object_)));
    }
  }

  const json* find(const std::string& key) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
    auto it = object_.find(key);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }

  void read(const std::string& key, std::string& out) {
    if (const json* v = find(key)) {
      expect(key, v->is_string(), "a string", *v);
      out = v->get<std::string>();
    }
  }
  void read(const std::string& key, bool& out) {
    if (const json* v = find(key)) {
      expect(key, v->is_boolean(), "true or false", *v);
      out = v->get<bool>();
    }
  }
  void read(const std::string& key, double& out) {
    if (const json* v = find(key)) {
      expect(key, v->is_number(), "a number", *v);
      out = v->get<double>();
    }
  }
  void read(const std::string& key, int64_t& out) {
    if (const json* v = find(key)) {
      expect(key, v->is_number_integer(), "an integer", *v);
      // Above INT64_MAX the value is held unsigned and would wrap to a negative number.
      expect(key, !v->is_number_unsigned() || v->get<uint64_t>() <= INT64_MAX,
             "an integer of at most 9223372036854775807", *v);
      out = v->get<int64_t>();
    }
  }
  void read(const std::string& key, uint64_t& out) {
    if (const json* v = find(key)) {
      expect(key, v->is_number_unsigned(), "a non-negative integer", *v);
      out = v->get<uint64_t>();
    }
  }
  void read_choice(const std::string& key, std::string& out,
                   const std::vector<std::string>& choices) {
    read(key, out);
    if (std::find(choices.begin(), choices.end(), out) == choices.end()) {
      throw ConfigError(fmt::format("{}: '{}' is not one of {}", join_path(path_, key), out,
                                    fmt::join(choices, ", ")));
    }
  }

  void finish() const {
    for (const auto& [key, value] : object_.items()) {
      if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
      std::string message = fmt::format("{}: unknown key; expected one of {}",
                                        join_path(path_, key), fmt::join(known_, ", "));
      std::string closest;
      size_t best = 3;  // suggest only near misses (typos), not unrelated keys
      for (const std::string& candidate : known_) {
        const size_t d = edit_distance(key, candidate);
        if (d < best) best = d, closest = candidate;
      }
      if (!closest.empty()) message += fmt::format(" (did you mean '{}'?)", closest);
      throw ConfigError(message);
    }
  }

  const std::string& path() const { return path_; }

 private:
  void expect(const std::string& key, bool ok, const char* wanted, const json& value) const {
    if (!ok) {
      throw ConfigError(fmt::format("{}: expected {}, got {} {}", join_path(path_, key), wanted,
                                    type_name_of(value), value.dump()));
    }
  }

  const json& object_;
  std::string path_;
  std::vector<std::string> known_;
};

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

// A model entry: "type" names a layer of the catalog, every other key one of its options.
LayerSpec parse_layer(const json& value, const std::string& path) {
  ObjectReader reader(value, path);
  std::vector<std::string> names;
  for (const LayerType& type : layer_types()) names.push_back(type.name);
  LayerSpec layer;
  reader.read_choice("type", layer.type, names);
  const LayerType& type = *find_layer_type(layer.type);
  LayerOptions given;
  for (const LayerOption& option : type.options) {
    if (!reader.find(option.name)) continue;
    switch (option.kind) {
      case LayerOption::Kind::kInt: {
        int64_t number = 0;
        reader.read(option.name, number);
        given[option.name] = number;
        break;
      }
      case LayerOption::Kind::kBool: {
        bool flag = false;
        reader.read(option.name, flag);
        given[option.name] = flag;
        break;
      }
      case LayerOption::Kind::kChoice: {
        std::string word = std::get<std::string>(option.default_value);
        reader.read_choice(option.name, word, option.choices);
        given[option.name] = word;
        break;
      }
    }
  }
  reader.finish();  // first: a misspelt option is named as such, not as a missing one
  try {
    layer.options = type.complete(std::move(given));
  } catch (const Error& error) {
    throw ConfigError(fmt::format("{}: {}", path, error.what()));
  }
  return layer;
}

DataConfig parse_data(const json& value) {
  ObjectReader reader(value, "data");
  DataConfig data;
  reader.read_choice("source", data.source, {"simulated", "files"});
  if (data.source == "simulated") {
    SimulatedDataConfig& s = data.simulated;
    reader.read("motif", s.motif);
    reader.read("motif_file", s.motif_file);
    reader.read("n_pos", s.n_pos);
    reader.read("n_neg", s.n_neg);
    reader.read("length", s.length);
    reader.read("gc_fraction", s.gc_fraction);
    reader.read("validation", s.validation);
    reader.read("test", s.test);
  } else {
    FilesDataConfig& f = data.files;
    reader.read("fasta", f.fasta);
    reader.read("intervals", f.intervals);
    reader.read_choice("format", f.format, {"bed", "narrowpeak", "dream", "records"});
    reader.read("valid_fasta", f.valid_fasta);
    reader.read("valid_intervals", f.valid_intervals);
    reader.read("test_fasta", f.test_fasta);
    reader.read("test_intervals", f.test_intervals);
    if (f.format == "records") f.window = 0;  // records: the common record length
    reader.read("window", f.window);
    reader.read("jitter", f.jitter);
    reader.read("rc_probability", f.rc_probability);
    reader.read("balanced", f.balanced);
    reader.read("streaming", f.streaming);
    reader.read("loader_threads", f.loader_threads);
    reader.read("prefetch", f.prefetch);
  }
  reader.finish();
  return data;
}

OptimizerConfig parse_optimizer(const json& value) {
  ObjectReader reader(value, "optimizer");
  OptimizerConfig o;
  reader.read_choice("name", o.name, {"adam", "sgd", "rmsprop"});
  if (o.name == "sgd") o.learning_rate = 0.01;
  if (o.name == "rmsprop") o.eps = 1e-8;
  reader.read("learning_rate", o.learning_rate);
  reader.read("weight_decay", o.weight_decay);
  if (o.name == "adam") {
    reader.read("beta1", o.beta1);
    reader.read("beta2", o.beta2);
    reader.read("eps", o.eps);
  } else if (o.name == "sgd") {
    reader.read("momentum", o.momentum);
    reader.read("dampening", o.dampening);
    reader.read("nesterov", o.nesterov);
  } else {
    reader.read("alpha", o.alpha);
    reader.read("eps", o.eps);
    reader.read("momentum", o.momentum);
    reader.read("centered", o.centered);
  }
  reader.finish();
  return o;
}

EarlyStoppingConfig parse_early_stopping(const json& value) {
  ObjectReader reader(value, "early_stopping");
  EarlyStoppingConfig e;
  reader.read("enabled", e.enabled);
  reader.read_choice("monitor", e.monitor,
                     {"val_loss", "val_accuracy", "val_auroc", "val_auprc", "loss", "accuracy"});
  reader.read("patience", e.patience);
  reader.read("min_delta", e.min_delta);
  reader.read("restore_best_weights", e.restore_best_weights);
  reader.finish();
  return e;
}

DistributedConfig parse_distributed(const json& value) {
  ObjectReader reader(value, "distributed");
  DistributedConfig d;
  reader.read_choice("mode", d.mode, {"mirrored", "averaging"});
  reader.read("bucket_mb", d.bucket_mb);
  reader.read("average_every", d.average_every);
  reader.read("average_optimizer_state", d.average_optimizer_state);
  reader.read("timeout_s", d.timeout_s);
  reader.finish();
  return d;
}

void require(bool ok, const std::string& key, const std::string& what) {
  if (!ok) throw ConfigError(fmt::format("{}: {}", key, what));
}

// An integer key within [lo, hi]: "data.window: must be in [1, 10000000], got 1000000000".
void require_in(const std::string& key, int64_t value, int64_t lo, int64_t hi,
                const std::string& note = "") {
  require(value >= lo && value <= hi, key,
          fmt::format("must be in [{}, {}]{}, got {}", lo, hi, note, value));
}

// A real interval, each end open or closed: (0, 1000] is Range{0, 1000, true}.
struct Range {
  double lo, hi;
  bool lo_open = false, hi_open = false;
};

// A real key within its range; NaN and infinities are outside every range.
void require_in(const std::string& key, double value, const Range& r,
                const std::string& note = "") {
  const bool ok =
      (r.lo_open ? value > r.lo : value >= r.lo) && (r.hi_open ? value < r.hi : value <= r.hi);
  require(ok, key,
          fmt::format("must be in {}{}, {}{}{}, got {}", r.lo_open ? "(" : "[", r.lo, r.hi,
                      r.hi_open ? ")" : "]", note, value));
}

// Why the thread counts stop where they do.
std::string threads_note() {
  return fmt::format(" (the cap is the larger of {} and 4 x the {} hardware threads)",
                     kMinThreadCap, hardware_threads());
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
  require(regular, key, fmt::format("file {} does not exist", quoted_path(path)));
}

}  // namespace

RunConfig default_config() {
  RunConfig config;
  const auto layer = [](const std::string& type, LayerOptions options = {}) {
    return LayerSpec{type, find_layer_type(type)->complete(std::move(options))};
  };
  // The DragoNN TAL1 reference model.
  config.model = {layer("Conv1D", {{"filters", int64_t{16}}, {"kernel_size", int64_t{15}}}),
                  layer("ReLU"), layer("GlobalMaxPool1D"), layer("Dense", {{"units", int64_t{1}}}),
                  layer("Sigmoid")};
  return config;
}

RunConfig parse_config(const json& value) {
  ObjectReader reader(value, "");
  RunConfig config = default_config();
  if (const json* data = reader.find("data")) config.data = parse_data(*data);
  if (const json* model = reader.find("model")) {
    if (!model->is_array() || model->empty()) {
      throw ConfigError(
          fmt::format("model: expected a non-empty list of layers, got {}", model->dump()));
    }
    config.model.clear();
    for (size_t i = 0; i < model->size(); ++i) {
      config.model.push_back(parse_layer((*model)[i], fmt::format("model[{}]", i)));
    }
  }
  reader.read_choice("loss", config.loss, {"binary_crossentropy", "mse"});
  if (const json* optimizer = reader.find("optimizer")) {
    config.optimizer = parse_optimizer(*optimizer);
  }
  reader.read("batch_size", config.batch_size);
  reader.read("epochs", config.epochs);
  if (const json* early = reader.find("early_stopping")) {
    config.early_stopping = parse_early_stopping(*early);
  }
  reader.read("seed", config.seed);
  reader.read("threads", config.threads);
  reader.read("output_dir", config.output_dir);
  reader.read("tensorboard_every_steps", config.tensorboard_every_steps);
  reader.read("device", config.device);
  reader.read("deterministic", config.deterministic);
  reader.read("init_weights", config.init_weights);
  if (const json* freeze = reader.find("freeze")) {
    if (!freeze->is_array()) {
      throw ConfigError(
          fmt::format("freeze: expected a list of layer indices, got {}", freeze->dump()));
    }
    config.freeze.clear();
    for (size_t i = 0; i < freeze->size(); ++i) {
      const json& index = (*freeze)[i];
      require(index.is_number_integer(), fmt::format("freeze[{}]", i),
              fmt::format("expected a layer index, got {}", index.dump()));
      config.freeze.push_back(index.get<int64_t>());
    }
  }
  if (const json* distributed = reader.find("distributed")) {
    config.distributed = parse_distributed(*distributed);
  }
  reader.finish();
  return config;
}

RunConfig load_config_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("config file '{}' cannot be opened", path.string()));
  json value;
  try {
    DuplicateKeyCheck duplicates;
    value = json::parse(in, [&duplicates](int, json::parse_event_t event, json& parsed) {
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
  try {
    return parse_config(value);
  } catch (const ConfigError& error) {
    throw ConfigError(fmt::format("{}: {}", path.string(), error.what()));
  }
}

json to_json(const RunConfig& c) {
  json data;
  data["source"] = c.data.source;
  if (c.data.source == "simulated") {
    const SimulatedDataConfig& s = c.data.simulated;
    data["motif"] = s.motif;
    if (!s.motif_file.empty()) data["motif_file"] = s.motif_file;
    data["n_pos"] = s.n_pos;
    data["n_neg"] = s.n_neg;
    data["length"] = s.length;
    data["gc_fraction"] = s.gc_fraction;
    data["validation"] = s.validation;
    data["test"] = s.test;
  } else {
    const FilesDataConfig& f = c.data.files;
    data["fasta"] = f.fasta;
    data["intervals"] = f.intervals;
    data["format"] = f.format;
    data["valid_fasta"] = f.valid_fasta;
    data["valid_intervals"] = f.valid_intervals;
    data["test_fasta"] = f.test_fasta;
    data["test_intervals"] = f.test_intervals;
    data["window"] = f.window;
    data["jitter"] = f.jitter;
    data["rc_probability"] = f.rc_probability;
    data["balanced"] = f.balanced;
    data["streaming"] = f.streaming;
    data["loader_threads"] = f.loader_threads;
    data["prefetch"] = f.prefetch;
  }
  json model = json::array();
  for (const LayerSpec& layer : c.model) {
    json l;
    l["type"] = layer.type;
    for (const auto& option : layer.options) {
      json& slot = l[option.first];
      std::visit([&slot](const auto& v) { slot = v; }, option.second);
    }
    model.push_back(l);
  }
  const OptimizerConfig& o = c.optimizer;
  json optimizer = {
      {"name", o.name}, {"learning_rate", o.learning_rate}, {"weight_decay", o.weight_decay}};
  if (o.name == "adam") {
    optimizer["beta1"] = o.beta1;
    optimizer["beta2"] = o.beta2;
    optimizer["eps"] = o.eps;
  } else if (o.name == "sgd") {
    optimizer["momentum"] = o.momentum;
    optimizer["dampening"] = o.dampening;
    optimizer["nesterov"] = o.nesterov;
  } else {
    optimizer["alpha"] = o.alpha;
    optimizer["eps"] = o.eps;
    optimizer["momentum"] = o.momentum;
    optimizer["centered"] = o.centered;
  }
  const EarlyStoppingConfig& e = c.early_stopping;
  json out;
  out["data"] = data;
  out["model"] = model;
  out["loss"] = c.loss;
  out["optimizer"] = optimizer;
  out["batch_size"] = c.batch_size;
  out["epochs"] = c.epochs;
  out["early_stopping"] = {{"enabled", e.enabled},
                           {"monitor", e.monitor},
                           {"patience", e.patience},
                           {"min_delta", e.min_delta},
                           {"restore_best_weights", e.restore_best_weights}};
  out["seed"] = c.seed;
  out["threads"] = c.threads;
  out["output_dir"] = c.output_dir;
  out["tensorboard_every_steps"] = c.tensorboard_every_steps;
  out["device"] = c.device;
  out["deterministic"] = c.deterministic;
  out["init_weights"] = c.init_weights;
  out["freeze"] = c.freeze;
  const DistributedConfig& d = c.distributed;
  out["distributed"] = {{"mode", d.mode},
                        {"bucket_mb", d.bucket_mb},
                        {"average_every", d.average_every},
                        {"average_optimizer_state", d.average_optimizer_state},
                        {"timeout_s", d.timeout_s}};
  return out;
}

void validate_numbers(const RunConfig& c) {
  if (c.data.source == "simulated") {
    const SimulatedDataConfig& s = c.data.simulated;
    require_in("data.n_pos", s.n_pos, 0, kMaxCount);
    require_in("data.n_neg", s.n_neg, 0, kMaxCount);
    require(s.n_pos + s.n_neg > 0, "data.n_pos/data.n_neg", "need at least one sequence");
    require_in("data.length", s.length, 1, kMaxSequenceLength);
    require_in("data.gc_fraction", s.gc_fraction, Range{0.0, 1.0});
    require_in("data.validation", s.validation, 1, kMaxCount,
               " (early stopping and checkpoints need it)");
    require_in("data.test", s.test, 1, kMaxCount);
    require(s.validation + s.test < s.n_pos + s.n_neg, "data.validation/data.test",
            fmt::format("{} + {} leave no training sequences out of {}", s.validation, s.test,
                        s.n_pos + s.n_neg));
  } else {
    const FilesDataConfig& f = c.data.files;
    require_in("data.window", f.window, f.format == "records" ? 0 : 1, kMaxSequenceLength,
               f.format == "records" ? " (0: the records' common length)" : "");
    require_in("data.jitter", f.jitter, 0, kMaxSequenceLength);
    require_in("data.rc_probability", f.rc_probability, Range{0.0, 1.0});
    require_in("data.loader_threads", f.loader_threads, 1, max_threads(), threads_note());
    require_in("data.prefetch", f.prefetch, 1, kMaxPrefetch);
  }
  for (size_t i = 0; i < c.model.size(); ++i) {
    const LayerSpec& layer = c.model[i];
    const LayerType* type = find_layer_type(layer.type);
    require(type != nullptr, fmt::format("model[{}].type", i),
            fmt::format("'{}' is not a layer type", layer.type));
    LayerOptions options;
    try {
      options = type->complete(layer.options);
    } catch (const Error& error) {
      throw ConfigError(fmt::format("model[{}]: {}", i, error.what()));
    }
    for (const LayerOption& option : type->options) {
      if (option.kind != LayerOption::Kind::kInt) continue;
      require_in(fmt::format("model[{}].{}", i, option.name), int_option(options, option.name),
                 option.min, option.max);
    }
  }
  const OptimizerConfig& o = c.optimizer;
  require_in("optimizer.learning_rate", o.learning_rate, Range{0.0, 1e3, true});
  require_in("optimizer.weight_decay", o.weight_decay, Range{0.0, 1e3});
  if (o.name == "adam") {
    require_in("optimizer.beta1", o.beta1, Range{0.0, 1.0, false, true});
    require_in("optimizer.beta2", o.beta2, Range{0.0, 1.0, false, true});
  }
  if (o.name == "adam" || o.name == "rmsprop") {
    require_in("optimizer.eps", o.eps, Range{0.0, 1.0, true});
  }
  if (o.name == "sgd" || o.name == "rmsprop") {
    require_in("optimizer.momentum", o.momentum, Range{0.0, 1.0});
  }
  if (o.name == "sgd") require_in("optimizer.dampening", o.dampening, Range{0.0, 1.0});
  if (o.name == "rmsprop") require_in("optimizer.alpha", o.alpha, Range{0.0, 1.0, false, true});
  require_in("batch_size", c.batch_size, 1, kMaxBatchSize);
  require_in("epochs", c.epochs, 1, kMaxCount);
  require_in("early_stopping.patience", c.early_stopping.patience, 0, kMaxCount);
  require_in("early_stopping.min_delta", c.early_stopping.min_delta, Range{0.0, 1e9});
  require_in("threads", c.threads, 0, max_threads(),
             " (0: OMP_NUM_THREADS, else all cores; " + threads_note().substr(2));
  require_in("tensorboard_every_steps", c.tensorboard_every_steps, 0, kMaxCount,
             " (0: epoch scalars only)");
  const DistributedConfig& d = c.distributed;
  require_in("distributed.bucket_mb", d.bucket_mb, Range{0.0, 65536.0, true});
  require_in("distributed.average_every", d.average_every, 1, kMaxCount);
  require_in("distributed.timeout_s", d.timeout_s, Range{0.0, 604800.0, true}, " (a week)");
}

void validate_config(const RunConfig& c) {
  validate_numbers(c);
  if (c.data.source == "simulated") {
    require_file(c.data.simulated.motif_file, "data.motif_file");
  } else {
    const FilesDataConfig& f = c.data.files;
    require(!f.fasta.empty(), "data.fasta", "a FASTA file is required for data.source 'files'");
    require(!f.intervals.empty(), "data.intervals",
            "an intervals (or, for records, labels TSV) file is required");
    require_file(f.fasta, "data.fasta");
    require_file(f.intervals, "data.intervals");
    require_file(f.valid_fasta, "data.valid_fasta");
    require_file(f.valid_intervals, "data.valid_intervals");
    require_file(f.test_fasta, "data.test_fasta");
    require_file(f.test_intervals, "data.test_intervals");
    require(!(f.streaming && f.format == "records"), "data.streaming",
            "records are always held in memory");
  }
  require(!c.output_dir.empty(), "output_dir", "must not be empty");
  if (c.threads == 0) resolved_threads(c);  // a malformed OMP_NUM_THREADS stops here
  require_file(c.init_weights, "init_weights");
  for (const int64_t index : c.freeze) {
    require(index >= 0 && index < static_cast<int64_t>(c.model.size()), "freeze",
            fmt::format("layer index {} is not in the model (layers 0..{})", index,
                        c.model.size() - 1));
  }
  Device device;
  try {
    device = Device::parse(c.device);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("device: {}", error.what()));
  }
  if (device.is_cuda()) {
#ifdef STRAND_WITH_CUDA
    // Never fall back to the CPU silently: a CUDA run without a usable GPU stops here.
    require(cuda::cuda_available(), "device",
            fmt::format("'{}' requested, but {}", c.device, cuda::unavailability_reason()));
#else
    throw ConfigError(fmt::format(
        "device: '{}' requested, but this strand was built without CUDA (configure with "
        "-DSTRAND_CUDA=ON on a machine with nvcc); use \"cpu\"",
        c.device));
#endif
  }
}

bool needs_validation(const RunConfig& c) {
  return c.early_stopping.enabled && c.early_stopping.monitor.rfind("val_", 0) == 0;
}

void validate_training_config(const RunConfig& c) {
  validate_config(c);
  if (c.data.source == "files") {
    require(!c.data.files.valid_intervals.empty() || !needs_validation(c), "data.valid_intervals",
            fmt::format("a validation file is required: early stopping monitors '{}' (train "
                        "without one with --no-early-stopping, or monitor 'loss')",
                        c.early_stopping.monitor));
  }
}

std::vector<std::string> ConfigOverrides::keys() const {
  std::vector<std::string> out;
  auto note = [&out](const auto& value, const char* key) {
    if (value) out.emplace_back(key);
  };
  note(epochs, "epochs");
  note(batch_size, "batch_size");
  note(threads, "threads");
  note(patience, "early_stopping.patience");
  note(tensorboard_every_steps, "tensorboard_every_steps");
  note(learning_rate, "optimizer.learning_rate");
  note(optimizer, "optimizer.name");
  note(loss, "loss");
  note(device, "device");
  note(deterministic, "deterministic");
  note(output_dir, "output_dir");
  note(init_weights, "init_weights");
  note(seed, "seed");
  note(early_stopping, "early_stopping.enabled");
  note(freeze, "freeze");
  note(fasta, "data.fasta");
  note(intervals, "data.intervals");
  note(valid_fasta, "data.valid_fasta");
  note(valid_intervals, "data.valid_intervals");
  note(test_fasta, "data.test_fasta");
  note(test_intervals, "data.test_intervals");
  note(format, "data.format");
  note(window, "data.window");
  note(jitter, "data.jitter");
  note(loader_threads, "data.loader_threads");
  note(rc_probability, "data.rc_probability");
  note(balanced, "data.balanced");
  note(streaming, "data.streaming");
  note(motif, "data.motif");
  note(n_pos, "data.n_pos");
  note(n_neg, "data.n_neg");
  note(length, "data.length");
  note(validation, "data.validation");
  note(test, "data.test");
  note(gc_fraction, "data.gc_fraction");
  return out;
}

void apply_overrides(RunConfig& c, const ConfigOverrides& o) {
  if (o.epochs) c.epochs = *o.epochs;
  if (o.batch_size) c.batch_size = *o.batch_size;
  if (o.threads) c.threads = *o.threads;
  if (o.patience) c.early_stopping.patience = *o.patience;
  if (o.early_stopping) c.early_stopping.enabled = *o.early_stopping;
  if (o.tensorboard_every_steps) c.tensorboard_every_steps = *o.tensorboard_every_steps;
  if (o.optimizer && *o.optimizer != c.optimizer.name) {
    c.optimizer = parse_optimizer(json{{"name", *o.optimizer}});
  }
  if (o.learning_rate) c.optimizer.learning_rate = *o.learning_rate;
  if (o.loss) c.loss = *o.loss;
  if (o.device) c.device = *o.device;
  if (o.deterministic) c.deterministic = *o.deterministic;
  if (o.output_dir) c.output_dir = *o.output_dir;
  if (o.init_weights) c.init_weights = *o.init_weights;
  if (o.seed) c.seed = *o.seed;
  if (o.freeze) c.freeze = *o.freeze;

  const bool files = o.fasta || o.intervals || o.valid_fasta || o.valid_intervals || o.test_fasta ||
                     o.test_intervals || o.format || o.window || o.jitter || o.loader_threads ||
                     o.rc_probability || o.balanced || o.streaming;
  const bool simulated =
      o.motif || o.n_pos || o.n_neg || o.length || o.validation || o.test || o.gc_fraction;
  if (files && simulated) {
    throw ConfigError(
        "data: flags for files (--fasta, --intervals, ...) and for simulated data (--motif, "
        "--n-pos, ...) cannot be mixed");
  }
  if (simulated) {
    if (c.data.source != "simulated") c.data = DataConfig{};
    SimulatedDataConfig& s = c.data.simulated;
    if (o.motif) s.motif = *o.motif;
    if (o.n_pos) s.n_pos = *o.n_pos;
    if (o.n_neg) s.n_neg = *o.n_neg;
    if (o.length) s.length = *o.length;
    if (o.validation) s.validation = *o.validation;
    if (o.test) s.test = *o.test;
    if (o.gc_fraction) s.gc_fraction = *o.gc_fraction;
  }
  if (files) {
    if (c.data.source != "files") {
      c.data = DataConfig{};
      c.data.source = "files";
    }
    FilesDataConfig& f = c.data.files;
    if (o.format) {
      static const std::vector<std::string> formats = {"bed", "narrowpeak", "dream", "records"};
      if (std::find(formats.begin(), formats.end(), *o.format) == formats.end()) {
        throw ConfigError(
            fmt::format("data.format: '{}' is not one of {}", *o.format, fmt::join(formats, ", ")));
      }
      // Records default to their own length rather than the 1000 bp genomic window.
      if (*o.format == "records" && f.format != "records" && !o.window) f.window = 0;
      f.format = *o.format;
    }
    if (o.fasta) f.fasta = *o.fasta;
    if (o.intervals) f.intervals = *o.intervals;
    if (o.valid_fasta) f.valid_fasta = *o.valid_fasta;
    if (o.valid_intervals) f.valid_intervals = *o.valid_intervals;
    if (o.test_fasta) f.test_fasta = *o.test_fasta;
    if (o.test_intervals) f.test_intervals = *o.test_intervals;
    if (o.window) f.window = *o.window;
    if (o.jitter) f.jitter = *o.jitter;
    if (o.loader_threads) f.loader_threads = *o.loader_threads;
    if (o.rc_probability) f.rc_probability = *o.rc_probability;
    if (o.balanced) f.balanced = *o.balanced;
    if (o.streaming) f.streaming = *o.streaming;
  }
  // Flag values get the same enum checks as the file's.
  c = parse_config(to_json(c));
}

RunConfig with_absolute_paths(RunConfig c) {
  auto absolute = [](std::string& path) {
    if (!path.empty()) path = std::filesystem::absolute(path).lexically_normal().string();
  };
  FilesDataConfig& f = c.data.files;
  for (std::string* path :
       {&f.fasta, &f.intervals, &f.valid_fasta, &f.valid_intervals, &f.test_fasta,
        &f.test_intervals, &c.data.simulated.motif_file, &c.init_weights, &c.output_dir}) {
    absolute(*path);
  }
  return c;
}

int hardware_threads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int max_threads() { return std::max(kMinThreadCap, 4 * hardware_threads()); }

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
