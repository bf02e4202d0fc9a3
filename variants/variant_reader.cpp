// Reading VCF/BCF through HTSlib and chrombpnet's variant TSV (variants/variant_reader.h).
//
// VCF text is read line by line (hts_getline) and each line is checked here before HTSlib's
// vcf_parse() sees it, so that every error names its line, which HTSlib's reader does not
// report. The header is parsed by bcf_hdr_parse(), as vcf_hdr_read() does.
#include "variants/variant_reader.h"

#include <fmt/format.h>
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/kseq.h>
#include <htslib/kstring.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "data/data_error.h"
#include "data/text_fields.h"
#include "data/warnings.h"

namespace strand::variants {
namespace {

using data::DataError;

struct HtsFileCloser {
  void operator()(htsFile* file) const {
    if (file != nullptr) hts_close(file);
  }
};
struct HeaderDestroyer {
  void operator()(bcf_hdr_t* header) const {
    if (header != nullptr) bcf_hdr_destroy(header);
  }
};

// A kstring_t that frees itself.
struct OwnedKstring {
  kstring_t value = KS_INITIALIZE;
  OwnedKstring() = default;
  OwnedKstring(const OwnedKstring&) = delete;
  OwnedKstring& operator=(const OwnedKstring&) = delete;
  ~OwnedKstring() { ks_free(&value); }
  std::string_view view() const { return {value.s == nullptr ? "" : value.s, value.l}; }
};

bool ends_with_lower(std::string_view text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[text.size() - suffix.size() + i]);
    if (std::tolower(c) != suffix[i]) return false;
  }
  return true;
}

// The fields of a tab-separated line (at most `limit`: the rest stays in the last field).
std::vector<std::string_view> first_fields(std::string_view line, size_t limit) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (fields.size() + 1 < limit) {
    const size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos) break;
    fields.push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
  fields.push_back(line.substr(start));
  return fields;
}

// The bits of bcf1_t::errcode, in words.
std::string describe_errcode(int code) {
  std::vector<std::string> words;
  if (code & BCF_ERR_CTG_UNDEF) words.emplace_back("a contig the header does not declare");
  if (code & BCF_ERR_TAG_UNDEF)
    words.emplace_back("an INFO or FORMAT tag the header does not declare");
  if (code & BCF_ERR_NCOLS) words.emplace_back("a wrong number of columns");
  if (code & BCF_ERR_LIMITS) words.emplace_back("a value beyond HTSlib's limits");
  if (code & BCF_ERR_CHAR) words.emplace_back("an invalid character");
  if (code & BCF_ERR_CTG_INVALID) words.emplace_back("an invalid contig name");
  if (code & BCF_ERR_TAG_INVALID) words.emplace_back("an invalid INFO or FORMAT field");
  if (words.empty()) return "a field HTSlib cannot parse";
  return fmt::format("{}", fmt::join(words, "; "));
}

}  // namespace

const char* format_name(VariantFormat format) {
  switch (format) {
    case VariantFormat::kVcf:
      return "VCF";
    case VariantFormat::kBcf:
      return "BCF";
    case VariantFormat::kTsv:
      return "TSV";
  }
  return "?";
}

void BcfRecordDeleter::operator()(bcf1_t* record) const {
  if (record != nullptr) bcf_destroy(record);
}

bool is_dna_allele(std::string_view allele) {
  return !allele.empty() && std::all_of(allele.begin(), allele.end(), [](char c) {
    switch (c) {
      case 'A':
      case 'C':
      case 'G':
      case 'T':
      case 'N':
      case 'a':
      case 'c':
      case 'g':
      case 't':
      case 'n':
        return true;
      default:
        return false;
    }
  });
}

bool is_spanning_deletion(std::string_view allele) { return allele == "*"; }

bool is_symbolic_allele(std::string_view allele) {
  if (allele.size() >= 2 && allele.front() == '<' && allele.back() == '>') return true;
  if (allele.find('[') != std::string_view::npos || allele.find(']') != std::string_view::npos) {
    return true;
  }
  // Single breakends: "G." or ".G".
  return allele.size() >= 2 && (allele.front() == '.' || allele.back() == '.') &&
         is_dna_allele(allele.front() == '.' ? allele.substr(1)
                                             : allele.substr(0, allele.size() - 1));
}

