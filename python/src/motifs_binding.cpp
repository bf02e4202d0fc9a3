// strand.motifs's engine: motifs::discover() on numpy arrays, with the GIL released while it
// runs; the patterns come back as numpy arrays. python/strand/motifs.py is the public face.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <optional>
#include <vector>

#include "app/config_error.h"
#include "arrays.h"
#include "bindings.h"
#include "motifs/discover.h"
#include "motifs/results_files.h"
#include "motifs/score_set.h"
#include "threads.h"

namespace nb = nanobind;

namespace strand::python {
namespace {

using Scores = nb::ndarray<const float, nb::ndim<3>, nb::c_contig, nb::device::cpu>;

// (N, 4, L) as the (N, L, 4) values a ScoreSet holds.
std::vector<float> positions_last(const Scores& a) {
  const auto n = static_cast<int64_t>(a.shape(0)), l = static_cast<int64_t>(a.shape(2));
  std::vector<float> out(static_cast<size_t>(n * l * 4));
  const float* in = a.data();
  for (int64_t s = 0; s < n; ++s) {
    for (int64_t c = 0; c < 4; ++c) {
      for (int64_t p = 0; p < l; ++p) out[(s * l + p) * 4 + c] = in[(s * 4 + c) * l + p];
    }
  }
  return out;
}

nb::object float_array(const std::vector<double>& values, int64_t rows) {
  float* data = nullptr;
  nb::object array = new_float_array({rows, 4}, &data);
  for (size_t i = 0; i < values.size(); ++i) data[i] = static_cast<float>(values[i]);
  return array;
}

// (n, 4) int64: example, start, end, revcomp of each seqlet.
nb::object seqlet_array(const std::vector<motifs::Seqlet>& seqlets) {
  auto* values = new std::vector<int64_t>();
  for (const motifs::Seqlet& s : seqlets) {
    values->insert(values->end(), {s.example, s.start, s.end, s.revcomp ? 1 : 0});
  }
  std::shared_ptr<void> owner(values,
                              [](void* p) { delete static_cast<std::vector<int64_t>*>(p); });
  return numpy_view(values->data(), {static_cast<int64_t>(seqlets.size()), 4}, DType::kInt64,
                    owner);
}

nb::list discover(const Scores& scores, const Scores& one_hot, int64_t max_seqlets, int64_t window,
                  int64_t flank, double target_fdr, int64_t leiden_runs,
                  std::optional<int64_t> threads) {
  if (scores.shape(1) != 4 || one_hot.shape(1) != 4 || scores.shape(0) != one_hot.shape(0) ||
      scores.shape(2) != one_hot.shape(2)) {
    throw app::ConfigError("discover: scores and one_hot must both be (N, 4, L), got " +
                           shape_text(AnyArray(scores)) + " and " + shape_text(AnyArray(one_hot)));
  }
  motifs::DiscoverOptions o;
  o.seqlets.max_seqlets = max_seqlets;
  o.seqlets.window = window;
  o.seqlets.flank = flank;
  o.seqlets.target_fdr = target_fdr;
  o.leiden_runs = static_cast<int>(leiden_runs);
  motifs::Discovery found;
  {
    nb::gil_scoped_release release;
    const ThreadCount count(threads);
    o.threads = omp_get_max_threads();
    const motifs::ScoreSet set = motifs::make_score_set(
        static_cast<int64_t>(scores.shape(0)), static_cast<int64_t>(scores.shape(2)),
        positions_last(scores), positions_last(one_hot));
    found = motifs::discover(set, o);
  }
  nb::list out;
  for (const motifs::NamedPattern& named : motifs::named_patterns(found)) {
    const motifs::Pattern& p = *named.pattern;
    nb::dict row;
    row["name"] = named.name;
    row["sequence"] = float_array(p.mean(motifs::Track::kOneHot), p.length());
    row["contrib"] = float_array(p.mean(motifs::Track::kContrib), p.length());
    row["hypothetical"] = float_array(p.mean(motifs::Track::kHypothetical), p.length());
    row["seqlets"] = seqlet_array(p.seqlets());
    out.append(row);
  }
  return out;
}

}  // namespace

void bind_motifs(nb::module_& m) {
  m.def("_discover_motifs", &discover, nb::arg("scores"), nb::arg("one_hot"),
        nb::arg("max_seqlets"), nb::arg("window"), nb::arg("flank"), nb::arg("target_fdr"),
        nb::arg("leiden_runs"), nb::arg("threads").none(),
        "TF-MoDISco motif discovery (strand.motifs.discover is the public face)");
}

}  // namespace strand::python
