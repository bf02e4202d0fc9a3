// libFuzzer target: the paths a user names, from the same text: a run name (check_run_name()),
// bigWig track lists (the text's lines as data.profile_bigwigs entries: parse_track_groups(),
// and again after with_absolute_paths(), as `strand train` resolves them before checking), and
// the output-equals-input check (io::same_file through refuse_overwriting_input()).
//
// Expected: ConfigError (run names), DataError (track lists). Findings: crashes, sanitizer
// reports, other exception types, and: an accepted run name that is not one directory inside
// output_dir (it would write elsewhere); an accepted track entry with an empty path, more than
// two files or a pair of one file twice; a list whose acceptance, groups or files per group
// change when its paths are made absolute (a trailing comma dropped on the way); an output path
// not refused as the input it names, spelt the same or through "./" or "dir/.."; same_file()
// that is not symmetric.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/command_paths.h"
#include "cli/config_error.h"
#include "cli/run_config.h"
#include "data/data_error.h"
#include "data/signals/signal_tracks.h"
#include "fmt/format.h"
#include "fuzz/fuzz_support.h"
#include "io/same_file.h"

namespace {

using namespace strand;
using fuzz::finding;

void check_run_name(std::string_view text) {
  const std::string name(text);
  if (!fuzz::parses<cli::ConfigError>("check_run_name",
                                      [&] { cli::check_run_name(name, "--run-name"); })) {
    return;
  }
  if (name.empty()) return;  // the default, date-time name
  const std::filesystem::path output_dir = "/runs/out";
  const std::filesystem::path run = (output_dir / name).lexically_normal();
  if (run.parent_path() != output_dir || run.filename() != name) {
    finding(
        fmt::format("run name '{}' accepted: it writes to '{}', outside '{}' or not as one "
                    "directory",
                    name, run.string(), output_dir.string()));
  }
}

// The groups of `entries`, or nothing when refused.
bool groups_of(const std::vector<std::string>& entries, std::vector<data::TrackGroup>& groups) {
  return fuzz::parses<data::DataError>(
      "parse_track_groups", [&] { groups = data::parse_track_groups(entries, "tracks"); });
}

void check_tracks(std::string_view text) {
  std::vector<std::string> entries;
  for (size_t begin = 0;;) {
    const size_t end = text.find('\n', begin);
    entries.emplace_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  std::vector<data::TrackGroup> groups;
  const bool accepted = groups_of(entries, groups);
  if (accepted) {
    for (const data::TrackGroup& group : groups) {
      if (group.files.empty() || group.files.size() > 2) {
        finding(fmt::format("a track entry of {} files accepted", group.files.size()));
      }
      for (const std::string& file : group.files) {
        if (file.empty()) finding("a track entry with an empty path accepted");
      }
      if (group.files.size() == 2 && group.files[0] == group.files[1]) {
        finding("a stranded pair of one file twice accepted");
      }
    }
  }
  // A NUL byte or an over-long path cannot be made absolute by the filesystem library; the
  // resolution itself is what train does before its checks, and must keep every entry's parts.
  cli::RunConfig config;
  config.data.source = "files";
  config.data.files.loader.signals.profile_bigwigs = entries;
  cli::RunConfig resolved;
  try {
    resolved = cli::with_absolute_paths(config);
  } catch (const std::exception&) {
    return;
  }
  std::vector<data::TrackGroup> again;
  const bool accepted_again = groups_of(resolved.data.files.loader.signals.profile_bigwigs, again);
  if (accepted != accepted_again) {
    finding(fmt::format("track list {} before its paths are made absolute, {} after",
                        accepted ? "accepted" : "refused",
                        accepted_again ? "accepted" : "refused"));
  }
  if (!accepted) return;
  if (again.size() != groups.size()) finding("making the paths absolute changed the groups");
  for (size_t g = 0; g < groups.size(); ++g) {
    if (again[g].files.size() != groups[g].files.size()) {
      finding(fmt::format("entry {}: {} files before its paths are made absolute, {} after", g + 1,
                          groups[g].files.size(), again[g].files.size()));
    }
  }
}

// The first line of the text as an input path: an output spelt the same, "./" before it or
// "sub/.." inside it must be refused as that input; same_file() must not depend on the order.
void check_same_file(std::string_view text) {
  const std::string path(text.substr(0, text.find('\n')));
  if (path.empty() || path.find('\0') != std::string::npos || path.size() > 1024) return;
  const std::string second(text.substr(std::min(text.size(), path.size() + 1)));
  if (second.find('\0') == std::string::npos && second.size() <= 1024 &&
      io::same_file(path, second) != io::same_file(second, path)) {
    finding(fmt::format("same_file('{}', '{}') depends on the order", path, second));
  }
  const std::vector<std::string> spellings = {
      path, path.starts_with("/") ? path : "./" + path,
      path.starts_with("/") ? "/" + path : "sub/../" + path};
  for (const std::string& output : spellings) {
    bool refused = false;
    try {
      cli::refuse_overwriting_input(output, "--out", {{path, "--fasta"}});
    } catch (const cli::ConfigError&) {
      refused = true;
    }
    // "sub/.." resolves through a directory that may not exist: only the plain spellings must.
    if (!refused && output != spellings[2]) {
      finding(fmt::format("output '{}' not refused as the input '{}'", output, path));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  check_run_name(text);
  check_tracks(text);
  check_same_file(text);
  return 0;
}
