// The dense Conv1D engine of the CUDA backend: cuDNN plans per shape, and the timed choice
// between them and strand's own kernels (conv_engine.h).
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
const char* pass_name(ConvPass pass) {
  switch (pass) {
    case ConvPass::kForward:
      return "forward";
    case ConvPass::kBackwardInput:
      return "backward_input";
    case ConvPass::kBackwardWeight:
      return "backward_weight";
    case ConvPass::kOneHotForward:
      return "onehot_forward";
    case ConvPass::kOneHotBackwardWeight:
      return "onehot_backward_weight";
  }
  return "?";
}

ConvAlgorithm initial_policy() {
  const char* env = std::getenv("STRAND_CUDA_CONV");
  if (env == nullptr) return ConvAlgorithm::kAuto;
  const std::string value = env;
  if (value == "own") return ConvAlgorithm::kOwn;
  if (value == "cudnn") return ConvAlgorithm::kCudnn;
  STRAND_CHECK(value == "auto" || value.empty(),
               "STRAND_CUDA_CONV must be auto, own or cudnn, got '{}'", value);
  return ConvAlgorithm::kAuto;
}

struct SelectionState {
  std::mutex mutex;
  ConvAlgorithm policy = initial_policy();
  std::map<std::string, ConvChoice> choices;
  // By shape_key() of the geometry with batch 0: the largest measured own_ms / cudnn_ms.
  std::map<std::string, double> own_slowdown;
};
SelectionState& selection() {
  static SelectionState state;
  return state;
}

// The choice of a shape also depends on the math mode (TF32 changes cuDNN's speed).
std::string shape_key(ConvPass pass, const Conv1DGeometry& g, DType dtype) {
  const bool tf32 = float32_precision() == Float32Precision::kTf32;
  return fmt::format("{} {}{} B{} C{} L{} O{} K{} s{} d{} p{} Lout{}", pass_name(pass),
                     dtype_name(dtype), tf32 ? " tf32" : "", g.batch, g.in_channels, g.length,
                     g.out_channels, g.kernel_size, g.stride, g.dilation, g.pad_left, g.out_length);
}

// The key of the same pass and geometry at any batch size.
std::string any_batch_key(ConvPass pass, Conv1DGeometry g, DType dtype) {
  g.batch = 0;
  return shape_key(pass, g, dtype);
}

// strand's kernel lost this far to cuDNN at another batch size: an epoch's last, smaller batch
// (or a validation pass's) then takes cuDNN untimed. (Basset's partial batches timed conv2's
// 20-ms backward-weight kernel again, for a choice that could not change.)
constexpr double kClearLoss = 4.0;

// STRAND_CUDNN_FIND=1: each pass's algorithm from cuDNN timing its candidates on the shape
// (cudnnFind*AlgorithmEx, what PyTorch's cudnn.benchmark does) instead of its heuristics, at the
// cost of that timing on a shape's first call. Off by default: strand's timed choice already
// measures once per shape, and a short run may not win the timing back. Not in deterministic
// mode, whose algorithms must not depend on a measurement.
std::atomic<bool>& find_setting() {
  static std::atomic<bool> find = [] {
    const char* value = std::getenv("STRAND_CUDNN_FIND");
    return value != nullptr && std::string(value) == "1";
  }();
  return find;
}
bool find_algorithms() { return find_setting().load(); }

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

constexpr size_t kFindWorkspace = size_t{256} << 20;  // what the timed candidates may use

