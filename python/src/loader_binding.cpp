// strand.data.Loader: strand's genomic data loader for Python (and PyTorch) training loops.
// Worker threads build the batches; each batch's arrays are numpy views of the batch's own
// memory, which they keep alive, so nothing is copied on the way to numpy or torch. The keyword
// arguments that are config keys (window, jitter, rc, threads, ...) take their defaults from
// the key table's rows (app/config_keys.cpp), as `strand train`'s flags do; the loader's own
// (batch_size, shuffle, seed, ...) from data::LoaderConfig.
#include <fmt/format.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "app/config_error.h"
#include "app/config_keys.h"
#include "arrays.h"
#include "bindings.h"
#include "data/encoding.h"
#include "data/list_syntax.h"
#include "data/loader/loader_config.h"

namespace nb = nanobind;

namespace strand::python {
namespace {

class PythonLoader {
 public:
  PythonLoader(data::LoaderConfig config, bool one_hot, std::string layout)
      : config_(std::move(config)), one_hot_(one_hot), layout_(std::move(layout)) {
    config_.validate();
    loader_ = data::make_loader(config_);
  }

  const data::DataLoader& loader() const { return *loader_; }
  const data::LoaderConfig& config() const { return config_; }
  uint64_t epoch() const { return epoch_; }
  void set_epoch(uint64_t epoch) { epoch_ = epoch; }

  // Starts the next epoch (its number advances with each iteration, as a shuffling
  // DataLoader's does).
  void start() {
    nb::gil_scoped_release no_gil;
    loader_->start_epoch(epoch_);
    ++epoch_;
    started_ = true;
  }

  nb::dict next() {
    if (!started_) start();
    std::optional<data::Batch> batch;
    {
      nb::gil_scoped_release no_gil;
      batch = loader_->next();
    }
    if (!batch) {
      started_ = false;
      throw nb::stop_iteration();
    }
    return batch_arrays(*batch);
  }

 private:
  nb::dict batch_arrays(const data::Batch& b) {
    const std::shared_ptr<void>& owner = b.storage;
    nb::dict out;
    if (one_hot_) {
      // One-hot is 16x the codes' bytes: computed here, into memory numpy owns.
      float* values = nullptr;
      const bool channels_first = layout_ == "NCL";
      nb::object array = new_float_array(channels_first ? std::vector<int64_t>{b.size, 4, b.length}
                                                        : std::vector<int64_t>{b.size, b.length, 4},
                                         &values);
      {
        nb::gil_scoped_release no_gil;
        if (channels_first) {
          data::one_hot(b.codes, static_cast<size_t>(b.size), static_cast<size_t>(b.length),
                        values);
        } else {
          std::fill(values, values + b.size * b.length * 4, 0.0F);
          for (int64_t i = 0; i < b.size * b.length; ++i) {
            if (b.codes[i] < data::kNumBases) values[i * 4 + b.codes[i]] = 1.0F;
          }
        }
      }
      out["one_hot"] = array;
    } else {
      out["codes"] = numpy_view(b.codes, {b.size, b.length}, DType::kUInt8, owner);
    }
    out["labels"] = numpy_view(b.labels, {b.size, b.num_targets}, DType::kFloat32, owner);
    out["label_mask"] = numpy_view(b.label_mask, {b.size, b.num_targets}, DType::kUInt8, owner);
    if (b.profile != nullptr) {
      out["profile"] = numpy_view(b.profile, {b.size, b.profile_tracks, b.profile_length},
                                  DType::kFloat32, owner);
    }
    if (b.control != nullptr) {
      out["control"] =
          numpy_view(b.control, {b.size, b.control_tracks, b.length}, DType::kFloat32, owner);
    }
    out["sample_index"] = numpy_view(b.sample_index, {b.size}, DType::kInt64, owner);
    out["reverse"] = numpy_view(b.reverse, {b.size}, DType::kUInt8, owner);
    return out;
  }

