// RecordSource: FASTA records + label TSV, held in memory as codes.
#include "data/sources/record_source.h"

#include <algorithm>
#include <unordered_map>

#include "data/data_error.h"
#include "data/labels.h"
#include "data/text_fields.h"
#include "data/warnings.h"
#include "data/window.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

constexpr const char* kHeaderRule =
    "line {} is read as a header only when its first field is not a record of the FASTA and "
    "every other field is a target name (a letter or '_' first, not NA/nan/inf); see "
    "docs/data_formats.md";

}  // namespace

bool is_label_tsv_header(const std::vector<std::string_view>& fields, const FastaReader& reader) {
  return fields.size() >= 2 && reader.contig_id(fields[0]) < 0 &&
         std::all_of(fields.begin() + 1, fields.end(), is_target_name);
}

RecordSource::RecordSource(const FastaReader& reader, const std::string& labels_path,
                           int64_t window, const LabelOptions& label_options)
    : labels_path_(labels_path), window_(window) {
  if (window < 0) throw DataError(fmt::format("RecordSource: window {} must be >= 0", window));
  LineReader in(labels_path);
  std::string line;
  size_t num_labels = 0;
  bool first = true;
  int64_t common_length = -1;
  std::string first_record;
  // Each record is one sample: a record listed twice would be trained on twice, silently.
  std::unordered_map<std::string, int64_t> line_of_record;
  while (in.next(line)) {
    const int64_t n = in.line_number();
    if (is_blank(line)) continue;
    const auto fields = split_tabs(line);
    if (fields.size() < 2) {
      throw DataError(fmt::format("{}:{}: expected NAME<TAB>LABEL..., found '{}'", labels_path, n,
                                  excerpt(line)));
    }
    const bool first_line = first;
    if (first) {
      first = false;
      num_labels = fields.size() - 1;
      const bool header = is_label_tsv_header(fields, reader);
      for (size_t i = 1; i < fields.size(); ++i) {
        const std::string name = header ? std::string(fields[i]) : fmt::format("task_{}", i - 1);
        if (std::find(target_names_.begin(), target_names_.end(), name) != target_names_.end()) {
          throw DataError(fmt::format("{}:{}: target name '{}' appears twice in the header",
                                      labels_path, n, excerpt(name)));
        }
        target_names_.push_back(name);
      }
      if (header) continue;
    }
    try {
      if (fields.size() - 1 != num_labels) {
        throw DataError(fmt::format("{}:{}: expected {} label columns, found {}", labels_path, n,
                                    num_labels, fields.size() - 1));
      }
      if (reader.contig_id(fields[0]) < 0) {
        throw DataError(fmt::format("{}:{}: record '{}' is not in FASTA '{}'", labels_path, n,
                                    excerpt(fields[0]), reader.path()));
      }
      for (size_t i = 1; i < fields.size(); ++i) {
        const Label label =
            parse_label(fields[i], label_options.kind, labels_path, n, static_cast<int>(i + 1));
        labels_.push_back(label.value);
        label_mask_.push_back(label.valid ? 1 : 0);
      }
    } catch (const DataError& error) {
      if (!first_line) throw;
      // The first line was taken as data: say why, in case a header was meant.
      throw DataError(fmt::format("{} ({})", error.what(), fmt::format(kHeaderRule, n)));
    }
    const std::string name(fields[0]);
    if (const auto [it, first_time] = line_of_record.emplace(name, n); !first_time) {
      throw DataError(fmt::format(
          "{}:{}: record '{}' is listed again (line {} lists it first); each record is one "
          "sample: list it once",
          labels_path, n, excerpt(name), it->second));
    }
    const int id = reader.contig_id(name);
    const int64_t len = reader.contigs()[static_cast<size_t>(id)].length;
    if (window_ == 0) {
      if (common_length >= 0 && len != common_length) {
        throw DataError(fmt::format(
            "{}:{}: record '{}' has length {} but '{}' has {}; set a window length to crop/pad "
            "records of different lengths",
            labels_path, n, name, len, first_record, common_length));
      }
      common_length = len;
      first_record = name;
    }
    offsets_.push_back(pool_.size());
    lengths_.push_back(len);
    sample_names_.push_back(name);
    pool_.resize(pool_.size() + static_cast<size_t>(len));
    reader.fetch_codes(name, 0, len, pool_.data() + offsets_.back());
  }
  if (offsets_.empty()) {
    throw DataError(
        fmt::format("label file '{}' is empty: expected NAME<TAB>LABEL lines", labels_path));
  }
  check_some_label_valid(label_mask_, label_options, labels_path, size());
  if (window_ == 0) window_ = common_length;
  if (window_ == 0) {
    throw DataError(fmt::format("records labelled in '{}' are empty", labels_path));
  }
  // Padding is the documented rule for a few short records of a set; said aloud, so that a
  // window meant for other data (a preset's 600 bases on 500-base records) is not trained on N.
  const auto shorter = static_cast<int64_t>(
      std::count_if(lengths_.begin(), lengths_.end(), [this](int64_t l) { return l < window_; }));
  if (shorter > 0) {
    const int64_t shortest = *std::min_element(lengths_.begin(), lengths_.end());
    warn(fmt::format(
        "{} of the {} records labelled in '{}' are shorter than the {}-base window (the "
        "shortest: {} bases) and are padded with N to it; --window 0 takes the records' common "
        "length",
        shorter, size(), labels_path, window_, shortest));
  }
}

void RecordSource::set_task_names(std::vector<std::string> names) {
  if (names.size() != target_names_.size()) {
    throw DataError(fmt::format("{} task names given ({}) but '{}' has {} label columns ({})",
                                names.size(), fmt::join(names, ","), labels_path_,
                                target_names_.size(), fmt::join(target_names_, ",")));
  }
  target_names_ = std::move(names);
}

void RecordSource::fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
                         int /*worker*/) const {
  const auto i = static_cast<size_t>(index);
  const int64_t start = window_start(lengths_[i] / 2, window_, shift, lengths_[i]);
  copy_window(pool_.data() + offsets_[i], lengths_[i], start, window_, codes);
  if (lower_mask != nullptr) std::fill_n(lower_mask, window_, uint8_t{0});
}

void RecordSource::labels(int64_t index, float* out, uint8_t* mask) const {
  const auto t = static_cast<size_t>(num_targets());
  const auto offset = static_cast<std::ptrdiff_t>(static_cast<size_t>(index) * t);
  std::copy_n(labels_.begin() + offset, t, out);
  std::copy_n(label_mask_.begin() + offset, t, mask);
}

}  // namespace strand::data
