// MPI backend: non-blocking collectives plus a polling wait with a deadline.
#include "dist/mpi_communicator.h"

#include <fmt/format.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
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

namespace {

void finalize_mpi_at_exit() {
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

// One MPI request; owns a handle to the tensor so its storage outlives the operation.
class MpiWork : public Work {
 public:
  MpiWork(MpiCommunicator* communicator, MPI_Request request, Tensor tensor, double scale,
          std::string what)
      : communicator_(communicator),
        request_(request),
        tensor_(std::move(tensor)),
        scale_(scale),
        what_(std::move(what)) {}
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
    int flag = 0;
    STRAND_MPI_CHECK(MPI_Test(&request_, &flag, MPI_STATUS_IGNORE));
    if (flag) finish();
    return done_;
  }
  void wait() override {
    if (done_) return;
    communicator_->wait_for(request_, what_);
    finish();
  }

 private:
  void finish() {
    done_ = true;
    if (scale_ != 1.0) scale_in_place(tensor_, scale_);
  }
  MpiCommunicator* communicator_;
  MPI_Request request_;
  Tensor tensor_;
  double scale_;
  std::string what_;
  bool done_ = false;
};

}  // namespace

void ensure_mpi_initialized() {
  int initialized = 0;
  STRAND_MPI_CHECK(MPI_Initialized(&initialized));
  if (initialized) return;
  int provided = 0;
  STRAND_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
  std::atexit(finalize_mpi_at_exit);
}

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE",
                           "SLURM_NTASKS_PER_NODE_MPI"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
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
}

MpiCommunicator::~MpiCommunicator() {
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
    if (policy.expired()) {
      const std::string message = fmt::format(
          "{}timed out after {:.1f} s waiting for {} (mpi): another rank has died, failed or "
          "hangs",
          rank_prefix(*this), policy.elapsed_seconds(), what);
      if (options_.abort_on_timeout) abort(message + "; aborting the job", kWatchdogExitCode);
      throw DistError(message);
    }
    policy.pause();
  }
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
