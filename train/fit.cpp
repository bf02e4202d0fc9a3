// The fit / evaluate / predict loops.
#include "train/fit.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <memory>
#include <optional>

#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "optim/clipping.h"
#include "tensor/cuda_runtime.h"
#include "tensor/primitive_ops.h"
#include "train/graph_step.h"
#include "train/metrics.h"
#include "train/training_accuracy.h"
#include "train/training_batch.h"

namespace strand::train {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The batch's loss as every rank agrees on it: with a strategy, the mean over ranks, and a
// non-finite loss on any rank stops every rank with the same error (so no rank steps, or
// checkpoints, a diverged model while the others go on). The same all-gather carries each
// rank's stop request: `stop_requested` becomes true on every rank when any rank asked.
// `read_late`: the loss was read after the next step had been queued (on a GPU), so this
// step's update and the next one's have already been applied when it is found.
double agreed_batch_loss(double loss_value, DistributedStrategy* strategy, int64_t epoch,
                         int64_t step_in_epoch, bool read_late, bool& stop_requested) {
  const char* when = read_late ? "read one step late on the GPU: this step's update and the "
                                 "next one's were applied, and no later checkpoint is written"
                               : "before the update";
  if (strategy == nullptr) {
    if (!std::isfinite(loss_value)) {
      throw TrainingDiverged(
          fmt::format("training loss became {} at epoch {}, step {} ({}): lower the learning "
                      "rate or check the labels",
                      loss_value, epoch + 1, step_in_epoch + 1, when));
    }
    return loss_value;
  }
  // (loss, stop request) per rank, in rank order.
  const double mine[2] = {loss_value, stop_requested ? 1.0 : 0.0};
  const std::vector<double> gathered = strategy->all_gather(std::span<const double>(mine, 2));
  const size_t ranks = gathered.size() / 2;
  std::string bad_ranks;
  double mean = 0.0;
  stop_requested = false;
  for (size_t r = 0; r < ranks; ++r) {
    const double loss = gathered[2 * r];
    mean += loss / static_cast<double>(ranks);
    stop_requested = stop_requested || gathered[2 * r + 1] != 0.0;
    if (!std::isfinite(loss)) {
      bad_ranks += fmt::format("{}{} ({})", bad_ranks.empty() ? "" : ", ", r, loss);
    }
  }
  if (!bad_ranks.empty()) {
    throw TrainingDiverged(
        fmt::format("training loss became non-finite on rank(s) {} at epoch {}, step {}: every "
                    "rank stops ({}); lower the learning rate or check the labels",
                    bad_ranks, epoch + 1, step_in_epoch + 1, when));
  }
  return mean;
}

// The loss of a step, read on the host when it gets to it, and the logs that step completes.
struct PendingLoss {
  std::function<Tensor()> read;  // empty: no step pending
  BatchLogs logs;
};

// What an epoch has summed so far; a resumed epoch's figures are carried into it.
struct EpochState {
  int64_t epoch = 0;
  std::chrono::steady_clock::time_point start;
  PartialEpoch before;  // what a resumed epoch had done before this call
  double loss_sum = 0.0;
  int64_t samples = 0;
  int64_t correct_before = 0;
  int64_t labelled_before = 0;
  int64_t samples_this_call = 0;
  int64_t step_in_epoch = 0;
  bool interrupted = false;
  // The step whose loss is still to be read (on a GPU: see FitRun::read_loss_late_).
  PendingLoss pending;
};

// An epoch's figures over every rank.
struct EpochTotals {
  double loss_sum = 0.0;
  int64_t samples = 0;
  int64_t correct = 0;
  int64_t labelled = 0;
  double seconds = 0.0;
};

// One call of fit(): the state its epochs and steps share. run() is the loop of epochs,
// run_epoch() one epoch's steps, train_step() one step, epoch_logs() its logs and evaluation.
class FitRun {
 public:
  FitRun(Model& model, const Objective& objective, Optimizer& optimizer, data::DataLoader& train,
         data::DataLoader* validation, const FitOptions& options,
         const std::vector<std::shared_ptr<Callback>>& callbacks);