struct VariantReader::Handles {
  std::unique_ptr<htsFile, HtsFileCloser> file;
  std::unique_ptr<bcf_hdr_t, HeaderDestroyer> header;
  OwnedKstring line;
  BcfRecordPtr scratch;  // the record parsed when records are not kept
};

VariantReader::~VariantReader() = default;

const bcf_hdr_t* VariantReader::header() const { return handles_->header.get(); }

std::vector<data::Contig> VariantReader::declared_contigs() const {
  std::vector<data::Contig> contigs;
  const bcf_hdr_t* header = handles_->header.get();
  if (header == nullptr) return contigs;
  for (int id = 0; id < header->n[BCF_DT_CTG]; ++id) {
    const bcf_idpair_t& pair = header->id[BCF_DT_CTG][id];
    // htslib keeps a ##contig line's length in info[0] (0: none given).
    if (pair.key == nullptr || pair.val == nullptr || pair.val->info[0] <= 0) continue;
    contigs.push_back({pair.key, static_cast<int64_t>(pair.val->info[0])});
  }
  return contigs;
}

std::string VariantReader::where(const VariantRecord& record) const {
  if (format_ == VariantFormat::kBcf) return fmt::format("{} record {}", path_, record.line);
  return fmt::format("{}:{}", path_, record.line);
}

