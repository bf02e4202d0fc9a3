// evaluate(): per-term loss sums and the scores each term's target kind needs, gathered over
// ranks, then the metrics.
#include "train/evaluation.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <span>

#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "train/metrics.h"
#include "train/regression_metrics.h"

namespace strand::train {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A (B, ...) tensor as host float32, contiguous.
Tensor host_floats(const Tensor& t) { return t.to(Device::cpu()).to(DType::kFloat32).contiguous(); }

// The mean of the finite values (NaN when none is).
double finite_mean(const std::vector<double>& values) {
  double sum = 0.0;
  int64_t count = 0;
  for (const double v : values) {
    if (std::isfinite(v)) sum += v, ++count;
  }
  return count > 0 ? sum / static_cast<double>(count) : kNaN;
}

// The tasks a term is scored per: the labels' tasks, else one per output column ("0", "1", ...)
// of a (B, C) output; a profile term has none.
std::vector<std::string> term_tasks(const LossTerm& term, const std::vector<std::string>& labels,
                                    const Shape& output) {
  if (term.target == Target::kLabels) return labels;
  std::vector<std::string> names;
  const int64_t columns = output.empty() ? 1 : numel(output);
  for (int64_t c = 0; c < columns && term.kind() != TargetKind::kProfile; ++c) {
    names.push_back(std::to_string(c));
  }
  return names;
}

// Where a term's figures go: unprefixed for a single term, else under "<output>_".
std::string term_prefix(size_t terms, const std::string& output) {
  return terms == 1 ? "" : output + "_";
}

// The metric keys of a term of `kind` scored over `tasks`, under `prefix`, in the order
// evaluate() reports them (the term's loss is not among them).
std::vector<std::string> metric_keys(TargetKind kind, const std::string& prefix,
                                     const std::vector<std::string>& tasks) {
  std::vector<std::string> keys;
  const auto per_task = [&](std::initializer_list<const char*> metrics) {
    for (const char* metric : metrics) keys.push_back(prefix + metric);
    for (const char* metric : metrics) keys.push_back(prefix + "mean_" + metric);
    if (tasks.size() < 2) return;
    for (const std::string& task : tasks) {
      for (const char* metric : metrics) keys.push_back(prefix + metric + "/" + task);
    }
  };
  switch (kind) {
    case TargetKind::kBinary:
      keys.push_back(prefix + "accuracy");
      per_task({"auroc", "auprc"});
      break;
    case TargetKind::kReal:
      per_task({"pearson", "spearman"});
      break;
    case TargetKind::kCategorical:
      keys.push_back(prefix + "accuracy");
      break;
    case TargetKind::kProfile:
      keys.push_back(prefix + "pearson");
      break;
  }
  return keys;
}

// What one term accumulates over the pass.
struct TermScores {
  const LossTerm* term = nullptr;
  size_t output = 0;
  TargetKind kind = TargetKind::kReal;
  bool labels = false;                  // scored against the batch's labels
  std::vector<std::string> task_names;  // term_tasks(), known after the first batch
  double loss_sum = 0.0;                // sum over batches of mean loss x batch weight
  double loss_weight = 0.0;
  // Binary and real targets: the kept (task, prediction, target) triples, flat.
  std::vector<double> triples;
  // Categorical: examples whose predicted class is the target's.
  double correct = 0.0, examples = 0.0;
  // Profiles: the sum and count of per-profile correlations.
  double profile_sum = 0.0, profiles = 0.0;
  // What waits on the model's device for one host read per pass (or per kMaxPendingBytes of
  // predictions): the loss sum (float64, ()) and the batches' predictions, with their host
  // targets and masks. Reading each batch's loss and predictions back cost a GPU two host
  // synchronisations a batch, most of the reference run's validation time.
  Tensor loss_total;
  std::vector<Tensor> pending_predictions, pending_targets, pending_masks;
  int64_t pending_bytes = 0;
  static constexpr int64_t kMaxPendingBytes = int64_t{64} << 20;

