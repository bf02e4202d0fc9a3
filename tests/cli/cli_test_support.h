// Helpers for the CLI tests: run the command line in-process, temporary directories, files.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/program.h"
#include "fmt/format.h"
#include "support/child_process.h"

namespace strand::cli::testing {

struct CliResult {
  int status = 0;
  std::string out, err;
};

/// Runs `strand <args...>` through the same entry point as the executable.
inline CliResult run(std::vector<std::string> args) {
  args.insert(args.begin(), "strand");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliResult result;
  result.status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

/// A fresh, empty directory under the system temp directory, removed at scope exit.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static std::atomic<int> counter{0};
    path_ =
        std::filesystem::temp_directory_path() /
        ("strand-cli-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string str(const std::string& child = "") const {
    return child.empty() ? path_.string() : (path_ / child).string();
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline int64_t count_lines(const std::string& text) {
  int64_t n = 0;
  for (const char c : text) n += c == '\n';
  return n;
}

/// `args` followed by `more`.
inline std::vector<std::string> with(std::vector<std::string> args,
                                     const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

/// The rows of a TSV, header included, as fields.
inline std::vector<std::vector<std::string>> tsv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    std::string field;
    while (std::getline(cells, field, '\t')) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

/// Whether two TSV texts hold the same table: the same shape, and each cell the same text or,
/// where both are numbers, equal within `tolerance` of max(1, |a|) (a GPU's and a CPU's
/// results differ by float rounding). Each differing cell is reported.
inline bool tables_agree(const std::string& a, const std::string& b, double tolerance) {
  const auto rows_a = tsv_rows(a), rows_b = tsv_rows(b);
  bool agree = rows_a.size() == rows_b.size() && !rows_a.empty();
  for (size_t r = 0; agree && r < rows_a.size(); ++r) {
    agree = rows_a[r].size() == rows_b[r].size();
    for (size_t c = 0; agree && c < rows_a[r].size(); ++c) {
      const std::string& x = rows_a[r][c];
      const std::string& y = rows_b[r][c];
      if (x == y) continue;
      char* x_end = nullptr;
      char* y_end = nullptr;
      const double u = std::strtod(x.c_str(), &x_end), v = std::strtod(y.c_str(), &y_end);
      const bool numbers = !x.empty() && !y.empty() && *x_end == '\0' && *y_end == '\0';
      agree = numbers && std::abs(u - v) <= tolerance * std::max(1.0, std::abs(u));
      if (!agree)
        MESSAGE("row " << r << ", column " << c << ": '" << x << "' against '" << y << "'");
    }
  }
  return agree;
}

/// How far (KiB) `strand <args...>` raises the peak resident memory above the resident memory
/// it starts from, run in a child process so that the peak is its own.
inline int64_t peak_growth_kib(const std::vector<std::string>& args) {
  const strand::testing::ChildResult child = strand::testing::run_in_child([&args] {
    const int64_t before = strand::testing::proc_status_kib("VmRSS");
    const CliResult result = run(args);
    if (result.status != 0) throw std::runtime_error(result.err);
    return std::to_string(strand::testing::proc_status_kib("VmHWM") - before);
  });
  REQUIRE_MESSAGE(child.exited, child.describe());
  REQUIRE_MESSAGE(child.exit_code == 0, child.describe());
  return std::stoll(child.output);
}

/// Column `column` of every data row of a CSV (the header skipped).
inline std::vector<std::string> csv_column(const std::string& text, size_t column) {
  std::vector<std::string> values;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string field;
    for (size_t i = 0; i <= column; ++i) std::getline(fields, field, ',');
    values.push_back(field);
  }
  return values;
}

/// A small simulated records dataset (`strand simulate`) under dir/sim.
inline void simulate_small_dataset(const TempDir& dir) {
  REQUIRE(run({"simulate", "--n-pos", "100", "--n-neg", "100", "--length", "60", "--validation",
               "40", "--test", "40", "--out", dir.str("sim")})
              .status == 0);
}

/// `strand train` of simulate_small_dataset's records into dir/runs/NAME: the training labels
/// from dir/sim/LABELS, the validation split, batch 32, 2 epochs, 1 thread.
inline std::vector<std::string> small_dataset_train_args(const TempDir& dir,
                                                         const std::string& labels,
                                                         const std::string& name) {
  return {"train",
          "--format",
          "records",
          "--fasta",
          dir.str("sim/train.fa"),
          "--intervals",
          dir.str("sim/" + labels),
          "--valid-fasta",
          dir.str("sim/valid.fa"),
          "--valid-intervals",
          dir.str("sim/valid.tsv"),
          "--batch-size",
          "32",
          "--epochs",
          "2",
          "--threads",
          "1",
          "--output-dir",
          dir.str("runs"),
          "--run-name",
          name};
}

/// chr1, chr2, chr8, chr9 of 3000 pseudo-random bases (dir/g.fa); 30 intervals of 100 bp on
/// each of chr1, chr2 and chr8 (none on chr9) with three tasks CTCF, JUN, POLR2A named by a '#'
/// header, some labels missing (dir/tasks.bed, label columns 5-7); and a three-output model
/// (dir/model.json).
inline void write_three_task_data(const TempDir& dir) {
  std::string fasta;
  uint64_t state = 7;
  for (const char* chrom : {"chr1", "chr2", "chr8", "chr9"}) {
    fasta += fmt::format(">{}\n", chrom);
    for (int i = 0; i < 3000; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      fasta += "ACGT"[(state >> 33) % 4];
      if (i % 60 == 59) fasta += '\n';
    }
  }
  write_text(dir.path() / "g.fa", fasta);
  std::string bed = "#chrom\tstart\tend\tname\tCTCF\tJUN\tPOLR2A\n";
  for (const char* chrom : {"chr1", "chr2", "chr8"}) {
    for (int i = 0; i < 30; ++i) {
      bed += fmt::format("{}\t{}\t{}\tpeak{}\t{}\t{}\t{}\n", chrom, i * 90 + 50, i * 90 + 150, i,
                         i % 2, i % 3 == 0 ? "." : "1", i % 5 == 0 ? "NA" : "0");
    }
  }
  write_text(dir.path() / "tasks.bed", bed);
  write_text(dir.path() / "model.json",
             R"({"model": [{"type": "Conv1D", "filters": 4, "kernel_size": 9}, {"type": "ReLU"},
                           {"type": "GlobalMaxPool1D"}, {"type": "Dense", "units": 3},
                           {"type": "Sigmoid"}]})");
}

/// Flags for a tiny simulated run that trains in well under a second.
inline std::vector<std::string> tiny_run(const TempDir& dir, const std::string& name,
                                         int epochs = 3) {
  return {"train",
          "--n-pos",
          "200",
          "--n-neg",
          "200",
          "--length",
          "100",
          "--validation",
          "80",
          "--test",
          "80",
          "--batch-size",
          "32",
          "--epochs",
          std::to_string(epochs),
          "--threads",
          "1",
          "--no-early-stopping",
          "--tensorboard-every",
          "2",
          "--output-dir",
          dir.str(),
          "--run-name",
          name};
}

}  // namespace strand::cli::testing
