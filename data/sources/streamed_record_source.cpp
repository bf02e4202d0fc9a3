// StreamedRecordSource (data/sources/streamed_record_source.h): a counting pass, then each
// worker's sequential reader.
#include "data/sources/streamed_record_source.h"

#include <fmt/format.h>

#include <algorithm>

#include "data/encoding.h"
#include "data/text_fields.h"
#include "data/window.h"

namespace strand::data {

StreamedRecordSource::StreamedRecordSource(std::string path, int64_t window, bool centre)
    : path_(std::move(path)), window_(window) {
  if (window < 0) {
    throw DataError(fmt::format("record windows need a window of at least 1 base, got {}", window));
  }
  FastaRecordReader reader(path_, false);
  UniqueNames names;
  FastaRecord record, first;
  while (reader.next(record)) {
    if (records_ == 0) first = record;
    if (window == 0 && record.length != first.length) {
      throw RecordLengthError(fmt::format(
          "records '{}' ({} bases) and '{}' ({} bases) differ in length and the run gives no "
          "window; pass --window",
          first.name, first.length, record.name, record.length));
    }
    const int64_t need = window == 0 ? first.length : window;
    if (record.length < need || (record.length > need && !centre)) {
      throw RecordLengthError(fmt::format(
          "{}: record '{}' has {} bases but the model takes {}{}", path_, excerpt(record.name),
          record.length, need,
          record.length > need ? "; centring (strand predict --center) scores its central window"
                               : " (shorter records are not padded with N)"));
    }
    names.add(record.name);
    ++records_;
  }
  if (window_ == 0) window_ = first.length;
  names.check(path_);
  prepare_workers(1);  // direct fetches; a loader prepares its workers' own
}

void StreamedRecordSource::prepare_workers(int n) {
  cursors_.clear();
  cursors_.resize(static_cast<size_t>(std::max(n, 1)));
}

void StreamedRecordSource::seek(Cursor& cursor, int64_t index) const {
  if (index < 0 || index >= records_) {
    throw DataError(fmt::format("StreamedRecordSource: sample {} of {}", index, records_));
  }
  if (cursor.reader == nullptr || index < cursor.index) {
    cursor.reader = std::make_unique<FastaRecordReader>(path_, true);
    cursor.index = -1;
  }
  while (cursor.index < index) {
    if (!cursor.reader->next(cursor.record)) {
      throw DataError(
          fmt::format("{}: the FASTA changed while it was read (record {} of {} is "
                      "missing)",
                      path_, cursor.index + 2, records_));
    }
    ++cursor.index;
  }
}

void StreamedRecordSource::fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
                                 int worker) const {
  if (worker < 0 || static_cast<size_t>(worker) >= cursors_.size()) {
    throw DataError(fmt::format(
        "StreamedRecordSource: worker {} has no file handle; call prepare_workers() first",
        worker));
  }
  Cursor& cursor = cursors_[static_cast<size_t>(worker)];
  seek(cursor, index);
  const int64_t length = cursor.record.length;
  if (length < window_) {
    throw DataError(
        fmt::format("{}: the FASTA changed while it was read (record '{}' has {} "
                    "bases, fewer than the window's {})",
                    path_, excerpt(cursor.record.name), length, window_));
  }
  const int64_t start = window_start(length / 2, window_, shift, length);
  encode(cursor.record.bases.data() + start, static_cast<size_t>(window_), codes, lower_mask);
}

Interval StreamedRecordSource::window(const FastaRecord& record) const {
  Interval window;
  window.contig = record.name;
  window.start = window_start(record.length / 2, window_, 0, record.length);
  window.end = window.start + window_;
  return window;
}

int64_t StreamedRecordSource::find(std::string_view name) const {
  FastaRecordReader reader(path_, false);
  FastaRecord record;
  for (int64_t index = 0; reader.next(record); ++index) {
    if (record.name == name) return index;
  }
  return -1;
}

}  // namespace strand::data