  // loss_sum += loss * weight, on the loss's device (the same float64 arithmetic as on the host).
  void add_loss(const Tensor& loss, double weight) {
    const Tensor contribution = ops::affine(loss.to(DType::kFloat64), weight, 0.0);
    loss_total = loss_total.defined() ? ops::add(loss_total, contribution) : contribution;
  }

  // Keeps one batch for add(); the target and mask are host tensors (copied: they may view the
  // loader's batch).
  void queue(const Tensor& prediction, const Tensor& target, const Tensor& mask) {
    pending_predictions.push_back(prediction);
    pending_targets.push_back(target.clone());
    if (mask.defined()) pending_masks.push_back(mask.clone());
    pending_bytes += prediction.numel() * static_cast<int64_t>(dtype_size(prediction.dtype()));
    if (pending_bytes >= kMaxPendingBytes) flush();
  }

  // Scores the queued batches as one (their rows in order), and reads the loss sum.
  void flush() {
    if (loss_total.defined()) loss_sum = loss_total.item();
    if (pending_predictions.empty()) return;
    add(ops::concat(pending_predictions, 0), ops::concat(pending_targets, 0),
        pending_masks.empty() ? Tensor() : ops::concat(pending_masks, 0));
    pending_predictions.clear();
    pending_targets.clear();
    pending_masks.clear();
    pending_bytes = 0;
  }

  void add(const Tensor& prediction, const Tensor& target, const Tensor& mask) {
    const Tensor p = host_floats(prediction), y = host_floats(target);
    const float* pp = p.data<float>();
    const float* yp = y.data<float>();
    switch (kind) {
      case TargetKind::kBinary:
      case TargetKind::kReal: {
        const int64_t columns = p.dim() >= 2 ? p.numel() / p.size(0) : 1;
        const Tensor m = mask.defined() ? host_floats(mask) : Tensor();
        const float* mp = m.defined() ? m.data<float>() : nullptr;
        for (int64_t i = 0; i < p.numel(); ++i) {
          if ((mp != nullptr && mp[i] == 0.0f) || std::isnan(yp[i])) continue;
          triples.insert(triples.end(), {static_cast<double>(i % columns), pp[i], yp[i]});
        }
        break;
      }
      case TargetKind::kCategorical: {
        const int64_t rows = p.size(0), classes = p.numel() / p.size(0);
        for (int64_t r = 0; r < rows; ++r) {
          const float* pr = pp + r * classes;
          const float* yr = yp + r * classes;
          correct +=
              std::max_element(pr, pr + classes) - pr == std::max_element(yr, yr + classes) - yr
                  ? 1.0
                  : 0.0;
        }
        examples += static_cast<double>(rows);
        break;
      }
      case TargetKind::kProfile: {
        int64_t count = 0;
        add_profile_correlations(std::span<const float>(pp, p.numel()),
                                 std::span<const float>(yp, y.numel()), p.shape().back(),
                                 profile_sum, count);
        profiles += static_cast<double>(count);
        break;
      }
    }
  }

