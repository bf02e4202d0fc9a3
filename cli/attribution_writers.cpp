// The .npz, .tsv and .bw writers of `strand explain` (cli/attribution_writers.h).
#include "cli/attribution_writers.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "app/config_error.h"
#include "data/data_error.h"
#include "data/encoding.h"
#include "data/fasta/fasta_reader.h"
#include "data/signals/bigwig.h"
#include "io/atomic_file.h"
#include "io/npz.h"

namespace strand::cli {

using app::ConfigError;
namespace {

namespace fs = std::filesystem;

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// arr_0 (N, 4, P) float32 of the scores, and the one-hot sequences in <stem>_onehot.npz.
class NpzAttributionWriter : public AttributionWriter {
 public:
  NpzAttributionWriter(const fs::path& path, const AttributionLayout& layout)
      : path_(path),
        onehot_path_(path.parent_path() / (path.stem().string() + "_onehot.npz")),
        scores_(path),
        onehot_(onehot_path_),
        layout_(layout) {
    const Shape shape = {layout.samples, 4, layout.positions};
    scores_.begin_array("arr_0", io::NpyType::kFloat32, shape);
    onehot_.begin_array("arr_0", io::NpyType::kFloat32, shape);
  }
  void write(const AttributionBatch& batch) override {
    const Tensor scores = batch.scores.contiguous();
    scores_.append(
        std::span<const float>(scores.data<float>(), static_cast<size_t>(scores.numel())));
    const Tensor codes = batch.codes.contiguous();
    const int64_t b = codes.size(0), p = codes.size(1);
    std::vector<float> onehot(static_cast<size_t>(b * 4 * p), 0.0F);
    data::one_hot(codes.data<uint8_t>(), static_cast<size_t>(b), static_cast<size_t>(p),
                  onehot.data());
    onehot_.append(std::span<const float>(onehot));
  }
  std::string finish() override {
    scores_.commit();
    onehot_.commit();
    return fmt::format("{} (scores, {} x 4 x {}) and {} (one-hot)", path_.string(), layout_.samples,
                       layout_.positions, onehot_path_.string());
  }

 private:
  fs::path path_, onehot_path_;
  io::NpzWriter scores_, onehot_;
  AttributionLayout layout_;
};

// name, chrom, start, end, base, A, C, G, T, score: one row per base explained.
class TsvAttributionWriter : public AttributionWriter {
 public:
  TsvAttributionWriter(const fs::path& path, const AttributionLayout& layout)
      : path_(path), file_(path), layout_(layout) {
    file_.write(fmt::format("name\tchrom\tstart\tend\tbase\tA\tC\tG\tT\t{}\n", layout.score_name));
  }
  void write(const AttributionBatch& batch) override {
    const Tensor codes = batch.codes.contiguous();
    const Tensor scores = batch.scores.contiguous();
    const Tensor base = batch.base_score.contiguous();
    const int64_t b = codes.size(0), p = codes.size(1);
    std::string text;
    for (int64_t i = 0; i < b; ++i) {
      const data::Interval& window = batch.windows[static_cast<size_t>(i)];
      const std::string& name = batch.names[static_cast<size_t>(i)];
      for (int64_t l = 0; l < p; ++l) {
        const int64_t at = window.start + layout_.offset + l;
        const uint8_t code = codes.data<uint8_t>()[i * p + l];
        const float* s = scores.data<float>() + i * 4 * p + l;
        text += fmt::format("{}\t{}\t{}\t{}\t{}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\n", name,
                            window.contig, at, at + 1, "ACGTN"[std::min<uint8_t>(code, 4)], s[0],
                            s[p], s[2 * p], s[3 * p], base.data<float>()[i * p + l]);
      }
      if (text.size() > (1u << 20)) {
        file_.write(text);
        text.clear();
      }
    }
    file_.write(text);
  }
  std::string finish() override {
    file_.commit();
    return fmt::format("{} ({} rows)", path_.string(), layout_.samples * layout_.positions);
  }

 private:
  fs::path path_;
  io::AtomicFileWriter file_;
  AttributionLayout layout_;
};

// Each base's score as a bigWig over the contigs of the FASTA. Windows must come sorted and not
// overlap in the bases they own (tiles own their central step bases).
class BigWigAttributionWriter : public AttributionWriter {
 public:
  BigWigAttributionWriter(const fs::path& path, const AttributionLayout& layout,
                          const std::string& fasta)
      : path_(path),
        layout_(layout),
        writer_(path, data::FastaReader(fasta).contigs()),
        fasta_(fasta) {}
  void write(const AttributionBatch& batch) override {
    const Tensor base = batch.base_score.contiguous();
    const int64_t b = base.size(0), p = base.size(1);
    for (int64_t i = 0; i < b; ++i) {
      const data::Interval& window = batch.windows[static_cast<size_t>(i)];
      int64_t from = window.start + layout_.offset;
      int64_t to = from + p;
      if (layout_.owned_step > 0) {
        const int64_t length = window.end - window.start;
        const int64_t own = window.start + (length - layout_.owned_step) / 2;
        from = std::max(from, own);
        to = std::min(to, own + layout_.owned_step);
      }
      if (to <= from) continue;
      if (window.contig == last_contig_ && from < last_end_) {
        throw ConfigError(fmt::format(
            "--out {}: sample '{}' ({}:{}-{}) overlaps or precedes the one before it; a bigWig "
            "needs sorted windows that do not overlap (sort the intervals, or use --tile)",
            path_.string(), batch.names[static_cast<size_t>(i)], window.contig, from + 1, to));
      }
      try {
        writer_.add_values(window.contig, from,
                           std::span<const float>(
                               base.data<float>() + i * p + (from - window.start - layout_.offset),
                               static_cast<size_t>(to - from)));
      } catch (const data::DataError& error) {
        throw ConfigError(fmt::format(
            "--out {}: {} (a bigWig needs the windows sorted in the order of the contigs of '{}')",
            path_.string(), error.what(), fasta_));
      }
      last_contig_ = window.contig;
      last_end_ = to;
    }
  }
  std::string finish() override {
    writer_.finish();
    return path_.string() + " (bigWig of each base's score)";
  }

 private:
  fs::path path_;
  AttributionLayout layout_;
  data::BigWigWriter writer_;
  std::string fasta_;
  std::string last_contig_;
  int64_t last_end_ = 0;
};

}  // namespace

std::unique_ptr<AttributionWriter> make_attribution_writer(const std::string& path,
                                                           const AttributionLayout& layout,
                                                           const std::string& fasta) {
  const std::string name = lower(path);
  try {
    if (name.ends_with(".npz")) return std::make_unique<NpzAttributionWriter>(path, layout);
    if (name.ends_with(".tsv")) return std::make_unique<TsvAttributionWriter>(path, layout);
    if (name.ends_with(".bw") || name.ends_with(".bigwig")) {
      if (fasta.empty()) {
        throw ConfigError(fmt::format(
            "--out {}: a bigWig places scores on a genome; give --fasta with --intervals or "
            "--tile (or alone)",
            path));
      }
      return std::make_unique<BigWigAttributionWriter>(path, layout, fasta);
    }
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("--out {}: {}", path, error.what()));
  }
  throw ConfigError(
      fmt::format("--out {}: the format follows the extension: .npz, .tsv or .bw", path));
}

}  // namespace strand::cli
