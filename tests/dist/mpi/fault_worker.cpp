// A 2-rank training job that fails on purpose on rank 1 at step 3 (argv[1]: "throw", "kill"
// or "hang"), for the fault tests in tests/dist/dist_test.cpp. Rank 0 must not hang.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "dist/strategy.h"
#include "layers/losses.h"
#include "optim/sgd.h"
#include "tests/dist/dist_fixtures.h"
#include "train/fit.h"

namespace {

class InjectFault : public strand::train::Callback {
 public:
  InjectFault(std::string scenario, int rank) : scenario_(std::move(scenario)), rank_(rank) {}
  void on_batch_end(strand::train::FitContext&, const strand::train::BatchLogs& logs) override {
    if (rank_ != 1 || logs.global_step != 3) return;
    if (scenario_ == "throw") throw std::runtime_error("injected failure at step 3");
    if (scenario_ == "kill") std::raise(SIGKILL);
    if (scenario_ == "hang") std::this_thread::sleep_for(std::chrono::seconds(120));
  }

 private:
  std::string scenario_;
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace strand;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s throw|kill|hang\n", argv[0]);
    return 2;
  }
  dist::StrategyConfig config;
  config.communicator.timeout = std::chrono::seconds(2);
  dist::DistributedRun run = dist::make_strategy_from_environment(config);
  Sequential model = dist::testing::make_small_model(1);
  SGD optimizer(model.trainable_parameters(), SGDOptions{0.1});
  auto loader =
      dist::testing::make_loader(dist::testing::make_source(256, 5), 8, run.rank, run.world_size);
  BinaryCrossEntropy loss;
  train::FitOptions options;
  options.epochs = 50;
  options.strategy = run.strategy.get();
  train::fit(model, loss, optimizer, *loader, nullptr, options,
             {std::make_shared<InjectFault>(argv[1], run.rank)});
  std::printf("rank %d finished without a fault\n", run.rank);
  return 0;
}
