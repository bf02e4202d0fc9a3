// The fit / evaluate / predict loops.
#include "train/fit.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <optional>

#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "layers/activations.h"
#include "tensor/ops.h"
#include "train/metrics.h"
#include "train/training_accuracy.h"
#include "train/training_batch.h"

namespace strand::train {
namespace {

// Where the model's parameters live: batches go there before the forward pass.
Device model_device(const Sequential& model) {
  const std::vector<Var> parameters = model.parameters();
  return parameters.empty() ? Device::cpu() : parameters.front().device();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool ends_in_sigmoid(const Sequential& model) {
  return model.size() > 0 && dynamic_cast<const Sigmoid*>(model.layer(model.size() - 1).get());
}

// The loss of one batch; BCE honours the label mask (ambiguous labels carry no loss).
Var batch_loss(const Loss& loss, const Var& output, const TrainingBatch& batch) {
  const Var targets(batch.labels.to(output.dtype()));
  if (dynamic_cast<const BinaryCrossEntropy*>(&loss)) {
    return bce_with_logits(output, targets, batch.label_mask);
  }
  return loss(output, targets);
}

void check_output_shape(const Var& output, const TrainingBatch& batch) {
  STRAND_CHECK(output.shape() == batch.labels.shape(),
               "the model's output {} does not match the labels {}: the last layer must have "
               "one unit per target",
               output.value().describe(), batch.labels.describe());
}

// The batch's loss as every rank agrees on it: with a strategy, the mean over ranks, and a
// non-finite loss on any rank stops every rank with the same error (so no rank steps, or
// checkpoints, a diverged model while the others go on).
double agreed_batch_loss(double loss_value, DistributedStrategy* strategy, int64_t epoch,
                         int64_t step_in_epoch) {
  if (strategy == nullptr) {
    if (!std::isfinite(loss_value)) {
      throw TrainingDiverged(
          fmt::format("training loss became {} at epoch {}, step {}: lower the learning rate or "
                      "check the labels",
                      loss_value, epoch + 1, step_in_epoch + 1));
    }
    return loss_value;
  }
  const std::vector<double> losses = strategy->all_gather(std::span<const double>(&loss_value, 1));
  std::string bad_ranks;
  double mean = 0.0;
  for (size_t r = 0; r < losses.size(); ++r) {
    mean += losses[r] / static_cast<double>(losses.size());
    if (!std::isfinite(losses[r])) {
      bad_ranks += fmt::format("{}{} ({})", bad_ranks.empty() ? "" : ", ", r, losses[r]);
    }
  }
  if (!bad_ranks.empty()) {
    throw TrainingDiverged(
        fmt::format("training loss became non-finite on rank(s) {} at epoch {}, step {}: every "
                    "rank stops before the update; lower the learning rate or check the labels",
                    bad_ranks, epoch + 1, step_in_epoch + 1));
  }
  return mean;
}

}  // namespace

double EpochLogs::get(const std::string& key) const {
  auto it = values.find(key);
  STRAND_CHECK(it != values.end(), "epoch {} has no value '{}'", epoch, key);
  return it->second;
}

Var training_output(Sequential& model, const Loss& loss, const Var& input) {
  if (loss.takes_logits() && ends_in_sigmoid(model)) {
    return model.forward_layers(input, model.size() - 1);
  }
  STRAND_CHECK(!loss.takes_logits(),
               "loss '{}' expects logits: end the model in Sigmoid (skipped while training) or "
               "in a layer producing raw scores",
               loss.name());
  return model.forward(input);
}

History fit(Sequential& model, const Loss& loss, Optimizer& optimizer, data::DataLoader& train,
            data::DataLoader* validation, const FitOptions& options,
            const std::vector<std::shared_ptr<Callback>>& callbacks) {
  FitContext context{model, optimizer, false, options.epochs, train.steps_per_epoch()};
  History history;
  const auto train_start = std::chrono::steady_clock::now();
  int64_t global_step = options.initial_global_step;
  DistributedStrategy* strategy = options.strategy;
  const Device device = model_device(model);
  if (strategy != nullptr) strategy->on_train_begin(model, optimizer);
  try {
    for (auto& callback : callbacks) callback->on_train_begin(context);
    for (int64_t epoch = options.initial_epoch; epoch < options.epochs && !context.stop_training;
         ++epoch) {
      model.train();
      for (auto& callback : callbacks) callback->on_epoch_begin(context, epoch);
      const auto epoch_start = std::chrono::steady_clock::now();
      train.start_epoch(static_cast<uint64_t>(epoch));
      double loss_sum = 0.0;
      int64_t samples = 0;
      int64_t step_in_epoch = 0;
      // Training accuracy stays on the model's device: (correct, counted) summed over the
      // epoch, read once at its end.
      TrainingAccuracy accuracy(device, loss.takes_logits() ? 0.0 : kDefaultThreshold);
      // The host reads each step's loss (for the logs and the divergence check). On a GPU
      // that read would stall the stream, so it happens one step late: step k's loss is
      // copied to pinned memory behind an event and read after step k+1 has been queued. A
      // diverged step is then caught one step later, still before any checkpoint.
      const bool read_loss_late = device.is_cuda();
      struct PendingLoss {
        std::function<Tensor()> read;
        BatchLogs logs;
      };
      std::optional<PendingLoss> pending;
      const auto finish_step = [&](PendingLoss& step) {
        const double local_loss = step.read().item();
        step.logs.loss = agreed_batch_loss(local_loss, strategy, epoch, step.logs.step_in_epoch);
        loss_sum += local_loss * static_cast<double>(step.logs.batch_size);
        for (auto& callback : callbacks) callback->on_batch_end(context, step.logs);
      };
      while (auto batch = train.next()) {
        const TrainingBatch tensors = as_device_tensors(*batch, device);
        optimizer.zero_grad();
        Var output = training_output(model, loss, Var(tensors.codes));
        check_output_shape(output, tensors);
        Var batch_loss_value = batch_loss(loss, output, tensors);
        PendingLoss step{dispatch<StartHostReadOp>(device, batch_loss_value.value()), {}};
        double local_loss = NAN;
        if (!read_loss_late) {
          // The loss is on the host already: check it before the update.
          local_loss = step.read().item();
          step.logs.loss = agreed_batch_loss(local_loss, strategy, epoch, step_in_epoch);
        }
        if (strategy != nullptr) strategy->before_backward();
        batch_loss_value.backward();
        if (strategy != nullptr) strategy->finish_gradients();
        optimizer.step();
        if (strategy != nullptr) strategy->after_step();
        ++global_step;
        samples += tensors.size;
        accuracy.add(output.value(), tensors);
        step.logs =
            BatchLogs{epoch,
                      step_in_epoch,
                      train.steps_per_epoch(),
                      global_step,
                      tensors.size,
                      step.logs.loss,
                      static_cast<double>(samples) / std::max(seconds_since(epoch_start), 1e-9)};
        if (pending) finish_step(*pending);
        pending.reset();
        if (read_loss_late) {
          pending = std::move(step);
        } else {
          loss_sum += local_loss * static_cast<double>(tensors.size);
          for (auto& callback : callbacks) callback->on_batch_end(context, step.logs);
        }
        ++step_in_epoch;
      }
      if (pending) finish_step(*pending);
      const double epoch_seconds = seconds_since(epoch_start);
      EpochLogs logs;
      logs.epoch = epoch;
      logs.global_step = global_step;
      const auto [correct, counted] = accuracy.totals();
      logs.values["accuracy"] = counted > 0 ? correct / counted : NAN;
      if (strategy != nullptr) {
        // Every rank logs the same epoch figures: sums over all shards.
        const std::vector<double> totals =
            strategy->sum({loss_sum, static_cast<double>(samples), correct, counted});
        loss_sum = totals[0];
        samples = static_cast<int64_t>(totals[1]);
        logs.values["accuracy"] = totals[3] > 0 ? totals[2] / totals[3] : NAN;
        strategy->on_epoch_end();
      }
      logs.values["loss"] = samples > 0 ? loss_sum / static_cast<double>(samples) : NAN;
      logs.values["learning_rate"] = optimizer.learning_rate();
      logs.values["samples_per_second"] =
          static_cast<double>(samples) / std::max(epoch_seconds, 1e-9);
      logs.values["epoch_seconds"] = epoch_seconds;
      if (validation != nullptr) {
        const Evaluation result = evaluate(model, loss, *validation, strategy);
        logs.values["val_loss"] = result.loss;
        logs.values["val_accuracy"] = result.accuracy;
        logs.values["val_auroc"] = result.auroc;
        logs.values["val_auprc"] = result.auprc;
      }
      history.epochs.push_back(logs);
      for (auto& callback : callbacks) callback->on_epoch_end(context, logs);
    }
    history.stopped_early = context.stop_training;
    for (auto& callback : callbacks) callback->on_train_end(context);
  } catch (const TrainingDiverged&) {
    throw;  // every rank agreed on it and throws it together
  } catch (const std::exception& error) {
    // Only this rank failed: its peers would wait for it in the next collective.
    if (strategy != nullptr) strategy->on_local_failure(error.what());
    throw;
  }
  if (strategy != nullptr) strategy->on_train_end();
  history.seconds = seconds_since(train_start);
  return history;
}

Evaluation evaluate(Sequential& model, const Loss& loss, data::DataLoader& loader,
                    DistributedStrategy* strategy) {
  NoGradGuard no_grad;
  model.eval();
  const Device device = model_device(model);
  loader.start_epoch(0);
  double loss_sum = 0.0, weight_sum = 0.0;
  MetricAccumulator metrics(1);
  // With a strategy, this rank's kept (score, label) pairs, gathered after the pass.
  std::vector<double> local_scores, local_labels;
  while (auto batch = loader.next()) {
    const TrainingBatch host = as_tensors(*batch);
    const TrainingBatch tensors = host.to(device);
    Var output = training_output(model, loss, Var(tensors.codes));
    check_output_shape(output, tensors);
    // Batches weigh by their valid labels, so the mean matches a single pass over the data.
    const double batch_weight = ops::sum(host.label_mask).item();
    loss_sum += batch_loss(loss, output, tensors).value().item() * batch_weight;
    weight_sum += batch_weight;
    // Metrics use probabilities: the logits through the Sigmoid that training skipped.
    Var scores = loss.takes_logits() ? sigmoid(output) : output;
    const Tensor s = scores.value().to(Device::cpu()).to(DType::kFloat32).contiguous();
    if (strategy != nullptr) {
      const float* sp = s.data<float>();
      const float* lp = host.labels.data<float>();
      const float* mp = host.label_mask.data<float>();
      // The same values MetricAccumulator::add keeps: unmasked, labelled.
      for (int64_t i = 0; i < s.numel(); ++i) {
        if (mp[i] == 0.0f || std::isnan(lp[i])) continue;
        local_scores.push_back(sp[i]);
        local_labels.push_back(lp[i]);
      }
      continue;
    }
    metrics.add(std::span<const float>(s.data<float>(), s.numel()),
                std::span<const float>(host.labels.data<float>(), host.labels.numel()),
                std::span<const float>(host.label_mask.data<float>(), host.label_mask.numel()));
  }
  model.train();
  if (strategy != nullptr) {
    const std::vector<double> totals = strategy->sum({loss_sum, weight_sum});
    loss_sum = totals[0];
    weight_sum = totals[1];
    const std::vector<double> scores = strategy->all_gather(local_scores);
    const std::vector<double> labels = strategy->all_gather(local_labels);
    metrics.add(std::span<const double>(scores), std::span<const double>(labels));
  }
  Evaluation result;
  const BinaryMetrics binary = metrics.compute(0);
  result.loss = weight_sum > 0 ? loss_sum / weight_sum : NAN;
  result.accuracy = binary.accuracy;
  result.auroc = binary.auroc;
  result.auprc = binary.auprc;
  result.count = static_cast<int64_t>(binary.count);
  return result;
}

Predictions predict(Sequential& model, data::DataLoader& loader) {
  NoGradGuard no_grad;
  model.eval();
  const Device device = model_device(model);
  loader.start_epoch(0);
  Predictions out;
  while (auto batch = loader.next()) {
    const TrainingBatch host = as_tensors(*batch);
    const TrainingBatch tensors = host.to(device);
    const Tensor scores = model.forward(Var(tensors.codes))
                              .value()
                              .to(Device::cpu())
                              .to(DType::kFloat32)
                              .contiguous();
    STRAND_CHECK(scores.dim() == 2, "predict: the model's output {} is not (B, T)",
                 scores.describe());
    out.num_targets = scores.size(1);
    const float* s = scores.data<float>();
    out.scores.insert(out.scores.end(), s, s + scores.numel());
    const float* l = host.labels.data<float>();
    out.labels.insert(out.labels.end(), l, l + host.labels.numel());
    out.sample_index.insert(out.sample_index.end(), batch->sample_index,
                            batch->sample_index + batch->size);
  }
  model.train();
  return out;
}

}  // namespace strand::train
