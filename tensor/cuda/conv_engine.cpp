// The dense Conv1D engine of the CUDA backend, its cuDNN half: the plans per shape, their
// algorithms (chosen, adopted, exported) and the timed search's workspace (conv_engine.h). The
// choice between cuDNN and strand's own kernels is conv_selection.cpp.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "tensor/cuda/conv_engine.h"

#include "kernels/cuda/check.h"
#include "kernels/cuda/stream.h"
#include "tensor/cuda/device.h"
#include "tensor/determinism.h"
#include "tensor/precision.h"
#include "tensor/tensor.h"

#ifdef STRAND_WITH_CUDNN
#include <cudnn.h>
#endif

namespace strand::cuda {
namespace {

using kernels::Conv1DGeometry;

// STRAND_CUDNN_FIND=1: each pass's algorithm from cuDNN timing its candidates on the shape
// (cudnnFind*AlgorithmEx, what PyTorch's cudnn.benchmark does) instead of its heuristics, at the
// cost of that timing on a shape's first call. Off by default: a short run may not win the
// timing back. Not in deterministic mode, whose algorithms must not depend on a measurement.
std::atomic<bool>& find_setting() {
  static std::atomic<bool> find = [] {
    const char* value = std::getenv("STRAND_CUDNN_FIND");
    return value != nullptr && std::string(value) == "1";
  }();
  return find;
}
bool find_algorithms() { return find_setting().load(); }

// The most workspace cuDNN's timed search may use (find_workspace_limit).
constexpr size_t kFindWorkspaceLimit = size_t{256} << 20;

// A plan's shape and mode, without the device: what plans are kept and exported under. Plans
// are float32 (cudnn_can_run).
[[maybe_unused]] std::string plan_key(const Conv1DGeometry& g, bool deterministic, bool tf32,
                                      bool find) {
  return fmt::format("float32{}{}{} B{} C{} L{} O{} K{} s{} d{} p{} Lout{}", tf32 ? " tf32" : "",
                     deterministic ? " det" : "", find ? " find" : "", g.batch, g.in_channels,
                     g.length, g.out_channels, g.kernel_size, g.stride, g.dilation, g.pad_left,
                     g.out_length);
}

// The algorithms adopted from a plan file, by "<cuDNN pass> <plan key>": plans built later
// take them (when cuDNN supports them for the shape) instead of choosing.
struct AdoptedAlgorithms {
  std::mutex mutex;
  std::map<std::string, int64_t> by_key;
};
AdoptedAlgorithms& adopted() {
  static AdoptedAlgorithms algorithms;
  return algorithms;
}
[[maybe_unused]] std::optional<int64_t> adopted_algorithm(const std::string& key) {
  AdoptedAlgorithms& a = adopted();
  std::lock_guard lock(a.mutex);
  const auto it = a.by_key.find(key);
  if (it == a.by_key.end()) return std::nullopt;
  return it->second;
}

// ---- cuDNN ----------------------------------------------------------------------------------

#ifdef STRAND_WITH_CUDNN
cudnnHandle_t cudnn_handle(Device device) {
  static std::mutex mutex;
  static cudnnHandle_t handles[16] = {};
  const cudaStream_t s = stream(device);
  std::lock_guard lock(mutex);
  cudnnHandle_t& h = handles[device.index];
  if (h == nullptr) STRAND_CUDNN_CHECK(cudnnCreate(&h));
  STRAND_CUDNN_CHECK(cudnnSetStream(h, s));
  return h;
}

// Conv1D as a 2-D convolution of height 1: x (B, C, 1, L), w (O, C, 1, K), y (B, O, 1, L_out).
// One plan per shape (and device and determinism setting), built on first use and kept: its
// descriptors, the algorithm of each pass and a workspace sized for them. Rebuilding these on
// every call cost a heuristics query and a workspace allocation per op; a plan also keeps a
// captured CUDA graph's workspace pointer valid across replays.
class CudnnConv {
 public:
  CudnnConv(const Conv1DGeometry& g, Device device, bool deterministic, bool tf32, bool find)
      : device_(device),
        deterministic_(deterministic),
        tf32_(tf32),
        find_(find),
        key_(plan_key(g, deterministic, tf32, find)) {
    STRAND_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x_));
    STRAND_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y_));
    STRAND_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w_));
    STRAND_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv_));
    const auto i = [](int64_t v) { return static_cast<int>(v); };
    STRAND_CUDNN_CHECK(cudnnSetTensor4dDescriptor(x_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                  i(g.batch), i(g.in_channels), 1, i(g.length)));
    STRAND_CUDNN_CHECK(cudnnSetTensor4dDescriptor(y_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                  i(g.batch), i(g.out_channels), 1,
                                                  i(g.out_length)));
    STRAND_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                                  i(g.out_channels), i(g.in_channels), 1,
                                                  i(g.kernel_size)));
    STRAND_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv_, 0, i(g.pad_left), 1, i(g.stride), 1,
                                                       i(g.dilation), CUDNN_CROSS_CORRELATION,
                                                       CUDNN_DATA_FLOAT));
    // Plain FP32 arithmetic by default, so results stay comparable with the CPU oracles;
    // TF32 tensor cores only when opted in (tensor/precision.h): CUDNN_DEFAULT_MATH permits
    // them for float32 data on A100 and later (as PyTorch's allow_tf32 sets it), and never
    // converts to half precision.
    STRAND_CUDNN_CHECK(
        cudnnSetConvolutionMathType(conv_, tf32_ ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  }
  ~CudnnConv() {
    cudnnDestroyConvolutionDescriptor(conv_);
    cudnnDestroyFilterDescriptor(w_);
    cudnnDestroyTensorDescriptor(y_);
    cudnnDestroyTensorDescriptor(x_);
  }
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  void forward(const void* x, const void* w, void* y) {
    cudnnHandle_t h = cudnn_handle(device_);
    if (!forward_) {
      constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
      using Algo = cudnnConvolutionFwdAlgo_t;
      forward_ = choose<cudnnConvolutionFwdAlgoPerf_t, kCount>(
          "forward",
          [&](auto* perf, int* found, void* scratch, size_t bytes) {
            STRAND_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
                h, x_, x, w_, w, conv_, y_, y, kCount, found, perf, scratch, bytes));
          },
          [&](auto* perf, int* found) {
            STRAND_CUDNN_CHECK(
                cudnnGetConvolutionForwardAlgorithm_v7(h, x_, w_, conv_, y_, kCount, found, perf));
          },
          [&](int64_t algo, size_t* bytes) {
            return cudnnGetConvolutionForwardWorkspaceSize(h, x_, w_, conv_, y_,
                                                           static_cast<Algo>(algo), bytes);
          });
    }
    const float one = 1.0f, zero = 0.0f;
    STRAND_CUDNN_CHECK(cudnnConvolutionForward(h, &one, x_, x, w_, w, conv_, forward_->algo,
                                               workspace(forward_->bytes), forward_->bytes, &zero,
                                               y_, y));
  }
  void backward_input(const void* dy, const void* w, void* dx) {
    cudnnHandle_t h = cudnn_handle(device_);
    if (!backward_data_) {
      constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
      using Algo = cudnnConvolutionBwdDataAlgo_t;
      backward_data_ = choose<cudnnConvolutionBwdDataAlgoPerf_t, kCount>(
          "backward-data",
          [&](auto* perf, int* found, void* scratch, size_t bytes) {
            STRAND_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
                h, w_, w, y_, dy, conv_, x_, dx, kCount, found, perf, scratch, bytes));
          },
          [&](auto* perf, int* found) {
            STRAND_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, w_, y_, conv_, x_,
                                                                           kCount, found, perf));
          },
          [&](int64_t algo, size_t* bytes) {
            return cudnnGetConvolutionBackwardDataWorkspaceSize(h, w_, y_, conv_, x_,
                                                                static_cast<Algo>(algo), bytes);
          });
    }
    const float one = 1.0f, zero = 0.0f;
    STRAND_CUDNN_CHECK(cudnnConvolutionBackwardData(
        h, &one, w_, w, y_, dy, conv_, backward_data_->algo, workspace(backward_data_->bytes),
        backward_data_->bytes, &zero, x_, dx));
  }
  void backward_weight(const void* dy, const void* x, void* dw) {
    cudnnHandle_t h = cudnn_handle(device_);
    if (!backward_filter_) {
      constexpr int kCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
      using Algo = cudnnConvolutionBwdFilterAlgo_t;
      backward_filter_ = choose<cudnnConvolutionBwdFilterAlgoPerf_t, kCount>(
          "backward-filter",
          [&](auto* perf, int* found, void* scratch, size_t bytes) {
            STRAND_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                h, x_, x, y_, dy, conv_, w_, dw, kCount, found, perf, scratch, bytes));
          },
          [&](auto* perf, int* found) {
            STRAND_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, x_, y_, conv_, w_,
                                                                             kCount, found, perf));
          },
          [&](int64_t algo, size_t* bytes) {
            return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, x_, y_, conv_, w_,
                                                                  static_cast<Algo>(algo), bytes);
          });
    }
    const float one = 1.0f, zero = 0.0f;
    STRAND_CUDNN_CHECK(cudnnConvolutionBackwardFilter(
        h, &one, x_, x, y_, dy, conv_, backward_filter_->algo, workspace(backward_filter_->bytes),
        backward_filter_->bytes, &zero, w_, dw));
  }

  // Whether the algorithm of `pass` (a one-hot pass: its dense counterpart) is chosen.
  bool has(ConvPass pass) const {
    switch (pass) {
      case ConvPass::kForward:
      case ConvPass::kOneHotForward:
        return forward_.has_value();
      case ConvPass::kBackwardInput:
        return backward_data_.has_value();
      case ConvPass::kBackwardWeight:
      case ConvPass::kOneHotBackwardWeight:
        return backward_filter_.has_value();
    }
    return false;
  }

  // The algorithms chosen so far, keyed as adopted ones are ("<cuDNN pass> <plan key>").
  void append_algorithms(std::vector<ConvAlgorithmRecord>& out) const {
    if (forward_) out.push_back({"forward " + key_, static_cast<int64_t>(forward_->algo)});
    if (backward_data_) {
      out.push_back({"backward-data " + key_, static_cast<int64_t>(backward_data_->algo)});
    }
    if (backward_filter_) {
      out.push_back({"backward-filter " + key_, static_cast<int64_t>(backward_filter_->algo)});
    }
  }

 private:
  template <typename Algo>
  struct Choice {
    Algo algo;
    size_t bytes;
  };
  static constexpr size_t kMaxWorkspace = size_t{512} << 20;
  // The heuristics' ranking, best first. An entry may carry a failure status (the algorithm
  // does not support the shape), may need a math type we did not allow (tensor ops without
  // TF32 mode; conversion to half precision never), or may be non-deterministic: the first
  // entry that passes every check is used.
  template <typename Perf>
  std::optional<Choice<decltype(Perf{}.algo)>> pick(const Perf* perf, int found,
                                                    const char* pass) const {
    for (int k = 0; k < found; ++k) {
      if (perf[k].status != CUDNN_STATUS_SUCCESS) continue;
      const bool plain =
          perf[k].mathType == CUDNN_FMA_MATH || perf[k].mathType == CUDNN_DEFAULT_MATH;
      if (!plain && !(tf32_ && perf[k].mathType == CUDNN_TENSOR_OP_MATH)) continue;
      if (deterministic_ && perf[k].determinism != CUDNN_DETERMINISTIC) continue;
      if (perf[k].memory > kMaxWorkspace) continue;
      return Choice<decltype(Perf{}.algo)>{perf[k].algo, perf[k].memory};
    }
    throw Error(fmt::format("cuDNN offers no usable {} algorithm for this shape ({} candidates{})",
                            pass, found, deterministic_ ? ", deterministic ones only" : ""));
  }
  // A pass's algorithm: the one adopted from a plan file for this plan, when cuDNN supports it
  // here (supported(algo, &bytes) returns cuDNN's status for its workspace query); else pick()
  // over cuDNN's ranking, from its timed search of the candidates (search(perf, &found,
  // workspace, bytes); each checks its cuDNN call) where find_ is set and the mode is not
  // deterministic, else from its heuristics (heuristics(perf, &found)).
  template <typename Perf, int kCount, typename Search, typename Heuristics, typename Supported>
  std::optional<Choice<decltype(Perf{}.algo)>> choose(const char* pass, Search&& search,
                                                      Heuristics&& heuristics,
                                                      Supported&& supported) const {
    using Algo = decltype(Perf{}.algo);
    if (const std::optional<int64_t> algo = adopted_algorithm(fmt::format("{} {}", pass, key_))) {
      size_t bytes = 0;
      if (supported(*algo, &bytes) == CUDNN_STATUS_SUCCESS && bytes <= kMaxWorkspace) {
        return Choice<Algo>{static_cast<Algo>(*algo), bytes};
      }
    }
    int found = 0;
    Perf perf[kCount];
    if (find_ && !deterministic_) {
      STRAND_CHECK(!capturing(device_),
                   "cuDNN cannot time its algorithms during a CUDA graph capture: run the step "
                   "once before capturing it");
      // The candidates may use at most kFindWorkspace, or half the free memory when that is
      // less (a GPU already holding the model, or shared with another process); a candidate
      // that needs more is reported as failed, and pick() skips it.
      size_t free_bytes = 0, total_bytes = 0;
      STRAND_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      const size_t limit = find_workspace_limit(free_bytes);
      // Freed after the search, stream-ordered.
      const Tensor scratch =
          limit > 0 ? Tensor::empty({static_cast<int64_t>(limit)}, DType::kUInt8, device_)
                    : Tensor();
      search(perf, &found, limit > 0 ? scratch.raw_data() : nullptr, limit);
    } else {
      heuristics(perf, &found);
    }
    return pick(perf, found, pass);
  }
  void* workspace(size_t bytes) {
    if (bytes == 0) return nullptr;
    if (workspace_bytes_ < bytes) {
      STRAND_CHECK(!capturing(device_),
                   "cuDNN workspace must grow during CUDA graph capture: run the step once "
                   "before capturing it");
      workspace_ = Tensor::empty({static_cast<int64_t>(bytes)}, DType::kUInt8, device_);
      workspace_bytes_ = bytes;
    }
    return workspace_.raw_data();
  }

  Device device_;
  bool deterministic_;
  bool tf32_;
  bool find_;
  std::string key_;  // plan_key()
  cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  std::optional<Choice<cudnnConvolutionFwdAlgo_t>> forward_;
  std::optional<Choice<cudnnConvolutionBwdDataAlgo_t>> backward_data_;
  std::optional<Choice<cudnnConvolutionBwdFilterAlgo_t>> backward_filter_;
  Tensor workspace_;
  size_t workspace_bytes_ = 0;
};

