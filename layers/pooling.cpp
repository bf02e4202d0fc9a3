// Pooling layers and their catalog entries.
#include "layers/pooling.h"

#include <fmt/format.h>

#include "layers/layer_catalog.h"

namespace strand {
namespace {

Pool1DParams pool_params(const char* layer, int64_t pool_size, int64_t stride, bool ceil_mode) {
  STRAND_CHECK(pool_size >= 1 && stride >= 0,
               "{}: pool_size must be >= 1 and stride >= 0, got {} and {}", layer, pool_size,
               stride);
  return {pool_size, stride == 0 ? pool_size : stride, ceil_mode};
}

// (C, L) -> (C, L_out); throws naming the layer when the input is not (C, L) or too short.
Shape pooled_shape(const char* layer, const Pool1DParams& p, const Shape& input) {
  STRAND_CHECK(input.size() == 2, "{}: expected input (C, L), got ({})", layer,
               fmt::join(input, ", "));
  const int64_t out_length = kernels::pool1d_out_length(input[1], p.kernel, p.stride, p.ceil_mode);
  STRAND_CHECK(out_length > 0, "{}: input length {} is shorter than pool_size {}", layer, input[1],
               p.kernel);
  return {input[0], out_length};
}

// The catalog entry of a windowed pooling layer L (MaxPool1D, AvgPool1D).
template <typename L>
LayerType windowed_pool_layer_type(std::string name, std::string help) {
  LayerType type;
  type.name = std::move(name);
  type.help = std::move(help);
  type.options = {
      {.name = "pool_size",
       .help = "window width",
       .required = true,
       .min = 1,
       .max = kMaxLayerSpan},
      {.name = "stride",
       .help = "step between windows; 0: pool_size",
       .default_value = int64_t{0},
       .min = 0,
       .max = kMaxLayerSpan},
      {.name = "ceil_mode",
       .kind = LayerOption::Kind::kBool,
       .help = "keep a last window cut short by the input's end",
       .default_value = false},
  };
  type.build = [](const LayerOptions& o, const Shape&) -> std::shared_ptr<Layer> {
    return std::make_shared<L>(int_option(o, "pool_size"), int_option(o, "stride"),
                               bool_option(o, "ceil_mode"));
  };
  return type;
}

}  // namespace

MaxPool1D::MaxPool1D(int64_t pool_size, int64_t stride, bool ceil_mode)
    : params_(pool_params("MaxPool1D", pool_size, stride, ceil_mode)) {}

Var MaxPool1D::forward(const Var& x) { return max_pool1d(x, params_); }

Shape MaxPool1D::output_shape(const Shape& input) const {
  return pooled_shape("MaxPool1D", params_, input);
}

AvgPool1D::AvgPool1D(int64_t pool_size, int64_t stride, bool ceil_mode)
    : params_(pool_params("AvgPool1D", pool_size, stride, ceil_mode)) {}

Var AvgPool1D::forward(const Var& x) { return avg_pool1d(x, params_); }

Shape AvgPool1D::output_shape(const Shape& input) const {
  return pooled_shape("AvgPool1D", params_, input);
}

Var GlobalAvgPool1D::forward(const Var& x) { return global_avg_pool1d(x); }

Shape GlobalAvgPool1D::output_shape(const Shape& input) const {
  STRAND_CHECK(input.size() == 2, "GlobalAvgPool1D: expected input (C, L), got ({})",
               fmt::join(input, ", "));
  return {input[0]};
}

LayerType max_pool1d_layer_type() {
  return windowed_pool_layer_type<MaxPool1D>("MaxPool1D",
                                             "(C, L) -> (C, L_out): max of each window");
}
LayerType avg_pool1d_layer_type() {
  return windowed_pool_layer_type<AvgPool1D>("AvgPool1D",
                                             "(C, L) -> (C, L_out): mean of each window");
}
LayerType global_avg_pool1d_layer_type() {
  LayerType type;
  type.name = "GlobalAvgPool1D";
  type.help = "(C, L) -> (C): mean over positions";
  type.build = [](const LayerOptions&, const Shape&) -> std::shared_ptr<Layer> {
    return std::make_shared<GlobalAvgPool1D>();
  };
  return type;
}

}  // namespace strand
