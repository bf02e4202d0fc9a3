// strand.train(): the training run of `strand train` (app/training_run.h) from Python. The config
// is a dict, a config file or a preset; keyword overrides are mapped to config keys through the
// config key table (app/config_keys.h), as the CLI's flags are; progress prints to sys.stdout;
// Python callbacks get each epoch's logs; SIGINT (Ctrl-C, a notebook's interrupt) stops
// training cleanly as it does for the CLI.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/config_keys.h"
#include "app/edit_distance.h"
#include "app/model_spec.h"
#include "app/presets.h"
#include "app/run_config.h"
#include "app/training_run.h"
#include "bindings.h"
#include "python_stream.h"

namespace nb = nanobind;

namespace strand::python {
namespace {

// "learning_rate" -> "learning-rate".
std::string dashed(std::string name) {
  for (char& c : name) {
    if (c == '_') c = '-';
  }
  return name;
}

// A keyword override's config key: the key path with "__" (or ".") between sections
// (data__jitter, "data.jitter"), the name of its command-line flag (jitter, lr,
// valid_intervals, no_early_stopping), or a key's last part when only one key has it
// (learning_rate). Returns the path and whether the value is inverted (a "--no-" switch).
std::pair<std::string, bool> config_key_for(const std::string& name) {
  std::string path = name;
  for (size_t at = path.find("__"); at != std::string::npos; at = path.find("__")) {
    path.replace(at, 2, ".");
  }
  if (app::find_config_key(path) != nullptr) return {path, false};
  const std::string flag = "--" + dashed(name);
  for (const app::ConfigKey& key : app::config_keys()) {
    if (!key.flag.empty() && key.flag == flag) {
      return {key.key, key.kind() == app::ConfigKind::kFlag && !key.switch_value()};
    }
  }
  std::vector<std::string> leaves;
  for (const app::ConfigKey& key : app::config_keys()) {
    if (key.name() == name && std::find(leaves.begin(), leaves.end(), key.key) == leaves.end()) {
      leaves.push_back(key.key);
    }
  }
  if (leaves.size() == 1) return {leaves.front(), false};
  if (leaves.size() > 1) {
    throw app::ConfigError(fmt::format("{}: names several config keys ({}); write one as {}", name,
                                       fmt::join(leaves, ", "), leaves.front()));
  }
  std::string closest;
  size_t best = std::numeric_limits<size_t>::max();
  for (const app::ConfigKey& key : app::config_keys()) {
    for (const std::string& candidate : {key.key, key.name()}) {
      const size_t distance = app::edit_distance(path, candidate);
      if (distance < best) best = distance, closest = candidate;
    }
  }
  throw app::ConfigError(
      fmt::format("{}: not a config key (overrides are key paths with __ between sections, such as "
                  "data__jitter, or flag names such as jitter); did you mean {}?",
                  name, closest));
}

// The value of `json` for the key at `path`, of the C++ type of its RunConfig field.
app::ConfigValue config_value(const std::string& path, const nlohmann::json& json, bool invert) {
  const app::ConfigKey& key = *app::find_config_key(path);
  const auto fail = [&](const char* expected) -> app::ConfigError {
    return app::ConfigError(fmt::format("{}: expected {}, got {}", path, expected, json.dump()));
  };
  switch (key.kind()) {
    case app::ConfigKind::kInt:
      if (!json.is_number_integer()) throw fail("an integer");
      return json.get<int64_t>();
    case app::ConfigKind::kUnsigned:
      if (!json.is_number_integer() || json.get<int64_t>() < 0) throw fail("an integer >= 0");
      return json.get<uint64_t>();
    case app::ConfigKind::kReal:
      if (!json.is_number()) throw fail("a number");
      return json.get<double>();
    case app::ConfigKind::kFlag:
      if (!json.is_boolean()) throw fail("True or False");
      return json.get<bool>() != invert;
    case app::ConfigKind::kWord:
    case app::ConfigKind::kText:
    case app::ConfigKind::kFile:
    case app::ConfigKind::kDirectory:
      if (!json.is_string()) throw fail("a string");
      return json.get<std::string>();
    case app::ConfigKind::kLayerIndices:
      if (json.is_string()) return json.get<std::string>();
      if (!json.is_array()) throw fail("a list of layer indices");
      for (const auto& item : json) {
        if (!item.is_number_integer()) throw fail("a list of layer indices");
      }
      return json.get<std::vector<int64_t>>();
    case app::ConfigKind::kModel:
      return app::parse_model_spec(json, path);
    case app::ConfigKind::kTrackFiles:
    case app::ConfigKind::kTextList:
      if (json.is_string()) return std::vector<std::string>{json.get<std::string>()};
      if (!json.is_array()) throw fail("a list of bigWig files");
      for (const auto& item : json) {
        if (!item.is_string()) throw fail("a list of bigWig files");
      }
      return json.get<std::vector<std::string>>();
  }
  throw fail("a value");
}

// The base config: a dict's JSON, a config file, or a preset's name.
app::RunConfig base_config(const std::string& text, bool is_json) {
  if (is_json) return app::parse_config(nlohmann::json::parse(text));
  if (std::filesystem::is_regular_file(text)) return app::load_config_file(text);
  if (app::find_preset(text) != nullptr) return app::parse_config({{"preset", text}});
  throw app::ConfigError(fmt::format(
      "config: '{}' is neither a config file nor a preset ({}); pass a dict, a JSON file or a "
      "preset name",
      text, fmt::join(app::preset_names(), ", ")));
}

nb::object python_logs(int64_t epoch, int64_t global_step,
                       const std::map<std::string, double>& values) {
  nb::dict logs;
  logs["epoch"] = epoch;
  logs["global_step"] = global_step;
  for (const auto& [name, value] : values) logs[nb::str(name.c_str())] = value;
  return logs;
}

// Calls the Python callbacks: each a callable (called with an epoch's logs) or an object with
// any of on_train_begin(), on_epoch_end(logs), on_batch_end(logs), on_train_end(). A true
// return asks training to stop after the epoch. A Python exception is kept and stops training;
// the binding raises it again once the run has recorded its failure.
class PythonCallbacks : public train::Callback {
 public:
  explicit PythonCallbacks(std::vector<nb::object> callbacks) : callbacks_(std::move(callbacks)) {
    for (const nb::object& callback : callbacks_) {
      batch_hooks_ = batch_hooks_ || nb::hasattr(callback, "on_batch_end");
    }
  }
  ~PythonCallbacks() override {
    nb::gil_scoped_acquire gil;
    callbacks_.clear();
    error_.reset();
  }

