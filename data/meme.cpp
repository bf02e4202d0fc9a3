// MEME's minimal motif format: the parser with file:line errors and the writer (data/meme.h).
#include "data/meme.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "data/data_error.h"
#include "data/text_fields.h"
#include "io/atomic_file.h"

namespace strand::data {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

// The value after "key=" in a matrix line ("alength= 4 w= 8"), or "" when absent.
std::string attribute(std::string_view line, std::string_view key) {
  const std::string needle = std::string(key) + "=";
  size_t at = 0;
  while ((at = line.find(needle, at)) != std::string_view::npos) {
    if (at == 0 || std::isspace(static_cast<unsigned char>(line[at - 1]))) break;
    at += needle.size();
  }
  if (at == std::string_view::npos) return "";
  std::string_view rest = line.substr(at + needle.size());
  const std::vector<std::string_view> tokens = words(rest);
  return tokens.empty() ? "" : std::string(tokens.front());
}

// parse_meme's state over the lines of one file: the motifs read so far and the matrix being
// read.
class MemeParser {
 public:
  explicit MemeParser(std::string_view source) : source_(source) {}
  std::vector<Motif> parse(std::string_view text);

 private:
  DataError fail(int64_t line, const std::string& what) const {
    return DataError(fmt::format("{}:{}: {}", source_, line, what));
  }
  void read_line(std::string_view line, int64_t n);
  void close_motif(int64_t line) const;
  void read_row(std::string_view line, int64_t n);
  void read_alphabet(std::string_view line, int64_t n) const;
  void open_motif(std::string_view line, int64_t n);
  void open_matrix(std::string_view line, int64_t n);

