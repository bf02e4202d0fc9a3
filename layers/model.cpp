// Model: final activations, the default output shapes (a dry run) and summary.
#include "layers/model.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <typeinfo>

#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/softmax.h"

namespace strand {
namespace {

// The keys of a map, quoted, for error messages.
template <typename Map>
std::string key_list(const char* first, const Map& map) {
  std::string text = fmt::format("'{}'", first);
  for (const auto& [name, value] : map) text += fmt::format(", '{}'", name);
  return text;
}

// A zero batch of one sample for `shape` (per sample) on the model's device: base codes
// (uint8) for a one-dimensional sequence, else the parameters' floating type.
Var zero_sample(const Module& model, const Shape& shape, bool codes) {
  const std::vector<Var> parameters = model.parameters();
  const Device device = parameters.empty() ? Device::cpu() : parameters.front().device();
  const DType real = parameters.empty() ? DType::kFloat32 : parameters.front().dtype();
  Shape batched = {1};
  batched.insert(batched.end(), shape.begin(), shape.end());
  return Var(Tensor::zeros(batched, codes ? DType::kUInt8 : real, device));
}

// Every submodule below `module`, depth first, with dotted names and depth.
void list_modules(const Module& module, const std::string& prefix, int depth,
                  std::vector<std::tuple<std::string, const Module*, int>>& out) {
  for (const auto& [name, child] : module.named_children()) {
    out.emplace_back(prefix + name, child.get(), depth);
    list_modules(*child, prefix + name + ".", depth + 1, out);
  }
}

std::string demangled_type_name(const Module& module) {
  const char* mangled = typeid(module).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string text = status == 0 && name ? name.get() : mangled;
  if (text.rfind("strand::", 0) == 0) text = text.substr(8);
  return text;
}

}  // namespace

const char* activation_name(Activation activation) {
  switch (activation) {
    case Activation::kIdentity:
      return "identity";
    case Activation::kSigmoid:
      return "sigmoid";
    case Activation::kSoftmax:
      return "softmax";
    case Activation::kExp:
      return "exp";
  }
  return "identity";
}

Var apply_activation(Activation activation, const Var& x) {
  switch (activation) {
    case Activation::kIdentity:
      return x;
    case Activation::kSigmoid:
      return sigmoid(x);
    case Activation::kSoftmax:
      return softmax(x, x.dim() - 1);
    case Activation::kExp:
      return exp(x);
  }
  return x;
}

const Var& ModelInputs::get(const std::string& name) const {
  if (name == kSequenceInput) return sequence;
  auto it = tracks.find(name);
  STRAND_CHECK(it != tracks.end(), "the model reads an input '{}', but the batch has {}", name,
               key_list(kSequenceInput, tracks));
  return it->second;
}

const Shape& InputShapes::get(const std::string& name) const {
  if (name == kSequenceInput) return sequence;
  auto it = tracks.find(name);
  STRAND_CHECK(it != tracks.end(), "the model reads an input '{}', but the data has {}", name,
               key_list(kSequenceInput, tracks));
  return it->second;
}

std::vector<Var> Model::forward_predictions(const ModelInputs& inputs) {
  std::vector<Var> outputs = forward_outputs(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    outputs[i] = apply_activation(output_activation(i), outputs[i]);
  }
  return outputs;
}

std::vector<Shape> Model::output_shapes(const InputShapes& inputs) const {
  // A dry run changes no state in evaluation mode (no batch statistics, no dropout masks); the
  // mode is restored afterwards.
  auto& self = const_cast<Model&>(*this);
  const bool was_training = is_training();
  NoGradGuard no_grad;
  self.eval();
  std::vector<Shape> shapes;
  try {
    ModelInputs batch;
    batch.sequence = zero_sample(*this, inputs.sequence, inputs.sequence.size() == 1);
    for (const auto& [name, shape] : inputs.tracks) {
      batch.tracks[name] = zero_sample(*this, shape, false);
    }
    for (const Var& output : self.forward_outputs(batch)) {
      Shape shape = output.shape();
      shape.erase(shape.begin());
      shapes.push_back(shape);
    }
  } catch (...) {
    self.train(was_training);
    throw;
  }
  self.train(was_training);
  return shapes;
}

std::string batched_shape_text(const Shape& shape) {
  std::string text = "(None";
  for (const int64_t size : shape) text += fmt::format(", {}", size);
  return text + ")";
}

std::string parameter_totals(const Module& module) {
  int64_t total = 0, trainable = 0;
  for (const auto& [name, parameter] : module.named_parameters()) {
    total += parameter.value().numel();
    if (parameter.requires_grad()) trainable += parameter.value().numel();
  }
  return fmt::format("Total params: {}\nTrainable params: {}\nNon-trainable params: {}\n", total,
                     trainable, total - trainable);
}

std::string Model::summary(const InputShapes& inputs) const {
  std::string text = fmt::format("{} ({})\n", type_name(), "custom model");
  text += fmt::format("{:<40}{:<24}{:>10}\n", "Module (type)", "Parameter shapes", "Param #");
  text += std::string(74, '=') + "\n";
  std::vector<std::tuple<std::string, const Module*, int>> modules;
  list_modules(*this, "", 0, modules);
  for (const auto& [name, module, depth] : modules) {
    std::string shapes;
    int64_t count = 0;
    for (const auto& [parameter_name, parameter] : module->named_parameters()) {
      count += parameter.value().numel();
    }
    // Only a leaf module's own parameters are listed by shape; containers show their total.
    if (module->named_children().empty()) {
      for (const auto& [parameter_name, parameter] : module->named_parameters()) {
        if (!shapes.empty()) shapes += ' ';
        shapes += shape_to_string(parameter.shape());
      }
    }
    const auto* as_model = dynamic_cast<const Model*>(module);
    const std::string type = as_model ? as_model->type_name() : demangled_type_name(*module);
    text += fmt::format("{:<40}{:<24}{:>10}\n",
                        fmt::format("{}{} ({})", std::string(2 * depth, ' '), name, type), shapes,
                        count);
  }
  text += std::string(74, '=') + "\n";
  const std::vector<std::string> names = output_names();
  const std::vector<Shape> shapes = output_shapes(inputs);
  for (size_t i = 0; i < shapes.size() && i < names.size(); ++i) {
    const Activation activation = output_activation(i);
    text += fmt::format("output '{}': {}{}\n", names[i], batched_shape_text(shapes[i]),
                        activation == Activation::kIdentity
                            ? ""
                            : fmt::format(" (then {})", activation_name(activation)));
  }
  text += parameter_totals(*this);
  return text;
}

std::string Model::type_name() const { return demangled_type_name(*this); }

size_t Model::output_index(const std::string& name) const {
  const std::vector<std::string> names = output_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return i;
  }
  throw Error(fmt::format("the model has no output '{}'; its outputs are '{}'", name,
                          fmt::join(names, "', '")));
}

}  // namespace strand
