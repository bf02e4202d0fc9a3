// The layer catalog: the layer types a model description (the `model` list of a `strand train`
// config) can name. Each type is declared once, next to its layer (conv1d.cpp, dense.cpp,
// activations.cpp): its name, its options (name, kind, default, range, help) and how to build
// it for an input shape. The CLI parses, checks, prints and builds layers from this alone, so
// adding a layer to the CLI touches only layers/: the layer, its LayerType, one catalog line.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/shape.h"
#include "layers/layer.h"

namespace strand {

/// Bounds of the integer options (a width is a channel or unit count; a span is a kernel size,
/// stride or dilation, at most the longest sequence strand takes).
inline constexpr int64_t kMaxLayerWidth = 65536;
inline constexpr int64_t kMaxLayerSpan = 10'000'000;

/// One option value: an integer, a flag, one of a set of words or a real number.
using LayerOptionValue = std::variant<int64_t, bool, std::string, double>;
/// Options by name; LayerType::complete() fills in every default.
using LayerOptions = std::map<std::string, LayerOptionValue>;

/// One option of a layer type.
struct LayerOption {
  enum class Kind { kInt, kBool, kChoice, kReal };
  std::string name{};
  Kind kind = Kind::kInt;
  std::string help{};
  bool required = false;               ///< no default: a model entry must give it
  LayerOptionValue default_value{};    ///< when not required
  int64_t min = 0;                     ///< kInt, inclusive
  int64_t max = 0;                     ///< kInt, inclusive
  std::vector<std::string> choices{};  ///< kChoice
  double real_min = 0.0;               ///< kReal, inclusive
  double real_max = 0.0;               ///< kReal, inclusive unless real_max_open
  bool real_max_open = false;          ///< kReal: real_max itself is refused (a rate < 1)
};

/// A layer type the catalog can build.
struct LayerType {
  std::string name;  ///< as written in a model entry, e.g. "Conv1D"
  std::string help;
  std::vector<LayerOption> options;
  /// How many inputs the layer takes: 1, or kTwoOrMoreInputs for merges (Add, Concat).
  int inputs = 1;
  /// The layer for `options` (complete) and an input of `input` (per example, no batch
  /// dimension; a merge gets its first input's shape and checks them all through
  /// Layer::output_shape_of); throws strand::Error when the input does not fit.
  std::function<std::shared_ptr<Layer>(const LayerOptions& options, const Shape& input)> build;

  /// `given` with every missing option at its default. Throws strand::Error naming the
  /// required options when one is missing.
  LayerOptions complete(LayerOptions given) const;
};

/// Every layer type, in the order the documentation lists them.
const std::vector<LayerType>& layer_types();
/// The type called `name`, or nullptr.
const LayerType* find_layer_type(std::string_view name);

/// The catalog as a Markdown table (type, option, kind, default, range, meaning): what
/// `strand layers` prints and docs/layers.md holds (a test keeps them equal).
std::string layer_catalog_markdown();

/// The value of an integer, flag, word or real option of a complete LayerOptions.
int64_t int_option(const LayerOptions& options, const std::string& name);
bool bool_option(const LayerOptions& options, const std::string& name);
const std::string& choice_option(const LayerOptions& options, const std::string& name);
double real_option(const LayerOptions& options, const std::string& name);

}  // namespace strand