  void on_train_begin(train::FitContext& context) override { call("on_train_begin", context); }
  void on_train_end(train::FitContext& context) override { call("on_train_end", context); }
  void on_epoch_end(train::FitContext& context, const train::EpochLogs& logs) override {
    history_.push_back({logs.epoch, logs.global_step, logs.values});
    call("on_epoch_end", context, &logs);
  }
  void on_batch_end(train::FitContext& context, const train::BatchLogs& logs) override {
    if (!batch_hooks_) return;
    nb::gil_scoped_acquire gil;
    nb::dict values;
    values["epoch"] = logs.epoch;
    values["step"] = logs.step_in_epoch;
    values["global_step"] = logs.global_step;
    values["loss"] = logs.loss;
    values["samples_per_second"] = logs.samples_per_second;
    for (const nb::object& callback : callbacks_) {
      if (nb::hasattr(callback, "on_batch_end"))
        invoke(callback.attr("on_batch_end"), values, context);
    }
  }

  const std::vector<train::EpochLogs>& history() const { return history_; }
  /// Re-raises the exception a callback raised, if one did (GIL held).
  void rethrow_python_error() {
    if (error_) {
      nb::python_error error = std::move(*error_);
      error_.reset();
      throw error;
    }
  }

 private:
  void call(const char* hook, train::FitContext& context, const train::EpochLogs* logs = nullptr) {
    nb::gil_scoped_acquire gil;
    for (const nb::object& callback : callbacks_) {
      nb::object target;
      if (nb::hasattr(callback, hook)) {
        target = callback.attr(hook);
      } else if (logs != nullptr && PyCallable_Check(callback.ptr())) {
        target = callback;
      } else {
        continue;
      }
      if (logs != nullptr) {
        invoke(target, python_logs(logs->epoch, logs->global_step, logs->values), context);
      } else {
        invoke(target, nb::object(), context);
      }
    }
  }

