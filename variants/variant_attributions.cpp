// The strongest variants of a scoring run and their DeepLIFT/SHAP attributions
// (variants/variant_attributions.h).
#include "variants/variant_attributions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/fasta/fasta_reader.h"
#include "explain/deep_lift_shap.h"
#include "io/atomic_file.h"
#include "io/npz.h"
#include "variants/allele_window_source.h"
#include "variants/allele_windows.h"

namespace strand::variants {
namespace {

// Orders a min-heap: the weakest on top (ties: the later row is weaker, so earlier rows stay).
bool stronger(const StrongVariant& a, const StrongVariant& b) {
  return a.strength != b.strength ? a.strength > b.strength : a.row < b.row;
}

// The one-hot (K, 4, L) float of codes (K, L), as strand explain's <stem>_onehot.npz holds it.
std::vector<float> one_hot(const Tensor& codes) {
  const int64_t k = codes.shape()[0], length = codes.shape()[1];
  std::vector<float> out(static_cast<size_t>(k * 4 * length));
  data::one_hot(codes.data<uint8_t>(), static_cast<size_t>(k), static_cast<size_t>(length),
                out.data());
  return out;
}

}  // namespace

StrongestVariants::StrongestVariants(VariantScoreSink& inner, int64_t count,
                                     const std::vector<ScoredOutput>& outputs)
    : inner_(inner), count_(count), outputs_(outputs) {}

void StrongestVariants::begin(std::span<const ScoreColumn> columns, const VariantReader& input) {
  columns_.assign(columns.begin(), columns.end());
  for (size_t c = 0; c < columns_.size(); ++c) {
    const ScoreColumn& column = columns_[c];
    const bool profile = outputs_[column.output].kind == OutputKind::kProfile;
    if (!column.p_value && column.score == (profile ? "jsd" : "diff")) ranked_.push_back(c);
  }
  inner_.begin(columns, input);
}

void StrongestVariants::write(const VariantRecord& record, std::span<const float> values) {
  inner_.write(record, values);
  const size_t width = columns_.size();
  for (size_t a = 0; a < record.alts.size(); ++a, ++rows_) {
    StrongVariant candidate;
    candidate.strength = -1.0;
    for (const size_t c : ranked_) {
      const float value = values[a * width + c];
      if (std::isnan(value) || std::abs(value) <= candidate.strength) continue;
      candidate.strength = std::abs(value);
      candidate.column = columns_[c].name;
      candidate.target.output = outputs_[columns_[c].output].index;
      candidate.target.task = columns_[c].task;
    }
    if (candidate.strength < 0.0) continue;  // not scored
    if (static_cast<int64_t>(kept_.size()) == count_ && !stronger(candidate, kept_.front())) {
      continue;
    }
    candidate.row = rows_;
    candidate.id = record.id;
    candidate.chrom = record.chrom;
    candidate.position = record.position;
    candidate.ref = record.ref;
    candidate.alt = record.alts[a];
    if (static_cast<int64_t>(kept_.size()) == count_) {
      std::pop_heap(kept_.begin(), kept_.end(), stronger);
      kept_.pop_back();
    }
    kept_.push_back(std::move(candidate));
    std::push_heap(kept_.begin(), kept_.end(), stronger);
  }
}

std::vector<StrongVariant> StrongestVariants::strongest() const {
  std::vector<StrongVariant> sorted = kept_;
  std::sort(sorted.begin(), sorted.end(), stronger);
  return sorted;
}

VariantAttributions attribute_variants(Model& model, const std::string& fasta,
                                       const std::vector<StrongVariant>& variants,
                                       const VariantAttributionOptions& options) {
  const auto k = static_cast<int64_t>(variants.size());
  const int64_t length = options.input_length;
  data::FastaReader reader(fasta);
  VariantAttributions out;
  out.ref_codes = Tensor::empty({k, length}, DType::kUInt8);
  out.alt_codes = Tensor::empty({k, length}, DType::kUInt8);
  std::vector<uint8_t> source;
  for (int64_t i = 0; i < k; ++i) {
    const StrongVariant& v = variants[static_cast<size_t>(i)];
    const auto alias = options.contig_aliases.find(v.chrom);
    const std::string& name = alias == options.contig_aliases.end() ? v.chrom : alias->second;
    const int contig = reader.contig_id(name);
    if (contig < 0) {
      throw data::DataError(fmt::format("{}: no record '{}' for the variant {}:{} {}>{}", fasta,
                                        name, v.chrom, v.position, v.ref, v.alt));
    }
    const AlleleSource allele = allele_source(v.position, length, v.ref, v.alt);
    source.resize(static_cast<size_t>(allele.length));
    fetch_padded(reader, contig, allele.start, allele.length, source.data());
    build_allele_windows(source.data(), length, v.ref, v.alt,
                         out.ref_codes.data<uint8_t>() + i * length,
                         out.alt_codes.data<uint8_t>() + i * length);
  }
  out.ref_hypothetical = Tensor::empty({k, 4, length});
  out.alt_hypothetical = Tensor::empty({k, 4, length});
  for (Tensor* t :
       {&out.ref_prediction, &out.alt_prediction, &out.ref_deviation, &out.alt_deviation}) {
    *t = Tensor::empty({k});
  }
  // One pass per variant: each has its own target. Variant i's windows are rows 2i and 2i + 1
  // of the references' keys, so their shuffles differ.
  for (int64_t i = 0; i < k; ++i) {
    Tensor pair = Tensor::empty({2, length}, DType::kUInt8);
    std::copy_n(out.ref_codes.data<uint8_t>() + i * length, length, pair.data<uint8_t>());
    std::copy_n(out.alt_codes.data<uint8_t>() + i * length, length, pair.data<uint8_t>() + length);
    explain::DeepLiftShapOptions shap;
    shap.target = variants[static_cast<size_t>(i)].target;
    shap.references = options.references;
    shap.seed = options.seed;
    shap.batch_size = options.batch_size;
    shap.first_index = 2 * i;
    const explain::DeepLiftShapResult result = explain::deep_lift_shap(model, pair, shap);
    const float* h = result.hypothetical.data<float>();
    std::copy_n(h, 4 * length, out.ref_hypothetical.data<float>() + i * 4 * length);
    std::copy_n(h + 4 * length, 4 * length, out.alt_hypothetical.data<float>() + i * 4 * length);
    out.ref_prediction.data<float>()[i] = result.prediction.data<float>()[0];
    out.alt_prediction.data<float>()[i] = result.prediction.data<float>()[1];
    out.ref_deviation.data<float>()[i] = result.relative_deviation.data<float>()[0];
    out.alt_deviation.data<float>()[i] = result.relative_deviation.data<float>()[1];
  }
  return out;
}

void write_variant_attributions(const std::string& npz, const std::string& tsv,
                                const std::vector<StrongVariant>& variants,
                                const VariantAttributions& attributions) {
  const auto k = static_cast<int64_t>(variants.size());
  const int64_t length = attributions.ref_codes.dim() == 2 ? attributions.ref_codes.shape()[1] : 0;
  io::NpzWriter archive(npz);
  const std::pair<const char*, const Tensor*> onehots[] = {{"ref_onehot", &attributions.ref_codes},
                                                           {"alt_onehot", &attributions.alt_codes}};
  for (const auto& [name, codes] : onehots) {
    archive.begin_array(name, io::NpyType::kFloat32, {k, 4, length});
    archive.append(std::span<const float>(one_hot(*codes)));
  }
  const std::pair<const char*, const Tensor*> scores[] = {
      {"ref_hypothetical", &attributions.ref_hypothetical},
      {"alt_hypothetical", &attributions.alt_hypothetical}};
  for (const auto& [name, values] : scores) {
    archive.begin_array(name, io::NpyType::kFloat32, {k, 4, length});
    archive.append(
        std::span<const float>(values->data<float>(), static_cast<size_t>(values->numel())));
  }
  std::vector<int64_t> rows;
  for (const StrongVariant& v : variants) rows.push_back(v.row);
  archive.begin_array("row", io::NpyType::kInt64, {k});
  archive.append(std::span<const int64_t>(rows));

  std::string text =
      "rank\trow\tid\tchrom\tpos\tref\talt\tcolumn\tstrength\tref_value\talt_value\t"
      "ref_deviation\talt_deviation\n";
  for (int64_t i = 0; i < k; ++i) {
    const StrongVariant& v = variants[static_cast<size_t>(i)];
    text += fmt::format(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.3g}\t{:.3g}\n", i + 1, v.row,
        v.id, v.chrom, v.position, v.ref.empty() ? "-" : v.ref, v.alt.empty() ? "-" : v.alt,
        v.column, v.strength, attributions.ref_prediction.data<float>()[i],
        attributions.alt_prediction.data<float>()[i], attributions.ref_deviation.data<float>()[i],
        attributions.alt_deviation.data<float>()[i]);
  }
  io::AtomicFileWriter table(tsv);
  table.write(text);
  archive.commit();
  table.commit();
}

}  // namespace strand::variants
