// Chromosome, fold-file and stratified fraction splits.
#include "data/splits.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_map>

#include "data/data_error.h"
#include "data/rng.h"
#include "data/text_fields.h"
#include "fmt/format.h"
#include "io/json_limits.h"

namespace strand::data {
namespace {

// Salt of the split's generator, so that it never shares draws with the loader's shuffling
// and augmentation for the same seed.
constexpr uint64_t kSplitSalt = 0x73706c6974ULL;  // "split"

// Throws unless every name is a contig of the FASTA.
void require_contigs(const std::vector<std::string>& names, const std::vector<Contig>& contigs,
                     const std::string& what, const std::string& fasta_path) {
  for (const std::string& name : names) {
    const bool known = std::any_of(contigs.begin(), contigs.end(),
                                   [&name](const Contig& c) { return c.name == name; });
    if (!known) {
      throw DataError(fmt::format("{} chromosome '{}' is not a contig of FASTA '{}'", what,
                                  excerpt(name), fasta_path));
    }
  }
}

// Number of intervals per contig name.
std::unordered_map<std::string, int64_t> intervals_per_contig(const IntervalSet& set) {
  std::unordered_map<std::string, int64_t> counts;
  for (const Interval& iv : set.intervals) ++counts[iv.contig];
  return counts;
}

std::vector<std::string> read_fold_list(const nlohmann::json& value, const std::string& key,
                                        const std::string& path) {
  if (!value.is_array()) {
    throw DataError(fmt::format("fold file '{}': \"{}\" must be a list of chromosome names, got {}",
                                path, key, value.type_name()));
  }
  std::vector<std::string> names;
  for (const nlohmann::json& entry : value) {
    if (!entry.is_string() || entry.get<std::string>().empty()) {
      throw DataError(fmt::format(
          "fold file '{}': \"{}\" must hold chromosome names (non-empty strings), found {}", path,
          key, excerpt(entry.dump())));
    }
    names.push_back(entry.get<std::string>());
  }
  return names;
}

}  // namespace

const char* split_part_name(SplitPart part) {
  switch (part) {
    case SplitPart::kTrain:
      return "train";
    case SplitPart::kValidation:
      return "validation";
    case SplitPart::kTest:
      return "test";
    case SplitPart::kUnassigned:
      break;
  }
  return "unassigned";
}

ChromosomeFold read_fold_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(fmt::format("fold file '{}' cannot be opened", path));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (const std::optional<size_t> at = io::nul_byte(text)) {
    throw DataError(fmt::format(
        "fold file '{}' holds a NUL byte at offset {}; a fold file is JSON text (a binary or "
        "damaged file?)",
        path, *at));
  }
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(
        text, [&path](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
          if (io::opens_too_deep(depth, event)) {
            throw DataError(fmt::format(
                "fold file '{}' nests objects and arrays deeper than {} levels; a fold file is "
                "an object of three lists",
                path, io::kMaxJsonNesting));
          }
          return true;
        });
  } catch (const nlohmann::json::exception& error) {
    throw DataError(fmt::format("fold file '{}' is not valid JSON: {}", path, error.what()));
  }
  constexpr const char* kExpected =
      "expected {\"train\": [...], \"valid\": [...], \"test\": [...]} lists of chromosomes";
  if (!value.is_object()) {
    throw DataError(
        fmt::format("fold file '{}': {}, found {}", path, kExpected, value.type_name()));
  }
  for (const auto& [key, ignored] : value.items()) {
    if (key != "train" && key != "valid" && key != "test") {
      throw DataError(
          fmt::format("fold file '{}': unknown key \"{}\"; {}", path, excerpt(key), kExpected));
    }
  }
  ChromosomeFold fold;
  const std::pair<const char*, std::vector<std::string>*> lists[] = {
      {"train", &fold.train}, {"valid", &fold.valid}, {"test", &fold.test}};
  std::map<std::string, std::string> list_of;  // chromosome -> the list naming it
  for (const auto& [key, names] : lists) {
    const auto it = value.find(key);
    if (it == value.end()) {
      throw DataError(fmt::format("fold file '{}': missing key \"{}\"; {}", path, key, kExpected));
    }
    *names = read_fold_list(*it, key, path);
    for (const std::string& name : *names) {
      const auto [where, fresh] = list_of.emplace(name, key);
      if (!fresh) {
        throw DataError(fmt::format(
            "fold file '{}': chromosome '{}' is listed in \"{}\" and again in \"{}\"; each "
            "chromosome belongs to one list",
            path, excerpt(name), where->second, key));
      }
    }
  }
  if (fold.valid.empty() || fold.test.empty()) {
    throw DataError(fmt::format("fold file '{}': \"{}\" is empty; {}", path,
                                fold.valid.empty() ? "valid" : "test", kExpected));
  }
  return fold;
}