// Every plan, by device and plan key; plans live until the process ends (one per distinct
// layer shape and batch size).
struct Plans {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<CudnnConv>> by_key;
};
Plans& plans() {
  static Plans all;
  return all;
}

std::string device_plan_key(const Conv1DGeometry& g, Device device) {
  return fmt::format("{} {}", device.index,
                     plan_key(g, deterministic(), float32_precision() == Float32Precision::kTf32,
                              find_algorithms()));
}

// The plan of a shape, built on first use.
CudnnConv& cudnn_plan(const Conv1DGeometry& g, Device device) {
  const bool exact = deterministic();
  const bool tf32 = float32_precision() == Float32Precision::kTf32;
  const bool find = find_algorithms();
  Plans& all = plans();
  std::lock_guard lock(all.mutex);
  std::unique_ptr<CudnnConv>& plan = all.by_key[device_plan_key(g, device)];
  if (plan == nullptr) plan = std::make_unique<CudnnConv>(g, device, exact, tf32, find);
  return *plan;
}
#endif

}  // namespace

bool cudnn_can_run(const Conv1DGeometry& g, DType dtype, bool symmetric_padding) {
#ifdef STRAND_WITH_CUDNN
  constexpr int64_t kIntMax = 1 << 30;
  return dtype == DType::kFloat32 && symmetric_padding && g.out_length > 0 && g.batch < kIntMax &&
         g.length < kIntMax && g.in_channels < kIntMax && g.out_channels < kIntMax;
#else
  (void)g, (void)dtype, (void)symmetric_padding;
  return false;
#endif
}

