// libFuzzer target: a label TSV ("NAME<TAB>LABEL..." per line, optional header) read by
// RecordSource against a fixed FASTA, with window 0 (records' own length) and real labels, and
// with window 8 and binary labels.
//
// Expected: DataError. Findings: crashes, sanitizer reports, other exception types, and for an
// accepted file: a sample count that is neither the non-blank lines nor one less (a header), a
// header whose names are not the target names, a sample that does not read the bases of the
// record its line names (or is named otherwise), labels that are not T per sample, a masked
// label that is not 0, a valid label that is not finite (or not 0/1 when binary), or no valid
// label at all.
#include <htslib/hts_log.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/fasta/fasta_reader.h"
#include "data/labels.h"
#include "data/sources/record_source.h"
#include "data/text_fields.h"
#include "data/window.h"
#include "fmt/format.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace strand;

// Records of lengths 10, 10, 7 and 12 (soft-masked and N bases in r4).
const std::map<std::string, std::string>& records() {
  static const std::map<std::string, std::string> r = {
      {"r1", "ACGTACGTAC"}, {"r2", "TTTTTGGGGG"}, {"r3", "CCCAAAT"}, {"r4", "acgtNNNNACGT"}};
  return r;
}

const data::FastaReader& reader() {
  static const std::unique_ptr<data::FastaReader> fasta = [] {
    const std::string path = (fuzz::ScratchDir::get().fixed() / "records.fa").string();
    std::string text;
    for (const auto& [name, bases] : records()) text += ">" + name + "\n" + bases + "\n";
    fuzz::write_file(path, text);
    return std::make_unique<data::FastaReader>(path);
  }();
  return *fasta;
}

// Non-blank lines split on tabs, as LineReader and split_tabs see them.
std::vector<std::vector<std::string>> nonblank_lines(std::string_view text) {
  std::vector<std::vector<std::string>> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (data::is_blank(line)) continue;
    std::vector<std::string> fields;
    for (const std::string_view f : data::split_tabs(line)) fields.emplace_back(f);
    out.push_back(std::move(fields));
  }
  return out;
}

void check(const data::RecordSource& source, std::string_view text, bool binary,
           const std::string& what) {
  const auto lines = nonblank_lines(text);
  const int64_t n = source.size();
  const int64_t t = source.num_targets();
  const int64_t length = source.length();
  if (n <= 0 || t <= 0 || length <= 0) {
    fuzz::finding(fmt::format("{}: accepted with N={} T={} L={}", what, n, t, length));
  }
  if (static_cast<int64_t>(source.target_names().size()) != t) {
    fuzz::finding(
        fmt::format("{}: {} target names for {} targets", what, source.target_names().size(), t));
  }
  const auto lines_n = static_cast<int64_t>(lines.size());
  if (n != lines_n && n != lines_n - 1) {
    fuzz::finding(fmt::format("{}: {} samples from {} non-blank lines (lines lost silently)", what,
                              n, lines_n));
  }
  const size_t first = static_cast<size_t>(lines_n - n);  // 1 when the first line is a header
  if (first == 1) {
    const std::vector<std::string> header(lines[0].begin() + 1, lines[0].end());
    if (header != source.target_names()) {
      fuzz::finding(
          fmt::format("{}: the first line was dropped but is not the target names", what));
    }
  }
  std::vector<uint8_t> codes(static_cast<size_t>(length)), expected(codes.size());
  std::vector<float> labels(static_cast<size_t>(t));
  std::vector<uint8_t> mask(static_cast<size_t>(t));
  bool any_valid = false;
  for (int64_t i = 0; i < n; ++i) {
    const auto& fields = lines[first + static_cast<size_t>(i)];
    if (source.sample_names()[static_cast<size_t>(i)] != fields[0]) {
      fuzz::finding(fmt::format("{}: sample {} is named '{}' but its line names '{}'", what, i,
                                source.sample_names()[static_cast<size_t>(i)], fields[0]));
    }
    const auto record = records().find(fields[0]);
    if (record == records().end()) {
      fuzz::finding(fmt::format("{}: sample {} comes from line naming '{}', not a record", what, i,
                                fields[0]));
    }
    if (static_cast<int64_t>(fields.size()) - 1 != t) {
      fuzz::finding(fmt::format("{}: sample {} has {} label fields for {} targets", what, i,
                                fields.size() - 1, t));
    }
    const std::basic_string<uint8_t> stored = data::encode(record->second);
    const auto total = static_cast<int64_t>(stored.size());
    for (const int64_t shift : {int64_t{0}, int64_t{-2}, int64_t{3}}) {
      source.fetch(i, shift, codes.data(), nullptr, 0);
      data::copy_window(stored.data(), total, data::window_start(total / 2, length, shift, total),
                        length, expected.data());
      if (codes != expected) {
        fuzz::finding(fmt::format("{}: sample {} (record '{}', shift {}) reads other bases", what,
                                  i, fields[0], shift));
      }
    }
    source.labels(i, labels.data(), mask.data());
    for (int64_t j = 0; j < t; ++j) {
      if (mask[j] > 1 || (mask[j] == 0 && labels[j] != 0.0F)) {
        fuzz::finding(fmt::format("{}: sample {} label {}: value {} mask {}", what, i, j, labels[j],
                                  mask[j]));
      }
      if (mask[j] == 1 && !std::isfinite(labels[j])) {
        fuzz::finding(fmt::format("{}: sample {} label {}: {} taken as a valid label", what, i, j,
                                  labels[j]));
      }
      if (binary && mask[j] == 1 && labels[j] != 0.0F && labels[j] != 1.0F) {
        fuzz::finding(fmt::format("{}: sample {} label {}: {} taken as a binary label", what, i, j,
                                  labels[j]));
      }
      any_valid = any_valid || mask[j] == 1;
    }
  }
  if (!any_valid) fuzz::finding(what + ": accepted with every label missing");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  hts_set_log_level(HTS_LOG_OFF);
  (void)reader();  // build the FASTA index once, before the first input
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const auto& dir = fuzz::ScratchDir::get().fresh();
  const std::string path = (dir / "labels.tsv").string();
  fuzz::write_file(path, text);
  // Window 0 with real labels, window 8 with binary labels (what strand train asks for).
  for (const int64_t window : {int64_t{0}, int64_t{8}}) {
    data::LabelOptions options;
    options.kind = window == 0 ? data::LabelKind::kReal : data::LabelKind::kBinary;
    const bool binary = options.kind == data::LabelKind::kBinary;
    const std::string what =
        fmt::format("RecordSource(window {}, {} labels)", window, binary ? "binary" : "real");
    std::unique_ptr<data::RecordSource> source;
    if (fuzz::parses<data::DataError>(what.c_str(), [&] {
          source = std::make_unique<data::RecordSource>(reader(), path, window, options);
        })) {
      check(*source, text, binary, what);
    }
  }
  return 0;
}
