// strand.variants's engine: variants::score_variants() on a strand.Model, its rows collected in
// memory (the columns of `strand variants`' TSV) instead of written to a file, with the GIL
// released while it scores. python/strand/variants.py is the public face (a pandas DataFrame).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/config_error.h"
#include "app/model_builder.h"
#include "app/run_config.h"
#include "app/trained_model.h"
#include "app/variant_scoring.h"
#include "arrays.h"
#include "bindings.h"
#include "data/data_error.h"
#include "data/text_fields.h"
#include "python_model.h"
#include "threads.h"
#include "variants/contig_names.h"
#include "variants/variant_scorer.h"

namespace nb = nanobind;

namespace strand::python {
namespace {

// The rows of the TSV `strand variants` writes (id, chrom, pos, ref, alt, then one column per
// score), kept in memory: one row per ALT.
class ColumnSink : public variants::VariantScoreSink {
 public:
  void begin(std::span<const variants::ScoreColumn> columns,
             const variants::VariantReader& /*input*/) override {
    for (const variants::ScoreColumn& column : columns) names.push_back(column.name);
  }

  void write(const variants::VariantRecord& record, std::span<const float> row) override {
    for (size_t a = 0; a < record.alts.size(); ++a) {
      id.push_back(record.id);
      chrom.push_back(record.chrom);
      pos.push_back(record.position);
      ref.push_back(record.ref.empty() ? "-" : record.ref);
      alt.push_back(record.alts[a].empty() ? "-" : record.alts[a]);
      values.insert(values.end(), row.begin() + static_cast<std::ptrdiff_t>(a * names.size()),
                    row.begin() + static_cast<std::ptrdiff_t>((a + 1) * names.size()));
    }
  }

  void commit() override {}

  std::vector<std::string> names;
  std::vector<std::string> id, chrom, ref, alt;
  std::vector<int64_t> pos;
  std::vector<float> values;  // (rows, names) row-major
};

nb::dict score(PythonModel& self, const std::string& fasta, const std::string& vcf,
               const std::vector<std::string>& output, const std::vector<std::string>& task,
               bool rc_average, std::optional<int64_t> batch_size, const std::string& ref_mismatch,
               const std::string& contig_end, const std::optional<std::string>& chrom_alias,
               int64_t null_shuffles, uint64_t seed, std::optional<int64_t> threads) {
  check_thread_count(threads);
  const variants::VariantScoringOptions options = app::variant_scoring_options(
      {.outputs = output,
       .tasks = task,
       .rc_average = rc_average,
       .batch_size = batch_size,
       .ref_mismatch = ref_mismatch,
       .contig_end = contig_end,
       .chrom_alias = chrom_alias.value_or(""),
       .null_shuffles = null_shuffles,
       .seed = seed},
      self.trained(), self.device(), app::VariantOptionNames::keyword_names());
  ColumnSink sink;
  {
    nb::gil_scoped_release no_gil;
    std::lock_guard<std::mutex> lock(self.mutex());
    // Ctrl-C (a notebook's interrupt) stops scoring at the next batch, as in `strand variants`;
    // the partial table is dropped and KeyboardInterrupt raised (errors.cpp).
    LongCall call(threads);
    const variants::VariantSummary summary =
        variants::score_variants(self.model(), vcf, fasta, sink, options);
    if (summary.stop_signal != 0) throw Interrupted(summary.stop_signal);
  }
  const auto rows = static_cast<int64_t>(sink.id.size());
  const auto columns = static_cast<int64_t>(sink.names.size());
  nb::dict out;
  out["id"] = sink.id;
  out["chrom"] = sink.chrom;
  auto positions = std::make_shared<std::vector<int64_t>>(std::move(sink.pos));
  positions->reserve(1);  // a buffer even for no rows
  out["pos"] = numpy_view(positions->data(), {rows}, DType::kInt64, positions);
  out["ref"] = sink.ref;
  out["alt"] = sink.alt;
  for (int64_t c = 0; c < columns; ++c) {
    float* values = nullptr;
    nb::object array = new_float_array({rows}, &values);
    for (int64_t r = 0; r < rows; ++r)
      values[r] = sink.values[static_cast<size_t>(r * columns + c)];
    out[nb::str(sink.names[static_cast<size_t>(c)].c_str())] = array;
  }
  return out;
}

}  // namespace

void bind_variants(nb::module_& m) {
  m.def("_variants_score", &score, nb::arg("model"), nb::arg("fasta"), nb::arg("vcf"),
        nb::arg("output"), nb::arg("task"), nb::arg("rc_average"), nb::arg("batch_size").none(),
        nb::arg("ref_mismatch"), nb::arg("contig_end"), nb::arg("chrom_alias").none(),
        nb::arg("null_shuffles"), nb::arg("seed"), nb::arg("threads").none(),
        "variants::score_variants(): the columns of `strand variants`' TSV, by name, in order "
        "(strand.variants.score is the public function).");
}

}  // namespace strand::python