  // Per task: the kept predictions and targets.
  void split_tasks(std::vector<std::vector<double>>& predictions,
                   std::vector<std::vector<double>>& targets) const {
    predictions.assign(task_names.size(), {});
    targets.assign(task_names.size(), {});
    for (size_t i = 0; i + 2 < triples.size(); i += 3) {
      const auto task = static_cast<size_t>(triples[i]);
      predictions.at(task).push_back(triples[i + 1]);
      targets.at(task).push_back(triples[i + 2]);
    }
  }
};

// The pooled, per-task and mean figures of a binary or real term, into `out` under `prefix`.
void add_task_metrics(const TermScores& scores, const std::string& prefix,
                      std::map<std::string, double>& out, Evaluation& evaluation,
                      bool first_binary) {
  std::vector<std::vector<double>> predictions, targets;
  scores.split_tasks(predictions, targets);
  std::vector<double> all_predictions, all_targets;
  for (size_t t = 0; t < predictions.size(); ++t) {
    all_predictions.insert(all_predictions.end(), predictions[t].begin(), predictions[t].end());
    all_targets.insert(all_targets.end(), targets[t].begin(), targets[t].end());
  }
  const bool several = scores.task_names.size() > 1;
  std::vector<double> first_per_task, second_per_task;
  if (scores.kind == TargetKind::kBinary) {
    const BinaryMetrics pooled = binary_metrics(all_predictions, all_targets);
    out[prefix + "accuracy"] = pooled.count > 0 ? pooled.accuracy : kNaN;
    out[prefix + "auroc"] = pooled.auroc;
    out[prefix + "auprc"] = pooled.auprc;
    for (size_t t = 0; t < predictions.size(); ++t) {
      const BinaryMetrics task = binary_metrics(predictions[t], targets[t]);
      first_per_task.push_back(task.auroc);
      second_per_task.push_back(task.auprc);
      if (several) {
        out[prefix + "auroc/" + scores.task_names[t]] = task.auroc;
        out[prefix + "auprc/" + scores.task_names[t]] = task.auprc;
      }
    }
    out[prefix + "mean_auroc"] = finite_mean(first_per_task);
    out[prefix + "mean_auprc"] = finite_mean(second_per_task);
    if (first_binary) {
      evaluation.accuracy = out[prefix + "accuracy"];
      evaluation.auroc = pooled.auroc;
      evaluation.auprc = pooled.auprc;
      evaluation.count = static_cast<int64_t>(pooled.count);
    }
    return;
  }
  out[prefix + "pearson"] = pearson(all_predictions, all_targets);
  out[prefix + "spearman"] = spearman(all_predictions, all_targets);
  for (size_t t = 0; t < predictions.size(); ++t) {
    first_per_task.push_back(pearson(predictions[t], targets[t]));
    second_per_task.push_back(spearman(predictions[t], targets[t]));
    if (several) {
      out[prefix + "pearson/" + scores.task_names[t]] = first_per_task.back();
      out[prefix + "spearman/" + scores.task_names[t]] = second_per_task.back();
    }
  }
  out[prefix + "mean_pearson"] = finite_mean(first_per_task);
  out[prefix + "mean_spearman"] = finite_mean(second_per_task);
}

}  // namespace

double Evaluation::get(const std::string& key) const {
  auto it = values.find(key);
  if (it != values.end()) return it->second;
  std::vector<std::string> keys;
  for (const auto& [name, value] : values) keys.push_back(name);
  throw Error(fmt::format("the evaluation has no '{}'; it has {}", key, fmt::join(keys, ", ")));
}

Device model_device(const Module& model) {
  const std::vector<Var> parameters = model.parameters();
  return parameters.empty() ? Device::cpu() : parameters.front().device();
}

