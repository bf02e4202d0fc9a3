// RunConfig parsing, strict key/type checking, resolution back to JSON, and value validation.
#include "cli/run_config.h"
#include "cli/edit_distance.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "tensor/device.h"
#ifdef STRAND_WITH_CUDA
#include "kernels/cuda/cuda_device.h"
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

LayerSpec parse_layer(const json& value, const std::string& path) {
  ObjectReader reader(value, path);
  LayerSpec layer;
  reader.read_choice("type", layer.type,
                     {"Conv1D", "Dense", "ReLU", "Sigmoid", "GlobalMaxPool1D", "Flatten"});
  if (layer.type == "Conv1D") {
    if (!reader.find("filters") || !reader.find("kernel_size")) {
      throw ConfigError(fmt::format("{}: Conv1D needs 'filters' and 'kernel_size'", path));
    }
    reader.read("filters", layer.filters);
    reader.read("kernel_size", layer.kernel_size);
    reader.read_choice("padding", layer.padding, {"valid", "same"});
    reader.read("stride", layer.stride);
    reader.read("dilation", layer.dilation);
    reader.read("use_bias", layer.use_bias);
  } else if (layer.type == "Dense") {
    if (!reader.find("units")) throw ConfigError(fmt::format("{}: Dense needs 'units'", path));
    reader.read("units", layer.units);
    reader.read("use_bias", layer.use_bias);
  }
  reader.finish();
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

void require_file(const std::string& path, const std::string& key) {
  if (path.empty()) return;
  require(std::filesystem::is_regular_file(path), key,
          fmt::format("file '{}' does not exist", path));
}

}  // namespace

RunConfig default_config() {
  RunConfig config;
  LayerSpec conv;
  conv.type = "Conv1D";
  conv.filters = 16;
  conv.kernel_size = 15;
  LayerSpec dense;
  dense.type = "Dense";
  dense.units = 1;
  config.model = {conv, {.type = "ReLU"}, {.type = "GlobalMaxPool1D"}, dense, {.type = "Sigmoid"}};
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
    value = json::parse(in);
  } catch (const json::parse_error& error) {
    throw ConfigError(
        fmt::format("config file '{}' is not valid JSON: {}", path.string(), error.what()));
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
    if (layer.type == "Conv1D") {
      l["filters"] = layer.filters;
      l["kernel_size"] = layer.kernel_size;
      l["padding"] = layer.padding;
      l["stride"] = layer.stride;
      l["dilation"] = layer.dilation;
      l["use_bias"] = layer.use_bias;
    } else if (layer.type == "Dense") {
      l["units"] = layer.units;
      l["use_bias"] = layer.use_bias;
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

void validate_config(const RunConfig& c) {
  if (c.data.source == "simulated") {
    const SimulatedDataConfig& s = c.data.simulated;
    require(s.n_pos >= 0 && s.n_neg >= 0 && s.n_pos + s.n_neg > 0, "data.n_pos/data.n_neg",
            "need at least one sequence and no negative counts");
    require(s.length > 0, "data.length", fmt::format("must be > 0, got {}", s.length));
    require(s.gc_fraction >= 0 && s.gc_fraction <= 1, "data.gc_fraction",
            fmt::format("must be in [0, 1], got {}", s.gc_fraction));
    require(
        s.validation > 0, "data.validation",
        fmt::format("must be > 0 (early stopping and checkpoints need it), got {}", s.validation));
    require(s.test > 0, "data.test", fmt::format("must be > 0, got {}", s.test));
    require(s.validation + s.test < s.n_pos + s.n_neg, "data.validation/data.test",
            fmt::format("{} + {} leave no training sequences out of {}", s.validation, s.test,
                        s.n_pos + s.n_neg));
    require_file(s.motif_file, "data.motif_file");
  } else {
    const FilesDataConfig& f = c.data.files;
    require(!f.fasta.empty(), "data.fasta", "a FASTA file is required for data.source 'files'");
    require(!f.intervals.empty(), "data.intervals",
            "an intervals (or, for records, labels TSV) file is required");
    require(!f.valid_intervals.empty(), "data.valid_intervals",
            "a validation file is required (early stopping and checkpoints need it)");
    require_file(f.fasta, "data.fasta");
    require_file(f.intervals, "data.intervals");
    require_file(f.valid_fasta, "data.valid_fasta");
    require_file(f.valid_intervals, "data.valid_intervals");
    require_file(f.test_fasta, "data.test_fasta");
    require_file(f.test_intervals, "data.test_intervals");
    require(f.format == "records" ? f.window >= 0 : f.window > 0, "data.window",
            fmt::format("must be > 0 (>= 0 for records), got {}", f.window));
    require(f.jitter >= 0, "data.jitter", fmt::format("must be >= 0, got {}", f.jitter));
    require(f.rc_probability >= 0 && f.rc_probability <= 1, "data.rc_probability",
            fmt::format("must be in [0, 1], got {}", f.rc_probability));
    require(f.loader_threads >= 1, "data.loader_threads",
            fmt::format("must be >= 1, got {}", f.loader_threads));
    require(f.prefetch >= 1, "data.prefetch", fmt::format("must be >= 1, got {}", f.prefetch));
    require(!(f.streaming && f.format == "records"), "data.streaming",
            "records are always held in memory");
  }
  require(c.batch_size > 0, "batch_size", fmt::format("must be > 0, got {}", c.batch_size));
  require(c.epochs > 0, "epochs", fmt::format("must be > 0, got {}", c.epochs));
  require(c.optimizer.learning_rate > 0, "optimizer.learning_rate",
          fmt::format("must be > 0, got {}", c.optimizer.learning_rate));
  require(c.early_stopping.patience >= 0, "early_stopping.patience",
          fmt::format("must be >= 0, got {}", c.early_stopping.patience));
  require(c.threads >= 0, "threads", fmt::format("must be >= 0 (0: all cores), got {}", c.threads));
  require(!c.output_dir.empty(), "output_dir", "must not be empty");
  require(c.tensorboard_every_steps >= 0, "tensorboard_every_steps",
          fmt::format("must be >= 0 (0: epoch scalars only), got {}", c.tensorboard_every_steps));
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
  const DistributedConfig& d = c.distributed;
  require(d.bucket_mb > 0, "distributed.bucket_mb",
          fmt::format("must be > 0, got {}", d.bucket_mb));
  require(d.average_every >= 1, "distributed.average_every",
          fmt::format("must be >= 1, got {}", d.average_every));
  require(d.timeout_s > 0, "distributed.timeout_s",
          fmt::format("must be > 0, got {}", d.timeout_s));
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

int resolved_threads(const RunConfig& config) {
  if (config.threads > 0) return static_cast<int>(config.threads);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace strand::cli
