// Data-parallel tests that run as 2 MPI ranks (mpiexec -np 2, registered in
// tests/CMakeLists.txt): collectives, mirrored-gradient equivalence with a single process,
// parameter averaging, early stopping agreement and non-finite loss agreement.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "dist/mirrored_strategy.h"
#include "dist/mpi_communicator.h"
#include "dist/parameter_averaging.h"
#include "layers/losses.h"
#include "optim/sgd.h"
#include "test_helpers.h"
#include "tests/dist/dist_fixtures.h"
#include "train/callbacks.h"
#include "train/fit.h"
#include "train/training_batch.h"

namespace strand::dist {
namespace {

using strand::testing::max_abs_difference;
using testing::make_loader;
using testing::make_small_model;
using testing::make_source;

std::shared_ptr<MpiCommunicator> world() {
  static std::shared_ptr<MpiCommunicator> communicator = [] {
    CommunicatorOptions options;
    options.timeout = std::chrono::seconds(30);
    auto made = std::make_shared<MpiCommunicator>(options);
    REQUIRE(made->world_size() == 2);
    return made;
  }();
  return communicator;
}

// Largest parameter difference between two models of the same architecture.
double max_parameter_difference(const Sequential& a, const Sequential& b) {
  double worst = 0.0;
  for (size_t i = 0; i < a.parameters().size(); ++i) {
    worst =
        std::max(worst, max_abs_difference(a.parameters()[i].value(), b.parameters()[i].value()));
  }
  return worst;
}

// Rank 0's parameters as seen on every rank: zero on every rank iff all ranks agree.
double max_difference_from_rank0(Communicator& communicator, const Sequential& model) {
  double worst = 0.0;
  for (const Var& parameter : model.parameters()) {
    Tensor copy = parameter.value().clone();
    communicator.broadcast(copy, 0);
    worst = std::max(worst, max_abs_difference(copy, parameter.value()));
  }
  return communicator.sum({worst})[0];
}

// Mean squared error, except on a poisoned rank, whose targets are NaN: its loss is NaN.
class PoisonedLoss : public Loss {
 public:
  explicit PoisonedLoss(bool poisoned) : poisoned_(poisoned) {}
  Var operator()(const Var& prediction, const Var& target) const override {
    if (!poisoned_) return mse(prediction, target);
    return mse(prediction, Var(Tensor::full(target.shape(), NAN, target.dtype())));
  }
  std::string name() const override { return "mse"; }

