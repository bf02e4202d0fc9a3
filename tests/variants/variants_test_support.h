// Helpers for the variant scoring tests: scratch directories, files, a simulated genome with
// planted motifs, and a model that scores a motif's best match (a PWM scan with known weights).
#pragma once

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "data/encoding.h"
#include "data/simulation/motif_embedding.h"
#include "data/simulation/motif_library.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "test_helpers.h"
#include "variants/allele_windows.h"
#include "variants/variant_scorer.h"

namespace strand::variants::testing {

/// A fresh directory under the system temp directory, removed at scope exit.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("strand-variants-" + tag + "-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string str(const std::string& child = "") const {
    return child.empty() ? path_.string() : (path_ / child).string();
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// (rows, L) codes: random, with `alt` the same except where the allele sits.
struct WindowPairs {
  Tensor ref, alt;
  std::vector<ChangedRange> changed;
};

inline WindowPairs pairs_for(int64_t length,
                             const std::vector<std::pair<std::string, std::string>>& alleles,
                             uint64_t seed) {
  const auto rows = static_cast<int64_t>(alleles.size());
  const Tensor source = strand::testing::random_codes(rows, length + 20, seed);
  WindowPairs pairs{Tensor::empty({rows, length}, DType::kUInt8),
                    Tensor::empty({rows, length}, DType::kUInt8),
                    {}};
  for (int64_t r = 0; r < rows; ++r) {
    const auto& [ref, alt] = alleles[static_cast<size_t>(r)];
    build_allele_windows(source.data<uint8_t>() + r * (length + 20), length, ref, alt,
                         pairs.ref.data<uint8_t>() + r * length,
                         pairs.alt.data<uint8_t>() + r * length);
    pairs.changed.push_back(changed_range(length, ref, alt));
  }
  return pairs;
}

// The reference experiment's architecture (Conv1D(16, 15) - ReLU - GlobalMaxPool1D - Dense(1) -
// Sigmoid), whose fused convolution the incremental paths leave whole.
inline std::shared_ptr<Sequential> reference_experiment_model() {
  auto model = std::make_shared<Sequential>();
  model->add(Conv1D(4, 16, 15));
  model->add(ReLU());
  model->add(GlobalMaxPool1D());
  model->add(Dense(16, 1));
  model->add(Sigmoid());
  return model;
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// The files of `dir` (names), to check that nothing was left behind.
inline std::vector<std::string> listing(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// "##fileformat=VCFv4.2", contig lines and the #CHROM line, then `body`.
inline std::string vcf_text(const std::string& body,
                            const std::vector<std::pair<std::string, int64_t>>& contigs) {
  std::string text = "##fileformat=VCFv4.2\n";
  for (const auto& [name, length] : contigs) {
    text += "##contig=<ID=" + name + ",length=" + std::to_string(length) + ">\n";
  }
  return text + "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n" + body;
}

/// A FASTA of `contigs` (name, bases), 60 bases per line.
inline void write_fasta(const std::string& path,
                        const std::vector<std::pair<std::string, std::string>>& contigs) {
  std::string text;
  for (const auto& [name, bases] : contigs) {
    text += ">" + name + "\n";
    for (size_t i = 0; i < bases.size(); i += 60) text += bases.substr(i, 60) + "\n";
  }
  write_text(path, text);
}

/// A simulated genome: contigs of i.i.d. background (GC 0.4) with the consensus of `motif`
/// planted forward at each of `sites` (contig index, 0-based start).
struct MotifGenome {
  data::Motif motif;
  std::vector<std::pair<std::string, std::string>> contigs;
};

inline MotifGenome motif_genome(const std::string& motif_name, int contigs, int64_t length,
                                const std::vector<std::pair<int, int64_t>>& sites,
                                uint64_t seed = 26) {
  MotifGenome genome;
  genome.motif = data::MotifLibrary::builtin().get(motif_name);
  data::Rng rng(seed);
  for (int c = 0; c < contigs; ++c) {
    std::vector<uint8_t> codes(static_cast<size_t>(length));
    data::sample_background(rng, 0.4, codes);
    for (const auto& [contig, start] : sites) {
      if (contig != c) continue;
      for (size_t i = 0; i < genome.motif.length(); ++i) {
        const auto& row = genome.motif.rows[i];
        codes[static_cast<size_t>(start) + i] =
            static_cast<uint8_t>(std::max_element(row.begin(), row.end()) - row.begin());
      }
    }
    genome.contigs.emplace_back("chr" + std::to_string(c + 1),
                                data::decode(codes.data(), codes.size()));
  }
  return genome;
}

/// A model that scores a window by its best match to `motif`: Conv1D(4 -> 1) whose weights are
/// the motif's log-odds against a uniform background, ReLU, GlobalMaxPool1D, Dense(1 -> 1) with
/// weight 1 and bias 0. Its one output is the best match's log-odds score (at least 0).
inline std::shared_ptr<Sequential> motif_scanner(const data::Motif& motif) {
  auto model = std::make_shared<Sequential>();
  const auto width = static_cast<int64_t>(motif.length());
  auto conv = model->add(Conv1D(4, 1, width));
  model->add(ReLU());
  model->add(GlobalMaxPool1D());
  auto dense = model->add(Dense(1, 1));
  std::vector<float> weights(static_cast<size_t>(4 * width));
  for (int64_t k = 0; k < width; ++k) {
    for (int b = 0; b < 4; ++b) {
      const double p = motif.rows[static_cast<size_t>(k)][static_cast<size_t>(b)];
      weights[static_cast<size_t>(b * width + k)] =
          static_cast<float>(std::log2((p * 0.97 + 0.0075) / 0.25));
    }
  }
  // Parameters are shared handles: a copy of the Var writes into the layer's tensor.
  Var conv_weight = conv->weight(), conv_bias = conv->bias();
  Var dense_weight = dense->weight(), dense_bias = dense->bias();
  conv_weight.mutable_value().copy_(Tensor::from_vector(weights, {1, 4, width}));
  conv_bias.mutable_value().fill_(0.0);
  dense_weight.mutable_value().fill_(1.0);
  dense_bias.mutable_value().fill_(0.0);
  return model;
}

/// The variant that breaks the planted consensus the most at motif position `i`: the base of
/// lowest probability there.
inline char breaking_base(const data::Motif& motif, size_t i) {
  const auto& row = motif.rows[i];
  return "ACGT"[std::min_element(row.begin(), row.end()) - row.begin()];
}

/// A sink that keeps every row in memory.
class MemorySink : public VariantScoreSink {
 public:
  void begin(std::span<const ScoreColumn> columns, const VariantReader& /*input*/) override {
    columns_.assign(columns.begin(), columns.end());
  }
  void write(const VariantRecord& record, std::span<const float> values) override {
    for (size_t a = 0; a < record.alts.size(); ++a) {
      rows.push_back(
          {record.id, record.chrom, record.position, record.ref, record.alts[a],
           std::vector<float>(
               values.begin() + static_cast<std::ptrdiff_t>(a * columns_.size()),
               values.begin() + static_cast<std::ptrdiff_t>((a + 1) * columns_.size()))});
    }
  }
  void commit() override { committed = true; }

  struct Row {
    std::string id, chrom;
    int64_t position = 0;
    std::string ref, alt;
    std::vector<float> values;
  };
  /// The value of column `name` in row `row`.
  float value(size_t row, const std::string& name) const {
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].name == name) return rows.at(row).values[c];
    }
    FAIL("no column " << name);
    return std::numeric_limits<float>::quiet_NaN();
  }
  const std::vector<ScoreColumn>& columns() const { return columns_; }

  std::vector<Row> rows;
  bool committed = false;

 private:
  std::vector<ScoreColumn> columns_;
};

/// Options scoring the one output of `model` (a (B, 1) value) with windows of `length`.
inline VariantScoringOptions value_options(int64_t length, const std::string& task = "motif") {
  VariantScoringOptions options;
  ScoredOutput output;
  output.index = 0;
  output.name = "output";
  output.kind = OutputKind::kValue;
  output.task_names = {task};
  options.outputs = {output};
  options.input_length = length;
  options.batch_size = 8;
  return options;
}

}  // namespace strand::variants::testing
