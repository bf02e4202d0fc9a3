// Track specs, target sources and TrackSet reads.
#include "data/signals/signal_tracks.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "data/data_error.h"

namespace strand::data {

const std::vector<std::string>& target_source_names() {
  static const std::vector<std::string> names = {"labels", "counts"};
  return names;
}

TargetSource parse_target_source(std::string_view word) {
  const std::vector<std::string>& names = target_source_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (word == names[i]) return static_cast<TargetSource>(i);
  }
  throw DataError(
      fmt::format("unknown target source '{}': expected labels (the interval file's label "
                  "columns) or counts (sums of bigWig tracks)",
                  word));
}

const char* target_source_name(TargetSource source) {
  return target_source_names()[static_cast<size_t>(source)].c_str();
}

bool SignalOptions::any() const {
  return !profile_bigwigs.empty() || !control_bigwigs.empty() || !count_bigwigs.empty() ||
         targets == TargetSource::kCounts;
}

const std::vector<std::string>& SignalOptions::count_entries() const {
  return count_bigwigs.empty() ? profile_bigwigs : count_bigwigs;
}

namespace {

// Whether two paths name one file by their spelling: the same once made absolute and normal
// ("a.bw", "./a.bw", "x/../a.bw/"), as a run's config.json writes them (found by
// fuzz/fuzz_paths: "./,." was a pair of two files until its paths were made absolute).
bool same_file_name(const std::string& a, const std::string& b) {
  const auto normal = [](const std::string& path) {
    std::error_code error;
    std::filesystem::path p = std::filesystem::absolute(path, error).lexically_normal();
    if (error) return std::filesystem::path(path);
    if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
    return p;
  };
  return a == b || normal(a) == normal(b);
}

}  // namespace

std::vector<TrackGroup> parse_track_groups(const std::vector<std::string>& entries,
                                           std::string_view what) {
  std::vector<TrackGroup> groups;
  for (size_t i = 0; i < entries.size(); ++i) {
    TrackGroup group;
    std::string_view rest = entries[i];
    while (true) {
      const size_t comma = rest.find(',');
      group.files.emplace_back(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    const bool empty_path = std::any_of(group.files.begin(), group.files.end(),
                                        [](const std::string& f) { return f.empty(); });
    if (empty_path || group.files.size() > 2 ||
        (group.files.size() == 2 && same_file_name(group.files[0], group.files[1]))) {
      throw DataError(fmt::format(
          "{} entry {} '{}' is not a bigWig track: expected one file (an unstranded track) or "
          "two different files 'plus.bw,minus.bw' (a stranded pair)",
          what, i + 1, entries[i]));
    }
    std::vector<std::string> names;
    for (const std::string& f : group.files) {
      names.push_back(std::filesystem::path(f).filename().string());
    }
    group.name = fmt::format("{}", fmt::join(names, "+"));
    groups.push_back(std::move(group));
  }
  return groups;
}

TrackSet::TrackSet(std::vector<TrackGroup> groups) : groups_(std::move(groups)) {
  std::vector<BigWigReader> first;
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (const std::string& file : groups_[g].files) {
      files_.push_back(file);
      group_of_track_.push_back(static_cast<int64_t>(g));
      first.emplace_back(file);
    }
  }
  readers_.front() = std::move(first);
}

std::vector<std::string> TrackSet::track_names() const {
  std::vector<std::string> names;
  for (const std::string& f : files_) names.push_back(std::filesystem::path(f).filename().string());
  return names;
}

std::vector<int64_t> TrackSet::reverse_map() const { return reverse_track_map(groups_); }

std::vector<int64_t> reverse_track_map(const std::vector<TrackGroup>& groups) {
  std::vector<int64_t> map;
  int64_t track = 0;
  for (const TrackGroup& group : groups) {
    if (group.files.size() == 2) {
      map.push_back(track + 1);
      map.push_back(track);
    } else {
      map.push_back(track);
    }
    track += static_cast<int64_t>(group.files.size());
  }
  return map;
}

void TrackSet::prepare_workers(int n) {
  while (static_cast<int>(readers_.size()) < n) {
    std::vector<BigWigReader> handles;
    for (const BigWigReader& reader : readers_.front()) handles.push_back(reader.clone());
    readers_.push_back(std::move(handles));
  }
}

void TrackSet::check_contig(const std::string& name, int64_t length, const std::string& used_by,
                            const std::string& fasta) const {
  for (const BigWigReader& reader : readers_.front()) {
    const int64_t found = reader.contig_length(name);
    if (found < 0) {
      std::vector<std::string> names;
      for (const Contig& c : reader.contigs()) {
        if (names.size() == 8) {
          names.push_back("...");
          break;
        }
        names.push_back(c.name);
      }
      throw DataError(fmt::format("bigWig '{}' has no contig '{}', which {} uses (its contigs: {})",
                                  reader.path(), name, used_by, fmt::join(names, ", ")));
    }
    if (found != length) {
      throw DataError(fmt::format(
          "contig '{}' has {} bases in bigWig '{}' but {} in FASTA '{}' (used by {}): the files "
          "describe different genome assemblies",
          name, found, reader.path(), length, fasta, used_by));
    }
  }
}

void TrackSet::read(const std::string& contig, int64_t contig_length, int64_t start, int64_t n,
                    float* out, int worker) const {
  if (worker < 0 || static_cast<size_t>(worker) >= readers_.size()) {
    throw DataError(fmt::format(
        "bigWig tracks: worker {} has no file handles; call prepare_workers() first", worker));
  }
  const int64_t inside = std::clamp<int64_t>(contig_length - start, 0, n);
  const std::vector<BigWigReader>& handles = readers_[static_cast<size_t>(worker)];
  for (size_t t = 0; t < handles.size(); ++t) {
    float* row = out + static_cast<int64_t>(t) * n;
    if (inside > 0) handles[t].read(contig, start, start + inside, row);
    std::fill(row + inside, row + n, 0.0F);
  }
}

}  // namespace strand::data