VariantReader::VariantReader(std::string path, VariantReaderOptions options)
    : path_(std::move(path)), options_(std::move(options)), handles_(std::make_unique<Handles>()) {
  data::silence_htslib_log();
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path_, error);
  if (path_ != "-" && !std::filesystem::exists(status)) {  // "-": standard input
    throw DataError(fmt::format("variants file '{}' does not exist", path_));
  }
  if (std::filesystem::is_directory(status)) {
    throw DataError(fmt::format(
        "variants file '{}' is a directory; give a VCF, BCF or variant TSV file", path_));
  }
  handles_->file.reset(hts_open(path_.c_str(), "r"));
  if (!handles_->file) {
    if (std::filesystem::is_regular_file(status) && std::ifstream(path_).good()) {
      throw DataError(fmt::format(
          "variants file '{}' is neither a VCF, a BCF nor text HTSlib can read (binary data?)",
          path_));
    }
    throw DataError(
        fmt::format("variants file '{}' cannot be opened (not readable: its "
                    "permissions?)",
                    path_));
  }
  const htsFormat* detected = hts_get_format(handles_->file.get());
  // A BGZF file (bgzip, BCF) ends with an empty block; without it the file was cut short, and
  // its last line would be read as a malformed record.
  if (detected->compression == bgzf) {
    BGZF* blocks = hts_get_bgzfp(handles_->file.get());
    if (blocks != nullptr && bgzf_check_EOF(blocks) == 0) {
      throw DataError(fmt::format(
          "variants file '{}' is truncated: its BGZF end-of-file marker is missing (an incomplete "
          "download or copy?); fetch or compress it again",
          path_));
    }
  }
  if (detected->format == bcf) {
    format_ = VariantFormat::kBcf;
    handles_->header.reset(bcf_hdr_read(handles_->file.get()));
    if (!handles_->header) {
      throw DataError(fmt::format("'{}': HTSlib cannot read the BCF header", path_));
    }
  } else if (detected->format == vcf) {
    format_ = VariantFormat::kVcf;
    // The header lines, up to and including #CHROM, as vcf_hdr_read() collects them.
    std::string text;
    bool complete = false;
    while (!complete) {
      const int got = hts_getline(handles_->file.get(), KS_SEP_LINE, &handles_->line.value);
      if (got < -1)
        throw DataError(fmt::format(
            "'{}': read error in the VCF header (a corrupt or truncated compressed file?)", path_));
      if (got == -1) break;
      ++line_;
      std::string_view line = handles_->line.view();
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) continue;
      if (line.find('\0') != std::string_view::npos) {
        throw DataError(
            fmt::format("{}:{}: a NUL byte in the header (binary data?)", path_, line_));
      }
      if (line.front() != '#') {
        throw DataError(fmt::format(
            "{}:{}: a data line before the '#CHROM' header line; a VCF header ends with "
            "'#CHROM<TAB>POS<TAB>ID<TAB>REF<TAB>ALT<TAB>QUAL<TAB>FILTER<TAB>INFO'",
            path_, line_));
      }
      text.append(line);
      text.push_back('\n');
      complete = line.size() < 2 || line[1] != '#';
      if (complete && !line.starts_with("#CHROM")) {
        throw DataError(fmt::format("{}:{}: expected the '#CHROM...' header line, found '{}'",
                                    path_, line_, data::excerpt(line)));
      }
    }
    if (!complete) {
      throw DataError(
          fmt::format("'{}': the VCF header has no '#CHROM' line (the file ends after {} lines)",
                      path_, line_));
    }
    handles_->header.reset(bcf_hdr_init("r"));
    if (!handles_->header || bcf_hdr_parse(handles_->header.get(), text.data()) < 0) {
      throw DataError(
          fmt::format("'{}': HTSlib cannot parse the VCF header (lines 1-{}); check its ## lines",
                      path_, line_));
    }
    bool added = false;
    for (const data::Contig& contig : options_.declare_contigs) {
      if (bcf_hdr_name2id(handles_->header.get(), contig.name.c_str()) >= 0) continue;
      const std::string declaration =
          fmt::format("##contig=<ID={},length={}>", contig.name, contig.length);
      if (bcf_hdr_append(handles_->header.get(), declaration.c_str()) < 0) {
        throw DataError(
            fmt::format("'{}': cannot declare contig '{}' in the VCF header", path_, contig.name));
      }
      added = true;
    }
    if (added && bcf_hdr_sync(handles_->header.get()) < 0) {
      throw DataError(fmt::format("'{}': cannot update the VCF header's contigs", path_));
    }
  } else {
    if (ends_with_lower(path_, ".vcf") || ends_with_lower(path_, ".vcf.gz") ||
        ends_with_lower(path_, ".vcf.bgz")) {
      throw DataError(fmt::format(
          "'{}' has no VCF header: a VCF starts with '##fileformat=VCFv4.x' and ends its header "
          "with a '#CHROM<TAB>POS<TAB>ID<TAB>REF<TAB>ALT<TAB>QUAL<TAB>FILTER<TAB>INFO' line (a "
          "chrombpnet table of 'chrom pos ref alt [id]' is read from a file not named .vcf)",
          path_));
    }
    if (detected->format != text_format && detected->format != unknown_format) {
      // hts_format_description() returns a string the caller frees.
      const std::unique_ptr<char, decltype(&std::free)> description(
          hts_format_description(detected), &std::free);
      throw DataError(fmt::format("'{}' is {}, not a VCF, BCF or variant TSV", path_,
                                  description ? description.get() : "another format"));
    }
    format_ = VariantFormat::kTsv;
  }
  if (handles_->header && !options_.keep_samples &&
      bcf_hdr_set_samples(handles_->header.get(), nullptr, 0) < 0) {
    throw DataError(fmt::format("'{}': HTSlib cannot leave out the samples", path_));
  }
  handles_->scratch.reset(bcf_init());
}

void VariantReader::fill_from_htslib(VariantRecord& record) {
  bcf1_t* raw = options_.keep_records ? record.raw.get() : handles_->scratch.get();
  if (bcf_unpack(raw, BCF_UN_STR) < 0) {
    throw DataError(fmt::format("{}: HTSlib cannot unpack the record", where(record)));
  }
  const char* chrom = bcf_hdr_id2name(handles_->header.get(), raw->rid);
  record.chrom = chrom == nullptr ? "" : chrom;
  record.position = raw->pos + 1;
  record.id = raw->d.id == nullptr ? "." : raw->d.id;
  record.ref = raw->n_allele > 0 ? raw->d.allele[0] : "";
  record.alts.clear();
  for (int i = 1; i < raw->n_allele; ++i) record.alts.emplace_back(raw->d.allele[i]);
}

bool VariantReader::next(VariantRecord& record) {
  if (options_.keep_records && format_ != VariantFormat::kTsv) {
    record.raw.reset(bcf_init());
  } else {
    record.raw.reset();
  }
  switch (format_) {
    case VariantFormat::kVcf:
      return next_text_vcf(record);
    case VariantFormat::kBcf:
      return next_bcf(record);
    case VariantFormat::kTsv:
      return next_tsv(record);
  }
  return false;
}

