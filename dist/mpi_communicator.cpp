// MPI backend: non-blocking collectives, a progress thread that drives them while the training
// thread computes, and waits with a deadline.
#include "dist/mpi_communicator.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "dist/mpi_check.h"
#include "dist/wait_policy.h"

namespace strand::dist {

void check_mpi(int code, const char* call, const char* file, int line) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = "no description: MPI is not initialised";
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  // Outside MPI_Init..MPI_Finalize even MPI_Error_string is not allowed (Open MPI aborts).
  int length = 0;
  if (initialized && !finalized && MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    std::snprintf(text, sizeof(text), "unknown MPI error");
  }
  throw DistError(
      fmt::format("{} failed at {}:{}: {} (MPI error {})", call, file, line, text, code));
}

// One asynchronous request. The progress thread completes it (MPI_Testsome) and sets `done`;
// `error` is written before `done` is released, so a thread that sees done may read it.
struct MpiRequestState {
  MPI_Request request = MPI_REQUEST_NULL;
  std::atomic<bool> done{false};
  int error = MPI_SUCCESS;
};

class MpiCommunicator::ProgressEngine {
 public:
  explicit ProgressEngine(std::chrono::microseconds interval);
  ~ProgressEngine() { stop(); }
  ProgressEngine(const ProgressEngine&) = delete;
  ProgressEngine& operator=(const ProgressEngine&) = delete;

  /// Hands a started request to the progress thread, which tests it from now on.
  void add(const std::shared_ptr<MpiRequestState>& state) {
    {
      std::lock_guard lock(mutex_);
      pending_.push_back(state);
    }
    work_cv_.notify_one();
  }
  /// Blocks until `state` is done (true) or `deadline` passes (false). The waiting thread
  /// polls itself (the progress thread stands by meanwhile): it is running already, while
  /// handing completions over from the progress thread would cost a wake-up on each side,
  /// which on a loaded machine can take a scheduler time slice.
  bool wait_until(const MpiRequestState& state, std::chrono::steady_clock::time_point deadline,
                  WaitPolicy& policy) {
    std::unique_lock lock(mutex_);
    ++waiters_;
    while (!state.done.load(std::memory_order_acquire) && !stopped_) {
      poll();
      if (state.done.load(std::memory_order_acquire)) break;
      if (std::chrono::steady_clock::now() > deadline) break;
      lock.unlock();
      policy.pause();
      lock.lock();
    }
    if (--waiters_ == 0) work_cv_.notify_one();
    return state.done.load(std::memory_order_acquire);
  }
  /// Ends the thread (idempotent). Requests still in flight stay untested: called when the
  /// communicator goes away or MPI is finalised.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      if (stopped_) return;
      stopped_ = true;
    }
    work_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run();
  // Tests every pending request once (mutex_ held); true when any completed.
  bool poll();

  const std::chrono::microseconds interval_;
  std::mutex mutex_;
  std::condition_variable work_cv_;  // the thread: requests arrived, no more waiters, or stop
  std::vector<std::shared_ptr<MpiRequestState>> pending_;
  std::vector<MPI_Request> handles_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
  int waiters_ = 0;
  bool stopped_ = false;
  std::thread thread_;
};

namespace {

// Progress engines alive in this process: MPI_Finalize (at exit) must not run while one of
// them is inside an MPI call, so the exit handler stops them first. Leaked on purpose: it is
// used from the exit handler, after which static destructors run.
struct EngineRegistry {
  std::mutex mutex;
  std::vector<MpiCommunicator::ProgressEngine*> engines;
};
EngineRegistry& engine_registry() {
  static auto* registry = new EngineRegistry;
  return *registry;
}

}  // namespace

MpiCommunicator::ProgressEngine::ProgressEngine(std::chrono::microseconds interval)
    : interval_(std::max(interval, std::chrono::microseconds(1))) {
  thread_ = std::thread([this] { run(); });
}

bool MpiCommunicator::ProgressEngine::poll() {
  const int count = static_cast<int>(pending_.size());
  handles_.resize(pending_.size());
  indices_.resize(pending_.size());
  statuses_.resize(pending_.size());
  for (size_t i = 0; i < pending_.size(); ++i) handles_[i] = pending_[i]->request;
  int completed = 0;
  const int code =
      MPI_Testsome(count, handles_.data(), &completed, indices_.data(), statuses_.data());
  if (code != MPI_SUCCESS && code != MPI_ERR_IN_STATUS) {
    // The call itself failed: nothing can be said about single requests, so every pending
    // one fails with the code (the communicator is unusable after an error anyway).
    for (auto& state : pending_) {
      state->error = code;
      state->done.store(true, std::memory_order_release);
    }
    pending_.clear();
    return true;
  }
  if (completed == MPI_UNDEFINED || completed == 0) return false;
  for (int k = 0; k < completed; ++k) {
    MpiRequestState& state = *pending_[static_cast<size_t>(indices_[k])];
    state.request = handles_[static_cast<size_t>(indices_[k])];  // MPI_REQUEST_NULL now
    if (code == MPI_ERR_IN_STATUS) state.error = statuses_[static_cast<size_t>(k)].MPI_ERROR;
    state.done.store(true, std::memory_order_release);
  }
  std::erase_if(pending_, [](const std::shared_ptr<MpiRequestState>& state) {
    return state->done.load(std::memory_order_relaxed);
  });
  return true;
}

