// strand.load() and strand.Model: a trained model (a run directory or a checkpoint) that
// predicts numpy arrays from sequences, base codes or one-hot arrays, with the GIL released
// during the forward passes.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/model_builder.h"
#include "app/pass_options.h"
#include "app/run_config.h"
#include "app/trained_model.h"
#include "arrays.h"
#include "autograd/grad_mode.h"
#include "bindings.h"
#include "core/finite_values.h"
#include "data/encoding.h"
#include "data/sources/sequence_source.h"
#include "layers/layer_catalog.h"
#include "layers/module.h"
#include "python_model.h"
#include "threads.h"
#include "train/reverse_complement_average.h"

namespace nb = nanobind;

namespace strand::python {

const char* const kInputHelp =
    "a list of strings, uint8 base codes (N, L) (A=0, C=1, G=2, T=3, N=4) or float32 one-hot "
    "(N, 4, L)";

namespace {

// Throws ConfigError naming the first NaN or infinity of `array` (its `values`), as name[i, j, k].
void check_finite(const float* values, const AnyArray& array, const char* name) {
  size_t total = 1;
  for (size_t d = 0; d < array.ndim(); ++d) total *= array.shape(d);
  const std::optional<size_t> at = first_non_finite(values, total);
  if (!at) return;
  // The element's index along each axis, as numpy would write it.
  std::vector<size_t> index(array.ndim());
  size_t rest = *at;
  for (size_t d = array.ndim(); d-- > 0;) {
    index[d] = rest % array.shape(d);
    rest /= array.shape(d);
  }
  throw app::ConfigError(fmt::format("{}[{}] is {}; the values must be finite (no NaN or inf)",
                                     name, fmt::join(index, ", "), values[*at]));
}

// A list of sequence strings, each of source.length bases, encoded into source.encoded.
void encode_sequence_list(const nb::sequence& items, SequenceBatchSource& source) {
  const int64_t length = source.length;
  const size_t count = nb::len(items);
  source.count = static_cast<int64_t>(count);
  source.encoded.resize(count * static_cast<size_t>(length));
  size_t i = 0;
  for (nb::handle item : items) {
    if (!nb::isinstance<nb::str>(item)) {
      throw app::ConfigError(
          fmt::format("x[{}]: expected a string of bases, got {}", i, nb::inst_name(item).c_str()));
    }
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(item.ptr(), &size);
    if (text == nullptr) throw nb::python_error();
    if (size != length) {
      throw app::ConfigError(
          fmt::format("x[{}]: the sequence has {} bases; the model takes {} (its input length)", i,
                      size, length));
    }
    // The letters a FASTA sequence line may hold, and no others (data/encoding.h).
    const size_t bad = data::first_non_sequence_letter(text, static_cast<size_t>(size));
    if (bad != static_cast<size_t>(size)) {
      throw app::ConfigError(fmt::format("x[{}]: {} at position {} {}", i,
                                         data::describe_sequence_byte(text[bad]), bad,
                                         data::non_sequence_letter_reason(text[bad])));
    }
    data::encode(text, static_cast<size_t>(size), source.encoded.data() + i * length);
    ++i;
  }
}

}  // namespace

SequenceBatchSource read_sequences(const nb::handle& x, int64_t length, const std::string& layout,
                                   std::optional<AnyArray>& array) {
  SequenceBatchSource source;
  source.length = length;
  if (layout != "NCL" && layout != "NLC") {
    throw app::ConfigError(fmt::format(
        "layout: '{}' is not one of NCL (one-hot (N, 4, L)), NLC (one-hot (N, L, 4))", layout));
  }
  if (nb::isinstance<nb::str>(x) || nb::isinstance<nb::bytes>(x)) {
    throw app::ConfigError(
        fmt::format("x: got one string; pass a list of sequences (x=[seq]), {}", kInputHelp));
  }
  if (nb::isinstance<nb::list>(x) || nb::isinstance<nb::tuple>(x)) {
    encode_sequence_list(nb::borrow<nb::sequence>(x), source);
    source.codes = source.encoded.data();
    return source;
  }
  try {
    array = nb::cast<AnyArray>(x);
  } catch (const nb::cast_error&) {
    throw app::ConfigError(
        fmt::format("x: expected {}; got {}", kInputHelp, nb::inst_name(x).c_str()));
  }
  const AnyArray& a = *array;
  const bool codes = a.dtype() == nb::dtype<uint8_t>() && a.ndim() == 2;
  const bool one_hot = a.dtype() == nb::dtype<float>() && a.ndim() == 3;
  if (!codes && !one_hot) {
    throw app::ConfigError(
        fmt::format("x: expected {}; got {} {}", kInputHelp, dtype_text(a.dtype()), shape_text(a)));
  }
  require_contiguous_cpu(a, "x");
  source.count = static_cast<int64_t>(a.shape(0));
  if (codes) {
    if (static_cast<int64_t>(a.shape(1)) != length) {
      throw app::ConfigError(
          fmt::format("x: base codes {} have length {}; the model takes {} (its input length)",
                      shape_text(a), a.shape(1), length));
    }
    source.codes = static_cast<const uint8_t*>(a.data());
    const size_t total = static_cast<size_t>(source.count * length);
    const auto bad = std::find_if(source.codes, source.codes + total,
                                  [](uint8_t code) { return code > data::kCodeN; });
    if (bad != source.codes + total) {
      const size_t at = static_cast<size_t>(bad - source.codes);
      throw app::ConfigError(
          fmt::format("x: base code {} at [{}, {}]; codes are 0..4 (A, C, G, T, N)", *bad,
                      at / static_cast<size_t>(length), at % static_cast<size_t>(length)));
    }
    return source;
  }
  const size_t channel_axis = layout == "NCL" ? 1 : 2;
  const size_t length_axis = layout == "NCL" ? 2 : 1;
  if (a.shape(channel_axis) != 4 || static_cast<int64_t>(a.shape(length_axis)) != length) {
    throw app::ConfigError(fmt::format(
        "x: one-hot {} in layout {}; the model takes {} (4 bases, its input length){}",
        shape_text(a), layout,
        layout == "NCL" ? fmt::format("(N, 4, {})", length) : fmt::format("(N, {}, 4)", length),
        layout == "NCL" && a.shape(2) == 4 ? "; pass layout=\"NLC\" for (N, L, 4)" : ""));
  }
  const float* values = static_cast<const float*>(a.data());
  check_finite(values, a, "x");
  if (layout == "NCL") {
    source.one_hot = values;
    return source;
  }
  // (N, L, 4) -> (N, 4, L)
  source.transposed.resize(static_cast<size_t>(source.count * 4 * length));
  for (int64_t n = 0; n < source.count; ++n) {
    for (int64_t l = 0; l < length; ++l) {
      for (int64_t c = 0; c < 4; ++c) {
        source.transposed[static_cast<size_t>((n * 4 + c) * length + l)] =
            values[(n * length + l) * 4 + c];
      }
    }
  }
  source.one_hot = source.transposed.data();
  return source;
}

Tensor sequence_codes(SequenceBatchSource& source, const std::string& what) {
  const int64_t count = source.count, length = source.length;
  if (source.codes != nullptr) {
    return Tensor::from_blob(const_cast<uint8_t*>(source.codes), {count, length}, DType::kUInt8);
  }
  source.encoded.resize(static_cast<size_t>(count * length));
  for (int64_t n = 0; n < count; ++n) {
    for (int64_t l = 0; l < length; ++l) {
      uint8_t code = data::kCodeN;
      int ones = 0;
      for (int64_t c = 0; c < 4; ++c) {
        const float value = source.one_hot[(n * 4 + c) * length + l];
        if (value == 1.0F) {
          code = static_cast<uint8_t>(c);
          ++ones;
        } else if (value != 0.0F) {
          ones = 2;
        }
      }
      if (ones > 1) {
        throw app::ConfigError(fmt::format(
            "{}: sequence {}, position {} is not one-hot (one 1 and three 0s, or all 0 for N); "
            "explanations take sequences: pass base codes, strings or a one-hot encoding",
            what, n, l));
      }
      source.encoded[static_cast<size_t>(n * length + l)] = code;
    }
  }
  source.codes = source.encoded.data();
  source.one_hot = nullptr;
  return Tensor::from_blob(source.encoded.data(), {count, length}, DType::kUInt8);
}

app::ConfigError python_argument_error(
    const app::ConfigError& error, const std::vector<std::pair<std::string, std::string>>& flags) {
  const std::string message = error.what();
  for (const auto& [flag, argument] : flags) {
    if (message.starts_with(flag) && message.size() > flag.size() &&
        (message[flag.size()] == ':' || message[flag.size()] == ' ')) {
      return app::ConfigError(argument + message.substr(flag.size()));
    }
  }
  return error;
}

namespace {

// The sequence tensor of rows [start, start + count), forward or reverse complemented
// (`scratch` holds the reverse complement).
Tensor sequence_tensor(const SequenceBatchSource& source, int64_t start, int64_t count,
                       bool reverse, std::vector<uint8_t>& code_scratch,
                       std::vector<float>& float_scratch) {
  const int64_t length = source.length;
  if (source.codes != nullptr) {
    const uint8_t* rows = source.codes + start * length;
    if (!reverse) {
      return Tensor::from_blob(const_cast<uint8_t*>(rows), {count, length}, DType::kUInt8);
    }
    code_scratch.assign(rows, rows + count * length);
    for (int64_t n = 0; n < count; ++n) {
      data::reverse_complement(code_scratch.data() + n * length, static_cast<size_t>(length));
    }
    return Tensor::from_blob(code_scratch.data(), {count, length}, DType::kUInt8);
  }
  const float* rows = source.one_hot + start * 4 * length;
  if (!reverse) {
    return Tensor::from_blob(const_cast<float*>(rows), {count, 4, length}, DType::kFloat32);
  }
  // Reverse complement in one-hot: both axes flipped (A<->T, C<->G; positions reversed).
  float_scratch.resize(static_cast<size_t>(count * 4 * length));
  for (int64_t n = 0; n < count; ++n) {
    for (int64_t c = 0; c < 4; ++c) {
      const float* in = rows + (n * 4 + (3 - c)) * length;
      float* out = float_scratch.data() + (n * 4 + c) * length;
      for (int64_t l = 0; l < length; ++l) out[l] = in[length - 1 - l];
    }
  }
  return Tensor::from_blob(float_scratch.data(), {count, 4, length}, DType::kFloat32);
}

// The outputs predict() computes: the one named `output`, else every output.
std::vector<size_t> wanted_outputs(PythonModel& self, const std::optional<std::string>& output) {
  std::vector<size_t> wanted;
  if (output) {
    wanted.push_back(
        app::find_model_output(self.model(), self.trained().dimensions, *output, "output"));
  } else {
    for (size_t i = 0; i < self.output_names().size(); ++i) wanted.push_back(i);
  }
  return wanted;
}

// With rc_average, the reverse complement's column each column of `wanted` averages with
// (`strand predict --rc-average`'s rule: a stranded pair's tracks swap in a per-track counts
// output); without, empty lists.
std::vector<std::vector<int64_t>> reverse_tracks_of(PythonModel& self,
                                                    const std::vector<size_t>& wanted,
                                                    bool rc_average) {
  std::vector<std::vector<int64_t>> reverse_tracks(wanted.size());
  for (size_t k = 0; k < wanted.size() && rc_average; ++k) {
    const size_t index = wanted[k];
    if (self.output_shapes()[index].size() != 1) {
      throw app::ConfigError(fmt::format(
          "rc_average: output '{}' gives ({}) per sequence; averaging with the reverse complement "
          "needs one value per task (a profile's positions and strands would have to be paired): "
          "pass rc_average=False or output=<a (N, T) output>",
          self.output_names()[index], fmt::join(self.output_shapes()[index], ", ")));
    }
    reverse_tracks[k] = app::output_reverse_tracks(self.trained(), index, "rc_average");
  }
  return reverse_tracks;
}

// The control track input (BPNet's bias tracks) of `count` sequences: (N, Sc, L) float32, held
// by `holder`; null for a model without control tracks.
const float* control_values(PythonModel& self, const nb::handle& control, int64_t count,
                            bool rc_average, std::optional<AnyArray>& holder) {
  const int64_t control_tracks = self.trained().dimensions.control_tracks;
  const int64_t length = self.trained().dimensions.length;
  if (control_tracks == 0) {
    if (!control.is_none()) throw app::ConfigError("control: the model reads no control tracks");
    return nullptr;
  }
  if (control.is_none()) {
    throw app::ConfigError(fmt::format(
        "control: the model reads {} control track(s); pass control=<float32 (N, {}, {})>",
        control_tracks, control_tracks, length));
  }
  if (rc_average) {
    throw app::ConfigError(
        "rc_average: not available with control tracks (their strands would have to be paired)");
  }
  try {
    holder = nb::cast<AnyArray>(control);
  } catch (const nb::cast_error&) {
    throw app::ConfigError(fmt::format("control: expected a float32 array (N, {}, {}), got {}",
                                       control_tracks, length, nb::inst_name(control).c_str()));
  }
  const AnyArray& c = *holder;
  if (c.dtype() != nb::dtype<float>() || c.ndim() != 3 ||
      static_cast<int64_t>(c.shape(0)) != count ||
      static_cast<int64_t>(c.shape(1)) != control_tracks ||
      static_cast<int64_t>(c.shape(2)) != length) {
    throw app::ConfigError(fmt::format("control: expected float32 ({}, {}, {}), got {} {}", count,
                                       control_tracks, length, dtype_text(c.dtype()),
                                       shape_text(c)));
  }
  require_contiguous_cpu(c, "control");
  const auto* values = static_cast<const float*>(c.data());
  check_finite(values, c, "control");
  return values;
}

// One predict() call: the outputs, their result arrays (N, *per-sample shape) and how to fill
// them.
struct Prediction {
  std::vector<size_t> wanted;
  std::vector<std::vector<int64_t>> reverse_tracks;
  std::vector<float*> results;
  std::vector<int64_t> per_sample;
  const float* control = nullptr;  // (N, Sc, L), or null
  int64_t batch_size = 1;
  bool rc_average = false;
};

// The model's inputs for sequences [start, start + rows) of `source`, reverse complemented on
// pass 1, on the model's device.
ModelInputs batch_inputs(PythonModel& self, const SequenceBatchSource& source, const Prediction& p,
                         int64_t start, int64_t rows, int pass, std::vector<uint8_t>& code_scratch,
                         std::vector<float>& float_scratch) {
  const Device device = self.device();
  ModelInputs inputs;
  Tensor sequence = sequence_tensor(source, start, rows, pass == 1, code_scratch, float_scratch);
  inputs.sequence = Var(device.is_cuda() ? sequence.to(device) : sequence);
  if (p.control != nullptr) {
    const int64_t tracks = self.trained().dimensions.control_tracks;
    const int64_t length = self.trained().dimensions.length;
    Tensor track = Tensor::from_blob(const_cast<float*>(p.control + start * tracks * length),
                                     {rows, tracks, length}, DType::kFloat32);
    inputs.tracks[kControlInput] = Var(device.is_cuda() ? track.to(device) : track);
  }
  return inputs;
}

// Fills p.results batch by batch (without the GIL, the model's lock held by the caller).
void run_prediction(PythonModel& self, const SequenceBatchSource& source, Prediction& p) {
  NoGradGuard no_grad;
  Model& model = self.model();
  std::vector<uint8_t> code_scratch;
  std::vector<float> float_scratch;
  for (int64_t start = 0; start < source.count; start += p.batch_size) {
    throw_if_stop_requested();  // Ctrl-C: KeyboardInterrupt at the next batch
    const int64_t rows = std::min(p.batch_size, source.count - start);
    for (int pass = 0; pass < (p.rc_average ? 2 : 1); ++pass) {
      const std::vector<Var> outputs = model.forward_outputs(
          batch_inputs(self, source, p, start, rows, pass, code_scratch, float_scratch));
      for (size_t k = 0; k < p.wanted.size(); ++k) {
        const Tensor scores =
            apply_activation(model.output_activation(p.wanted[k]), outputs.at(p.wanted[k]))
                .value()
                .to(Device::cpu())
                .to(DType::kFloat32)
                .contiguous();
        const float* s = scores.data<float>();
        float* out = p.results[k] + start * p.per_sample[k];
        if (pass == 0) {
          std::copy(s, s + rows * p.per_sample[k], out);
        } else {
          train::average_with_reverse_complement(out, s, rows, p.per_sample[k], 1,
                                                 p.reverse_tracks[k]);
        }
      }
    }
  }
}

nb::object predict(PythonModel& self, const nb::handle& x, int64_t batch_size, bool rc_average,
                   const std::optional<std::string>& output, const nb::handle& control,
                   const std::string& layout, std::optional<int64_t> threads) {
  check_pass(batch_size, threads);
  std::optional<AnyArray> array;
  const SequenceBatchSource source =
      read_sequences(x, self.trained().dimensions.length, layout, array);
  Prediction p;
  p.batch_size = batch_size;
  p.rc_average = rc_average;
  p.wanted = wanted_outputs(self, output);
  p.reverse_tracks = reverse_tracks_of(self, p.wanted, rc_average);
  std::optional<AnyArray> control_array;
  p.control = control_values(self, control, source.count, rc_average, control_array);
  // The result arrays (N, *per-sample shape), float32, owned by numpy.
  nb::dict by_name;
  std::vector<nb::object> arrays;
  p.results.resize(p.wanted.size());
  for (size_t k = 0; k < p.wanted.size(); ++k) {
    const Shape& shape = self.output_shapes()[p.wanted[k]];
    std::vector<int64_t> full = {source.count};
    full.insert(full.end(), shape.begin(), shape.end());
    p.per_sample.push_back(numel(shape));
    arrays.push_back(new_float_array(full, &p.results[k]));
    by_name[nb::str(self.output_names()[p.wanted[k]].c_str())] = arrays.back();
  }
  {
    nb::gil_scoped_release no_gil;
    std::lock_guard<std::mutex> lock(self.mutex());
    LongCall call(threads);
    run_prediction(self, source, p);
  }
  if (p.wanted.size() == 1) return arrays.front();
  return by_name;
}

// A layer option value as Python sees it.
nb::object option_value(const LayerOptionValue& value) {
  return std::visit([](const auto& v) -> nb::object { return nb::cast(v); }, value);
}

// The model's description with every data size resolved, for to_torch(): {"graph": bool,
// "layers": [{"name", "type", "options", "inputs"}], "outputs": [{"name", "node",
// "activation"}], "inputs": {"sequence": [L], "control": [Sc, L]}}.
nb::dict model_description(PythonModel& self) {
  const app::TrainedModel& trained = self.trained();
  const app::ModelSpec& spec = trained.config.model;
  nb::dict description;
  description["graph"] = spec.graph();
  nb::list layers;
  const auto add_layer = [&](const std::string& name, const app::LayerSpec& layer,
                             const std::vector<std::string>& inputs, const std::string& path) {
    nb::dict entry;
    entry["name"] = name;
    entry["type"] = layer.type;
    nb::dict options;
    for (const auto& [key, value] : app::resolve_symbols(layer, trained.dimensions, path)) {
      options[nb::str(key.c_str())] = option_value(value);
    }
    entry["options"] = options;
    entry["inputs"] = inputs;
    layers.append(entry);
  };
  if (spec.graph()) {
    for (size_t i = 0; i < spec.nodes.size(); ++i) {
      const app::NodeSpec& node = spec.nodes[i];
      add_layer(node.name, node.layer, node.inputs, fmt::format("model.nodes[{}]", i));
    }
  } else {
    for (size_t i = 0; i < spec.layers.size(); ++i) {
      const std::string previous = i == 0 ? std::string(kSequenceInput) : std::to_string(i - 1);
      add_layer(std::to_string(i), spec.layers[i], {previous}, fmt::format("model[{}]", i));
    }
  }
  description["layers"] = layers;
  nb::list outputs;
  for (size_t i = 0; i < self.output_names().size(); ++i) {
    nb::dict entry;
    entry["name"] = self.output_names()[i];
    entry["node"] = spec.graph() ? spec.outputs[i].node : std::to_string(spec.layers.size() - 1);
    entry["activation"] = activation_name(self.model().output_activation(i));
    outputs.append(entry);
  }
  description["outputs"] = outputs;
  nb::dict inputs;
  inputs["sequence"] = std::vector<int64_t>{trained.dimensions.length};
  if (trained.dimensions.control_tracks > 0) {
    inputs["control"] =
        std::vector<int64_t>{trained.dimensions.control_tracks, trained.dimensions.length};
  }
  description["inputs"] = inputs;
  return description;
}

// Every parameter and buffer by its checkpoint name, as numpy arrays viewing strand's memory
// (a copy from the device for a GPU model).
nb::dict model_weights(PythonModel& self) {
  nb::dict weights;
  for (const auto& [name, parameter] : self.model().named_parameters()) {
    auto tensor = std::make_shared<Tensor>(parameter.value().to(Device::cpu()).contiguous());
    void* data = tensor->raw_data();
    std::vector<int64_t> shape(tensor->shape().begin(), tensor->shape().end());
    weights[nb::str(name.c_str())] = numpy_view(data, shape, tensor->dtype(), tensor);
  }
  return weights;
}

// strand._layer_types, strand._build and strand.load: the functions that make a Model.
void bind_model_functions(nb::module_& m) {
  m.def(
      "_layer_types",
      [] {
        std::vector<std::string> names;
        for (const LayerType& type : layer_types()) names.push_back(type.name);
        return names;
      },
      "The layer types of strand's layer catalog (`strand layers`), in its order.");
  m.def(
      "_build",
      [](const std::string& config_json, std::optional<int64_t> length, int64_t tasks,
         int64_t profile_tracks, int64_t profile_length, int64_t control_tracks,
         const std::string& device) {
        const Device where = Device::parse(device);
        app::TrainedModel built;
        built.config = app::parse_config(nlohmann::json::parse(config_json));
        built.dimensions.length = length.value_or(app::run_input_length(built.config));
        built.dimensions.tasks = tasks;
        built.dimensions.profile_tracks = profile_tracks;
        built.dimensions.profile_length = profile_length > 0   ? profile_length
                                          : profile_tracks > 0 ? built.dimensions.length
                                                               : 0;
        built.dimensions.control_tracks = control_tracks;
        built.task_names = data::SequenceSource::default_task_names(tasks);
        manual_seed(built.config.seed);
        built.model = app::build_model(built.config.model, built.dimensions);
        return new PythonModel(std::move(built), where);
      },
      nb::arg("config_json"), nb::arg("length"), nb::arg("tasks"), nb::arg("profile_tracks"),
      nb::arg("profile_length"), nb::arg("control_tracks"), nb::arg("device"),
      "Builds a config's model, untrained (weights drawn from its seed), for data of the given "
      "sizes.");
  m.def(
      "load",
      [](const std::filesystem::path& path, const std::string& device,
         const std::optional<std::filesystem::path>& config, bool no_bias) {
        const Device where = Device::parse(device);
        app::TrainedModel trained;
        {
          nb::gil_scoped_release no_gil;
          trained = app::load_trained_model(
              app::locate_trained_model(path.string(), config ? config->string() : "", no_bias));
        }
        return new PythonModel(std::move(trained), where);
      },
      nb::arg("path"), nb::arg("device") = "cpu", nb::arg("config") = nb::none(),
      nb::arg("no_bias") = false,
      "Loads a trained model: a run directory (its best checkpoint, else its last, and its "
      "config.json) or a checkpoint file (config.json two folders up, or `config`). `device`: "
      "\"cpu\" or \"cuda[:N]\" in a CUDA build. `no_bias`: a model trained with a bias model "
      "(ChromBPNet) without it, its accessibility model alone. Raises strand.ConfigError (a "
      "ValueError) naming the missing file or the mismatch.");
}

}  // namespace

void bind_model(nb::module_& m) {
  nb::class_<PythonModel>(m, "Model",
                          "A trained strand model with its weights (from strand.load): predicts "
                          "numpy arrays, prints its summary and converts to PyTorch.")
      .def_prop_ro(
          "tasks", [](const PythonModel& self) { return self.trained().task_names; },
          "The task names of the labels the model was trained on (one per column of a (N, T) "
          "output).")
      .def_prop_ro(
          "outputs", [](const PythonModel& self) { return self.output_names(); },
          "The names of the model's outputs, in order (\"output\" for a layer list).")
      .def_prop_ro(
          "output_shapes",
          [](const PythonModel& self) {
            std::map<std::string, std::vector<int64_t>> shapes;
            for (size_t i = 0; i < self.output_names().size(); ++i) {
              const Shape& shape = self.output_shapes()[i];
              shapes[self.output_names()[i]] = std::vector<int64_t>(shape.begin(), shape.end());
            }
            return shapes;
          },
          "Each output's shape per sequence, by name: (T,) for tasks, (S, Lp) for a profile.")
      .def_prop_ro(
          "input_length", [](const PythonModel& self) { return self.trained().dimensions.length; },
          "The sequence length the model takes (bases).")
      .def_prop_ro(
          "control_tracks",
          [](const PythonModel& self) { return self.trained().dimensions.control_tracks; },
          "Control tracks the model reads beside the sequence (0: none).")
      .def_prop_ro(
          "checkpoint",
          [](const PythonModel& self) { return self.trained().files.checkpoint.string(); },
          "The checkpoint file the weights came from.")
      .def_prop_ro(
          "device", [](const PythonModel& self) { return self.device().to_string(); },
          "Where the model runs: \"cpu\" or \"cuda:N\".")
      .def_prop_ro(
          "config",
          [](const PythonModel& self) {
            return nb::module_::import_("json").attr("loads")(
                app::to_json(self.trained().config).dump());
          },
          "The run's resolved config (config.json) as a dict.")
      .def(
          "summary",
          [](const PythonModel& self) {
            return self.trained().model->summary(app::input_shapes(self.trained().dimensions));
          },
          "The model table (layers or graph nodes, output shapes, parameter counts) as text, as "
          "`strand summary` prints it.")
      .def("predict", &predict, nb::arg("x"), nb::arg("batch_size") = app::kPredictBatchSize,
           nb::arg("rc_average") = false, nb::arg("output") = nb::none(),
           nb::arg("control") = nb::none(), nb::arg("layout") = "NCL",
           nb::arg("threads") = nb::none(),
           "Scores sequences. `x` is a list of strings of the model's input length, uint8 base "
           "codes (N, L) (A=0, C=1, G=2, T=3, N=4), or float32 one-hot (N, 4, L) ((N, L, 4) with "
           "layout=\"NLC\"); arrays must be C-contiguous. Returns float32 predictions (N, ...) "
           "after each output's final activation (probabilities for a Sigmoid): the array of "
           "`output`, of the only output, or a dict of every output by name. rc_average=True "
           "averages each score with the reverse complement's (outputs of one value per task). "
           "`control`: float32 (N, Sc, L) for a model with control tracks. `threads`: OpenMP "
           "threads for this call (None: as set). The GIL is released while it computes.")
      .def("_description", &model_description,
           "The model's layers or graph with every data size resolved (used by to_torch).")
      .def("weights", &model_weights,
           "Every parameter and buffer by checkpoint name (\"0.weight\", \"conv.bias\", "
           "\"2.running_mean\") as numpy arrays viewing the model's memory.")
      .def("__repr__", [](const PythonModel& self) {
        return fmt::format("strand.Model('{}', outputs=[{}], input_length={}, tasks={})",
                           self.trained().files.checkpoint.string(),
                           fmt::join(self.output_names(), ", "), self.trained().dimensions.length,
                           self.trained().task_names.size());
      });
  bind_model_functions(m);
}

}  // namespace strand::python