// Conv1D as a 2-D convolution of height 1: x (B, C, 1, L), w (O, C, 1, K), y (B, O, 1, L_out).
// One plan per shape (and device and determinism setting), built on first use and kept: its
// descriptors, the algorithm of each pass and a workspace sized for them. Rebuilding these on
// every call cost a heuristics query and a workspace allocation per op; a plan also keeps a
// captured CUDA graph's workspace pointer valid across replays.
class CudnnConv {
 public:
  CudnnConv(const Conv1DGeometry& g, Device device, bool deterministic, bool tf32, bool find)
      : device_(device), deterministic_(deterministic), tf32_(tf32), find_(find) {
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
      forward_ = choose<cudnnConvolutionFwdAlgoPerf_t, kCount>(
          "forward",
          [&](auto* perf, int* found, void* scratch) {
            STRAND_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
                h, x_, x, w_, w, conv_, y_, y, kCount, found, perf, scratch, kFindWorkspace));
          },
          [&](auto* perf, int* found) {
            STRAND_CUDNN_CHECK(
                cudnnGetConvolutionForwardAlgorithm_v7(h, x_, w_, conv_, y_, kCount, found, perf));
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
      backward_data_ = choose<cudnnConvolutionBwdDataAlgoPerf_t, kCount>(
          "backward-data",
          [&](auto* perf, int* found, void* scratch) {
            STRAND_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
                h, w_, w, y_, dy, conv_, x_, dx, kCount, found, perf, scratch, kFindWorkspace));
          },
          [&](auto* perf, int* found) {
            STRAND_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, w_, y_, conv_, x_,
                                                                           kCount, found, perf));
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
      backward_filter_ = choose<cudnnConvolutionBwdFilterAlgoPerf_t, kCount>(
          "backward-filter",
          [&](auto* perf, int* found, void* scratch) {
            STRAND_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                h, x_, x, y_, dy, conv_, w_, dw, kCount, found, perf, scratch, kFindWorkspace));
          },
          [&](auto* perf, int* found) {
            STRAND_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, x_, y_, conv_, w_,
                                                                             kCount, found, perf));
          });
    }
    const float one = 1.0f, zero = 0.0f;
    STRAND_CUDNN_CHECK(cudnnConvolutionBackwardFilter(
        h, &one, x_, x, y_, dy, conv_, backward_filter_->algo, workspace(backward_filter_->bytes),
        backward_filter_->bytes, &zero, w_, dw));
  }

 private:
  template <typename Algo>
  struct Choice {
    Algo algo;
    size_t bytes;
  };
  // The heuristics' ranking, best first. An entry may carry a failure status (the algorithm
  // does not support the shape), may need a math type we did not allow (tensor ops without
  // TF32 mode; conversion to half precision never), or may be non-deterministic: the first
  // entry that passes every check is used.
  template <typename Perf>
  std::optional<Choice<decltype(Perf{}.algo)>> pick(const Perf* perf, int found,
                                                    const char* pass) const {
    constexpr size_t kMaxWorkspace = size_t{512} << 20;
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
  // A pass's algorithm: pick() over cuDNN's ranking, from its timed search of the candidates
  // (search(perf, &found, workspace), kFindWorkspace bytes; each checks its cuDNN call) where find_
  // is set and the mode is not deterministic, else from its heuristics (heuristics(perf, &found)).
  template <typename Perf, int kCount, typename Search, typename Heuristics>
  std::optional<Choice<decltype(Perf{}.algo)>> choose(const char* pass, Search&& search,
                                                      Heuristics&& heuristics) const {
    int found = 0;
    Perf perf[kCount];
    if (find_ && !deterministic_) {
      STRAND_CHECK(!capturing(device_),
                   "cuDNN cannot time its algorithms during a CUDA graph capture: run the step "
                   "once before capturing it");
      // Freed after the search, stream-ordered.
      const Tensor scratch =
          Tensor::empty({static_cast<int64_t>(kFindWorkspace)}, DType::kUInt8, device_);
      search(perf, &found, scratch.raw_data());
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
  cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  std::optional<Choice<cudnnConvolutionFwdAlgo_t>> forward_;
  std::optional<Choice<cudnnConvolutionBwdDataAlgo_t>> backward_data_;
  std::optional<Choice<cudnnConvolutionBwdFilterAlgo_t>> backward_filter_;
  Tensor workspace_;
  size_t workspace_bytes_ = 0;
};

// The plan of a shape; plans live until the process ends (one per distinct layer shape).
CudnnConv& cudnn_plan(const Conv1DGeometry& g, Device device) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<CudnnConv>> plans;
  const bool exact = deterministic();
  const bool tf32 = float32_precision() == Float32Precision::kTf32;
  const bool find = find_algorithms();
  const std::string key =
      fmt::format("{} {} {} {} B{} C{} L{} O{} K{} s{} d{} p{} Lout{}", exact, tf32, find,
                  device.index, g.batch, g.in_channels, g.length, g.out_channels, g.kernel_size,
                  g.stride, g.dilation, g.pad_left, g.out_length);
  std::lock_guard lock(mutex);
  std::unique_ptr<CudnnConv>& plan = plans[key];
  if (plan == nullptr) plan = std::make_unique<CudnnConv>(g, device, exact, tf32, find);
  return *plan;
}
#endif

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

// A CUDA event that is destroyed with its scope.
struct ScopedEvent {
  ScopedEvent() { STRAND_CUDA_CHECK(cudaEventCreate(&event)); }
  ~ScopedEvent() { cudaEventDestroy(event); }
  ScopedEvent(const ScopedEvent&) = delete;
  ScopedEvent& operator=(const ScopedEvent&) = delete;
  cudaEvent_t event = nullptr;
};

}  // namespace

