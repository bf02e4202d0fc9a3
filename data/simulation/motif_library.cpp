// ENCODE motif format parser.
#include "data/simulation/motif_library.h"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>

#include "data/simulation/builtin_motifs.h"
#include "data/simulation/gzip_reader.h"

namespace strand::data {
namespace {

constexpr double kRowSumTolerance = 0.01;

std::vector<std::string_view> split_whitespace(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
      ++i;
    }
    if (i > start) {
      fields.push_back(line.substr(start, i - start));
    }
  }
  return fields;
}

std::runtime_error parse_error(std::string_view source, std::size_t line_no,
                               std::string_view message) {
  return std::runtime_error(fmt::format("{}:{}: {}", source, line_no, message));
}

}  // namespace

MotifLibrary MotifLibrary::load(const std::filesystem::path& path) {
  return parse(read_maybe_gzipped(path), path.string());
}

MotifLibrary MotifLibrary::parse(std::string_view text, std::string_view source) {
  MotifLibrary lib;
  lib.source_ = std::string(source);
  std::unordered_set<std::string> names;
  std::size_t header_line = 0;
  const auto finish_motif = [&]() {
    if (!lib.motifs_.empty() && lib.motifs_.back().rows.empty()) {
      throw parse_error(source, header_line,
                        fmt::format("motif '{}' has no rows", lib.motifs_.back().name));
    }
  };
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.find('\r') != std::string_view::npos) {
      throw parse_error(source, line_no,
                        "a carriage return (CR) is followed by more text on the same line: the "
                        "file has CR-only line ends (classic Mac OS), which read as one long "
                        "line; convert them to LF (tr '\\r' '\\n' < in > out)");
    }
    const auto fields = split_whitespace(line);
    if (fields.empty()) {
      continue;
    }
    if (line.front() == '>') {
      finish_motif();
      Motif m;
      m.name =
          std::string(line.size() > 1 && line[1] != ' ' && line[1] != '\t' ? fields[0].substr(1)
                                                                           : std::string_view{});
      if (m.name.empty()) {
        throw parse_error(source, line_no, "motif header without a name");
      }
      if (!names.insert(m.name).second) {
        throw parse_error(source, line_no, fmt::format("duplicate motif name '{}'", m.name));
      }
      for (std::size_t i = 1; i < fields.size(); ++i) {
        m.aliases.emplace_back(fields[i]);
      }
      header_line = line_no;
      lib.motifs_.push_back(std::move(m));
      continue;
    }
    if (lib.motifs_.empty()) {
      throw parse_error(source, line_no, "matrix row before any '>' motif header");
    }
    if (fields.size() != 5) {
      throw parse_error(
          source, line_no,
          fmt::format("expected 5 fields 'IUPAC pA pC pG pT', found {}", fields.size()));
    }
    if (fields[0].size() != 1) {
      throw parse_error(source, line_no,
                        fmt::format("expected one IUPAC letter, found '{}'", fields[0]));
    }
    std::array<double, 4> row{};
    double sum = 0.0;
    for (int b = 0; b < 4; ++b) {
      const auto f = fields[1 + b];
      const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), row[b]);
      if (ec != std::errc() || ptr != f.data() + f.size() || !std::isfinite(row[b]) ||
          row[b] < 0.0) {
        throw parse_error(source, line_no,
                          fmt::format("expected a probability for {}, found '{}'", "ACGT"[b], f));
      }
      sum += row[b];
    }
    if (std::abs(sum - 1.0) > kRowSumTolerance) {
      throw parse_error(source, line_no, fmt::format("probabilities sum to {}, expected 1", sum));
    }
    lib.motifs_.back().consensus += fields[0][0];
    lib.motifs_.back().rows.push_back(row);
  }
  finish_motif();
  return lib;
}

bool MotifLibrary::contains(std::string_view name) const {
  for (const auto& m : motifs_) {
    if (m.name == name) {
      return true;
    }
  }
  return false;
}

const Motif& MotifLibrary::get(std::string_view name) const {
  for (const auto& m : motifs_) {
    if (m.name == name) {
      return m;
    }
  }
  throw std::out_of_range(
      fmt::format("no motif named '{}' in {} ({} motifs)", name, source_, motifs_.size()));
}

const MotifLibrary& MotifLibrary::builtin() {
  static const MotifLibrary library = [] {
    constexpr std::string_view kSource = "the built-in encode_motifs.txt.gz";
    return parse(gunzip(encode_motifs_gz(), kSource), kSource);
  }();
  return library;
}

MotifLibrary MotifLibrary::load_or_builtin(const std::filesystem::path& path) {
  return path.empty() ? builtin() : load(path);
}

}  // namespace strand::data