bool cudnn_planned(ConvPass pass, const Conv1DGeometry& g, Device device) {
#ifdef STRAND_WITH_CUDNN
  Plans& all = plans();
  std::lock_guard lock(all.mutex);
  const auto it = all.by_key.find(device_plan_key(g, device));
  return it != all.by_key.end() && it->second->has(pass);
#else
  (void)pass, (void)g, (void)device;
  return false;
#endif
}

size_t find_workspace_limit(size_t free_bytes) {
  return std::min(kFindWorkspaceLimit, free_bytes / 2);
}

int64_t cudnn_version() {
#ifdef STRAND_WITH_CUDNN
  return static_cast<int64_t>(cudnnGetVersion());
#else
  return 0;
#endif
}

std::vector<ConvAlgorithmRecord> export_cudnn_algorithms() {
  std::map<std::string, int64_t> merged;
  {
    AdoptedAlgorithms& a = adopted();
    std::lock_guard lock(a.mutex);
    merged = a.by_key;
  }
#ifdef STRAND_WITH_CUDNN
  std::vector<ConvAlgorithmRecord> made;
  {
    Plans& all = plans();
    std::lock_guard lock(all.mutex);
    for (const auto& [key, plan] : all.by_key) plan->append_algorithms(made);
  }
  for (const ConvAlgorithmRecord& record : made) merged[record.key] = record.algorithm;
#endif
  std::vector<ConvAlgorithmRecord> out;
  for (const auto& [key, algorithm] : merged) out.push_back({key, algorithm});
  return out;
}