// Runs `own` or `library` per the policy and the remembered (or now measured) choice.
void run_dense_conv(ConvPass pass, const Conv1DGeometry& g, bool symmetric_padding, DType dtype,
                    Device device, const std::function<void()>& own,
                    const std::function<void()>& library) {
  if (!cudnn_can_run(g, dtype, symmetric_padding)) return own();
  SelectionState& state = selection();
  const std::string key = shape_key(pass, g, dtype);
  ConvAlgorithm policy;
  {
    std::lock_guard lock(state.mutex);
    policy = state.policy;
    if (policy == ConvAlgorithm::kAuto) {
      auto it = state.choices.find(key);
      if (it != state.choices.end()) return it->second.chosen == "cudnn" ? library() : own();
    }
  }
  if (policy == ConvAlgorithm::kOwn) return own();
  if (policy == ConvAlgorithm::kCudnn) return library();
  // Nothing is chosen inside a graph capture: timing waits on the host, a cuDNN plan may need
  // a workspace, and falling back to strand's kernels would bake the slow path into every
  // replay. The shape must have run once before the capture (fit's warm-up step does that).
  STRAND_CHECK(!capturing(device),
               "conv1d (CUDA): {} was not run before the CUDA graph capture; run the captured "
               "step once eagerly first (its warm-up measures and plans every convolution)",
               key);
  ConvChoice choice;
  choice.op = pass_name(pass);
  choice.shape = key;
  const std::string sibling = any_batch_key(pass, g, dtype);
  bool cudnn_clearly = false;
  {
    std::lock_guard lock(state.mutex);
    const auto it = state.own_slowdown.find(sibling);
    cudnn_clearly = it != state.own_slowdown.end() && it->second >= kClearLoss;
  }
  if (deterministic() || cudnn_clearly) {
    // A timed choice can differ between runs. Deterministic mode takes cuDNN untimed, with
    // the algorithms cuDNN reports as deterministic (its plans are keyed by the mode), and
    // strand's kernels (deterministic too) only for a shape cuDNN has no such algorithm for.
    // So does a shape whose kernel lost clearly at another batch size (kClearLoss).
    choice.chosen = "cudnn";
    try {
      library();
    } catch (const Error&) {
      choice.chosen = "own";
      own();
    }
    std::lock_guard lock(state.mutex);
    state.choices[key] = choice;
    return;
  }
  const cudaStream_t s = stream(device);
  const ScopedEvent start, stop;  // destroyed on every exit, a throwing run included
  const auto elapsed_ms = [&](const std::function<void()>& run, int times) {
    STRAND_CUDA_CHECK(cudaEventRecord(start.event, s));
    for (int i = 0; i < times; ++i) run();
    STRAND_CUDA_CHECK(cudaEventRecord(stop.event, s));
    STRAND_CUDA_CHECK(cudaEventSynchronize(stop.event));
    float ms = 0.0f;
    STRAND_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event, stop.event));
    return static_cast<double>(ms) / times;
  };
  try {
    library();  // warm-up: cuDNN's heuristics, the plan's workspace
    choice.cudnn_ms = elapsed_ms(library, 3);
  } catch (const Error&) {
    choice.cudnn_ms = -1.0;  // cuDNN refused the shape: strand's kernel it is
  }
  // strand's kernel runs last, so `out` holds its result either way. Its first run is timed
  // too (it includes loading the kernel, well under a millisecond): where that run alone is far
  // slower than cuDNN, three more would only confirm it. (Basset's second layer: 24 ms a
  // backward-weight run against cuDNN's 0.6 ms, so 70 ms a shape saved.)
  const double first_ms = elapsed_ms(own, 1);
  const bool hopeless = choice.cudnn_ms >= 0.0 && first_ms > 2.0 * choice.cudnn_ms + 1.0;
  choice.own_ms = hopeless ? first_ms : elapsed_ms(own, 3);
  choice.chosen = choice.cudnn_ms >= 0.0 && choice.cudnn_ms < choice.own_ms ? "cudnn" : "own";
  std::lock_guard lock(state.mutex);
  state.choices[key] = choice;
  if (choice.cudnn_ms > 0.0) {
    double& slowdown = state.own_slowdown[sibling];
    slowdown = std::max(slowdown, choice.own_ms / choice.cudnn_ms);
  }
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

void set_conv_algorithm(ConvAlgorithm algorithm) {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  state.policy = algorithm;
  state.choices.clear();
  state.own_slowdown.clear();
}

void set_cudnn_find(bool on) {
  find_setting().store(on);
  set_conv_algorithm(conv_algorithm());  // the timed choices were made with the other algorithms
}
bool cudnn_find() { return find_algorithms(); }

ConvAlgorithm conv_algorithm() {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  return state.policy;
}

bool cudnn_available() {
#ifdef STRAND_WITH_CUDNN
  return true;
#else
  return false;
#endif
}

std::vector<ConvChoice> conv_choices() {
  SelectionState& state = selection();
  std::lock_guard lock(state.mutex);
  std::vector<ConvChoice> out;
  for (const auto& [key, choice] : state.choices) out.push_back(choice);
  return out;
}

}  // namespace strand::cuda
