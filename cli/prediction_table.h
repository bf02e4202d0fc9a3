// PredictionTable: the rows of `strand predict`, written as the samples are scored rather than
// gathered first, so memory does not grow with the number of samples: a TSV (name, chrom,
// start, end, label_<task>..., a score per task) or a bedGraph of tiles (each window's score on
// its central `step` bases). Nothing is published unless every row was written: --out FILE is
// written atomically, and standard output (--out -) gets the table from a temporary spool file
// once it is complete.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "app/data_builder.h"
#include "app/sample_windows.h"
#include "io/atomic_file.h"

namespace strand::cli {

/// What the table holds and where it goes.
struct PredictionTableOptions {
  std::string out;                 ///< the file, or "-" for standard output
  bool bedgraph = false;           ///< a bedGraph of tiles, else a TSV
  int64_t task = 0;                ///< bedGraph: the score column shown
  int64_t step = 0;                ///< bedGraph: the central bases each window owns
  std::vector<std::string> tasks;  ///< (T) the score columns' names
};

/// Rows of `split`'s samples, added in sample order.
class PredictionTable {
 public:
  /// Opens the output (the temporary file of --out, or the spool) and writes the TSV's header.
  PredictionTable(const PredictionTableOptions& options, const app::DataSplit& split);
  ~PredictionTable();
  PredictionTable(const PredictionTable&) = delete;
  PredictionTable& operator=(const PredictionTable&) = delete;

  /// Sample `index`'s row: its (T) scores.
  void add(int64_t index, const float* scores);
  /// Sample `index`'s name, for messages.
  const std::string& name(int64_t index) { return samples_.name(index); }
  /// Publishes the table and logs what was written to `log`; the table goes to `out` for --out -.
  void finish(std::ostream& out, std::ostream& log);

 private:
  void tsv_row(int64_t index, const float* scores);
  void bedgraph_row(int64_t index, const float* scores);
  // Hands the text gathered so far to the file or the spool.
  void flush();

  PredictionTableOptions options_;
  const app::DataSplit& split_;
  app::SampleWindows samples_;
  std::unique_ptr<io::AtomicFileWriter> file_;  // --out FILE
  std::FILE* spool_ = nullptr;                  // --out -
  std::string text_;                            // rows not yet handed on
  std::vector<float> labels_;                   // (labels) of the row being written
  std::vector<uint8_t> mask_;
  int64_t rows_ = 0;
};

}  // namespace strand::cli
