// Data-parallel step time and communication overlap on CPU ranks (MirroredStrategy over MPI).
// A Basset-size model (about 1.6 M float32 parameters, 6.3 MB of gradients per step):
//   Conv1D(4->128, k=19) -> ReLU -> Conv1D(128->128, k=11) -> ReLU -> GlobalMaxPool1D
//   -> Dense(128->1024) -> ReLU -> Dense(1024->1024) -> ReLU -> Dense(1024->164)
// with BCE from logits and SGD, on random DNA. Each rank trains on its own batch (weak
// scaling: the per-rank batch is fixed).
//
// Usage:  e2e_data_parallel [--steps N] [--batch N] [--length N] [--bucket-kb N]
//   single process:  OMP_NUM_THREADS=1 bench/e2e_data_parallel
//   2 ranks:         OMP_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np 2
//                        bench/e2e_data_parallel
// Rank 0 prints: step time (median), backward time, the all-reduce time of the step's buckets
// measured on their own (blocking, after training), the exposed wait (the part of it not
// hidden behind backward) and overlap = 1 - exposed wait / all-reduce time, the share of
// gradient bytes already reduced when backward ended, a probe (all-reduce, then 2x its time
// of computation without MPI calls, then wait: probe overlap = 1 - wait / all-reduce time), and
// whether MPI's progress thread drove the all-reduces (STRAND_MPI_PROGRESS=0 turns it off,
// STRAND_MPI_PROGRESS_US sets its poll interval).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dist/mirrored_strategy.h"
#include "dist/mpi_communicator.h"
#include "dist/strategy.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/sequential.h"
#include "ops/loss.h"
#include "optim/sgd.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int steps = 20;
  int64_t batch = 32;
  int64_t length = 200;
  int64_t bucket_kb = 1024;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long long value = std::atoll(argv[i + 1]);
    if (flag == "--steps") options.steps = static_cast<int>(value);
    if (flag == "--batch") options.batch = value;
    if (flag == "--length") options.length = value;
    if (flag == "--bucket-kb") options.bucket_kb = value;
  }
  return options;
}

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0.0 : values[values.size() / 2];
}