  History run();

 private:
  void check_resumed() const;
  bool stop_now() const;
  void apply_update();
  void count_accuracy(const std::vector<Var>& outputs, const TrainingBatch& tensors);
  void plan_cuda_batches();
  void prepare_graph();
  void run_epochs();
  void run_epoch(int64_t epoch);
  EpochState start_epoch(int64_t epoch);
  bool train_step(EpochState& state);
  PendingLoss eager_step(const data::Batch& batch, const EpochState& state, double& local_loss);
  void finish_step(EpochState& state, PendingLoss& step);
  EpochTotals epoch_totals(const EpochState& state);
  void interrupt(const EpochState& state, const EpochTotals& totals);
  EpochLogs epoch_logs(int64_t epoch, const EpochTotals& totals);

  Model& model_;
  const Objective& objective_;
  Optimizer& optimizer_;
  data::DataLoader& train_;
  data::DataLoader* validation_;
  const FitOptions& options_;
  const std::vector<std::shared_ptr<Callback>>& callbacks_;
  FitContext context_;
  const std::vector<size_t> bound_;
  // Training accuracy is counted for a first term on binary labels, on what its loss sees:
  // logits (threshold 0) or probabilities (0.5).
  const LossTerm& first_term_;
  const bool counts_accuracy_;
  const bool first_takes_logits_;
  History history_;
  const std::chrono::steady_clock::time_point train_start_;
  int64_t global_step_;
  DistributedStrategy* strategy_;
  const Device device_;
  // With a strategy, ranks stop together on what the last step's all-gather agreed.
  bool stop_agreed_ = false;
  // Training accuracy stays on the model's device: (correct, counted) summed over an epoch,
  // read once at its end; the same buffers for every epoch (a captured step adds into them).
  TrainingAccuracy accuracy_;
  // Single-GPU training replays its steps from a CUDA graph (train/graph_step.h). Dropout
  // then reads the step from a device scalar written before each step, and every step zeroes
  // the gradients in place (the graph holds on to their buffers).
  std::unique_ptr<CudaGraphStep> graph_;
  Tensor device_step_;  // (1) int64: the step Dropout's masks follow, in graph mode
  GradReset grad_reset_ = GradReset::kDrop;
  // The host reads each step's loss (for the logs, the divergence check and the agreed
  // stop). On a GPU that read would stall the stream, so it happens one step late: step
  // k's loss is copied to pinned memory behind an event and read after step k+1 has been
  // queued. A diverged step is then caught one step later, still before any checkpoint.
  // What changes a step (the learning rate: on_batch_begin) is set before it is queued.
  const bool read_loss_late_;
};

FitRun::FitRun(Model& model, const Objective& objective, Optimizer& optimizer,
               data::DataLoader& train, data::DataLoader* validation, const FitOptions& options,
               const std::vector<std::shared_ptr<Callback>>& callbacks)
    : model_(model),
      objective_(objective),
      optimizer_(optimizer),
      train_(train),
      validation_(validation),
      options_(options),
      callbacks_(callbacks),
      context_{model, optimizer, false, options.epochs, train.steps_per_epoch()},
      bound_(objective.bind(model)),
      first_term_(objective.terms().front()),
      counts_accuracy_(objective.has_training_accuracy()),
      first_takes_logits_(first_term_.loss->applies_activation() == Activation::kSigmoid &&
                          model.output_activation(bound_.front()) == Activation::kSigmoid),
      train_start_(std::chrono::steady_clock::now()),
      global_step_(options.initial_global_step),
      strategy_(options.strategy),
      device_(model_device(model)),
      accuracy_(device_, first_takes_logits_ ? 0.0 : kDefaultThreshold),
      read_loss_late_(device_.is_cuda()) {
  check_resumed();
}

void FitRun::check_resumed() const {
  const std::optional<PartialEpoch>& resumed = options_.partial_epoch;
  STRAND_CHECK(!resumed || (resumed->epoch == options_.initial_epoch &&
                            resumed->global_step == options_.initial_global_step &&
                            resumed->steps <= train_.steps_per_epoch()),
               "fit: the partial epoch (epoch {}, {} steps, global step {}) does not continue "
               "initial_epoch {} at global step {} with {} steps per epoch",
               resumed ? resumed->epoch : 0, resumed ? resumed->steps : 0,
               resumed ? resumed->global_step : 0, options_.initial_epoch,
               options_.initial_global_step, train_.steps_per_epoch());
}

bool FitRun::stop_now() const {
  if (strategy_ != nullptr) return stop_agreed_;
  return options_.should_stop && options_.should_stop();
}

// The update every step applies after its backward pass (and, with a strategy, after the
// all-reduce: every rank clips the same averaged gradients alike).
void FitRun::apply_update() {
  if (options_.clip_grad_norm > 0.0)
    clip_grad_norm(optimizer_.parameters(), options_.clip_grad_norm);
  optimizer_.step();
  if (options_.max_weight_norm > 0.0) {
    for (const Var& parameter : optimizer_.parameters()) {
      if (parameter.dim() >= 2) apply_max_norm(parameter, options_.max_weight_norm);
    }
  }
}

void FitRun::count_accuracy(const std::vector<Var>& outputs, const TrainingBatch& tensors) {
  if (!counts_accuracy_) return;
  accuracy_.add(term_input(outputs[bound_.front()], model_.output_activation(bound_.front()),
                           *first_term_.loss)
                    .value(),
                tensors);
}

// Every batch size of the run (an epoch's last, smaller batch; the validation batches) is
// chosen and planned by the conv engine in the first step, the warm-up: no timed choice or
// cuDNN search later.
void FitRun::plan_cuda_batches() {
  if (!device_.is_cuda()) return;
  CudaRuntime& runtime = cuda_runtime();
  runtime.plan_conv_batch_sizes(train_.batch_sizes(), true);
  if (validation_ != nullptr) runtime.plan_conv_batch_sizes(validation_->batch_sizes(), false);
}

void FitRun::prepare_graph() {
  if (!(options_.cuda_graph && device_.is_cuda() && strategy_ == nullptr)) return;
  graph_ = std::make_unique<CudaGraphStep>(
      device_, optimizer_, [this](const TrainingBatch& tensors, Tensor& loss_out) {
        optimizer_.zero_grad(GradReset::kZeroInPlace);
        const std::vector<Var> outputs = model_.forward_outputs(tensors.inputs());
        const Var batch_loss_value = objective_.loss(model_, bound_, outputs, tensors);
        if (!loss_out.defined()) {
          loss_out = Tensor::empty(batch_loss_value.shape(), batch_loss_value.dtype(), device_);
        }
        loss_out.copy_(batch_loss_value.value());
        batch_loss_value.backward();
        apply_update();
        count_accuracy(outputs, tensors);
      });
  device_step_ = Tensor::zeros({1}, DType::kInt64, device_);
  model_.set_step_tensor(device_step_);
  grad_reset_ = GradReset::kZeroInPlace;
}

History FitRun::run() {
  plan_cuda_batches();
  prepare_graph();
  // Dropout goes back to its own step count when fit() returns or throws.
  struct DeviceStepRelease {
    Model& model;
    bool held;
    ~DeviceStepRelease() {
      if (held) model.set_step_tensor(Tensor());
    }
  } device_step_release{model_, device_step_.defined()};
  if (strategy_ != nullptr) strategy_->on_train_begin(model_.parameters(), optimizer_);
  try {
    run_epochs();
  } catch (const TrainingDiverged&) {
    throw;  // every rank agreed on it and throws it together
  } catch (const std::exception& error) {
    // Only this rank failed: its peers would wait for it in the next collective.
    if (strategy_ != nullptr) strategy_->on_local_failure(error.what());
    throw;
  }
  if (strategy_ != nullptr) strategy_->on_train_end();
  history_.seconds = seconds_since(train_start_);
  if (graph_ != nullptr) history_.replayed_steps = graph_->replays();
  return std::move(history_);
}

void FitRun::run_epochs() {
  for (auto& callback : callbacks_) callback->on_train_begin(context_);
  for (int64_t epoch = options_.initial_epoch;
       epoch < options_.epochs && !context_.stop_training && !history_.interrupted; ++epoch) {
    run_epoch(epoch);
  }
  history_.stopped_early = context_.stop_training;
  if (!history_.interrupted) {
    for (auto& callback : callbacks_) callback->on_train_end(context_);
  }
}

void FitRun::run_epoch(int64_t epoch) {
  model_.train();
  for (auto& callback : callbacks_) callback->on_epoch_begin(context_, epoch);
  EpochState state = start_epoch(epoch);
  while (train_step(state)) {
  }
  if (state.pending.read) finish_step(state, state.pending);
  const EpochTotals totals = epoch_totals(state);
  if (state.interrupted) {
    interrupt(state, totals);
    return;
  }
  const EpochLogs logs = epoch_logs(epoch, totals);
  history_.epochs.push_back(logs);
  for (auto& callback : callbacks_) callback->on_epoch_end(context_, logs);
}

EpochState FitRun::start_epoch(int64_t epoch) {
  EpochState state;
  state.epoch = epoch;
  state.start = std::chrono::steady_clock::now();
  // What a resumed epoch had done before; rank 0 alone carries its sums (the saved ones are
  // every rank's), continuing them as the uninterrupted run would have.
  state.before.epoch = epoch;
  if (options_.partial_epoch && epoch == options_.initial_epoch) {
    state.before = *options_.partial_epoch;
  }
  const bool carries_before = strategy_ == nullptr || strategy_->rank() == 0;
  train_.start_epoch(static_cast<uint64_t>(epoch), state.before.steps);
  state.loss_sum = carries_before ? state.before.loss_sum : 0.0;
  state.samples = carries_before ? state.before.samples : 0;
  state.correct_before = carries_before ? state.before.correct : 0;
  state.labelled_before = carries_before ? state.before.labelled : 0;
  accuracy_.reset();
  state.step_in_epoch = state.before.steps;
  return state;
}

// One step of the epoch; false when the epoch is over (no batch left, or a stop request:
// state.interrupted).
bool FitRun::train_step(EpochState& state) {
  if (stop_now()) {
    state.interrupted = true;
    return false;
  }
  std::optional<data::Batch> batch = train_.next();
  if (!batch) return false;
  const BatchStart start{state.epoch, state.step_in_epoch, global_step_};
  for (auto& callback : callbacks_) callback->on_batch_begin(context_, start);
  model_.set_step(global_step_);  // Dropout's masks follow the step: a resume repeats them
  if (device_step_.defined()) device_step_.fill_(static_cast<double>(global_step_));
  // The graph's shapes come from a full batch: not an epoch's last (maybe smaller) one,
  // unless the epoch has a single batch.
  const bool last_of_epoch = state.step_in_epoch + 1 == train_.steps_per_epoch();
  const bool replayed = graph_ != nullptr &&
                        (graph_->shapes_fixed() ? graph_->fits(*batch)
                                                : !last_of_epoch || train_.steps_per_epoch() == 1);
  PendingLoss step;
  double local_loss = NAN;
  if (replayed) {
    step.read = dispatch<StartHostReadOp>(device_, graph_->run(*batch));
  } else {
    step = eager_step(*batch, state, local_loss);
  }
  ++global_step_;
  state.samples += batch->size;
  state.samples_this_call += batch->size;
  step.logs = BatchLogs{
      state.epoch,
      state.step_in_epoch,
      train_.steps_per_epoch(),
      global_step_,
      batch->size,
      step.logs.loss,
      static_cast<double>(state.samples_this_call) / std::max(seconds_since(state.start), 1e-9)};
  if (state.pending.read) finish_step(state, state.pending);
  state.pending = PendingLoss{};
  if (read_loss_late_) {
    state.pending = std::move(step);
  } else {
    state.loss_sum += local_loss * static_cast<double>(batch->size);
    for (auto& callback : callbacks_) callback->on_batch_end(context_, step.logs);
  }
  ++state.step_in_epoch;
  return true;
}

// A step run op by op (not replayed from the graph). Off the GPU its loss is read here, into
// `local_loss` and the returned logs.
PendingLoss FitRun::eager_step(const data::Batch& batch, const EpochState& state,
                               double& local_loss) {
  PendingLoss step;
  const TrainingBatch tensors = as_device_tensors(batch, device_);
  optimizer_.zero_grad(grad_reset_);
  const std::vector<Var> outputs = model_.forward_outputs(tensors.inputs());
  Var batch_loss_value = objective_.loss(model_, bound_, outputs, tensors);
  step.read = dispatch<StartHostReadOp>(device_, batch_loss_value.value());
  if (!read_loss_late_) {
    // The loss is on the host already: check it (and agree on stopping) before the update.
    local_loss = step.read().item();
    if (strategy_ != nullptr) stop_agreed_ = options_.should_stop && options_.should_stop();
    step.logs.loss = agreed_batch_loss(local_loss, strategy_, state.epoch, state.step_in_epoch,
                                       false, stop_agreed_);
  }
  if (strategy_ != nullptr) strategy_->before_backward();
  batch_loss_value.backward();
  if (strategy_ != nullptr) strategy_->finish_gradients();
  apply_update();
  if (strategy_ != nullptr) strategy_->after_step();
  count_accuracy(outputs, tensors);
  return step;
}

// Reads a step's loss (one step late, on a GPU), checks it and hands its logs on.
void FitRun::finish_step(EpochState& state, PendingLoss& step) {
  const double local_loss = step.read().item();
  if (strategy_ != nullptr) stop_agreed_ = options_.should_stop && options_.should_stop();
  step.logs.loss = agreed_batch_loss(local_loss, strategy_, state.epoch, step.logs.step_in_epoch,
                                     read_loss_late_, stop_agreed_);
  state.loss_sum += local_loss * static_cast<double>(step.logs.batch_size);
  for (auto& callback : callbacks_) callback->on_batch_end(context_, step.logs);
}

EpochTotals FitRun::epoch_totals(const EpochState& state) {
  EpochTotals totals;
  totals.seconds = seconds_since(state.start) + state.before.seconds;
  const auto [correct_here, counted_here] = accuracy_.totals();
  totals.loss_sum = state.loss_sum;
  totals.samples = state.samples;
  totals.correct = state.correct_before + std::llround(correct_here);
  totals.labelled = state.labelled_before + std::llround(counted_here);
  if (strategy_ != nullptr) {
    // Every rank logs the same epoch figures: sums over all shards.
    const std::vector<double> sums =
        strategy_->sum({totals.loss_sum, static_cast<double>(totals.samples),
                        static_cast<double>(totals.correct), static_cast<double>(totals.labelled)});
    totals.loss_sum = sums[0];
    totals.samples = static_cast<int64_t>(sums[1]);
    totals.correct = static_cast<int64_t>(sums[2]);
    totals.labelled = static_cast<int64_t>(sums[3]);
  }
  return totals;
}

// A stop request ended the epoch: where it stopped, for the callbacks (a checkpoint) and
// History::interrupted.
void FitRun::interrupt(const EpochState& state, const EpochTotals& totals) {
  PartialEpoch partial;
  partial.epoch = state.epoch;
  partial.steps = state.step_in_epoch;
  partial.global_step = global_step_;
  partial.loss_sum = totals.loss_sum;
  partial.samples = totals.samples;
  partial.correct = totals.correct;
  partial.labelled = totals.labelled;
  partial.seconds = totals.seconds;
  for (auto& callback : callbacks_) callback->on_train_interrupted(context_, partial);
  history_.interrupted = partial;
}

// The epoch's logs, with the validation figures ("val_" prefix) when there is a validation
// set.
EpochLogs FitRun::epoch_logs(int64_t epoch, const EpochTotals& totals) {
  EpochLogs logs;
  logs.epoch = epoch;
  logs.global_step = global_step_;
  if (counts_accuracy_) {
    logs.values["accuracy"] = totals.labelled > 0 ? static_cast<double>(totals.correct) /
                                                        static_cast<double>(totals.labelled)
                                                  : NAN;
  }
  if (strategy_ != nullptr) strategy_->on_epoch_end();
  logs.values["loss"] =
      totals.samples > 0 ? totals.loss_sum / static_cast<double>(totals.samples) : NAN;
  logs.values["learning_rate"] = optimizer_.learning_rate();
  logs.values["samples_per_second"] =
      static_cast<double>(totals.samples) / std::max(totals.seconds, 1e-9);
  logs.values["epoch_seconds"] = totals.seconds;
  if (validation_ != nullptr) {
    const Evaluation result = evaluate(model_, objective_, *validation_, strategy_);
    for (const auto& [key, value] : result.values) logs.values["val_" + key] = value;
  }
  return logs;
}

}  // namespace