Evaluation evaluate(Model& model, const Objective& objective, data::DataLoader& loader,
                    dist::DistributedStrategy* strategy) {
  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const std::vector<size_t> bound = objective.bind(model);
  const std::vector<std::string> output_names = model.output_names();
  const Device device = model_device(model);
  std::vector<TermScores> scores(objective.terms().size());
  for (size_t i = 0; i < scores.size(); ++i) {
    scores[i].term = &objective.terms()[i];
    scores[i].output = bound[i];
    scores[i].kind = scores[i].term->kind();
    if (scores[i].term->target == Target::kLabels)
      scores[i].task_names = loader.source().task_names();
  }
  loader.start_epoch(0);
  std::vector<Var> term_losses;
  while (auto batch = loader.next()) {
    const TrainingBatch host = as_tensors(*batch);
    const TrainingBatch tensors = host.to(device);
    const std::vector<Var> outputs = model.forward_outputs(tensors.inputs());
    objective.loss(model, bound, outputs, tensors, &term_losses);
    // Labelled terms weigh batches by their valid labels, so the mean matches one pass over
    // the data; the others by their examples.
    const double valid_labels = ops::sum(host.label_mask).item();
    for (size_t i = 0; i < scores.size(); ++i) {
      TermScores& s = scores[i];
      const bool labels = s.term->target == Target::kLabels;
      const double weight = labels ? valid_labels : static_cast<double>(host.size);
      s.add_loss(term_losses[i].value(), weight);
      s.loss_weight += weight;
      // Metrics use predictions: the outputs through their final activations.
      const Var prediction = apply_activation(model.output_activation(s.output), outputs[s.output]);
      const Tensor target = Objective::target_of(*s.term, host, DType::kFloat32);
      if (s.task_names.empty()) {
        Shape per_example = prediction.shape();
        per_example.erase(per_example.begin());
        s.task_names = term_tasks(*s.term, loader.source().task_names(), per_example);
      }
      s.queue(prediction.value(), target, labels ? host.label_mask : Tensor());
    }
  }
  for (TermScores& s : scores) s.flush();
  model.train(was_training);
  if (strategy != nullptr) {
    for (TermScores& s : scores) {
      const std::vector<double> sums = strategy->sum(
          {s.loss_sum, s.loss_weight, s.correct, s.examples, s.profile_sum, s.profiles});
      s.loss_sum = sums[0], s.loss_weight = sums[1], s.correct = sums[2], s.examples = sums[3];
      s.profile_sum = sums[4], s.profiles = sums[5];
      s.triples = strategy->all_gather(s.triples);
    }
  }
  Evaluation result;
  result.loss = result.accuracy = result.auroc = result.auprc = kNaN;
  double total = 0.0;
  bool seen_binary = false;
  for (const TermScores& s : scores) {
    const std::string prefix = term_prefix(scores.size(), output_names[s.output]);
    const double mean_loss = s.loss_weight > 0.0 ? s.loss_sum / s.loss_weight : kNaN;
    total += s.term->weight * mean_loss;
    if (scores.size() > 1) result.values[prefix + "loss"] = mean_loss;
    switch (s.kind) {
      case TargetKind::kBinary:
      case TargetKind::kReal:
        add_task_metrics(s, prefix, result.values, result,
                         s.kind == TargetKind::kBinary && !seen_binary);
        seen_binary = seen_binary || s.kind == TargetKind::kBinary;
        break;
      case TargetKind::kCategorical:
        result.values[prefix + "accuracy"] = s.examples > 0.0 ? s.correct / s.examples : kNaN;
        break;
      case TargetKind::kProfile:
        result.values[prefix + "pearson"] = s.profiles > 0.0 ? s.profile_sum / s.profiles : kNaN;
        break;
    }
  }
  result.values["loss"] = total;
  result.loss = total;
  return result;
}

std::vector<std::string> evaluation_keys(const Model& model, const Objective& objective,
                                         const std::vector<std::string>& task_names,
                                         const std::vector<Shape>& output_shapes) {
  const std::vector<size_t> bound = objective.bind(model);
  const std::vector<std::string> outputs = model.output_names();
  const size_t terms = objective.terms().size();
  std::vector<std::string> keys = {"loss"};
  for (size_t i = 0; i < terms; ++i) {
    const LossTerm& term = objective.terms()[i];
    const std::string prefix = term_prefix(terms, outputs[bound[i]]);
    if (terms > 1) keys.push_back(prefix + "loss");
    const std::vector<std::string> metrics =
        metric_keys(term.kind(), prefix, term_tasks(term, task_names, output_shapes.at(bound[i])));
    keys.insert(keys.end(), metrics.begin(), metrics.end());
  }
  return keys;
}

Evaluation evaluate(Model& model, const Loss& loss, data::DataLoader& loader,
                    dist::DistributedStrategy* strategy) {
  return evaluate(model, Objective::of(loss), loader, strategy);
}

}  // namespace strand::train