strand::Sequential make_model() {
  using namespace strand;
  Generator generator(1);
  Sequential model;
  model.add(Conv1D(4, 128, 19, {}, generator));
  model.add(ReLU());
  model.add(Conv1D(128, 128, 11, {}, generator));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(128, 1024, true, generator));
  model.add(ReLU());
  model.add(Dense(1024, 1024, true, generator));
  model.add(ReLU());
  model.add(Dense(1024, 164, true, generator));
  return model;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strand;
  const Options options = parse(argc, argv);
  dist::DistributedRun run = dist::make_strategy_from_environment();
  Sequential model = make_model();
  SGD optimizer(model.trainable_parameters(), SGDOptions{0.01});
  dist::MirroredOptions mirrored;
  mirrored.bucket_bytes = options.bucket_kb * 1024;
  std::unique_ptr<dist::MirroredStrategy> strategy;
  if (run.world_size > 1) {
    strategy = std::make_unique<dist::MirroredStrategy>(run.communicator, mirrored);
    strategy->on_train_begin(model.parameters(), optimizer);
  }

  Generator generator(100 + run.rank);
  std::vector<uint8_t> codes(static_cast<size_t>(options.batch * options.length));
  for (auto& code : codes) code = static_cast<uint8_t>(generator.next_below(4));
  const Tensor input = Tensor::from_vector(codes, {options.batch, options.length});
  const Tensor labels = Tensor::uniform({options.batch, 164}, 0.0, 1.0, generator).contiguous();

  const int warmup = 3;
  std::vector<double> step_times, backward_times, step_exposed;
  for (int step = 0; step < warmup + options.steps; ++step) {
    if (step == warmup && strategy) strategy->reset_stats();
    const auto t0 = Clock::now();
    optimizer.zero_grad();
    Var loss = bce_with_logits(model.forward(Var(input)), Var(labels));
    const auto t1 = Clock::now();
    if (strategy) strategy->before_backward();
    loss.backward();
    const auto t2 = Clock::now();
    const double exposed_before = strategy ? strategy->stats().exposed_wait_seconds : 0.0;
    if (strategy) strategy->finish_gradients();
    if (strategy && step >= warmup) {
      step_exposed.push_back(strategy->stats().exposed_wait_seconds - exposed_before);
    }
    optimizer.step();
    const auto t3 = Clock::now();
    if (step >= warmup) {
      step_times.push_back(seconds(t0, t3));
      backward_times.push_back(seconds(t1, t2));
    }
  }

  int64_t parameters = 0;
  for (const Var& parameter : model.trainable_parameters()) parameters += parameter.value().numel();
  if (!strategy) {
    std::printf("ranks 1  batch/rank %lld  params %lld  step %.1f ms  backward %.1f ms\n",
                static_cast<long long>(options.batch), static_cast<long long>(parameters),
                1e3 * median(step_times), 1e3 * median(backward_times));
    return 0;
  }

  // The same reductions again, blocking and alone: the communication time of one step.
  std::vector<Tensor> buffers;
  for (const auto& bucket : strategy->bucket_layout()) {
    int64_t numel = 0;
    for (size_t index : bucket) numel += optimizer.parameters()[index].value().numel();
    buffers.push_back(Tensor::zeros({numel}));
  }
  std::vector<double> comm_times;
  for (int repeat = 0; repeat < options.steps; ++repeat) {
    run.communicator->barrier();
    const auto t0 = Clock::now();
    for (Tensor& buffer : buffers) run.communicator->all_reduce(buffer, dist::ReduceOp::kAverage);
    comm_times.push_back(seconds(t0, Clock::now()));
  }
  const dist::MirroredStats& stats = strategy->stats();
  const double exposed = stats.exposed_wait_seconds / static_cast<double>(stats.steps);
  const double comm = median(comm_times);
  // Rank 0's view; the slowest rank sets the pace, so report the maximum step time too.
  const std::vector<double> steps_all =
      run.communicator->all_gather(std::vector<double>{median(step_times)});
  // Exposed wait includes waiting for a rank that is still in backward (skew, large on a
  // loaded machine). In each step the rank that reaches finish_gradients last waits only for
  // communication, so the per-step minimum over ranks (median over steps) is the estimate of
  // communication not hidden. done-before-wait counts the bytes already reduced when
  // backward ended, averaged over ranks.
  const std::vector<double> exposed_all = run.communicator->all_gather(step_exposed);
  std::vector<double> last_rank_waits;
  for (size_t k = 0; k < step_exposed.size(); ++k) {
    double wait = exposed_all[k];
    for (int r = 1; r < run.world_size; ++r) {
      wait = std::min(wait, exposed_all[static_cast<size_t>(r) * step_exposed.size() + k]);
    }
    last_rank_waits.push_back(wait);
  }
  const double exposed_min = median(last_rank_waits);
  const double done_fraction =
      run.communicator->sum({static_cast<double>(stats.bytes_done_before_wait) /
                             static_cast<double>(std::max<int64_t>(stats.bytes_reduced, 1))})[0] /
      run.world_size;

  // Overlap probe, free of the compute skew between ranks: every rank starts the step's
  // all-reduces, then computes for `busy` wall time without any MPI call (what backward does
  // between hooks), then waits. The wait is the communication MPI did not progress on its own.
  const double busy = 2.0 * comm;
  std::vector<double> probe_waits;
  for (int repeat = 0; repeat < options.steps; ++repeat) {
    run.communicator->barrier();
    std::vector<std::unique_ptr<dist::Work>> works;
    const auto t0 = Clock::now();
    for (Tensor& buffer : buffers) {
      works.push_back(run.communicator->all_reduce_async(buffer, dist::ReduceOp::kSum, "probe"));
    }
    volatile double sink = 0.0;
    while (seconds(t0, Clock::now()) < busy) {
      for (int i = 0; i < 1000; ++i) sink = sink + 1e-9 * i;
    }
    const auto t1 = Clock::now();
    for (auto& work : works) work->wait();
    probe_waits.push_back(seconds(t1, Clock::now()));
  }
  const std::vector<double> probe_all =
      run.communicator->all_gather(std::vector<double>{median(probe_waits)});
  const double probe_wait = *std::max_element(probe_all.begin(), probe_all.end());

  std::string progress = "n/a";
  if (auto* mpi = dynamic_cast<dist::MpiCommunicator*>(run.communicator.get())) {
    progress = mpi->has_progress_thread()
                   ? fmt::format("thread, poll {} us", mpi->options().progress_interval.count())
                   : "off (" + mpi->progress_fallback_reason() + ")";
  }
  if (run.is_chief()) {
    std::printf(
        "ranks %d  batch/rank %lld  params %lld  buckets %zu (%lld KiB max)  step %.1f ms "
        "(slowest rank %.1f ms)  backward %.1f ms  all-reduce alone %.2f ms  exposed wait "
        "%.2f ms (last rank to arrive %.2f ms)  overlap %.0f%% (last rank %.0f%%)  bytes reduced "
        "before "
        "backward ended %.0f%%  buckets started in backward %lld/%lld  progress %s\n"
        "probe: all-reduce started, %.1f ms of computation without MPI calls, then wait %.2f ms "
        "(slowest rank): probe overlap %.0f%%\n",
        run.world_size, static_cast<long long>(options.batch), static_cast<long long>(parameters),
        buffers.size(), static_cast<long long>(options.bucket_kb), 1e3 * median(step_times),
        1e3 * *std::max_element(steps_all.begin(), steps_all.end()), 1e3 * median(backward_times),
        1e3 * comm, 1e3 * exposed, 1e3 * exposed_min,
        100.0 * std::clamp(1.0 - exposed / comm, 0.0, 1.0),
        100.0 * std::clamp(1.0 - exposed_min / comm, 0.0, 1.0), 100.0 * done_fraction,
        static_cast<long long>(stats.buckets_started_in_backward),
        static_cast<long long>(stats.buckets_started), progress.c_str(), 1e3 * busy,
        1e3 * probe_wait, 100.0 * std::clamp(1.0 - probe_wait / comm, 0.0, 1.0));
  }
  return 0;
}