void MpiCommunicator::ProgressEngine::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    // Idle while nothing is in flight, and while a waiting thread polls for itself.
    work_cv_.wait(lock, [&] { return stopped_ || (!pending_.empty() && waiters_ == 0); });
    if (stopped_) return;
    poll();
    // The training thread computes: pause between polls so the compute threads keep the
    // cores. A waiter arriving or stop() cuts the pause short.
    work_cv_.wait_for(lock, interval_, [&] { return stopped_ || waiters_ > 0; });
  }
}

namespace {

void finalize_mpi_at_exit() {
  {
    EngineRegistry& registry = engine_registry();
    std::lock_guard lock(registry.mutex);
    for (auto* engine : registry.engines) engine->stop();
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

MPI_Datatype float_type(const Tensor& tensor) {
  switch (tensor.dtype()) {
    case DType::kFloat32:
      return MPI_FLOAT;
    case DType::kFloat64:
      return MPI_DOUBLE;
    default:
      throw DistError(
          fmt::format("all_reduce: only float32/float64 tensors, got {}", tensor.describe()));
  }
}

void check_cpu_contiguous(const Tensor& tensor, const char* operation) {
  STRAND_CHECK(tensor.defined() && tensor.is_contiguous() && !tensor.device().is_cuda(),
               "{}: the MPI backend needs a contiguous CPU tensor, got {}", operation,
               tensor.describe());
}

int checked_count(int64_t count, const char* operation) {
  STRAND_CHECK(count <= INT_MAX, "{}: {} elements exceed MPI's int count; use smaller buckets",
               operation, count);
  return static_cast<int>(count);
}

void scale_in_place(Tensor& tensor, double factor) {
  if (tensor.dtype() == DType::kFloat64) {
    double* data = tensor.data<double>();
    for (int64_t i = 0; i < tensor.numel(); ++i) data[i] *= factor;
  } else {
    float* data = tensor.data<float>();
    const float f = static_cast<float>(factor);
    for (int64_t i = 0; i < tensor.numel(); ++i) data[i] *= f;
  }
}

}  // namespace

// One MPI request; owns a handle to the tensor so its storage outlives the operation. With a
// progress thread the request belongs to the thread and test()/wait() only look at its state;
// without one they test the request themselves.
class MpiWork : public Work {
 public:
  MpiWork(MpiCommunicator* communicator, MPI_Request request, Tensor tensor, double scale,
          std::string what)
      : communicator_(communicator),
        state_(std::make_shared<MpiRequestState>()),
        tensor_(std::move(tensor)),
        scale_(scale),
        what_(std::move(what)) {
    state_->request = request;
    if (communicator_->progress_) communicator_->progress_->add(state_);
  }
  ~MpiWork() override {
    if (done_) return;
    // Destroying an unfinished request would let MPI write into freed memory; waiting is the
    // only safe choice, and its errors cannot leave a destructor.
    try {
      wait();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s\n", error.what());
    }
  }
  bool test() override {
    if (done_) return true;
    if (communicator_->progress_) {
      if (state_->done.load(std::memory_order_acquire)) finish();
      return done_;
    }
    int flag = 0;
    STRAND_MPI_CHECK(MPI_Test(&state_->request, &flag, MPI_STATUS_IGNORE));
    if (flag) finish();
    return done_;
  }
  void wait() override {
    if (done_) return;
    if (communicator_->progress_) {
      WaitPolicy policy(communicator_->options_.timeout);
      const auto deadline = std::chrono::steady_clock::now() + communicator_->options_.timeout;
      if (!communicator_->progress_->wait_until(*state_, deadline, policy)) {
        communicator_->timed_out(what_, policy.elapsed_seconds());
      }
    } else {
      communicator_->wait_for(state_->request, what_);
    }
    finish();
  }

 private:
  void finish() {
    done_ = true;
    if (state_->error != MPI_SUCCESS) check_mpi(state_->error, what_.c_str(), __FILE__, __LINE__);
    if (scale_ != 1.0) scale_in_place(tensor_, scale_);
  }
  MpiCommunicator* communicator_;
  std::shared_ptr<MpiRequestState> state_;
  Tensor tensor_;
  double scale_;
  std::string what_;
  bool done_ = false;
};

void ensure_mpi_initialized() {
  int initialized = 0;
  STRAND_MPI_CHECK(MPI_Initialized(&initialized));
  if (initialized) return;
  int provided = 0;
  STRAND_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
  std::atexit(finalize_mpi_at_exit);
}

int mpi_thread_level() {
  ensure_mpi_initialized();
  int provided = MPI_THREAD_SINGLE;
  STRAND_MPI_CHECK(MPI_Query_thread(&provided));
  return provided;
}

MpiCommunicator::MpiCommunicator(CommunicatorOptions options, MPI_Comm parent) : options_(options) {
  ensure_mpi_initialized();
  if (parent == MPI_COMM_NULL) parent = MPI_COMM_WORLD;
  // Errors on the world communicator must come back as codes too: MPI_Comm_dup reports them
  // through its parent's handler.
  STRAND_MPI_CHECK(MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN));
  STRAND_MPI_CHECK(MPI_Comm_dup(parent, &comm_));
  STRAND_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  STRAND_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  STRAND_MPI_CHECK(MPI_Comm_size(comm_, &world_size_));
  MPI_Comm local = MPI_COMM_NULL;
  STRAND_MPI_CHECK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local));
  STRAND_MPI_CHECK(MPI_Comm_rank(local, &local_rank_));
  STRAND_MPI_CHECK(MPI_Comm_free(&local));
  if (!options_.progress_thread) {
    progress_fallback_reason_ = "the progress thread is turned off";
  } else if (mpi_thread_level() < MPI_THREAD_MULTIPLE) {
    progress_fallback_reason_ =
        "MPI does not provide MPI_THREAD_MULTIPLE; collectives progress only while waited for";
  } else {
    progress_ = std::make_unique<ProgressEngine>(options_.progress_interval);
    EngineRegistry& registry = engine_registry();
    std::lock_guard lock(registry.mutex);
    registry.engines.push_back(progress_.get());
  }
}