std::vector<SplitPart> split_by_chromosomes(const IntervalSet& set,
                                            const std::vector<std::string>& valid,
                                            const std::vector<std::string>& test,
                                            const std::vector<Contig>& contigs,
                                            const std::string& fasta_path) {
  std::unordered_map<std::string, SplitPart> part_of;
  for (const auto& [names, part] :
       {std::pair{&valid, SplitPart::kValidation}, std::pair{&test, SplitPart::kTest}}) {
    const std::string what = split_part_name(part);
    require_contigs(*names, contigs, what, fasta_path);
    for (const std::string& name : *names) {
      if (!part_of.emplace(name, part).second) {
        throw DataError(fmt::format(
            "chromosome '{}' is named for both validation and test; a chromosome's intervals go "
            "to one part",
            excerpt(name)));
      }
    }
  }
  const auto counts = intervals_per_contig(set);
  for (const auto& [name, part] : part_of) {
    if (!counts.contains(name)) {
      throw DataError(
          fmt::format("{} chromosome '{}' has no interval in '{}' ({} intervals on {} "
                      "chromosomes)",
                      split_part_name(part), excerpt(name), set.path, set.size(), counts.size()));
    }
  }
  std::vector<SplitPart> parts;
  parts.reserve(set.intervals.size());
  for (const Interval& iv : set.intervals) {
    const auto it = part_of.find(iv.contig);
    parts.push_back(it == part_of.end() ? SplitPart::kTrain : it->second);
  }
  if (std::find(parts.begin(), parts.end(), SplitPart::kTrain) == parts.end()) {
    throw DataError(fmt::format(
        "every interval of '{}' lies on a validation or test chromosome: none is left to train on",
        set.path));
  }
  return parts;
}

std::vector<SplitPart> split_by_fold(const IntervalSet& set, const ChromosomeFold& fold,
                                     const std::string& fold_path,
                                     const std::vector<Contig>& contigs,
                                     const std::string& fasta_path) {
  std::unordered_map<std::string, SplitPart> part_of;
  for (const auto& [names, part] :
       {std::pair{&fold.train, SplitPart::kTrain}, std::pair{&fold.valid, SplitPart::kValidation},
        std::pair{&fold.test, SplitPart::kTest}}) {
    require_contigs(*names, contigs,
                    fmt::format("fold file '{}': {}", fold_path, split_part_name(part)),
                    fasta_path);
    for (const std::string& name : *names) part_of.emplace(name, part);
  }
  std::vector<SplitPart> parts;
  parts.reserve(set.intervals.size());
  int64_t per_part[3] = {0, 0, 0};
  for (const Interval& iv : set.intervals) {
    const auto it = part_of.find(iv.contig);
    const SplitPart part = it == part_of.end() ? SplitPart::kUnassigned : it->second;
    if (part != SplitPart::kUnassigned) ++per_part[static_cast<int>(part)];
    parts.push_back(part);
  }
  const std::vector<std::string>* lists[] = {&fold.train, &fold.valid, &fold.test};
  for (int p = 0; p < 3; ++p) {
    if (per_part[p] > 0) continue;
    throw DataError(
        fmt::format("fold file '{}': no interval of '{}' lies on its {} chromosomes ({})",
                    fold_path, set.path, split_part_name(static_cast<SplitPart>(p)),
                    excerpt(fmt::format("{}", fmt::join(*lists[p], ",")))));
  }
  return parts;
}