  data::LoaderConfig config_;
  bool one_hot_ = false;
  std::string layout_;
  std::unique_ptr<data::DataLoader> loader_;
  uint64_t epoch_ = 0;
  bool started_ = false;
};

std::vector<int> label_columns(const nb::handle& value) {
  if (value.is_none()) return {};
  if (nb::isinstance<nb::str>(value)) {
    return data::parse_column_list(nb::cast<std::string>(value), "label_columns", 4);
  }
  try {
    return nb::cast<std::vector<int>>(value);
  } catch (const nb::cast_error&) {
    throw app::ConfigError(
        fmt::format("label_columns: expected \"4-10\" or a list of 1-based column numbers, got {}",
                    nb::inst_name(value).c_str()));
  }
}

// The keyword arguments of strand.data.Loader that are config keys of a run's files data, by
// the key whose row (app/config_keys.cpp) gives their default: the same defaults as `strand
// train`'s flags. (Python's names are older than some keys': rc, threads.)
constexpr std::pair<const char*, const char*> kKeyedArguments[] = {
    {"window", "data.window"},
    {"jitter", "data.jitter"},
    {"rc", "data.rc_probability"},
    {"threads", "data.loader_threads"},
    {"format", "data.format"},
    {"profile_bigwigs", "data.profile_bigwigs"},
    {"control_bigwigs", "data.control_bigwigs"},
    {"count_bigwigs", "data.count_bigwigs"},
    {"profile_length", "data.profile_length"},
    {"targets", "data.targets"},
    {"prefetch", "data.prefetch"},
    {"balanced", "data.balanced"},
};

// A config value as a Python object (a model spec is no loader argument).
nb::object python_value(const app::ConfigValue& value) {
  return std::visit(
      [](const auto& v) -> nb::object {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, app::ModelSpec>) {
          throw std::logic_error("a model spec is no loader argument");
        } else {
          return nb::cast(v);
        }
      },
      value);
}

// The argument `name` with the default of its config key, in a run of files data.
nb::arg_v keyed_argument(const char* name) {
  static const app::RunConfig defaults = [] {
    app::RunConfig config = app::default_config();
    config.data.source = "files";
    return config;
  }();
  for (const auto& [argument, key] : kKeyedArguments) {
    if (std::string_view(argument) == name) {
      return nb::arg(name) = python_value(app::find_config_key(key)->field.get(defaults));
    }
  }
  throw std::logic_error(fmt::format("{} is not a keyed loader argument", name));
}

PythonLoader* make_loader(
    const std::filesystem::path& fasta, const std::filesystem::path& intervals, int64_t window,
    int64_t batch_size, int64_t jitter, double rc, bool shuffle, uint64_t seed, int threads,
    const std::string& format, const nb::handle& columns, std::vector<std::string> task_names,
    bool labelled, bool one_hot, const std::string& layout,
    std::vector<std::string> profile_bigwigs, std::vector<std::string> control_bigwigs,
    std::vector<std::string> count_bigwigs, int64_t profile_length, const std::string& targets,
    bool drop_last, int prefetch, double substitution_rate, bool balanced, bool use_summit,
    const std::optional<std::filesystem::path>& fasta_index) {
  if (layout != "NCL" && layout != "NLC") {
    throw app::ConfigError(fmt::format(
        "layout: '{}' is not one of NCL (one-hot (B, 4, L)), NLC (one-hot (B, L, 4))", layout));
  }
  data::LoaderConfig config;
  config.fasta = fasta.string();
  config.fasta_index = fasta_index ? fasta_index->string() : "";
  config.intervals = intervals.string();
  config.format = data::parse_interval_format(format);
  config.label_columns = label_columns(columns);
  config.task_names = std::move(task_names);
  config.labelled = labelled;
  config.labels = {data::LabelKind::kReal, false};
  config.window = window;
  config.use_summit = use_summit;
  config.jitter = jitter;
  config.rc_probability = rc;
  config.substitution_rate = substitution_rate;
  config.batch_size = batch_size;
  config.balanced = balanced;
  config.shuffle = shuffle;
  config.seed = seed;
  config.drop_last = drop_last;
  config.prefetch = prefetch;
  config.loader_threads = threads;
  config.signals.profile_bigwigs = std::move(profile_bigwigs);
  config.signals.control_bigwigs = std::move(control_bigwigs);
  config.signals.count_bigwigs = std::move(count_bigwigs);
  config.signals.profile_length = profile_length;
  config.signals.targets = data::parse_target_source(targets);
  nb::gil_scoped_release no_gil;
  return new PythonLoader(std::move(config), one_hot, layout);
}

}  // namespace

