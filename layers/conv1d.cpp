// Conv1D layer.
#include "layers/conv1d.h"

#include <cmath>

#include "layers/layer_catalog.h"

namespace strand {

Conv1D::Conv1D(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
               Conv1DOptions options, Generator& generator)
    : in_channels_(in_channels),
      out_channels_(out_channels),
      kernel_size_(kernel_size),
      options_(options) {
  STRAND_CHECK(in_channels > 0 && out_channels > 0 && kernel_size > 0,
               "Conv1D: channels and kernel size must be positive (got in={}, out={}, k={})",
               in_channels, out_channels, kernel_size);
  STRAND_CHECK(options.stride >= 1 && options.dilation >= 1,
               "Conv1D: stride and dilation must be >= 1 (got {}, {})", options.stride,
               options.dilation);
  STRAND_CHECK(options.padding == Padding::kValid || options.stride == 1,
               "Conv1D: 'same' padding needs stride 1 (got stride {})", options.stride);
  weight_ = register_parameter("weight", Tensor::zeros({out_channels, in_channels, kernel_size}));
  if (options.bias) bias_ = register_parameter("bias", Tensor::zeros({out_channels}));
  reset_parameters(generator);
}

void Conv1D::reset_parameters(Generator& generator) {
  // Glorot uniform: limit = sqrt(6 / (fan_in + fan_out)), fans counting the kernel taps.
  const double fan_in = static_cast<double>(in_channels_ * kernel_size_);
  const double fan_out = static_cast<double>(out_channels_ * kernel_size_);
  const double limit = std::sqrt(6.0 / (fan_in + fan_out));
  const Tensor& current = weight_.value();
  set_parameter("weight", Tensor::uniform(current.shape(), -limit, limit, generator,
                                          current.dtype(), current.device()));
  if (bias_.defined()) bias_.mutable_value().zero_();
}

Conv1DParams Conv1D::params_for_length(int64_t /*length*/) const {
  Conv1DParams params;
  params.stride = options_.stride;
  params.dilation = options_.dilation;
  if (options_.padding == Padding::kSame) {
    // As Keras/TensorFlow: the extra column of odd total padding goes on the right.
    const int64_t total = options_.dilation * (kernel_size_ - 1);
    params.pad_left = total / 2;
    params.pad_right = total - params.pad_left;
  }
  return params;
}

void Conv1D::check_input(const Shape& input) const {
  // Per-sample shapes: (C, L) floats or (L) base codes.
  if (input.size() == 1) {
    STRAND_CHECK(in_channels_ == 4,
                 "Conv1D({}->{}): base-code input needs 4 input channels (A, C, G, T)",
                 in_channels_, out_channels_);
  } else {
    STRAND_CHECK(input.size() == 2 && input[0] == in_channels_,
                 "Conv1D({}->{}, k={}): expected input (C={}, L), got {}", in_channels_,
                 out_channels_, kernel_size_, in_channels_, shape_to_string(input));
  }
}

Shape Conv1D::output_shape(const Shape& input) const {
  check_input(input);
  const int64_t length = input.back();
  const Conv1DParams p = params_for_length(length);
  const int64_t span = length + p.pad_left + p.pad_right - p.dilation * (kernel_size_ - 1) - 1;
  STRAND_CHECK(span >= 0, "Conv1D(k={}): input length {} is shorter than the kernel", kernel_size_,
               length);
  return {out_channels_, span / p.stride + 1};
}

Var Conv1D::forward(const Var& x) {
  return conv1d(x, weight_, bias_, params_for_length(x.shape().back()));
}

LayerType conv1d_layer_type() {
  using Kind = LayerOption::Kind;
  LayerType type;
  type.name = "Conv1D";
  type.help = "1D convolution; on base codes (the model's input) a one-hot gather";
  type.options = {
      {.name = "filters",
       .help = "output channels",
       .required = true,
       .min = 1,
       .max = kMaxLayerWidth},
      {.name = "kernel_size",
       .help = "kernel width",
       .required = true,
       .min = 1,
       .max = kMaxLayerSpan},
      {.name = "padding",
       .kind = Kind::kChoice,
       .help = "valid: none; same: keep the length",
       .default_value = std::string("valid"),
       .choices = {"valid", "same"}},
      {.name = "stride",
       .help = "step between output positions",
       .default_value = int64_t{1},
       .min = 1,
       .max = kMaxLayerSpan},
      {.name = "dilation",
       .help = "spacing between kernel taps",
       .default_value = int64_t{1},
       .min = 1,
       .max = kMaxLayerSpan},
      {.name = "use_bias",
       .kind = Kind::kBool,
       .help = "add a learned bias",
       .default_value = true},
  };
  type.build = [](const LayerOptions& o, const Shape& input) -> std::shared_ptr<Layer> {
    // Base codes arrive as (L); anything else is (C, L).
    const int64_t in_channels = input.size() == 1 ? 4 : input.at(0);
    Conv1DOptions options;
    options.stride = int_option(o, "stride");
    options.dilation = int_option(o, "dilation");
    options.padding = choice_option(o, "padding") == "same" ? Padding::kSame : Padding::kValid;
    options.bias = bool_option(o, "use_bias");
    return std::make_shared<Conv1D>(in_channels, int_option(o, "filters"),
                                    int_option(o, "kernel_size"), options);
  };
  return type;
}

}  // namespace strand
