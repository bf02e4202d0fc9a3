// strand.Tensor: a strand tensor that numpy and torch see through DLPack without copies, and
// that views their memory the same way (strand.Tensor.from_dlpack / strand.from_numpy).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <vector>

#include "app/config_error.h"
#include "arrays.h"
#include "bindings.h"

namespace nb = nanobind;

namespace strand::python {
namespace {

// The tensor as a DLPack-capable object (nanobind's nb_ndarray) viewing its memory; it holds a
// copy of the Tensor (a shared reference to its storage) for as long as any view lives.
nb::object dlpack_view(const Tensor& tensor) {
  auto* keep = new Tensor(tensor);
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  std::vector<size_t> shape(tensor.shape().begin(), tensor.shape().end());
  std::vector<int64_t> strides(tensor.strides().begin(), tensor.strides().end());
  const Device device = tensor.device();
  const int device_type = device.is_cuda() ? nb::device::cuda::value : nb::device::cpu::value;
  nb::ndarray<nb::array_api> array(tensor.raw_data(), shape.size(), shape.data(), owner,
                                   strides.data(), dlpack_dtype(tensor.dtype()), device_type,
                                   device.is_cuda() ? device.index : 0);
  return nb::cast(array, nb::rv_policy::reference);
}

Tensor from_object(const nb::handle& object) {
  AnyArray array;
  try {
    array = nb::cast<AnyArray>(object);
  } catch (const nb::cast_error&) {
    throw app::ConfigError(fmt::format(
        "Tensor: expected an array with DLPack or the buffer protocol (numpy, torch), got {}",
        nb::inst_name(object).c_str()));
  }
  return tensor_from_array(array, object);
}

}  // namespace

void bind_tensor(nb::module_& m) {
  nb::class_<Tensor>(m, "Tensor",
                     "A strand tensor. numpy and torch view it without a copy "
                     "(numpy.from_dlpack(t), torch.from_dlpack(t), t.numpy()), and "
                     "strand.Tensor.from_dlpack(x) views their arrays the same way.")
      .def_static("from_dlpack", &from_object, nb::arg("array"),
                  "A Tensor viewing `array` (numpy, torch or any DLPack producer, on the CPU or "
                  "a CUDA device) without a copy; it keeps `array` alive.")
      .def_prop_ro(
          "shape",
          [](const Tensor& t) { return std::vector<int64_t>(t.shape().begin(), t.shape().end()); },
          "The extents, outermost first.")
      .def_prop_ro(
          "strides",
          [](const Tensor& t) {
            return std::vector<int64_t>(t.strides().begin(), t.strides().end());
          },
          "The strides, in elements.")
      .def_prop_ro(
          "dtype", [](const Tensor& t) { return std::string(dtype_name(t.dtype())); },
          "The element type: \"float32\", \"float64\", \"uint8\", \"int32\" or \"int64\".")
      .def_prop_ro(
          "device", [](const Tensor& t) { return t.device().to_string(); },
          "Where the memory is: \"cpu\" or \"cuda:N\".")
      .def_prop_ro(
          "data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw_data()); },
          "The address of the first element (to check that views share memory).")
      .def(
          "numpy",
          [](const Tensor& t) {
            if (!t.device().is_cpu()) {
              throw app::ConfigError(fmt::format(
                  "Tensor.numpy(): the tensor is on {}; numpy sees host memory only (use "
                  "torch.from_dlpack(t), or t.to(\"cpu\"))",
                  t.device().to_string()));
            }
            return nb::module_::import_("numpy").attr("from_dlpack")(dlpack_view(t));
          },
          "A numpy array viewing the tensor's memory (no copy; CPU tensors).")
      .def(
          "to",
          [](const Tensor& t, const std::string& device) {
            const Device where = Device::parse(device);
            nb::gil_scoped_release no_gil;
            return t.to(where);
          },
          nb::arg("device"), "A copy on `device` (\"cpu\", \"cuda:N\"); itself when already there.")
      .def(
          "__dlpack__",
          [](const Tensor& t, nb::kwargs kwargs) {
            return dlpack_view(t).attr("__dlpack__")(**kwargs);
          },
          "The DLPack capsule of the tensor's memory (the array API protocol).")
      .def(
          "__dlpack_device__",
          [](const Tensor& t) { return dlpack_view(t).attr("__dlpack_device__")(); },
          "The DLPack (device type, device id) pair.")
      .def("__repr__",
           [](const Tensor& t) { return fmt::format("strand.Tensor({})", t.describe()); });

  m.def("from_numpy", &from_object, nb::arg("array"),
        "A strand.Tensor viewing a numpy array (or any DLPack producer) without a copy.");
  m.def("from_torch", &from_object, nb::arg("tensor"),
        "A strand.Tensor viewing a torch tensor's memory without a copy (CPU, or CUDA in a CUDA "
        "build).");
}

}  // namespace strand::python
