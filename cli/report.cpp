// RunReport as JSON and as the text block printed at the end of `strand train`.
#include "cli/report.h"

#include <fmt/format.h>

#include <cmath>

namespace strand::cli {
namespace {

// JSON has no NaN; undefined metrics (e.g. auROC of one class) become null.
nlohmann::json number(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

nlohmann::json evaluation_json(const train::Evaluation& e) {
  return {{"loss", number(e.loss)},
          {"accuracy", number(e.accuracy)},
          {"auroc", number(e.auroc)},
          {"auprc", number(e.auprc)},
          {"count", e.count}};
}

}  // namespace

nlohmann::json to_json(const RunReport& r) {
  nlohmann::json out;
  out["status"] = "completed";
  out["run_dir"] = r.run_dir;
  out["device"] = r.device;
  out["threads"] = r.threads;
  out["seed"] = r.seed;
  out["data"] = {{"train", r.train_size}, {"validation", r.validation_size}, {"test", r.test_size}};
  out["test"] = r.test ? evaluation_json(*r.test) : nlohmann::json(nullptr);
  out["validation"] = r.validation ? evaluation_json(*r.validation) : nlohmann::json(nullptr);
  out["epochs_run"] = r.epochs_run;
  out["best_epoch"] = r.best_epoch;
  out["monitor"] = r.monitor;
  out["best_value"] = number(r.best_value);
  out["stopped_early"] = r.stopped_early;
  out["wall_seconds"] = r.wall_seconds;
  out["train_seconds"] = r.train_seconds;
  out["samples_per_second"] = r.samples_per_second;
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
  if (r.test) {
    out << fmt::format(
        "test:       loss {:.4f}  accuracy {:.4f}  auROC {:.4f}  auPRC {:.4f}  ({} "
        "sequences)\n",
        r.test->loss, r.test->accuracy, r.test->auroc, r.test->auprc, r.test->count);
  }
  if (r.validation) {
    out << fmt::format("validation: loss {:.4f}  accuracy {:.4f}  auROC {:.4f}  auPRC {:.4f}\n",
                       r.validation->loss, r.validation->accuracy, r.validation->auroc,
                       r.validation->auprc);
  }
  out << fmt::format("epochs run: {}{}  best epoch: {} ({} {:.4f})\n", r.epochs_run,
                     r.stopped_early ? " (early stopping)" : "", r.best_epoch, r.monitor,
                     r.best_value);
  out << fmt::format("wall time:  {:.1f} s (training {:.1f} s, {:.0f} samples/s)\n", r.wall_seconds,
                     r.train_seconds, r.samples_per_second);
}

}  // namespace strand::cli
