// The catalog's list of layer types; each LayerType is defined beside its layer.
#include "layers/layer_catalog.h"

#include <fmt/format.h>

#include <type_traits>

#include "core/error.h"

namespace strand {

// Defined beside each layer (conv1d.cpp, dense.cpp, activations.cpp, pooling.cpp, dropout.cpp,
// crop1d.cpp, batch_norm.cpp, merge.cpp).
LayerType conv1d_layer_type();
LayerType dense_layer_type();
LayerType relu_layer_type();
LayerType sigmoid_layer_type();
LayerType tanh_layer_type();
LayerType exp_layer_type();
LayerType softplus_layer_type();
LayerType gelu_layer_type();
LayerType global_max_pool1d_layer_type();
LayerType flatten_layer_type();
LayerType max_pool1d_layer_type();
LayerType avg_pool1d_layer_type();
LayerType global_avg_pool1d_layer_type();
LayerType dropout_layer_type();
LayerType crop1d_layer_type();
LayerType batch_norm1d_layer_type();
LayerType softmax_layer_type();
LayerType add_layer_type();
LayerType concat_layer_type();
LayerType log_sum_exp_layer_type();

const std::vector<LayerType>& layer_types() {
  static const std::vector<LayerType> types = {
      // Layers with weights.
      conv1d_layer_type(),
      dense_layer_type(),
      // Activations.
      relu_layer_type(),
      sigmoid_layer_type(),
      softmax_layer_type(),
      tanh_layer_type(),
      exp_layer_type(),
      softplus_layer_type(),
      gelu_layer_type(),
      // Pooling.
      global_max_pool1d_layer_type(),
      max_pool1d_layer_type(),
      avg_pool1d_layer_type(),
      global_avg_pool1d_layer_type(),
      // Normalisation, regularisation and reshaping.
      batch_norm1d_layer_type(),
      dropout_layer_type(),
      crop1d_layer_type(),
      flatten_layer_type(),
      // Merges (graph models).
      add_layer_type(),
      concat_layer_type(),
      log_sum_exp_layer_type(),
  };
  return types;
}

const LayerType* find_layer_type(std::string_view name) {
  for (const LayerType& type : layer_types()) {
    if (type.name == name) return &type;
  }
  return nullptr;
}

LayerOptions LayerType::complete(LayerOptions given) const {
  std::vector<std::string> required;
  bool missing = false;
  for (const LayerOption& option : options) {
    if (option.required) required.push_back(fmt::format("'{}'", option.name));
    if (given.count(option.name) != 0) continue;
    if (option.required) {
      missing = true;
    } else {
      given.emplace(option.name, option.default_value);
    }
  }
  STRAND_CHECK(!missing, "{} needs {}", name, fmt::join(required, " and "));
  return given;
}

std::string layer_catalog_markdown() {
  std::string text =
      "| layer | option | kind | default | values | meaning |\n"
      "|---|---|---|---|---|---|\n";
  for (const LayerType& type : layer_types()) {
    text += fmt::format("| `{}` | | | | | {} |\n", type.name, type.help);
    for (const LayerOption& option : type.options) {
      std::string kind, values;
      switch (option.kind) {
        case LayerOption::Kind::kInt:
          kind = "integer";
          values = fmt::format("{} to {}", option.min, option.max);
          break;
        case LayerOption::Kind::kBool:
          kind = "true/false";
          break;
        case LayerOption::Kind::kChoice:
          kind = "word";
          values = fmt::format("{}", fmt::join(option.choices, ", "));
          break;
        case LayerOption::Kind::kReal:
          kind = "number";
          values = fmt::format("{} to {}{}", option.real_min, option.real_max,
                               option.real_max_open ? " (excluded)" : "");
          break;
      }
      const std::string default_text =
          option.required
              ? "required"
              : std::visit(
                    [](const auto& v) -> std::string {
                      if constexpr (std::is_same_v<std::decay_t<decltype(v)>, bool>) {
                        return v ? "true" : "false";
                      } else if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) {
                        return "\"" + v + "\"";
                      } else {
                        return fmt::format("{}", v);
                      }
                    },
                    option.default_value);
      text += fmt::format("| | `{}` | {} | {} | {} | {} |\n", option.name, kind, default_text,
                          values, option.help);
    }
  }
  return text;
}

namespace {

template <typename T>
const T& option_of(const LayerOptions& options, const std::string& name) {
  const auto it = options.find(name);
  STRAND_CHECK(it != options.end() && std::holds_alternative<T>(it->second),
               "layer option '{}' is missing or of another kind", name);
  return std::get<T>(it->second);
}

}  // namespace

int64_t int_option(const LayerOptions& options, const std::string& name) {
  return option_of<int64_t>(options, name);
}
bool bool_option(const LayerOptions& options, const std::string& name) {
  return option_of<bool>(options, name);
}
const std::string& choice_option(const LayerOptions& options, const std::string& name) {
  return option_of<std::string>(options, name);
}

double real_option(const LayerOptions& options, const std::string& name) {
  return option_of<double>(options, name);
}

}  // namespace strand
