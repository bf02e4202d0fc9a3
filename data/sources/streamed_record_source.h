// StreamedRecordSource: every record of a FASTA as an unlabelled sample, read from the file in
// order as it is scored, so memory does not grow with the number of records (scoring a FASTA
// of a million sequences holds no per-record index, name or window).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data/data_error.h"
#include "data/fasta/fasta_records.h"
#include "data/intervals/intervals.h"
#include "data/sources/sequence_source.h"

namespace strand::data {

/// A record whose length does not fit the window (the messages of record_windows()), or records
/// of different lengths when the window is their common length.
class RecordLengthError : public DataError {
 public:
  using DataError::DataError;
};

/// Samples are the records of a FASTA in file order; sample i is the `window`-base window
/// centred in record i (the whole record when it has exactly `window` bases), T = 0. Fetches are
/// fast in order (each worker reads the file sequentially, keeping its last record) and
/// correct in any order (a fetch before the worker's last record reads from the start again).
class StreamedRecordSource : public SequenceSource {
 public:
  /// One pass over `path`: counts the records and checks their content (FastaRecordReader),
  /// that their names are unique (UniqueNames), and that each has `window` bases, or more with
  /// `centre`; window 0 takes the first record's length, which every record must then have.
  /// Throws RecordLengthError for a length that does not fit (naming the record), DataError
  /// for the file.
  StreamedRecordSource(std::string path, int64_t window, bool centre);

  int64_t size() const override { return records_; }
  int64_t length() const override { return window_; }
  int64_t num_targets() const override { return 0; }
  void prepare_workers(int n) override;
  void fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
             int worker) const override;
  void labels(int64_t /*index*/, float* /*out*/, uint8_t* /*mask*/) const override {}
  bool has_lower_mask() const override { return true; }

  /// The FASTA path as given.
  const std::string& path() const { return path_; }
  /// The window scored in a record of `length` bases: [start, start + window) centred in it
  /// (record_windows()'s), as an interval named by the record.
  Interval window(const FastaRecord& record) const;
  /// The index of the first record named `name`, or -1 (reads the file's headers once).
  int64_t find(std::string_view name) const;

 private:
  // One worker's place in the file: its reader and the record it read last.
  struct Cursor {
    std::unique_ptr<FastaRecordReader> reader;
    FastaRecord record;
    int64_t index = -1;  // of `record`; -1 before the first
  };
  // Moves `cursor` to record `index`.
  void seek(Cursor& cursor, int64_t index) const;

  std::string path_;
  int64_t window_ = 0;
  int64_t records_ = 0;
  mutable std::vector<Cursor> cursors_;  // one per worker
};

}  // namespace strand::data