std::vector<SplitPart> split_by_fraction(const std::vector<int>& classes, double valid_fraction,
                                         double test_fraction, uint64_t seed) {
  const auto in_unit = [](double f) { return f >= 0.0 && f < 1.0; };
  if (!in_unit(valid_fraction) || !in_unit(test_fraction) ||
      valid_fraction + test_fraction >= 1.0) {
    throw DataError(fmt::format(
        "validation fraction {} and test fraction {} must each be in [0, 1) and sum to less "
        "than 1",
        valid_fraction, test_fraction));
  }
  std::map<int, std::vector<int64_t>> members;  // class -> sample indices, ascending
  for (size_t i = 0; i < classes.size(); ++i) {
    members[classes[i]].push_back(static_cast<int64_t>(i));
  }
  std::vector<SplitPart> parts(classes.size(), SplitPart::kTrain);
  int64_t counts[3] = {0, 0, 0};
  for (auto& [label_class, indices] : members) {
    // Fisher-Yates with a generator of its own per class: adding samples of one class never
    // moves the other class's samples between parts.
    CounterRng rng(
        mix_key(seed, kSplitSalt, static_cast<uint64_t>(static_cast<int64_t>(label_class))));
    for (size_t i = indices.size(); i > 1; --i) {
      std::swap(indices[i - 1], indices[rng.below(i)]);
    }
    const auto n = static_cast<double>(indices.size());
    const auto n_test = static_cast<size_t>(std::llround(n * test_fraction));
    const auto n_valid = static_cast<size_t>(std::llround(n * valid_fraction));
    for (size_t k = 0; k < indices.size(); ++k) {
      const SplitPart part = k < n_test             ? SplitPart::kTest
                             : k < n_test + n_valid ? SplitPart::kValidation
                                                    : SplitPart::kTrain;
      parts[static_cast<size_t>(indices[k])] = part;
      ++counts[static_cast<int>(part)];
    }
  }
  const auto n = classes.size();
  if (valid_fraction > 0 && counts[1] == 0) {
    throw DataError(fmt::format(
        "a validation fraction of {} selects no sample of {}: raise it or use more samples",
        valid_fraction, n));
  }
  if (test_fraction > 0 && counts[2] == 0) {
    throw DataError(
        fmt::format("a test fraction of {} selects no sample of {}: raise it or use more samples",
                    test_fraction, n));
  }
  if (counts[0] == 0) {
    throw DataError(
        fmt::format("validation fraction {} and test fraction {} leave no sample of {} to train on",
                    valid_fraction, test_fraction, n));
  }
  return parts;
}

std::vector<int> label_classes(const std::vector<float>& labels, const std::vector<uint8_t>& mask,
                               int64_t num_targets) {
  const auto t = static_cast<size_t>(num_targets);
  const size_t n = t == 0 ? 0 : labels.size() / t;
  std::vector<int> classes(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < t; ++k) {
      if (mask[i * t + k] != 0 && labels[i * t + k] > 0.5F) {
        classes[i] = 1;
        break;
      }
    }
  }
  return classes;
}

std::vector<int64_t> indices_in(const std::vector<SplitPart>& parts, SplitPart part) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == part) out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

IntervalSet select_intervals(const IntervalSet& set, const std::vector<SplitPart>& parts,
                             SplitPart part) {
  IntervalSet out;
  out.path = set.path;
  out.target_names = set.target_names;
  const auto t = static_cast<size_t>(set.num_targets());
  for (const int64_t i : indices_in(parts, part)) {
    const auto k = static_cast<size_t>(i);
    out.intervals.push_back(set.intervals[k]);
    out.labels.insert(out.labels.end(), set.labels.begin() + static_cast<std::ptrdiff_t>(k * t),
                      set.labels.begin() + static_cast<std::ptrdiff_t>((k + 1) * t));
    out.label_mask.insert(out.label_mask.end(),
                          set.label_mask.begin() + static_cast<std::ptrdiff_t>(k * t),
                          set.label_mask.begin() + static_cast<std::ptrdiff_t>((k + 1) * t));
  }
  out.stats.lines = set.stats.lines;
  out.stats.intervals = out.size();
  for (const uint8_t m : out.label_mask) out.stats.masked_labels += m == 0 ? 1 : 0;
  return out;
}

}  // namespace strand::data
