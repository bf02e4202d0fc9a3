// RecordSource: whole FASTA records as samples, labelled by a name -> labels TSV
// (DeepBind-style sets).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/fasta_reader.h"
#include "data/labels.h"
#include "data/sequence_source.h"

namespace strand::data {

/// Label TSV: one line per sample, "NAME<TAB>LABEL1[<TAB>LABEL2...]", labels checked per
/// LabelOptions (data/labels.h; '.', NA, nan, -nan are missing). The first non-blank line is a
/// header (target names) exactly when is_label_tsv_header() says so; otherwise it is data and
/// parsed strictly like every other line, so a typo is an error, never a lost sample. Blank
/// lines are skipped. Every line must have the same number of labels; NAME must be a FASTA
/// record.
/// Records are held in memory as codes. Sample i is the L-base window centred in the record
/// of TSV line i: longer records are cropped (jitter moves the crop), shorter ones are padded
/// with N at the end. window = 0 requires all labelled records to have the same length.
/// The header rule of the label TSV: the first non-blank line (split on tabs) is a header when
/// it has a label field, its first field is not a record of `reader`, and every label field is
/// a target name: it starts with an ASCII letter or '_' and is neither a missing marker (NA,
/// nan) nor a number (inf). "name<TAB>CTCF" is a header; "r7<TAB>1x" and "name<TAB>1" are data.
bool is_label_tsv_header(const std::vector<std::string_view>& fields, const FastaReader& reader);

class RecordSource : public SequenceSource {
 public:
  /// Reads the label TSV and the labelled records. Throws DataError for window < 0, a
  /// malformed TSV line, a label not valid for `labels` (data/labels.h), a name not in the
  /// FASTA, a record listed twice, unequal record lengths with window 0, no labelled records,
  /// or (require_valid) no valid label at all.
  RecordSource(const FastaReader& reader, const std::string& labels_path, int64_t window = 0,
               const LabelOptions& labels = {});

  int64_t size() const override { return static_cast<int64_t>(offsets_.size()); }
  int64_t length() const override { return window_; }
  int64_t num_targets() const override { return static_cast<int64_t>(target_names_.size()); }
  void fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
             int worker) const override;
  void labels(int64_t index, float* out, uint8_t* mask) const override;

  std::vector<std::string> task_names() const override { return target_names_; }

  /// (T) names from the header line, or "task_0", "task_1", ... without one.
  const std::vector<std::string>& target_names() const { return target_names_; }
  /// Replaces the task names (e.g. by `--task-names`); throws DataError unless there is one
  /// per label column.
  void set_task_names(std::vector<std::string> names);
  /// (N) the record name of each sample, in TSV order.
  const std::vector<std::string>& sample_names() const { return sample_names_; }
  /// Bases of sample `index`'s whole record, before cropping or padding to the window.
  int64_t record_length(int64_t index) const { return lengths_[static_cast<size_t>(index)]; }

 private:
  std::vector<uint8_t> pool_;        // codes of all labelled records, back to back
  std::vector<size_t> offsets_;      // (N) start of each sample's record in pool_
  std::vector<int64_t> lengths_;     // (N) record lengths
  std::vector<float> labels_;        // (N, T)
  std::vector<uint8_t> label_mask_;  // (N, T)
  std::vector<std::string> target_names_;
  std::vector<std::string> sample_names_;  // (N) record names
  std::string labels_path_;
  int64_t window_ = 0;
};

}  // namespace strand::data
