// GC-matched negatives: candidate windows by GC bin, seeded draws without replacement.
#include "data/intervals/negatives.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/stop_signal.h"
#include "data/counter_rng.h"
#include "data/data_error.h"
#include "data/encoding.h"
#include "data/text_fields.h"
#include "data/window.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

// Salts of the request order and of the draws, apart from every other use of the seed.
constexpr uint64_t kOrderSalt = 0x6e65672d6f726472ULL;  // "neg-ordr"
constexpr uint64_t kDrawSalt = 0x6e65672d64726177ULL;   // "neg-draw"
// Window starts handled per read of the genome.
constexpr int64_t kChunkStarts = int64_t{1} << 22;

struct Candidate {
  int32_t contig = 0;
  int64_t start = 0;
  double gc = 0.0;
};

int gc_bin(double gc, int bins) { return std::min(bins - 1, static_cast<int>(gc * bins)); }

// GC fraction of `n` codes (N and other non-ACGT bases ignored; 0 without ACGT).
double gc_fraction(const uint8_t* codes, int64_t n) {
  int64_t gc = 0;
  int64_t acgt = 0;
  for (int64_t i = 0; i < n; ++i) {
    acgt += codes[i] < kCodeN ? 1 : 0;
    gc += codes[i] == 1 || codes[i] == 2 ? 1 : 0;
  }
  return acgt > 0 ? static_cast<double>(gc) / static_cast<double>(acgt) : 0.0;
}

void check_options(const NegativeSamplingOptions& o) {
  const auto fail = [](const char* field, const std::string& value, const char* allowed) {
    throw DataError(
        fmt::format("NegativeSamplingOptions.{} = {} is invalid: {}", field, value, allowed));
  };
  if (o.window <= 0) fail("window", std::to_string(o.window), "must be > 0");
  if (!(o.ratio > 0.0 && o.ratio <= kMaxNegativesRatio)) {
    fail("ratio", fmt::format("{}", o.ratio), "must be in (0, 1000]");
  }
  if (o.gc_bins < 1 || o.gc_bins > 100000) {
    fail("gc_bins", std::to_string(o.gc_bins), "must be in [1, 100000]");
  }
  if (!(o.max_n_fraction >= 0.0 && o.max_n_fraction <= 1.0)) {
    fail("max_n_fraction", fmt::format("{}", o.max_n_fraction), "must be in [0, 1]");
  }
  if (o.stride < 0) fail("stride", std::to_string(o.stride), "must be >= 0 (0: the window)");
}

// Merged, sorted [start, end) regions per contig id that candidates must not overlap.
std::vector<std::vector<std::pair<int64_t, int64_t>>> excluded_regions(
    const FastaReader& genome, const std::vector<Interval>& peaks,
    const std::vector<Interval>& peak_windows, const std::vector<Interval>& excluded) {
  std::vector<std::vector<std::pair<int64_t, int64_t>>> regions(genome.contigs().size());
  const auto add = [&](const Interval& iv) {
    const int id = genome.contig_id(iv.contig);
    if (id >= 0) regions[static_cast<size_t>(id)].emplace_back(iv.start, iv.end);
  };
  for (const Interval& iv : peaks) add(iv);
  for (const Interval& iv : peak_windows) add(iv);
  for (const Interval& iv : excluded) add(iv);
  for (auto& list : regions) {
    std::sort(list.begin(), list.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (const auto& r : list) {
      if (!merged.empty() && r.first <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, r.second);
      } else {
        merged.push_back(r);
      }
    }
    list = std::move(merged);
  }
  return regions;
}

}  // namespace

