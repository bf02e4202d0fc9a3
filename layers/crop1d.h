// Crop1D: keeps the centre `length` positions of (C, L) (BPNet crops its profile output to the
// target length).
#pragma once

#include <cstdint>

#include "layers/layer.h"

namespace strand {

/// (B, C, L) -> (B, C, length), centred; an odd surplus leaves the extra position on the right.
class Crop1D : public Layer {
 public:
  explicit Crop1D(int64_t length);
  Var forward(const Var& x) override;
  Shape output_shape(const Shape& input) const override;
  std::string type_name() const override { return "Crop1D"; }

 private:
  int64_t length_;
};

}  // namespace strand
