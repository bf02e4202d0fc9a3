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

}  // namespace

double EpochLogs::get(const std::string& key) const {
  auto it = values.find(key);
  STRAND_CHECK(it != values.end(), "epoch {} has no value '{}'", epoch, key);
  return it->second;
}

History fit(Model& model, const Objective& objective, Optimizer& optimizer, data::DataLoader& train,
            data::DataLoader* validation, const FitOptions& options,
            const std::vector<std::shared_ptr<Callback>>& callbacks) {
  FitContext context{model, optimizer, false, options.epochs, train.steps_per_epoch()};
  const std::vector<size_t> bound = objective.bind(model);
  // Training accuracy is counted for a first term on binary labels, on what its loss sees:
  // logits (threshold 0) or probabilities (0.5).
  const LossTerm& first_term = objective.terms().front();
  const bool counts_accuracy = objective.has_training_accuracy();
  const bool first_takes_logits = first_term.loss->applies_activation() == Activation::kSigmoid &&
                                  model.output_activation(bound.front()) == Activation::kSigmoid;
  History history;
  const auto train_start = std::chrono::steady_clock::now();
  int64_t global_step = options.initial_global_step;
  DistributedStrategy* strategy = options.strategy;
  const Device device = model_device(model);
  const std::optional<PartialEpoch>& resumed = options.partial_epoch;
  STRAND_CHECK(!resumed || (resumed->epoch == options.initial_epoch &&
                            resumed->global_step == options.initial_global_step &&
                            resumed->steps <= train.steps_per_epoch()),
               "fit: the partial epoch (epoch {}, {} steps, global step {}) does not continue "
               "initial_epoch {} at global step {} with {} steps per epoch",
               resumed ? resumed->epoch : 0, resumed ? resumed->steps : 0,
               resumed ? resumed->global_step : 0, options.initial_epoch,
               options.initial_global_step, train.steps_per_epoch());
  // With a strategy, ranks stop together on what the last step's all-gather agreed.
  bool stop_agreed = false;
  const auto stop_now = [&] {
    if (strategy != nullptr) return stop_agreed;
    return options.should_stop && options.should_stop();
  };
  // The update every step applies after its backward pass (and, with a strategy, after the
  // all-reduce: every rank clips the same averaged gradients alike).
  const auto apply_update = [&] {
    if (options.clip_grad_norm > 0.0)
      clip_grad_norm(optimizer.parameters(), options.clip_grad_norm);
    optimizer.step();
    if (options.max_weight_norm > 0.0) {
      for (const Var& parameter : optimizer.parameters()) {
        if (parameter.dim() >= 2) apply_max_norm(parameter, options.max_weight_norm);
      }
    }
  };
  // Training accuracy stays on the model's device: (correct, counted) summed over an epoch,
  // read once at its end; the same buffers for every epoch (a captured step adds into them).
  TrainingAccuracy accuracy(device, first_takes_logits ? 0.0 : kDefaultThreshold);
  const auto count_accuracy = [&](const std::vector<Var>& outputs, const TrainingBatch& tensors) {
    if (!counts_accuracy) return;
    accuracy.add(
        term_input(outputs[bound.front()], model.output_activation(bound.front()), *first_term.loss)
            .value(),
        tensors);
  };
  if (device.is_cuda()) {
    // Every batch size of the run (an epoch's last, smaller batch; the validation batches) is
    // chosen and planned by the conv engine in the first step, the warm-up: no timed choice
    // or cuDNN search later.
    CudaRuntime& runtime = cuda_runtime();
    runtime.plan_conv_batch_sizes(train.batch_sizes(), true);
    if (validation != nullptr) runtime.plan_conv_batch_sizes(validation->batch_sizes(), false);
  }
  // Single-GPU training replays its steps from a CUDA graph (train/graph_step.h). Dropout
  // then reads the step from a device scalar written before each step, and every step zeroes
  // the gradients in place (the graph holds on to their buffers).
  std::unique_ptr<CudaGraphStep> graph;
  Tensor device_step;  // (1) int64: the step Dropout's masks follow, in graph mode
  if (options.cuda_graph && device.is_cuda() && strategy == nullptr) {
    graph = std::make_unique<CudaGraphStep>(
        device, optimizer, [&](const TrainingBatch& tensors, Tensor& loss_out) {
          optimizer.zero_grad(GradReset::kZeroInPlace);
          const std::vector<Var> outputs = model.forward_outputs(tensors.inputs());
          const Var batch_loss_value = objective.loss(model, bound, outputs, tensors);
          if (!loss_out.defined()) {
            loss_out = Tensor::empty(batch_loss_value.shape(), batch_loss_value.dtype(), device);
          }
          loss_out.copy_(batch_loss_value.value());
          batch_loss_value.backward();
          apply_update();
          count_accuracy(outputs, tensors);
        });
    device_step = Tensor::zeros({1}, DType::kInt64, device);
    model.set_step_tensor(device_step);
  }
  const GradReset grad_reset = graph != nullptr ? GradReset::kZeroInPlace : GradReset::kDrop;
  // Dropout goes back to its own step count when fit() returns or throws.
  struct DeviceStepRelease {
    Model& model;
    bool held;
    ~DeviceStepRelease() {
      if (held) model.set_step_tensor(Tensor());
    }
  } device_step_release{model, device_step.defined()};
  if (strategy != nullptr) strategy->on_train_begin(model.parameters(), optimizer);
  try {
    for (auto& callback : callbacks) callback->on_train_begin(context);
    for (int64_t epoch = options.initial_epoch; epoch < options.epochs && !context.stop_training;
         ++epoch) {
      model.train();
      for (auto& callback : callbacks) callback->on_epoch_begin(context, epoch);
      const auto epoch_start = std::chrono::steady_clock::now();
      // What a resumed epoch had done before; rank 0 alone carries its sums (the saved ones
      // are every rank's), continuing them as the uninterrupted run would have.
      PartialEpoch before;
      before.epoch = epoch;
      if (resumed && epoch == options.initial_epoch) before = *resumed;
      const bool carries_before = strategy == nullptr || strategy->rank() == 0;
      train.start_epoch(static_cast<uint64_t>(epoch), before.steps);
      double loss_sum = carries_before ? before.loss_sum : 0.0;
      int64_t samples = carries_before ? before.samples : 0;
      const int64_t correct_before = carries_before ? before.correct : 0;
      const int64_t labelled_before = carries_before ? before.labelled : 0;
      int64_t samples_this_call = 0;
      accuracy.reset();
      int64_t step_in_epoch = before.steps;
      bool interrupted = false;
      // The host reads each step's loss (for the logs, the divergence check and the agreed
      // stop). On a GPU that read would stall the stream, so it happens one step late: step
      // k's loss is copied to pinned memory behind an event and read after step k+1 has been
      // queued. A diverged step is then caught one step later, still before any checkpoint.
      // What changes a step (the learning rate: on_batch_begin) is set before it is queued.
      const bool read_loss_late = device.is_cuda();
      struct PendingLoss {
        std::function<Tensor()> read;
        BatchLogs logs;
      };
      PendingLoss pending;  // the step whose loss is still to be read; `read` empty when none
      const auto finish_step = [&](PendingLoss& step) {
        const double local_loss = step.read().item();
        if (strategy != nullptr) stop_agreed = options.should_stop && options.should_stop();
        step.logs.loss = agreed_batch_loss(local_loss, strategy, epoch, step.logs.step_in_epoch,
                                           read_loss_late, stop_agreed);
        loss_sum += local_loss * static_cast<double>(step.logs.batch_size);
        for (auto& callback : callbacks) callback->on_batch_end(context, step.logs);
      };
      while (true) {
        if (stop_now()) {
          interrupted = true;
          break;
        }
        std::optional<data::Batch> batch = train.next();
        if (!batch) break;
        const BatchStart start{epoch, step_in_epoch, global_step};
        for (auto& callback : callbacks) callback->on_batch_begin(context, start);
        model.set_step(global_step);  // Dropout's masks follow the step: a resume repeats them
        if (device_step.defined()) device_step.fill_(static_cast<double>(global_step));
        // The graph's shapes come from a full batch: not an epoch's last (maybe smaller) one,
        // unless the epoch has a single batch.
        const bool last_of_epoch = step_in_epoch + 1 == train.steps_per_epoch();
        const bool replayed =
            graph != nullptr &&
            (graph->shapes_fixed() ? graph->fits(*batch)
                                   : !last_of_epoch || train.steps_per_epoch() == 1);
        PendingLoss step;
        double local_loss = NAN;
        if (replayed) {
          step.read = dispatch<StartHostReadOp>(device, graph->run(*batch));
        } else {
          const TrainingBatch tensors = as_device_tensors(*batch, device);
          optimizer.zero_grad(grad_reset);
          const std::vector<Var> outputs = model.forward_outputs(tensors.inputs());
          Var batch_loss_value = objective.loss(model, bound, outputs, tensors);
          step.read = dispatch<StartHostReadOp>(device, batch_loss_value.value());
          if (!read_loss_late) {
            // The loss is on the host already: check it (and agree on stopping) before the
            // update.
            local_loss = step.read().item();
            if (strategy != nullptr) stop_agreed = options.should_stop && options.should_stop();
            step.logs.loss =
                agreed_batch_loss(local_loss, strategy, epoch, step_in_epoch, false, stop_agreed);
          }
          if (strategy != nullptr) strategy->before_backward();
          batch_loss_value.backward();
          if (strategy != nullptr) strategy->finish_gradients();
          apply_update();
          if (strategy != nullptr) strategy->after_step();
          count_accuracy(outputs, tensors);
        }
        ++global_step;
        samples += batch->size;
        samples_this_call += batch->size;
        step.logs = BatchLogs{
            epoch,
            step_in_epoch,
            train.steps_per_epoch(),
            global_step,
            batch->size,
            step.logs.loss,
            static_cast<double>(samples_this_call) / std::max(seconds_since(epoch_start), 1e-9)};
        if (pending.read) finish_step(pending);
        pending = PendingLoss{};
        if (read_loss_late) {
          pending = std::move(step);
        } else {
          loss_sum += local_loss * static_cast<double>(batch->size);
          for (auto& callback : callbacks) callback->on_batch_end(context, step.logs);
        }
        ++step_in_epoch;
      }
      if (pending.read) finish_step(pending);
      const double epoch_seconds = seconds_since(epoch_start) + before.seconds;
      const auto [correct_here, counted_here] = accuracy.totals();
      int64_t correct = correct_before + std::llround(correct_here);
      int64_t labelled = labelled_before + std::llround(counted_here);
      if (strategy != nullptr) {
        // Every rank logs the same epoch figures: sums over all shards.
        const std::vector<double> totals =
            strategy->sum({loss_sum, static_cast<double>(samples), static_cast<double>(correct),
                           static_cast<double>(labelled)});
        loss_sum = totals[0];
        samples = static_cast<int64_t>(totals[1]);
        correct = static_cast<int64_t>(totals[2]);
        labelled = static_cast<int64_t>(totals[3]);
      }
      if (interrupted) {
        PartialEpoch partial;
        partial.epoch = epoch;
        partial.steps = step_in_epoch;
        partial.global_step = global_step;
        partial.loss_sum = loss_sum;
        partial.samples = samples;
        partial.correct = correct;
        partial.labelled = labelled;
        partial.seconds = epoch_seconds;
        for (auto& callback : callbacks) callback->on_train_interrupted(context, partial);
        history.interrupted = partial;
        break;
      }
      EpochLogs logs;
      logs.epoch = epoch;
      logs.global_step = global_step;
      if (counts_accuracy) {
        logs.values["accuracy"] =
            labelled > 0 ? static_cast<double>(correct) / static_cast<double>(labelled) : NAN;
      }
      if (strategy != nullptr) strategy->on_epoch_end();
      logs.values["loss"] = samples > 0 ? loss_sum / static_cast<double>(samples) : NAN;
      logs.values["learning_rate"] = optimizer.learning_rate();
      logs.values["samples_per_second"] =
          static_cast<double>(samples) / std::max(epoch_seconds, 1e-9);
      logs.values["epoch_seconds"] = epoch_seconds;
      if (validation != nullptr) {
        const Evaluation result = evaluate(model, objective, *validation, strategy);
        for (const auto& [key, value] : result.values) logs.values["val_" + key] = value;
      }
      history.epochs.push_back(logs);
      for (auto& callback : callbacks) callback->on_epoch_end(context, logs);
    }
    history.stopped_early = context.stop_training;
    if (!history.interrupted) {
      for (auto& callback : callbacks) callback->on_train_end(context);
    }
  } catch (const TrainingDiverged&) {
    throw;  // every rank agreed on it and throws it together
  } catch (const std::exception& error) {
    // Only this rank failed: its peers would wait for it in the next collective.
    if (strategy != nullptr) strategy->on_local_failure(error.what());
    throw;
  }
  if (strategy != nullptr) strategy->on_train_end();
  history.seconds = seconds_since(train_start);
  if (graph != nullptr) history.replayed_steps = graph->replays();
  return history;
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