  std::string_view source_;
  std::vector<Motif> motifs_;
  std::set<std::string, std::less<>> names_;
  bool header_ = false;
  int64_t motif_line_ = 0;      // where the open motif started
  int64_t rows_expected_ = -1;  // > 0 while reading a matrix
};

std::vector<Motif> MemeParser::parse(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string raw;
  int64_t line_number = 0;
  while (std::getline(in, raw)) {
    ++line_number;
    const std::string_view line = trim(raw);
    if (!line.empty()) read_line(line, line_number);
  }
  close_motif(line_number + 1);
  if (!header_) throw fail(1, "not a MEME motif file: it is empty");
  if (motifs_.empty()) throw fail(line_number, "no MOTIF in the file");
  for (Motif& motif : motifs_) {
    for (const auto& row : motif.rows) {
      motif.consensus += "ACGT"[std::max_element(row.begin(), row.end()) - row.begin()];
    }
  }
  return std::move(motifs_);
}

void MemeParser::read_line(std::string_view line, int64_t n) {
  if (!header_) {
    if (!line.starts_with("MEME version")) {
      throw fail(n, fmt::format("not a MEME motif file: expected 'MEME version N' "
                                "first, found '{}'",
                                line.substr(0, 60)));
    }
    header_ = true;
  } else if (rows_expected_ > 0) {
    read_row(line, n);
  } else if (line.starts_with("ALPHABET")) {
    read_alphabet(line, n);
  } else if (line.starts_with("MOTIF")) {
    open_motif(line, n);
  } else if (line.starts_with("letter-probability matrix")) {
    open_matrix(line, n);
  }
  // Other lines (strands, background frequencies, URL, comments) carry nothing strand needs.
}

void MemeParser::close_motif(int64_t line) const {
  if (motifs_.empty()) return;
  const Motif& motif = motifs_.back();
  if (rows_expected_ > 0) {
    throw fail(line, fmt::format("motif '{}' has {} of the w= {} rows its matrix announces",
                                 motif.name, motif.rows.size(),
                                 motif.rows.size() + static_cast<size_t>(rows_expected_)));
  }
  if (motif.rows.empty()) {
    throw fail(motif_line_, fmt::format("motif '{}' has no letter-probability matrix", motif.name));
  }
}

// A row of the open matrix: the 4 probabilities of A, C, G and T, normalised to sum 1.
void MemeParser::read_row(std::string_view line, int64_t n) {
  const std::vector<std::string_view> fields = words(line);
  std::array<double, 4> row{};
  bool numbers = fields.size() == 4;
  for (size_t i = 0; numbers && i < 4; ++i) {
    const auto value = parse_float(fields[i]);
    numbers = value.has_value();
    if (numbers) row[i] = *value;
  }
  Motif& motif = motifs_.back();
  if (!numbers) {
    if (fields.size() != 4 && !fields.empty() && parse_float(fields[0]).has_value()) {
      throw fail(n, fmt::format("motif '{}': a matrix row needs the 4 "
                                "probabilities of A, C, G and T, got {} fields",
                                motif.name, fields.size()));
    }
    throw fail(n, fmt::format("motif '{}' has {} of the w= {} rows its matrix "
                              "announces (found '{}')",
                              motif.name, motif.rows.size(),
                              motif.rows.size() + static_cast<size_t>(rows_expected_),
                              line.substr(0, 40)));
  }
  double total = 0.0;
  for (const double p : row) {
    if (!(p >= 0.0) || !std::isfinite(p)) {
      throw fail(n, fmt::format("motif '{}': probability {} is not a number >= 0", motif.name, p));
    }
    total += p;
  }
  if (std::abs(total - 1.0) > 0.01) {
    throw fail(n, fmt::format("motif '{}': the row sums to {}, not 1", motif.name, total));
  }
  for (double& p : row) p /= total;
  motif.rows.push_back(row);
  --rows_expected_;
}

void MemeParser::read_alphabet(std::string_view line, int64_t n) const {
  std::string letters;
  for (const char c :
       line.substr(line.find('=') == std::string_view::npos ? line.size() : line.find('=') + 1)) {
    if (!std::isspace(static_cast<unsigned char>(c))) letters += c;
  }
  if (letters != "ACGT") {
    throw fail(n, fmt::format("alphabet '{}': strand reads DNA motifs (ALPHABET= "
                              "ACGT)",
                              letters));
  }
}

void MemeParser::open_motif(std::string_view line, int64_t n) {
  close_motif(n);
  const std::vector<std::string_view> fields = words(line);
  if (fields.size() < 2) throw fail(n, "MOTIF without a name");
  Motif motif;
  motif.name = std::string(fields[1]);
  for (size_t i = 2; i < fields.size(); ++i) motif.aliases.emplace_back(fields[i]);
  if (!names_.insert(motif.name).second) {
    throw fail(n, fmt::format("motif '{}' appears twice", motif.name));
  }
  motif_line_ = n;
  motifs_.push_back(std::move(motif));
}

void MemeParser::open_matrix(std::string_view line, int64_t n) {
  if (motifs_.empty()) throw fail(n, "a letter-probability matrix before any MOTIF");
  const Motif& motif = motifs_.back();
  if (!motif.rows.empty()) {
    throw fail(n, fmt::format("motif '{}' has a second matrix", motif.name));
  }
  const std::string alength = attribute(line, "alength");
  if (!alength.empty() && alength != "4") {
    throw fail(
        n, fmt::format("motif '{}': alength= {}; DNA motifs have 4 letters", motif.name, alength));
  }
  const auto width = parse_int(attribute(line, "w"));
  if (!width || *width < 1) {
    throw fail(n, fmt::format("motif '{}': the matrix line needs w= (the number of "
                              "rows, >= 1)",
                              motif.name));
  }
  rows_expected_ = *width;
}

}  // namespace

std::vector<Motif> parse_meme(std::string_view text, std::string_view source) {
  return MemeParser(source).parse(text);
}

std::vector<Motif> read_meme(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(fmt::format("cannot open MEME file '{}'", path.string()));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_meme(text, path.string());
}

std::string meme_text(const std::vector<Motif>& motifs) {
  std::string text =
      "MEME version 4\n\nALPHABET= ACGT\n\nstrands: + -\n\nBackground letter frequencies\n"
      "A 0.25 C 0.25 G 0.25 T 0.25\n";
  for (const Motif& motif : motifs) {
    text += fmt::format("\nMOTIF {}\nletter-probability matrix: alength= 4 w= {} nsites= 20 E= 0\n",
                        motif.name, motif.rows.size());
    for (const auto& row : motif.rows) {
      text += fmt::format(" {:.6f}\t{:.6f}\t{:.6f}\t{:.6f}\n", row[0], row[1], row[2], row[3]);
    }
  }
  return text;
}

void write_meme(const std::filesystem::path& path, const std::vector<Motif>& motifs) {
  io::write_file_atomically(path, meme_text(motifs));
}

}  // namespace strand::data
