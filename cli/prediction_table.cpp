// PredictionTable (cli/prediction_table.h).
#include "cli/prediction_table.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "app/config_error.h"

namespace strand::cli {

using app::DataSplit;
namespace {

// Text gathered before it is handed to the file: about a megabyte of rows.
constexpr size_t kFlushBytes = size_t{1} << 20;

}  // namespace

PredictionTable::PredictionTable(const PredictionTableOptions& options, const DataSplit& split)
    : options_(options), split_(split), samples_(split) {
  if (options.out == "-") {
    spool_ = std::tmpfile();
    if (spool_ == nullptr) {
      throw Error(fmt::format(
          "--out -: cannot create a temporary file to hold the table until it is complete: {}",
          std::strerror(errno)));
    }
  } else {
    file_ = std::make_unique<io::AtomicFileWriter>(options.out);
  }
  const int64_t labels = split.source->num_targets();
  labels_.resize(static_cast<size_t>(labels));
  mask_.resize(static_cast<size_t>(labels));
  if (options.bedgraph) return;
  text_ = "name\tchrom\tstart\tend";
  for (const std::string& name : split.source->task_names()) text_ += "\tlabel_" + name;
  for (const std::string& name : options.tasks) text_ += "\t" + name;
  text_ += "\n";
}

PredictionTable::~PredictionTable() {
  if (spool_ != nullptr) std::fclose(spool_);
}

void PredictionTable::add(int64_t index, const float* scores) {
  if (options_.bedgraph) {
    bedgraph_row(index, scores);
  } else {
    tsv_row(index, scores);
  }
  ++rows_;
  if (text_.size() >= kFlushBytes) flush();
}

// name, window, labels (NA where masked), one score per task.
void PredictionTable::tsv_row(int64_t index, const float* scores) {
  const data::Interval& window = samples_.window(index);
  text_ +=
      fmt::format("{}\t{}\t{}\t{}", samples_.name(index), window.contig, window.start, window.end);
  split_.source->labels(index, labels_.data(), mask_.data());
  for (size_t t = 0; t < labels_.size(); ++t) {
    text_ += mask_[t] ? fmt::format("\t{}", labels_[t]) : std::string("\tNA");
  }
  for (size_t t = 0; t < options_.tasks.size(); ++t) text_ += fmt::format("\t{}", scores[t]);
  text_ += "\n";
}

// A tile's score on its central `step` bases: windows every `step` bases make these blocks
// adjacent, sorted and non-overlapping.
void PredictionTable::bedgraph_row(int64_t index, const float* scores) {
  const data::Interval& window = samples_.window(index);
  const int64_t start = window.start + (split_.source->length() - options_.step) / 2;
  text_ += fmt::format("{}\t{}\t{}\t{}\n", window.contig, start, start + options_.step,
                       scores[options_.task]);
}

void PredictionTable::flush() {
  if (file_ != nullptr) {
    file_->write(text_);
  } else if (!text_.empty() && std::fwrite(text_.data(), 1, text_.size(), spool_) != text_.size()) {
    throw Error(fmt::format("--out -: writing the table to a temporary file failed: {}",
                            std::strerror(errno)));
  }
  text_.clear();
}

void PredictionTable::finish(std::ostream& out, std::ostream& log) {
  flush();
  if (file_ != nullptr) {
    file_->commit();
    log << fmt::format("wrote {} ({} rows)\n", options_.out, rows_);
    return;
  }
  if (std::fflush(spool_) != 0 || std::fseek(spool_, 0, SEEK_SET) != 0) {
    throw Error(fmt::format("--out -: reading back the table's temporary file failed: {}",
                            std::strerror(errno)));
  }
  std::vector<char> buffer(kFlushBytes);
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), spool_)) > 0) {
    out.write(buffer.data(), static_cast<std::streamsize>(n));
  }
  out << std::flush;
  if (std::ferror(spool_) != 0 || !out) {
    throw Error("--out -: writing the table to standard output failed");
  }
  log << fmt::format("wrote {} rows to standard output\n", rows_);
}

}  // namespace strand::cli
