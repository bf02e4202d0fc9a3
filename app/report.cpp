// RunReport as JSON and as the text block printed at the end of `strand train`.
#include "app/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

#include "train/metric_names.h"

namespace strand::app {
namespace {

// JSON has no NaN; undefined metrics (e.g. auROC of one class) become null.
nlohmann::json number(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

// One term's figures (or a single-term model's): those over all tasks and those per task.
struct TermFigures {
  std::map<std::string, double> overall;                       // metric -> value
  std::map<std::string, std::map<std::string, double>> tasks;  // task -> metric -> value
};

// A split's figures by term output ("" for a single term and for the objective's total loss).
std::map<std::string, TermFigures> group_by_term(const train::Evaluation& e,
                                                 const std::vector<std::string>& outputs) {
  std::map<std::string, TermFigures> terms;
  for (const auto& [key, value] : e.values) {
    const train::MetricNameParts parts = train::split_metric_name(key, outputs);
    TermFigures& term = terms[parts.output];
    if (parts.task.empty()) {
      term.overall[parts.metric] = value;
    } else {
      term.tasks[parts.task][parts.metric] = value;
    }
  }
  return terms;
}

// Where a metric goes in a printed line: the losses, then binary, then regression figures,
// each pooled before its mean; others after them, by name.
size_t metric_rank(const std::string& metric) {
  static const std::vector<std::string> order = {
      "loss",       "accuracy", "auroc",    "auprc",        "mean_auroc",
      "mean_auprc", "pearson",  "spearman", "mean_pearson", "mean_spearman"};
  const auto it = std::find(order.begin(), order.end(), metric);
  return static_cast<size_t>(it - order.begin());
}

std::vector<std::string> metrics_in_order(std::vector<std::string> metrics) {
  std::stable_sort(metrics.begin(), metrics.end(), [](const std::string& a, const std::string& b) {
    const size_t ra = metric_rank(a), rb = metric_rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  return metrics;
}

// "auROC" for auroc, "mean Pearson" for mean_pearson.
std::string display_name(const std::string& metric) {
  if (metric.starts_with("mean_")) return "mean " + display_name(metric.substr(5));
  if (metric == "auroc") return "auROC";
  if (metric == "auprc") return "auPRC";
  if (metric == "pearson") return "Pearson";
  if (metric == "spearman") return "Spearman";
  return metric;
}

nlohmann::json figures_json(const TermFigures& term) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [metric, value] : term.overall) out[metric] = number(value);
  if (!term.tasks.empty()) {
    nlohmann::json tasks = nlohmann::json::object();
    for (const auto& [task, figures] : term.tasks) {
      for (const auto& [metric, value] : figures) tasks[task][metric] = number(value);
    }
    out["tasks"] = std::move(tasks);
  }
  return out;
}

nlohmann::json evaluation_json(const train::Evaluation& e, int64_t examples,
                               const std::vector<std::string>& outputs) {
  const std::map<std::string, TermFigures> terms = group_by_term(e, outputs);
  nlohmann::json out;
  if (outputs.empty()) {
    out = figures_json(terms.at(""));
  } else {
    out["loss"] = number(e.loss);
    nlohmann::json by_output = nlohmann::json::object();
    for (const auto& [output, term] : terms) {
      if (!output.empty()) by_output[output] = figures_json(term);
    }
    out["outputs"] = std::move(by_output);
  }
  out["count"] = examples;
  if (e.count > 0) out["labels"] = e.count;
  return out;
}

// The main figures of `term` (main_metric_names()) as "loss 0.1234  auROC 0.9000".
std::string figures_text(const TermFigures& term) {
  std::vector<std::string> metrics;
  for (const auto& [metric, value] : term.overall) metrics.push_back(metric);
  // A mean over tasks is shown where the per-task figures exist.
  for (const auto& [task, figures] : term.tasks) {
    for (const auto& [metric, value] : figures) metrics.push_back(metric + "/" + task);
  }
  std::vector<std::string> shown;
  for (const std::string& metric : metrics_in_order(train::main_metric_names(metrics))) {
    shown.push_back(fmt::format("{} {:.4f}", display_name(metric), term.overall.at(metric)));
  }
  return fmt::format("{}", fmt::join(shown, "  "));
}

// "test:       loss ...  (80 sequences)", and with several terms one line per output.
void print_split(std::ostream& out, const std::string& label, const train::Evaluation& e,
                 int64_t examples, bool show_count, const std::vector<std::string>& outputs) {
  const std::map<std::string, TermFigures> terms = group_by_term(e, outputs);
  std::string line = fmt::format("{:<12}{}", label + ":", figures_text(terms.at("")));
  if (show_count) {
    line += e.count > 0 && e.count != examples
                ? fmt::format("  ({} sequences, {} labels)", examples, e.count)
                : fmt::format("  ({} sequences)", examples);
  }
  out << line << "\n";
  size_t width = 0;
  for (const std::string& output : outputs) width = std::max(width, output.size() + 1);
  for (const std::string& output : outputs) {
    const auto it = terms.find(output);
    if (it == terms.end()) continue;
    out << fmt::format("  {:<{}}  {}\n", output + ":", width, figures_text(it->second));
  }
}

// Tasks in the data's order (task_names), then any others (an output's columns "0", "1", ...)
// by number.
std::vector<std::string> tasks_in_order(const TermFigures& term,
                                        const std::vector<std::string>& task_names) {
  std::vector<std::string> tasks;
  for (const std::string& task : task_names) {
    if (term.tasks.count(task)) tasks.push_back(task);
  }
  std::vector<std::string> others;
  for (const auto& [task, figures] : term.tasks) {
    if (std::find(tasks.begin(), tasks.end(), task) == tasks.end()) others.push_back(task);
  }
  std::stable_sort(others.begin(), others.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  tasks.insert(tasks.end(), others.begin(), others.end());
  return tasks;
}

// The per-task figures of one term as a table: every task up to kAllTasksUpTo, else the
// kBestAndWorst best and worst by the first metric.
constexpr size_t kAllTasksUpTo = 20;
constexpr size_t kBestAndWorst = 5;

// `what` names the split and, with several terms, the output: "test", "test, counts".
void print_task_table(std::ostream& out, const std::string& what, const TermFigures& term,
                      const std::vector<std::string>& task_names) {
  std::vector<std::string> tasks = tasks_in_order(term, task_names);
  std::vector<std::string> metrics;
  for (const auto& [metric, value] : term.tasks.at(tasks.front())) metrics.push_back(metric);
  metrics = metrics_in_order(metrics);
  const auto value_of = [&](const std::string& task, const std::string& metric) {
    const auto& figures = term.tasks.at(task);
    const auto it = figures.find(metric);
    return it == figures.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
  };
  const size_t all = tasks.size();
  const bool cut = all > kAllTasksUpTo;
  if (cut) {
    // Best first; undefined figures (NaN) last.
    std::stable_sort(tasks.begin(), tasks.end(), [&](const std::string& a, const std::string& b) {
      const double va = value_of(a, metrics.front()), vb = value_of(b, metrics.front());
      if (std::isnan(vb)) return !std::isnan(va);
      return !std::isnan(va) && va > vb;
    });
  }
  size_t name_width = std::string_view("task").size();
  for (const std::string& task : tasks) name_width = std::max(name_width, task.size());
  out << fmt::format("per task ({}{}):\n", what,
                     cut ? fmt::format(", {} best and {} worst of {} by {}", kBestAndWorst,
                                       kBestAndWorst, all, display_name(metrics.front()))
                         : "");
  std::string header = fmt::format("  {:<{}}", "task", name_width);
  for (const std::string& metric : metrics) {
    header += fmt::format("  {:>{}}", display_name(metric),
                          std::max<size_t>(6, display_name(metric).size()));
  }
  out << header << "\n";
  const auto row = [&](const std::string& task) {
    std::string line = fmt::format("  {:<{}}", task, name_width);
    for (const std::string& metric : metrics) {
      line += fmt::format("  {:>{}.4f}", value_of(task, metric),
                          std::max<size_t>(6, display_name(metric).size()));
    }
    out << line << "\n";
  };
  for (size_t i = 0; i < all; ++i) {
    if (cut && i == kBestAndWorst) {
      out << fmt::format("  ... {} more\n", all - 2 * kBestAndWorst);
      i = all - kBestAndWorst;
    }
    row(tasks[i]);
  }
}

}  // namespace

nlohmann::json to_json(const RunReport& r) {
  nlohmann::json out;
  out["status"] = "completed";
  out["run_dir"] = r.run_dir;
  out["device"] = r.device;
  out["threads"] = r.threads;
  out["precision"] = r.precision;
  out["seed"] = r.seed;
  out["data"] = {{"train", r.train_size}, {"validation", r.validation_size}, {"test", r.test_size}};
  out["task_names"] = r.task_names;
  out["test"] =
      r.test ? evaluation_json(*r.test, r.test_size, r.term_outputs) : nlohmann::json(nullptr);
  out["validation"] = r.validation
                          ? evaluation_json(*r.validation, r.validation_size, r.term_outputs)
                          : nlohmann::json(nullptr);
  out["unscored_tasks"] = r.unscored_tasks;
  if (r.unscored_tasks.empty()) out["unscored_tasks"] = nlohmann::json::object();
  out["epochs_run"] = r.epochs_run;
  out["best_epoch"] = r.best_epoch;
  out["monitor"] = r.monitor;
  out["best_value"] = number(r.best_value);
  out["stopped_early"] = r.stopped_early;
  out["wall_seconds"] = r.wall_seconds;
  out["train_seconds"] = r.train_seconds;
  out["samples_per_second"] = r.samples_per_second;
  if (r.cuda_graph_replays >= 0) out["cuda_graph_replays"] = r.cuda_graph_replays;
  return out;
}

nlohmann::json failed_report_json(const std::string& run_dir, const std::string& error) {
  return {{"status", "failed"},
          {"error", error},
          {"run_dir", run_dir},
          {"resume", fmt::format("strand train --resume {}", run_dir)}};
}

nlohmann::json to_json(const InterruptedReport& r) {
  nlohmann::json out;
  out["status"] = "interrupted";
  out["signal"] = r.signal;
  out["run_dir"] = r.run_dir;
  out["epochs_completed"] = r.epochs_completed;
  out["steps_in_epoch"] = r.steps_in_epoch;
  out["steps_per_epoch"] = r.steps_per_epoch;
  out["global_step"] = r.global_step;
  out["evaluation_skipped"] = r.evaluation_skipped;
  out["resume"] = fmt::format("strand train --resume {}", r.run_dir);
  out["wall_seconds"] = r.wall_seconds;
  out["train_seconds"] = r.train_seconds;
  return out;
}

void print_report(std::ostream& out, const RunReport& r) {
  out << "\n== report (" << r.run_dir << ") ==\n";
  if (r.test) print_split(out, "test", *r.test, r.test_size, true, r.term_outputs);
  if (r.validation) {
    print_split(out, "validation", *r.validation, r.validation_size, false, r.term_outputs);
  }
  // Per-task figures of the test split, else of the validation split.
  const std::optional<train::Evaluation>& tables = r.test ? r.test : r.validation;
  if (tables) {
    const std::map<std::string, TermFigures> terms = group_by_term(*tables, r.term_outputs);
    const std::string split = r.test ? "test" : "validation";
    // The terms in the objective's order.
    for (const std::string& output :
         r.term_outputs.empty() ? std::vector<std::string>{""} : r.term_outputs) {
      const auto it = terms.find(output);
      if (it == terms.end() || it->second.tasks.empty()) continue;
      print_task_table(out, output.empty() ? split : fmt::format("{}, {}", split, output),
                       it->second, r.task_names);
    }
  }
  for (const auto& [split, tasks] : r.unscored_tasks) {
    for (const auto& [task, why] : tasks) {
      out << fmt::format("not scored: {} task '{}': {}\n", split, task, why);
    }
  }
  out << fmt::format("epochs run: {}{}  best epoch: {} ({} {:.4f})\n", r.epochs_run,
                     r.stopped_early ? " (early stopping)" : "", r.best_epoch, r.monitor,
                     r.best_value);
  out << fmt::format("wall time:  {:.1f} s (training {:.1f} s, {:.0f} samples/s)\n", r.wall_seconds,
                     r.train_seconds, r.samples_per_second);
}

}  // namespace strand::app