  void invoke(const nb::object& target, const nb::object& argument, train::FitContext& context) {
    try {
      nb::object result = argument.is_valid() ? target(argument) : target();
      if (!result.is_none() && nb::cast<bool>(result)) context.stop_training = true;
    } catch (nb::python_error& error) {
      std::string message = error.what();
      error_.emplace(std::move(error));
      throw Error(fmt::format("a Python callback raised: {}", message));
    }
  }

  std::vector<nb::object> callbacks_;
  bool batch_hooks_ = false;
  std::optional<nb::python_error> error_;
  std::vector<train::EpochLogs> history_;
};

nb::dict train_result(const app::TrainResult& result, const PythonCallbacks& callbacks) {
  nb::dict out;
  out["run_dir"] = result.paths.root.string();
  out["interrupted"] = result.interrupted;
  out["exit_code"] = result.exit_code;
  nb::list history;
  for (const train::EpochLogs& logs : callbacks.history()) {
    history.append(python_logs(logs.epoch, logs.global_step, logs.values));
  }
  out["history"] = history;
  return out;
}

nb::dict run(const std::function<app::TrainResult(const app::TrainOptions&, std::ostream&)>& body,
             const std::string& run_name, std::vector<nb::object> callbacks,
             std::optional<bool> interactive) {
  auto python_callbacks = std::make_shared<PythonCallbacks>(std::move(callbacks));
  app::TrainOptions options;
  options.run_name = run_name;
  options.interactive = interactive.value_or(python_stdout_is_terminal());
  options.callbacks.push_back(python_callbacks);
  app::TrainResult result;
  try {
    PythonStdout out;
    nb::gil_scoped_release no_gil;
    result = body(options, out);
    out.flush();
  } catch (const Error&) {
    python_callbacks->rethrow_python_error();
    throw;
  }
  nb::dict out = train_result(result, *python_callbacks);
  options.callbacks.clear();
  return out;
}

}  // namespace

void bind_train(nb::module_& m) {
  m.def(
      "_config_key_for", [](const std::string& name) { return config_key_for(name).first; },
      nb::arg("name"),
      "The config key path a keyword override names (data__jitter, jitter -> data.jitter).");
  m.def(
      "_resolved_config",
      [](const std::string& config, bool is_json,
         const std::vector<std::pair<std::string, std::string>>& overrides) {
        app::RunConfig resolved = base_config(config, is_json);
        app::ConfigOverrides flags;
        for (const auto& [name, value] : overrides) {
          const auto [path, invert] = config_key_for(name);
          flags.set(path, config_value(path, nlohmann::json::parse(value), invert));
        }
        app::apply_overrides(resolved, flags);
        return app::to_json(resolved).dump();
      },
      nb::arg("config"), nb::arg("is_json"), nb::arg("overrides"),
      "The full config (JSON text) of a base config with keyword overrides applied.");
  m.def(
      "_train",
      [](const std::string& config_json, const std::string& run_name,
         std::vector<nb::object> callbacks, std::optional<bool> interactive) {
        const app::RunConfig config = app::parse_config(nlohmann::json::parse(config_json));
        return run([&config](const app::TrainOptions& options,
                             std::ostream& out) { return app::run_train(config, options, out); },
                   run_name, std::move(callbacks), interactive);
      },
      nb::arg("config_json"), nb::arg("run_name"), nb::arg("callbacks"),
      nb::arg("interactive") = nb::none(), "Runs `strand train` on a resolved config (JSON text).");
  m.def(
      "_resume",
      [](const std::string& run_dir, std::optional<int64_t> epochs, std::optional<int64_t> threads,
         std::vector<nb::object> callbacks, std::optional<bool> interactive) {
        return run(
            [&](const app::TrainOptions& options, std::ostream& out) {
              return app::resume_train(run_dir, epochs, threads, options, out);
            },
            "", std::move(callbacks), interactive);
      },
      nb::arg("run_dir"), nb::arg("epochs") = nb::none(), nb::arg("threads") = nb::none(),
      nb::arg("callbacks"), nb::arg("interactive") = nb::none(),
      "Runs `strand train --resume RUN_DIR`.");
}

}  // namespace strand::python