MpiCommunicator::~MpiCommunicator() {
  if (progress_) {
    {
      EngineRegistry& registry = engine_registry();
      std::lock_guard lock(registry.mutex);
      std::erase(registry.engines, progress_.get());
    }
    progress_->stop();  // before the communicator its requests use goes away
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiCommunicator::wait_for(MPI_Request& request, const std::string& what) {
  WaitPolicy policy(options_.timeout);
  while (true) {
    int flag = 0;
    STRAND_MPI_CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
    if (flag) return;
    if (policy.expired()) timed_out(what, policy.elapsed_seconds());
    policy.pause();
  }
}

void MpiCommunicator::timed_out(const std::string& what, double elapsed_seconds) {
  const std::string message = fmt::format(
      "{}timed out after {:.1f} s waiting for {} (mpi): another rank has died, failed or hangs",
      rank_prefix(*this), elapsed_seconds, what);
  if (options_.abort_on_timeout) abort(message + "; aborting the job", kWatchdogExitCode);
  throw DistError(message);
}

std::unique_ptr<Work> MpiCommunicator::all_reduce_async(Tensor& tensor, ReduceOp op,
                                                        std::string what) {
  check_cpu_contiguous(tensor, "all_reduce");
  const MPI_Datatype type = float_type(tensor);
  const int count = checked_count(tensor.numel(), "all_reduce");
  MPI_Request request;
  STRAND_MPI_CHECK(
      MPI_Iallreduce(MPI_IN_PLACE, tensor.raw_data(), count, type, MPI_SUM, comm_, &request));
  const double scale = op == ReduceOp::kAverage ? 1.0 / world_size_ : 1.0;
  return std::make_unique<MpiWork>(this, request, tensor, scale, std::move(what));
}

std::unique_ptr<Work> MpiCommunicator::broadcast_async(Tensor& tensor, int root, std::string what) {
  check_cpu_contiguous(tensor, "broadcast");
  const int bytes =
      checked_count(tensor.numel() * static_cast<int64_t>(dtype_size(tensor.dtype())), "broadcast");
  MPI_Request request;
  STRAND_MPI_CHECK(MPI_Ibcast(tensor.raw_data(), bytes, MPI_BYTE, root, comm_, &request));
  return std::make_unique<MpiWork>(this, request, tensor, 1.0, std::move(what));
}

void MpiCommunicator::barrier() {
  MPI_Request request;
  STRAND_MPI_CHECK(MPI_Ibarrier(comm_, &request));
  wait_for(request, "barrier");
}

std::vector<double> MpiCommunicator::all_gather(std::span<const double> values) {
  int count = checked_count(static_cast<int64_t>(values.size()), "all_gather");
  std::vector<int> counts(static_cast<size_t>(world_size_));
  MPI_Request request;
  STRAND_MPI_CHECK(MPI_Iallgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_, &request));
  wait_for(request, "all_gather (sizes)");
  std::vector<int> displacements(counts.size());
  int64_t total = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    displacements[r] = checked_count(total, "all_gather");
    total += counts[r];
  }
  std::vector<double> gathered(static_cast<size_t>(total));
  STRAND_MPI_CHECK(MPI_Iallgatherv(values.data(), count, MPI_DOUBLE, gathered.data(), counts.data(),
                                   displacements.data(), MPI_DOUBLE, comm_, &request));
  wait_for(request, "all_gather");
  return gathered;
}

void MpiCommunicator::abort(const std::string& reason, int exit_code) {
  std::fprintf(stderr, "strand: %s\n", reason.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace strand::dist