void adopt_cudnn_algorithms(const std::vector<ConvAlgorithmRecord>& algorithms) {
  AdoptedAlgorithms& a = adopted();
  std::lock_guard lock(a.mutex);
  for (const ConvAlgorithmRecord& record : algorithms) a.by_key[record.key] = record.algorithm;
}

void clear_adopted_cudnn_algorithms() {
  AdoptedAlgorithms& a = adopted();
  std::lock_guard lock(a.mutex);
  a.by_key.clear();
}

void cudnn_conv_forward(const Conv1DGeometry& g, Device device, const void* x, const void* w,
                        void* y) {
#ifdef STRAND_WITH_CUDNN
  cudnn_plan(g, device).forward(x, w, y);
#else
  (void)g, (void)device, (void)x, (void)w, (void)y;
  throw Error("conv1d (CUDA): this build of strand has no cuDNN");
#endif
}

void cudnn_conv_backward_input(const Conv1DGeometry& g, Device device, const void* grad_y,
                               const void* w, void* grad_x) {
#ifdef STRAND_WITH_CUDNN
  cudnn_plan(g, device).backward_input(grad_y, w, grad_x);
#else
  (void)g, (void)device, (void)grad_y, (void)w, (void)grad_x;
  throw Error("conv1d_backward_input (CUDA): this build of strand has no cuDNN");
#endif
}

void cudnn_conv_backward_weight(const Conv1DGeometry& g, Device device, const void* grad_y,
                                const void* x, void* grad_w) {
#ifdef STRAND_WITH_CUDNN
  cudnn_plan(g, device).backward_weight(grad_y, x, grad_w);
#else
  (void)g, (void)device, (void)grad_y, (void)x, (void)grad_w;
  throw Error("conv1d_backward_weight (CUDA): this build of strand has no cuDNN");
#endif
}

void set_cudnn_find(bool on) {
  find_setting().store(on);
  set_conv_algorithm(conv_algorithm());  // the timed choices were made with the other algorithms
}
bool cudnn_find() { return find_algorithms(); }

bool cudnn_available() {
#ifdef STRAND_WITH_CUDNN
  return true;
#else
  return false;
#endif
}

}  // namespace strand::cuda
