// strand.Model as the bindings share it: a trained model with the lock its forward passes take,
// and the reading of the sequences Python passes (a list of strings, base codes or one-hot
// arrays), used by Model.predict (model_binding.cpp), strand.explain (explain_binding.cpp) and
// strand.variants (variants_binding.cpp).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/model_builder.h"
#include "app/trained_model.h"
#include "arrays.h"
#include "core/device.h"
#include "tensor/tensor.h"

namespace strand::python {

/// A model and what Python asks of it. Forward passes on one model run one at a time (layers
/// keep per-call state such as cached workspaces): hold mutex() around them.
class PythonModel {
 public:
  PythonModel(app::TrainedModel trained, Device device)
      : trained_(std::move(trained)), device_(device) {
    trained_.model->eval();
    if (device_.is_cuda()) trained_.model->to(device_);
    output_names_ = trained_.model->output_names();
    output_shapes_ = trained_.model->output_shapes(app::input_shapes(trained_.dimensions));
  }

  const app::TrainedModel& trained() const { return trained_; }
  Model& model() { return *trained_.model; }
  Device device() const { return device_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  const std::vector<Shape>& output_shapes() const { return output_shapes_; }
  std::mutex& mutex() { return mutex_; }

 private:
  app::TrainedModel trained_;
  Device device_;
  std::vector<std::string> output_names_;
  std::vector<Shape> output_shapes_;
  std::mutex mutex_;
};

/// What `x` may be, for messages.
extern const char* const kInputHelp;

/// One sequence input as the forward pass takes it: base codes (N, L) uint8, or one-hot
/// (N, 4, L) float32; `encoded` and `transposed` keep encoded strings or a transposed copy
/// alive.
struct SequenceBatchSource {
  const uint8_t* codes = nullptr;
  const float* one_hot = nullptr;
  int64_t count = 0;
  int64_t length = 0;
  std::vector<uint8_t> encoded;
  std::vector<float> transposed;
};

/// Reads `x` (kInputHelp; one-hot in `layout` "NCL" or "NLC") for a model of input length
/// `length`; `array` keeps a numpy array's view alive. Throws ConfigError naming `x` (or
/// `layout`) for anything else, a wrong length or a base code above 4.
SequenceBatchSource read_sequences(const nanobind::handle& x, int64_t length,
                                   const std::string& layout, std::optional<AnyArray>& array);

/// The base codes (N, L) uint8 of `source`: a view of codes, or codes made from one-hot
/// columns (an all-zero column is N). Throws ConfigError naming `what` for a one-hot column
/// that is neither one letter nor all zero (explanations take sequences, not soft inputs).
Tensor sequence_codes(SequenceBatchSource& source, const std::string& what = "x");

/// An error of the command-line layer re-worded for Python: a message starting with one of
/// `flags`' first members ("--task") starts with its second ("task") instead; other messages
/// are kept.
app::ConfigError python_argument_error(
    const app::ConfigError& error, const std::vector<std::pair<std::string, std::string>>& flags);

}  // namespace strand::python