void bind_loader(nb::module_& m) {
  // The loader's own settings (not config keys) default to the library's.
  const data::LoaderConfig defaults;
  nb::class_<PythonLoader>(
      m, "Loader",
      "strand's genomic data loader: windows of a FASTA around intervals (BED, narrowPeak, "
      "ENCODE-DREAM TSV, or a records label table), augmented (jitter, reverse complement) and "
      "batched by worker threads. Iterating gives one epoch of batches, each a dict of numpy "
      "arrays viewing the batch's memory (no copies): 'codes' (B, L) uint8 (A=0, C=1, G=2, T=3, "
      "N=4) or 'one_hot' (B, 4, L) float32, 'labels' (B, T) float32, 'label_mask' (B, T) uint8, "
      "'profile' (B, S, Lp) and 'control' (B, Sc, L) float32 with bigWig tracks, "
      "'sample_index' (B,) int64 and 'reverse' (B,) uint8. torch.from_dlpack(array) or "
      "torch.from_numpy(array) views them without a copy. Each new iteration is the next epoch "
      "(a new shuffle and augmentation, seeded by (seed, epoch)).")
      .def(nb::new_(&make_loader), nb::arg("fasta"), nb::arg("intervals"), keyed_argument("window"),
           nb::arg("batch_size") = defaults.batch_size, keyed_argument("jitter"),
           keyed_argument("rc"), nb::arg("shuffle") = defaults.shuffle,
           nb::arg("seed") = defaults.seed, keyed_argument("threads"), keyed_argument("format"),
           nb::arg("label_columns") = nb::none(),
           nb::arg("task_names") = std::vector<std::string>{}, nb::arg("labelled") = true,
           nb::arg("one_hot") = false, nb::arg("layout") = "NCL", keyed_argument("profile_bigwigs"),
           keyed_argument("control_bigwigs"), keyed_argument("count_bigwigs"),
           keyed_argument("profile_length"), keyed_argument("targets"),
           nb::arg("drop_last") = defaults.drop_last, keyed_argument("prefetch"),
           nb::arg("substitution_rate") = defaults.substitution_rate, keyed_argument("balanced"),
           nb::arg("use_summit") = defaults.use_summit, nb::arg("fasta_index") = nb::none(),
           "Opens `fasta` (plain or BGZF; a missing .fai is built) and `intervals` (`format`: "
           "bed, narrowpeak, dream or records) and starts `threads` worker threads. Windows are "
           "`window` bases centred on each interval (a narrowPeak's summit), shifted by up to "
           "`jitter` and reverse complemented with probability `rc`. `label_columns`: \"4-10\" "
           "or [4, 5] (1-based; default: the format's); labelled=False reads intervals without "
           "labels. bigWig tracks: `profile_bigwigs` (per-base targets over the centred "
           "`profile_length` bases), `control_bigwigs` (model inputs), `count_bigwigs` with "
           "targets=\"counts\" (labels are the tracks' sums); a \"plus.bw,minus.bw\" entry is a "
           "stranded pair. Raises strand.DataError naming the file and line of bad input.")
      .def(
          "__len__", [](const PythonLoader& self) { return self.loader().steps_per_epoch(); },
          "Batches per epoch.")
      .def(
          "__iter__",
          [](nb::handle self) {
            nb::cast<PythonLoader&>(self).start();
            return self;
          },
          "Starts the next epoch.")
      .def("__next__", &PythonLoader::next, "The next batch of the epoch (a dict of arrays).")
      .def_prop_rw(
          "epoch", &PythonLoader::epoch, &PythonLoader::set_epoch,
          "The epoch the next iteration plays (advances by one per iteration; set it to replay "
          "or resume an epoch's shuffle and augmentation).")
      .def_prop_ro(
          "size", [](const PythonLoader& self) { return self.loader().source().size(); },
          "Samples (intervals) per epoch.")
      .def_prop_ro(
          "window", [](const PythonLoader& self) { return self.loader().source().length(); },
          "Bases per window (L).")
      .def_prop_ro(
          "tasks", [](const PythonLoader& self) { return self.loader().source().task_names(); },
          "The label columns' task names (T of them).")
      .def_prop_ro(
          "batch_size", [](const PythonLoader& self) { return self.config().batch_size; },
          "Samples per batch (the last batch of an epoch may be smaller).");
  m.def(
      "_loader_argument_keys",
      [] {
        nb::dict keys;
        for (const auto& [argument, key] : kKeyedArguments) keys[argument] = key;
        return keys;
      },
      "The config key of each keyed argument of Loader (its default is the key's).");
}

}  // namespace strand::python