double EpochLogs::get(const std::string& key) const {
  auto it = values.find(key);
  STRAND_CHECK(it != values.end(), "epoch {} has no value '{}'", epoch, key);
  return it->second;
}

History fit(Model& model, const Objective& objective, Optimizer& optimizer, data::DataLoader& train,
            data::DataLoader* validation, const FitOptions& options,
            const std::vector<std::shared_ptr<Callback>>& callbacks) {
  return FitRun(model, objective, optimizer, train, validation, options, callbacks).run();
}

History fit(Model& model, const Loss& loss, Optimizer& optimizer, data::DataLoader& train,
            data::DataLoader* validation, const FitOptions& options,
            const std::vector<std::shared_ptr<Callback>>& callbacks) {
  return fit(model, Objective::of(loss), optimizer, train, validation, options, callbacks);
}

void predict_batches(Model& model, data::DataLoader& loader, size_t output,
                     const std::function<void(const PredictionBatch&)>& consume) {
  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const std::vector<std::string> names = model.output_names();
  STRAND_CHECK(output < names.size(), "predict: the model has {} output(s), not {}", names.size(),
               output + 1);
  const Device device = model_device(model);
  loader.start_epoch(0);
  while (auto batch = loader.next()) {
    const TrainingBatch host = as_tensors(*batch);
    const TrainingBatch tensors = host.to(device);
    const std::vector<Var> outputs = model.forward_outputs(tensors.inputs());
    const Tensor scores = apply_activation(model.output_activation(output), outputs.at(output))
                              .value()
                              .to(Device::cpu())
                              .to(DType::kFloat32)
                              .contiguous();
    STRAND_CHECK(scores.dim() >= 1 && scores.size(0) == batch->size,
                 "predict: output '{}' is {}, expected one row per example", names[output],
                 scores.describe());
    PredictionBatch out;
    out.scores = scores.data<float>();
    out.sample_index = batch->sample_index;
    out.labels = host.labels.data<float>();
    out.rows = batch->size;
    out.targets = scores.numel() / batch->size;
    out.labels_per_row = host.labels.numel() / batch->size;
    consume(out);
  }
  model.train(was_training);
}

Predictions predict(Model& model, data::DataLoader& loader, size_t output) {
  Predictions out;
  predict_batches(model, loader, output, [&out](const PredictionBatch& batch) {
    out.num_targets = batch.targets;
    out.scores.insert(out.scores.end(), batch.scores, batch.scores + batch.rows * batch.targets);
    out.labels.insert(out.labels.end(), batch.labels,
                      batch.labels + batch.rows * batch.labels_per_row);
    out.sample_index.insert(out.sample_index.end(), batch.sample_index,
                            batch.sample_index + batch.rows);
  });
  return out;
}

}  // namespace strand::train