NegativeSampling sample_gc_matched_negatives(const FastaReader& genome, const IntervalSet& peaks,
                                             const std::vector<Interval>& excluded,
                                             const NegativeSamplingOptions& options) {
  check_options(options);
  const int64_t l = options.window;
  const int64_t stride = options.stride > 0 ? options.stride : l;
  const int bins = options.gc_bins;
  NegativeSampling out;
  if (peaks.intervals.empty()) {
    throw DataError(fmt::format("'{}' holds no peak to match negatives to", peaks.path));
  }

  // 1. The peaks' windows and their GC.
  std::vector<uint8_t> codes(static_cast<size_t>(l));
  for (const Interval& iv : peaks.intervals) {
    const int id = genome.contig_id(iv.contig);
    if (id < 0) {
      throw DataError(fmt::format("{}:{}: contig '{}' is not in FASTA '{}'", peaks.path, iv.line,
                                  excerpt(iv.contig), genome.path()));
    }
    const int64_t length = genome.contigs()[static_cast<size_t>(id)].length;
    const int64_t centre =
        options.use_summit && iv.summit >= 0 ? iv.summit : (iv.start + iv.end) / 2;
    Interval w;
    w.contig = iv.contig;
    w.start = window_start(centre, l, 0, length);
    w.end = std::min(w.start + l, length);
    w.line = iv.line;
    genome.fetch_codes(w.contig, w.start, w.end, codes.data());
    out.positive_gc.push_back(gc_fraction(codes.data(), w.end - w.start));
    out.positives.push_back(std::move(w));
  }

  // 2. Candidates by GC bin.
  std::vector<bool> selected(genome.contigs().size(), options.contigs.empty());
  for (const std::string& name : options.contigs) {
    const int id = genome.contig_id(name);
    if (id < 0) {
      throw DataError(fmt::format("contig '{}' to draw negatives from is not in FASTA '{}'",
                                  excerpt(name), genome.path()));
    }
    selected[static_cast<size_t>(id)] = true;
  }
  const auto regions = excluded_regions(genome, peaks.intervals, out.positives, excluded);
  const auto max_n =
      static_cast<int64_t>(std::floor(options.max_n_fraction * static_cast<double>(l)));
  std::vector<std::vector<Candidate>> by_bin(static_cast<size_t>(bins));
  std::vector<uint8_t> chunk;
  std::vector<int32_t> gc_prefix;
  std::vector<int32_t> n_prefix;
  for (size_t id = 0; id < genome.contigs().size(); ++id) {
    if (!selected[id]) continue;
    const Contig& contig = genome.contigs()[id];
    const auto& excluded_here = regions[id];
    size_t next_region = 0;
    for (int64_t first = 0; first + l <= contig.length;) {
      throw_if_stop_requested();  // SIGINT/SIGTERM (core/stop_signal.h), once per chunk
      // Window starts first, first + stride, ... up to kChunkStarts bases on, read at once.
      const int64_t last = std::min(contig.length - l, first + kChunkStarts - 1);
      const int64_t last_start = first + (last - first) / stride * stride;
      const int64_t bases = last_start + l - first;
      chunk.resize(static_cast<size_t>(bases));
      genome.fetch_codes(contig.name, first, first + bases, chunk.data());
      gc_prefix.assign(static_cast<size_t>(bases) + 1, 0);
      n_prefix.assign(static_cast<size_t>(bases) + 1, 0);
      for (size_t i = 0; i < chunk.size(); ++i) {
        gc_prefix[i + 1] = gc_prefix[i] + (chunk[i] == 1 || chunk[i] == 2 ? 1 : 0);
        n_prefix[i + 1] = n_prefix[i] + (chunk[i] >= kCodeN ? 1 : 0);
      }
      for (int64_t start = first; start <= last_start; start += stride) {
        while (next_region < excluded_here.size() && excluded_here[next_region].second <= start) {
          ++next_region;
        }
        if (next_region < excluded_here.size() && excluded_here[next_region].first < start + l) {
          continue;  // overlaps a peak or an excluded region
        }
        const auto a = static_cast<size_t>(start - first);
        const auto b = a + static_cast<size_t>(l);
        const int64_t n = n_prefix[b] - n_prefix[a];
        if (n > max_n || n == l) continue;
        const double gc =
            static_cast<double>(gc_prefix[b] - gc_prefix[a]) / static_cast<double>(l - n);
        by_bin[static_cast<size_t>(gc_bin(gc, bins))].push_back(
            {static_cast<int32_t>(id), start, gc});
        ++out.candidates;
      }
      first = last_start + stride;
    }
  }

  // 3. Seeded draws without replacement, each from its peak's bin or the nearest non-empty one.
  const auto p = static_cast<int64_t>(peaks.intervals.size());
  const int64_t wanted = std::llround(options.ratio * static_cast<double>(p));
  if (wanted < 1) {
    throw DataError(fmt::format("a ratio of {} negatives per peak for {} peaks asks for none",
                                options.ratio, p));
  }
  if (wanted > out.candidates) {
    throw DataError(fmt::format(
        "{} negatives are wanted ({} per peak for {} peaks) but only {} windows of {} bases of "
        "'{}' avoid every peak and excluded region and hold at most {} N: lower the ratio, the "
        "window or the stride",
        wanted, options.ratio, p, out.candidates, l, genome.path(), max_n));
  }
  std::vector<int64_t> order(static_cast<size_t>(p));
  for (int64_t i = 0; i < p; ++i) order[static_cast<size_t>(i)] = i;
  CounterRng order_rng(mix_key(options.seed, kOrderSalt));
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[order_rng.below(i)]);
  CounterRng draw_rng(mix_key(options.seed, kDrawSalt));
  std::vector<Candidate> drawn;
  drawn.reserve(static_cast<size_t>(wanted));
  for (int64_t k = 0; k < wanted; ++k) {
    const int64_t peak = order[static_cast<size_t>(k % p)];
    const int home = gc_bin(out.positive_gc[static_cast<size_t>(peak)], bins);
    int bin = -1;
    for (int d = 0; d < bins && bin < 0; ++d) {
      if (home - d >= 0 && !by_bin[static_cast<size_t>(home - d)].empty()) {
        bin = home - d;
      } else if (home + d < bins && !by_bin[static_cast<size_t>(home + d)].empty()) {
        bin = home + d;
      }
    }
    // wanted <= candidates, so some bin still holds one.
    if (bin != home) ++out.from_other_bins;
    std::vector<Candidate>& pool = by_bin[static_cast<size_t>(bin)];
    const size_t pick = draw_rng.below(pool.size());
    drawn.push_back(pool[pick]);
    pool[pick] = pool.back();
    pool.pop_back();
  }

  // 4. Sorted by contig and start.
  std::sort(drawn.begin(), drawn.end(), [](const Candidate& a, const Candidate& b) {
    return a.contig != b.contig ? a.contig < b.contig : a.start < b.start;
  });
  for (const Candidate& c : drawn) {
    Interval iv;
    iv.contig = genome.contigs()[static_cast<size_t>(c.contig)].name;
    iv.start = c.start;
    iv.end = c.start + l;
    out.negatives.push_back(std::move(iv));
    out.negative_gc.push_back(c.gc);
  }
  return out;
}

std::vector<Interval> read_blacklist(const std::string& path, const std::vector<Contig>& contigs,
                                     const std::string& fasta_path) {
  IntervalReadOptions options;
  options.format = IntervalFormat::kBed;
  options.labelled = false;
  IntervalSet set = read_intervals(path, options);
  std::unordered_map<std::string_view, int64_t> known;
  for (const Contig& c : contigs) known.emplace(c.name, c.length);
  std::vector<Interval> kept;
  for (Interval& iv : set.intervals) {
    if (known.contains(iv.contig)) kept.push_back(std::move(iv));
  }
  if (kept.empty()) {
    throw DataError(fmt::format(
        "blacklist '{}': none of its {} regions lies on a contig of FASTA '{}' (first contig "
        "'{}'): is it for another assembly or naming ('1' for 'chr1')?",
        path, set.size(), fasta_path, excerpt(set.intervals.front().contig)));
  }
  return kept;
}

}  // namespace strand::data