bool VariantReader::next_bcf(VariantRecord& record) {
  bcf1_t* raw = options_.keep_records ? record.raw.get() : handles_->scratch.get();
  const int got = bcf_read(handles_->file.get(), handles_->header.get(), raw);
  if (got == -1) return false;
  ++line_;
  record.line = line_;
  if (got < -1 || raw->errcode != 0) {
    throw DataError(fmt::format("{}: HTSlib cannot read the BCF record ({})", where(record),
                                describe_errcode(raw->errcode)));
  }
  fill_from_htslib(record);
  // ALT '.' (a monomorphic site) comes with no ALT: the scorer skips and counts it.
  return true;
}

bool VariantReader::next_text_vcf(VariantRecord& record) {
  kstring_t& buffer = handles_->line.value;
  std::string_view line;
  for (;;) {
    const int got = hts_getline(handles_->file.get(), KS_SEP_LINE, &buffer);
    if (got == -1) return false;
    ++line_;
    if (got < -1)
      throw DataError(
          fmt::format("{}:{}: read error (a corrupt or truncated compressed file?)", path_, line_));
    if (buffer.l > 0 && buffer.s[buffer.l - 1] == '\r') buffer.s[--buffer.l] = '\0';
    line = handles_->line.view();
    if (!data::is_blank(line)) break;
  }
  record.line = line_;
  const std::string at = fmt::format("{}:{}", path_, line_);
  if (line.find('\0') != std::string_view::npos) {
    throw DataError(fmt::format("{}: a NUL byte in the line (binary data?)", at));
  }
  if (line.front() == '#') {
    throw DataError(
        fmt::format("{}: a header line after the '#CHROM' line: '{}'", at, data::excerpt(line)));
  }
  // The fixed columns, checked here so that the message can name the line.
  const std::vector<std::string_view> fields = first_fields(line, 9);
  if (fields.size() < 8) {
    throw DataError(fmt::format(
        "{}: {} tab-separated column(s); a VCF line has at least 8 (CHROM POS ID REF ALT QUAL "
        "FILTER INFO): '{}'",
        at, fields.size(), data::excerpt(line)));
  }
  if (fields[0].empty()) throw DataError(fmt::format("{}: CHROM is empty", at));
  const std::optional<int64_t> position = data::parse_int(fields[1]);
  if (!position || *position < 1) {
    throw DataError(
        fmt::format("{}: POS '{}' is not a positive integer", at, data::excerpt(fields[1])));
  }
  if (!is_dna_allele(fields[3])) {
    throw DataError(fmt::format("{}: REF '{}' is not DNA (one or more of A, C, G, T, N)", at,
                                data::excerpt(fields[3])));
  }
  if (fields[5] != "." && !data::parse_float(fields[5])) {
    throw DataError(
        fmt::format("{}: QUAL '{}' is neither '.' nor a number", at, data::excerpt(fields[5])));
  }
  // ALT '.' (a monomorphic site, valid VCF) has no allele to check: the record comes with no
  // ALT, and the scorer skips and counts it.
  const bool monomorphic = fields[4] == ".";
  size_t begin = 0;
  for (; !monomorphic;) {
    const size_t comma = fields[4].find(',', begin);
    const std::string_view alt = fields[4].substr(
        begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin);
    if (alt.empty()) {
      throw DataError(
          fmt::format("{}: ALT '{}' has an empty allele", at, data::excerpt(fields[4])));
    }
    if (!is_dna_allele(alt) && !is_symbolic_allele(alt) && !is_spanning_deletion(alt)) {
      throw DataError(fmt::format(
          "{}: ALT allele '{}' is neither DNA (A, C, G, T, N) nor symbolic (<DEL>, a breakend, "
          "'*')",
          at, data::excerpt(alt)));
    }
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  bcf1_t* raw = options_.keep_records ? record.raw.get() : handles_->scratch.get();
  bcf_clear(raw);
  const int parsed = vcf_parse(&buffer, handles_->header.get(), raw);
  int errcode = raw->errcode;
  // A contig the header lacks is added by HTSlib and checked against the FASTA later; an
  // undeclared tag is an error only when the records are written back out.
  errcode &= ~BCF_ERR_CTG_UNDEF;
  if (!options_.require_declared_tags) errcode &= ~BCF_ERR_TAG_UNDEF;
  if (parsed < 0 || errcode != 0) {
    const int shown = errcode != 0 ? errcode : raw->errcode;
    std::string hint;
    if (shown & BCF_ERR_TAG_UNDEF) {
      hint =
          "; declare it with a ##INFO=<ID=...> or ##FORMAT=<ID=...> line to write a VCF or "
          "BCF, or write a TSV";
    }
    throw DataError(fmt::format("{}: malformed VCF line: HTSlib finds {}{}", at,
                                describe_errcode(shown), hint));
  }
  fill_from_htslib(record);
  // What HTSlib parsed must be what was checked above.
  if (record.ref != fields[3] || record.alts.empty() != monomorphic) {
    throw DataError(fmt::format("{}: malformed VCF line: HTSlib reads REF '{}' and {} ALT(s)", at,
                                data::excerpt(record.ref), record.alts.size()));
  }
  return true;
}

bool VariantReader::next_tsv(VariantRecord& record) {
  kstring_t& buffer = handles_->line.value;
  std::string_view line;
  for (;;) {
    const int got = hts_getline(handles_->file.get(), KS_SEP_LINE, &buffer);
    if (got == -1) return false;
    ++line_;
    if (got < -1)
      throw DataError(
          fmt::format("{}:{}: read error (a corrupt or truncated compressed file?)", path_, line_));
    if (buffer.l > data::kMaxLineBytes) {
      throw DataError(fmt::format("{}:{}: line of {} bytes, over the {} byte limit", path_, line_,
                                  buffer.l, data::kMaxLineBytes));
    }
    line = handles_->line.view();
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (data::is_blank(line) || line.front() == '#') continue;
    const bool first = !tsv_header_checked_;
    tsv_header_checked_ = true;
    const std::vector<std::string_view> fields = data::split_tabs(line);
    // chrombpnet's tables have no header; one whose second column is named "pos" is skipped.
    if (first && fields.size() >= 2) {
      std::string second(fields[1]);
      for (char& c : second) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (second == "pos" || second == "position") continue;
    }
    break;
  }
  record.line = line_;
  const std::string at = fmt::format("{}:{}", path_, line_);
  if (line.find('\0') != std::string_view::npos) {
    throw DataError(fmt::format("{}: a NUL byte in the line (binary data?)", at));
  }
  const std::vector<std::string_view> fields = data::split_tabs(line);
  if (fields.size() < 4 || fields.size() > 5) {
    throw DataError(fmt::format(
        "{}: {} tab-separated column(s); a variant TSV line is 'chrom<TAB>pos<TAB>ref<TAB>alt' "
        "with an optional id (chrombpnet's format){}: '{}'",
        at, fields.size(),
        fields.size() >= 8 ? "; a VCF needs its header ('##fileformat=VCFv4.x' ... '#CHROM')" : "",
        data::excerpt(line)));
  }
  if (fields[0].empty()) throw DataError(fmt::format("{}: chrom is empty", at));
  const std::optional<int64_t> position = data::parse_int(fields[1]);
  if (!position || *position < 1) {
    throw DataError(fmt::format("{}: pos '{}' is not a positive integer (1-based)", at,
                                data::excerpt(fields[1])));
  }
  const auto allele = [&at](std::string_view field, const char* what) {
    if (field == "-") return std::string();
    if (field == ".") {
      throw DataError(fmt::format("{}: {} is '.'; write '-' for an empty allele", at, what));
    }
    if (!is_dna_allele(field) && !(std::string_view(what) == "alt" &&
                                   (is_symbolic_allele(field) || is_spanning_deletion(field)))) {
      throw DataError(fmt::format("{}: {} '{}' is not DNA (A, C, G, T, N, or '-' for none)", at,
                                  what, data::excerpt(field)));
    }
    return std::string(field);
  };
  record.chrom = std::string(fields[0]);
  record.position = *position;
  record.ref = allele(fields[2], "ref");
  record.alts.assign(1, allele(fields[3], "alt"));
  if (record.ref.empty() && record.alts[0].empty()) {
    throw DataError(fmt::format("{}: ref and alt are both '-'", at));
  }
  record.id = fields.size() == 5 && !fields[4].empty() ? std::string(fields[4]) : ".";
  return true;
}

}  // namespace strand::variants
