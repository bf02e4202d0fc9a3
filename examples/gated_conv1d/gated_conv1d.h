// GatedConv1D: a header-only layer made of strand's existing ops. No .cpp, no kernel, no
// registration and no rebuild of strand: its gradient comes from the composed ops.
//
//   h = conv1d(x) with 2 * C_out channels;  (a, g) = the two halves of h;  y = a * sigmoid(g)
#pragma once

#include <strand/layers.h>
#include <cstdint>
#include <memory>
#include <string>

namespace my_lab {

/// The gate of a gated linear unit: h (B, 2C, L) -> a * sigmoid(g), (B, C, L), where a and g
/// are the first and second halves of the channels.
inline strand::Var gate(const strand::Var& h) {
  auto [a, g] = strand::chunk<2>(h, /*dim=*/1);
  return a * strand::sigmoid(g);
}

/// x: (B, C_in, L) float, or (B, L) uint8 base codes when C_in = 4 -> (B, C_out, L_out).
class GatedConv1D : public strand::Layer {
 public:
  GatedConv1D(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
              strand::Conv1DOptions options = {},
              strand::Generator& generator = strand::default_generator())
      : conv_(register_module("conv", strand::Conv1D(in_channels, 2 * out_channels, kernel_size,
                                                     options, generator))) {}

  strand::Var forward(const strand::Var& x) override { return gate(conv_->forward(x)); }
  strand::Shape output_shape(const strand::Shape& input) const override {
    strand::Shape shape = conv_->output_shape(input);
    shape[0] /= 2;  // (2 C_out, L_out) -> (C_out, L_out)
    return shape;
  }
  std::string type_name() const override { return "GatedConv1D"; }

  /// The inner convolution (weight (2 C_out, C_in, K), bias (2 C_out)).
  const strand::Conv1D& conv() const { return *conv_; }

 private:
  std::shared_ptr<strand::Conv1D> conv_;
};

}  // namespace my_lab
