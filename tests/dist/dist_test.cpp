// Single-process dist tests: the one-rank communicator, bucket planning, the environment
// factory, and the MPI fault scenarios (each launched with mpiexec as a child job and checked
// to end with a clear error within a bounded time).
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dist/mirrored_strategy.h"
#ifdef STRAND_WITH_MPI
#include "dist/mpi_check.h"
#endif
#include "dist/parameter_averaging.h"
#include "dist/single_process_communicator.h"
#include "dist/strategy.h"
#include "layers/losses.h"
#include "optim/sgd.h"
#include "test_helpers.h"
#include "tests/dist/dist_fixtures.h"
#include "train/fit.h"

namespace strand::dist {
namespace {

using testing::make_loader;
using testing::make_small_model;
using testing::make_source;

// Sets environment variables for one scope and restores what was there before.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(std::initializer_list<std::pair<std::string, std::string>> values) {
    for (const auto& [name, value] : values) {
      const char* previous = std::getenv(name.c_str());
      saved_.push_back(
          {name, previous != nullptr ? std::optional<std::string>(previous) : std::nullopt});
      ::setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedEnvironment() {
    for (auto& [name, previous] : saved_) {
      if (previous) {
        ::setenv(name.c_str(), previous->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

#ifdef STRAND_WITH_MPI
struct JobResult {
  int exit_code = 0;
  std::string output;
  double seconds = 0.0;
};

// Runs a 2-rank job of the fault worker; `timeout 60` is the backstop against a hang.
JobResult run_fault_job(const std::string& scenario) {
  const std::string command = std::string("timeout 60 ") + STRAND_MPIEXEC +
                              " --allow-run-as-root --oversubscribe -np 2 " +
                              STRAND_DIST_FAULT_WORKER + " " + scenario + " 2>&1";
  const auto start = std::chrono::steady_clock::now();
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  JobResult result;
  char buffer[512];
  while (fgets(buffer, sizeof(buffer), pipe) != nullptr) result.output += buffer;
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("scenario " << scenario << ": exit " << result.exit_code << " after " << result.seconds
                      << " s\n"
                      << result.output);
  return result;
}
#endif  // STRAND_WITH_MPI

}  // namespace

TEST_CASE("single process communicator: collectives are the identity") {
  SingleProcessCommunicator communicator;
  CHECK(communicator.world_size() == 1);
  Tensor tensor = Tensor::from_vector(std::vector<double>{1.5, -2.0}, {2});
  communicator.all_reduce(tensor, ReduceOp::kAverage);
  communicator.broadcast(tensor, 0);
  communicator.barrier();
  CHECK(tensor.to_vector<double>() == std::vector<double>{1.5, -2.0});
  CHECK(communicator.sum({1.0, 2.0}) == std::vector<double>{1.0, 2.0});
  const std::vector<double> values{3.0};
  CHECK(communicator.all_gather(values) == values);
  Tensor codes = Tensor::zeros({2}, DType::kUInt8);
  CHECK_THROWS_AS(communicator.all_reduce(codes), Error);
  CHECK_THROWS_AS(communicator.broadcast(tensor, 1), Error);
}

TEST_CASE("mirrored strategy: buckets follow reverse parameter order and the size limit") {
  Sequential model = make_small_model(1);
  const std::vector<Var> parameters = model.parameters();  // w0 (6x4x5), b0 (6), w3 (1x6), b3
  REQUIRE(parameters.size() == 4);
  MirroredOptions options;
  options.bucket_bytes = 8 * 10;  // ten float64 values
  MirroredStrategy strategy(std::make_shared<SingleProcessCommunicator>(), options);
  strategy.attach(parameters);
  // b3 (1) + w3 (6) fit in one bucket; b0 (6) starts another; w0 (120) exceeds it alone.
  const std::vector<std::vector<size_t>> expected = {{3, 2}, {1}, {0}};
  CHECK(strategy.bucket_layout() == expected);
}

TEST_CASE("mirrored strategy: one rank trains exactly like the plain loop") {
  auto source = make_source(64, 3);
  BinaryCrossEntropy loss;
  Sequential plain_model = make_small_model(7);
  SGD plain_optimizer(plain_model.trainable_parameters(), SGDOptions{0.5});
  auto plain_loader = make_loader(source, 16, 0, 1);
  train::FitOptions options;
  options.epochs = 2;
  train::fit(plain_model, loss, plain_optimizer, *plain_loader, nullptr, options);

  Sequential model = make_small_model(7);
  SGD optimizer(model.trainable_parameters(), SGDOptions{0.5});
  auto loader = make_loader(source, 16, 0, 1);
  MirroredOptions mirrored;
  mirrored.bucket_bytes = 64;
  MirroredStrategy strategy(std::make_shared<SingleProcessCommunicator>(), mirrored);
  options.strategy = &strategy;
  train::fit(model, loss, optimizer, *loader, nullptr, options);
  CHECK(strategy.stats().steps == 8);
  CHECK(strategy.stats().buckets_started_in_backward == strategy.stats().buckets_started);
  for (size_t i = 0; i < model.parameters().size(); ++i) {
    CHECK(strand::testing::max_abs_difference(model.parameters()[i].value(),
                                              plain_model.parameters()[i].value()) == 0.0);
  }
}

namespace {
// One rank whose collectives are device-ordered, as NCCL's are (the device waits for them):
// records which of them the host waited for, in order. The reduction itself is the identity.
struct WaitLog {
  int launched = 0;
  std::vector<int> waited;
};
class DeviceOrderedWork : public Work {
 public:
  DeviceOrderedWork(std::shared_ptr<WaitLog> log, int id) : log_(std::move(log)), id_(id) {}
  ~DeviceOrderedWork() override { wait(); }
  bool test() override { return false; }
  void wait() override {
    if (waited_) return;
    log_->waited.push_back(id_);
    waited_ = true;
  }
  bool device_ordered() const override { return true; }

 private:
  std::shared_ptr<WaitLog> log_;
  int id_;
  bool waited_ = false;
};
class DeviceOrderedCommunicator : public Communicator {
 public:
  std::shared_ptr<WaitLog> log = std::make_shared<WaitLog>();
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  std::string backend() const override { return "device-ordered test"; }
  std::unique_ptr<Work> all_reduce_async(Tensor&, ReduceOp, std::string) override {
    return std::make_unique<DeviceOrderedWork>(log, log->launched++);
  }
  std::unique_ptr<Work> broadcast_async(Tensor&, int, std::string) override {
    return std::make_unique<DeviceOrderedWork>(log, log->launched++);
  }
  void barrier() override {}
  std::vector<double> all_gather(std::span<const double> values) override {
    return {values.begin(), values.end()};
  }
  [[noreturn]] void abort(const std::string& reason, int) override { throw Error(reason); }
};
}  // namespace

TEST_CASE("mirrored strategy: a device-ordered all-reduce is confirmed a step later, not waited") {
  Sequential model = make_small_model(2);
  const std::vector<Var> parameters = model.parameters();
  auto communicator = std::make_shared<DeviceOrderedCommunicator>();
  MirroredOptions options;
  options.bucket_bytes = 8 * 10;  // three buckets (see the bucket layout test)
  MirroredStrategy strategy(communicator, options);
  strategy.attach(parameters);
  const auto source = make_source(8, 4);
  const auto loader = make_loader(source, 8, 0, 1);
  const data::Batch batch = *loader->next();
  const Tensor codes = Tensor::from_blob(batch.codes, {batch.size, batch.length}, DType::kUInt8);
  const Tensor labels =
      Tensor::from_blob(batch.labels, {batch.size, 1}, DType::kFloat32).to(DType::kFloat64);
  BinaryCrossEntropy loss;
  const auto step = [&] {
    for (Var parameter : parameters) parameter.zero_grad();
    strategy.before_backward();
    loss(model.forward_layers(Var(codes), model.size() - 1), Var(labels)).backward();
    strategy.finish_gradients();
  };
  step();
  CHECK(communicator->log->launched == 3);
  CHECK(communicator->log->waited.empty());  // this step's all-reduces: the device waits
  step();
  CHECK(communicator->log->launched == 6);
  CHECK(communicator->log->waited == std::vector<int>{0, 1, 2});  // the last step's, confirmed
  strategy.on_epoch_end();
  CHECK(communicator->log->waited == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(strategy.stats().steps == 2);
}

TEST_CASE("parameter averaging: one rank is the plain loop") {
  auto source = make_source(64, 3);
  BinaryCrossEntropy loss;
  Sequential plain_model = make_small_model(7);
  SGD plain_optimizer(plain_model.trainable_parameters(), SGDOptions{0.5});
  auto plain_loader = make_loader(source, 16, 0, 1);
  train::FitOptions options;
  options.epochs = 1;
  train::fit(plain_model, loss, plain_optimizer, *plain_loader, nullptr, options);

  Sequential model = make_small_model(7);
  SGD optimizer(model.trainable_parameters(), SGDOptions{0.5});
  auto loader = make_loader(source, 16, 0, 1);
  ParameterAveragingOptions averaging;
  averaging.average_every = 2;
  averaging.average_optimizer_state = true;
  ParameterAveraging strategy(std::make_shared<SingleProcessCommunicator>(), averaging);
  options.strategy = &strategy;
  train::fit(model, loss, optimizer, *loader, nullptr, options);
  CHECK(strategy.averages_done() == 2);
  for (size_t i = 0; i < model.parameters().size(); ++i) {
    CHECK(strand::testing::max_abs_difference(model.parameters()[i].value(),
                                              plain_model.parameters()[i].value()) == 0.0);
  }
}

TEST_CASE("environment factory: a plain process runs single-process without a strategy") {
  const DistributedRun run = make_strategy_from_environment();
  CHECK(run.world_size == 1);
  CHECK(run.is_chief());
  CHECK(run.strategy == nullptr);
  CHECK(run.communicator->backend() == "single");
  StrategyConfig config;
  config.mode = "gossip";
  CHECK_NOTHROW(make_strategy_from_environment(config));  // one rank needs no strategy
}

TEST_CASE("environment factory: one of several srun tasks that MPI counts alone is refused") {
  // srun -n 4 without a PMI plugin: four unrelated processes, each rank 0 of 1.
  ScopedEnvironment slurm({{"SLURM_STEP_NUM_TASKS", "4"}, {"SLURM_PROCID", "2"}});
  try {
    make_strategy_from_environment();
    FAIL("no exception");
  } catch (const Error& error) {
    const std::string message = error.what();
    CHECK(message.find("task 2 of 4 of a Slurm job step") != std::string::npos);
    CHECK(message.find("srun --mpi=pmix") != std::string::npos);
  }
  CHECK_NOTHROW(check_not_a_lone_slurm_task(4));  // MPI sees all four: a real job
  {
    ScopedEnvironment mpirun({{"OMPI_COMM_WORLD_SIZE", "1"}});
    CHECK_NOTHROW(check_not_a_lone_slurm_task(1));  // mpirun -np 1 inside the allocation
  }
  {
    ScopedEnvironment pmi({{"PMI_SIZE", "4"}});
    CHECK_THROWS_AS(check_not_a_lone_slurm_task(1), Error);  // PMI says 4, MPI fell back to 1
  }
}

TEST_CASE("environment factory: a one-task Slurm step or batch script runs single-process") {
  {
    ScopedEnvironment step({{"SLURM_STEP_NUM_TASKS", "1"}, {"SLURM_PROCID", "0"}});
    CHECK(make_strategy_from_environment().world_size == 1);
  }
  // A batch script is one process although SLURM_NTASKS counts the allocation's tasks.
  ScopedEnvironment batch({{"SLURM_NTASKS", "4"}, {"SLURM_PROCID", "0"}});
  CHECK(make_strategy_from_environment().world_size == 1);
}

#ifdef STRAND_WITH_MPI
TEST_CASE("mpi check: an error code becomes an exception naming the call and MPI's text") {
  try {
    STRAND_MPI_CHECK(MPI_ERR_COUNT);
    FAIL("no exception");
  } catch (const DistError& error) {
    const std::string message = error.what();
    CHECK(message.find("MPI_ERR_COUNT failed at") != std::string::npos);
    CHECK(message.find("dist_test.cpp") != std::string::npos);
    CHECK(message.find("(MPI error") != std::string::npos);
  }
}

TEST_CASE("faults: a rank that throws mid-training ends every rank with its error") {
  const JobResult job = run_fault_job("throw");
  CHECK(job.exit_code != 0);
  CHECK(job.seconds < 30.0);
  CHECK(job.output.find("[rank 1/2] failed: injected failure at step 3") != std::string::npos);
}

TEST_CASE("faults: a rank killed by SIGKILL ends the job instead of hanging it") {
  const JobResult job = run_fault_job("kill");
  CHECK(job.exit_code != 0);
  CHECK(job.exit_code != 124);  // 124: the `timeout` backstop fired, i.e. a hang
  CHECK(job.seconds < 30.0);
}

TEST_CASE("faults: a hung rank makes its peers' watchdog abort the job after the timeout") {
  const JobResult job = run_fault_job("hang");
  CHECK(job.exit_code != 0);
  CHECK(job.exit_code == kWatchdogExitCode);
  CHECK(job.seconds < 30.0);  // the worker's timeout is 2 s; the hung rank sleeps 120 s
  CHECK(job.output.find("[rank 0/2] timed out after") != std::string::npos);
  CHECK(job.output.find("aborting the job") != std::string::npos);
}

#endif  // STRAND_WITH_MPI

}  // namespace strand::dist