 private:
  bool poisoned_;
};

}  // namespace

TEST_CASE("collectives: all_reduce and broadcast and all_gather and barrier over 2 ranks") {
  auto communicator = world();
  const int rank = communicator->rank();
  Tensor f64 = Tensor::from_vector(std::vector<double>{1.0 + rank, 10.0 * rank}, {2});
  communicator->all_reduce(f64, ReduceOp::kSum);
  CHECK(f64.to_vector<double>() == std::vector<double>{3.0, 10.0});
  Tensor f32 = Tensor::from_vector(std::vector<float>{1.0f + rank, 4.0f}, {2});
  communicator->all_reduce(f32, ReduceOp::kAverage);
  CHECK(f32.to_vector<float>() == std::vector<float>{1.5f, 4.0f});
  Tensor codes = Tensor::from_vector(std::vector<int64_t>{rank == 0 ? 7 : 0}, {1});
  communicator->broadcast(codes, 0);
  CHECK(codes.to_vector<int64_t>()[0] == 7);
  std::vector<double> mine(static_cast<size_t>(rank + 1), static_cast<double>(rank));
  CHECK(communicator->all_gather(mine) == std::vector<double>{0.0, 1.0, 1.0});
  communicator->barrier();
  Tensor ints = Tensor::zeros({2}, DType::kInt32);
  CHECK_THROWS_AS(communicator->all_reduce(ints), DistError);
}

TEST_CASE("progress thread: an all-reduce completes while the caller makes no MPI call") {
  auto communicator = world();
  REQUIRE(mpi_thread_level() == MPI_THREAD_MULTIPLE);
  REQUIRE_MESSAGE(communicator->has_progress_thread(), communicator->progress_fallback_reason());
  // 8 MiB: far beyond the eager limit, so it needs many progress calls. test() only reads
  // the state the progress thread sets, so completion proves the thread drove it.
  Tensor values = Tensor::full({int64_t{1} << 21}, 1.0 + communicator->rank(), DType::kFloat32);
  auto work = communicator->all_reduce_async(values, ReduceOp::kSum, "progress test");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool done = false;
  while (!(done = work->test()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(done);
  work->wait();
  CHECK(values.to_vector<float>().front() == 3.0f);
  CHECK(values.to_vector<float>().back() == 3.0f);
}

TEST_CASE("progress thread: when turned off collectives still complete by polling in wait") {
  CommunicatorOptions options;
  options.timeout = std::chrono::seconds(30);
  options.progress_thread = false;
  MpiCommunicator communicator(options);
  CHECK_FALSE(communicator.has_progress_thread());
  Tensor values = Tensor::full({int64_t{1} << 20}, 2.0 * communicator.rank(), DType::kFloat64);
  auto first = communicator.all_reduce_async(values, ReduceOp::kAverage, "first");
  Tensor other = Tensor::full({3}, 1.0, DType::kFloat32);
  auto second = communicator.all_reduce_async(other, ReduceOp::kSum, "second");
  second->wait();
  first->wait();
  CHECK(values.to_vector<double>().back() == 1.0);
  CHECK(other.to_vector<float>() == std::vector<float>{2.0f, 2.0f, 2.0f});
  communicator.barrier();
}

TEST_CASE("mirrored: 2 ranks with batch b reach the parameters of 1 rank with batch 2b") {
  auto communicator = world();
  const int rank = communicator->rank();
  const int64_t b = 8;
  BinaryCrossEntropy loss;
  // Every rank builds a differently initialised model: the broadcast must fix that.
  Sequential model = make_small_model(100 + rank);
  SGD optimizer(model.trainable_parameters(), SGDOptions{0.3});
  MirroredOptions options;
  options.bucket_bytes = 8 * 8;  // several buckets, so several overlapped reductions
  MirroredStrategy strategy(communicator, options);
  strategy.on_train_begin(model.parameters(), optimizer);
  CHECK(strategy.bucket_layout().size() >= 3);

  Sequential reference = make_small_model(100);  // rank 0's initialisation
  SGD reference_optimizer(reference.trainable_parameters(), SGDOptions{0.3});
  auto source = make_source(6 * 2 * b, 21);
  auto shard = make_loader(source, b, rank, 2);
  auto whole = make_loader(source, 2 * b, 0, 1);
  shard->start_epoch(0);
  whole->start_epoch(0);
  int steps = 0;
  while (auto batch = shard->next()) {
    optimizer.zero_grad();
    train::TrainingBatch tensors = train::as_tensors(*batch);
    Var output = train::training_output(model, loss, Var(tensors.codes));
    Var value = loss(output, Var(tensors.labels.to(DType::kFloat64)));
    strategy.before_backward();
    value.backward();
    strategy.finish_gradients();
    optimizer.step();

    auto whole_batch = whole->next();
    REQUIRE(whole_batch.has_value());
    train::TrainingBatch all = train::as_tensors(*whole_batch);
    reference_optimizer.zero_grad();
    loss(train::training_output(reference, loss, Var(all.codes)),
         Var(all.labels.to(DType::kFloat64)))
        .backward();
    reference_optimizer.step();
    ++steps;
  }
  CHECK(steps == 6);
  CHECK(strategy.stats().buckets_started_in_backward == strategy.stats().buckets_started);
  CHECK(max_parameter_difference(model, reference) < 1e-5);
  CHECK(max_parameter_difference(model, reference) < 1e-12);
  CHECK(max_difference_from_rank0(*communicator, model) == 0.0);
}

TEST_CASE("mirrored: fit on 2 shards equals the single-process fit with the doubled batch") {
  auto communicator = world();
  const int rank = communicator->rank();
  BinaryCrossEntropy loss;
  auto source = make_source(96, 4);
  Sequential model = make_small_model(5);
  SGD optimizer(model.trainable_parameters(), SGDOptions{0.5});
  MirroredOptions options;
  options.bucket_bytes = 200;
  MirroredStrategy strategy(communicator, options);
  auto shard = make_loader(source, 8, rank, 2);
  train::FitOptions fit_options;
  fit_options.epochs = 3;
  fit_options.strategy = &strategy;
  const train::History history = train::fit(model, loss, optimizer, *shard, nullptr, fit_options);

  Sequential reference = make_small_model(5);
  SGD reference_optimizer(reference.trainable_parameters(), SGDOptions{0.5});
  auto whole = make_loader(source, 16, 0, 1);
  train::FitOptions plain;
  plain.epochs = 3;
  const train::History expected =
      train::fit(reference, loss, reference_optimizer, *whole, nullptr, plain);
  CHECK(max_parameter_difference(model, reference) < 1e-12);
  REQUIRE(history.epochs.size() == 3);
  CHECK(history.epochs.back().get("loss") ==
        doctest::Approx(expected.epochs.back().get("loss")).epsilon(1e-12));
  CHECK(max_difference_from_rank0(*communicator, model) == 0.0);
}

TEST_CASE("averaging: parameters are the mean of the local SGD runs of the ranks every k steps") {
  auto communicator = world();
  const int rank = communicator->rank();
  const int64_t k = 3;
  BinaryCrossEntropy loss;
  auto source = make_source(96, 8);
  Sequential model = make_small_model(40 + rank);
  SGD optimizer(model.trainable_parameters(), SGDOptions{0.4});
  ParameterAveragingOptions options;
  options.average_every = k;
  ParameterAveraging strategy(communicator, options);
  auto shard = make_loader(source, 8, rank, 2);
  train::FitOptions fit_options;
  fit_options.epochs = 1;  // 6 steps: averages after steps 3 and 6
  fit_options.strategy = &strategy;
  train::fit(model, loss, optimizer, *shard, nullptr, fit_options);
  CHECK(strategy.averages_done() == 2);

  // Replay both ranks' local runs in this process and average by hand.
  Sequential replicas[2] = {make_small_model(40), make_small_model(40)};
  std::unique_ptr<SGD> optimizers[2];
  std::unique_ptr<data::DataLoader> loaders[2];
  for (int r = 0; r < 2; ++r) {
    optimizers[r] = std::make_unique<SGD>(replicas[r].trainable_parameters(), SGDOptions{0.4});
    loaders[r] = make_loader(source, 8, r, 2);
    loaders[r]->start_epoch(0);
  }
  for (int step = 1; step <= 6; ++step) {
    for (int r = 0; r < 2; ++r) {
      auto batch = loaders[r]->next();
      REQUIRE(batch.has_value());
      train::TrainingBatch tensors = train::as_tensors(*batch);
      optimizers[r]->zero_grad();
      loss(train::training_output(replicas[r], loss, Var(tensors.codes)),
           Var(tensors.labels.to(DType::kFloat64)))
          .backward();
      optimizers[r]->step();
    }
    if (step % k == 0) {
      for (size_t i = 0; i < replicas[0].parameters().size(); ++i) {
        const auto a = replicas[0].parameters()[i].value().to_vector<double>();
        const auto b = replicas[1].parameters()[i].value().to_vector<double>();
        std::vector<double> mean(a.size());
        for (size_t j = 0; j < a.size(); ++j) mean[j] = (a[j] + b[j]) / 2.0;
        for (int r = 0; r < 2; ++r) {
          Var parameter = replicas[r].parameters()[i];
          parameter.mutable_value().copy_(Tensor::from_vector(mean, parameter.value().shape()));
        }
      }
    }
  }
  CHECK(max_parameter_difference(model, replicas[0]) < 1e-12);
  CHECK(max_difference_from_rank0(*communicator, model) == 0.0);
}

TEST_CASE("early stopping: every rank stops at the same epoch although shards disagree") {
  auto communicator = world();
  const int rank = communicator->rank();
  BinaryCrossEntropy loss;
  Sequential model = make_small_model(9);
  SGD optimizer(model.trainable_parameters(), SGDOptions{0.5});
  MirroredStrategy strategy(communicator);
  auto train_loader = make_loader(make_source(64, 12), 8, rank, 2);
  // Rank 1 validates on inverted labels: on its own it would see val_loss rise while rank 0
  // sees it fall, and the two would stop at different epochs.
  auto validation = make_loader(make_source(48, 13 + rank, rank == 1), 16, 0, 1, false);
  train::EarlyStoppingOptions stopping;
  stopping.patience = 1;
  auto early_stopping = std::make_shared<train::EarlyStopping>(stopping);
  train::FitOptions options;
  options.epochs = 12;
  options.strategy = &strategy;
  const train::History history = train::fit(model, loss, optimizer, *train_loader, validation.get(),
                                            options, {early_stopping});
  const std::vector<double> epochs =
      communicator->all_gather(std::vector<double>{static_cast<double>(history.epochs.size())});
  CHECK(epochs[0] == epochs[1]);
  const std::vector<double> last_val_loss =
      communicator->all_gather(std::vector<double>{history.epochs.back().get("val_loss")});
  CHECK(last_val_loss[0] == last_val_loss[1]);
  // The local view really does disagree, so the agreement above is the reduction's doing.
  const train::Evaluation local = train::evaluate(model, loss, *validation);
  const std::vector<double> local_losses =
      communicator->all_gather(std::vector<double>{local.loss});
  CHECK(local_losses[0] != local_losses[1]);
  CHECK(max_difference_from_rank0(*communicator, model) == 0.0);
}

TEST_CASE("non-finite loss: one rank's NaN stops every rank before the update") {
  auto communicator = world();
  const int rank = communicator->rank();
  PoisonedLoss loss(rank == 1);
  Sequential model = make_small_model(3);
  SGD optimizer(model.trainable_parameters(), SGDOptions{0.5});
  MirroredStrategy strategy(communicator);
  auto source = make_source(64, 30);
  auto loader = make_loader(source, 8, rank, 2, false);
  const auto directory = std::filesystem::temp_directory_path() / "strand_dist_nan_test";
  if (rank == 0) std::filesystem::remove_all(directory);
  std::vector<std::shared_ptr<train::Callback>> callbacks;
  if (rank == 0) callbacks.push_back(std::make_shared<train::ModelCheckpoint>(directory));
  std::vector<Tensor> before;
  for (const Var& parameter : model.parameters()) before.push_back(parameter.value().clone());
  train::FitOptions options;
  options.epochs = 2;
  options.strategy = &strategy;
  std::string message;
  try {
    train::fit(model, loss, optimizer, *loader, nullptr, options, callbacks);
  } catch (const train::TrainingDiverged& error) {
    message = error.what();
  }
  CHECK(message.find("non-finite on rank(s) 1 (nan) at epoch 1, step 1") != std::string::npos);
  communicator->barrier();
  // The broadcast of rank 0's initial weights happened; no update did, and no checkpoint.
  CHECK(max_difference_from_rank0(*communicator, model) == 0.0);
  for (size_t i = 0; i < before.size(); ++i) {
    if (rank == 0) CHECK(max_abs_difference(before[i], model.parameters()[i].value()) == 0.0);
  }
  if (rank == 0) {
    CHECK_FALSE(std::filesystem::exists(directory / "last.safetensors"));
    CHECK_FALSE(std::filesystem::exists(directory / "best.safetensors"));
  }
}

}  // namespace strand::dist
