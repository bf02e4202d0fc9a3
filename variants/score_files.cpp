// TSV and VCF/BCF score files (variants/score_files.h).
#include "variants/score_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <htslib/hts.h>
#include <htslib/vcf.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

#include "core/error.h"
#include "data/data_error.h"
#include "io/atomic_file.h"

namespace strand::variants {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// "NA" for a value that was not computed, else the shortest text that reads back the same.
void append_value(std::string& out, float value) {
  if (std::isnan(value)) {
    out += "NA";
  } else {
    fmt::format_to(std::back_inserter(out), "{}", value);
  }
}

class TsvScoreFile : public VariantScoreSink {
 public:
  TsvScoreFile(const std::string& path, std::ostream* stream) : stream_(stream) {
    if (path != "-") file_.emplace(path);
  }

  void begin(std::span<const ScoreColumn> columns, const VariantReader& /*input*/) override {
    columns_ = columns.size();
    buffer_ = "id\tchrom\tpos\tref\talt";
    for (const ScoreColumn& column : columns) buffer_ += "\t" + column.name;
    buffer_ += "\n";
  }

  void write(const VariantRecord& record, std::span<const float> values) override {
    for (size_t a = 0; a < record.alts.size(); ++a) {
      fmt::format_to(std::back_inserter(buffer_), "{}\t{}\t{}\t{}\t{}", record.id, record.chrom,
                     record.position, record.ref.empty() ? "-" : record.ref,
                     record.alts[a].empty() ? "-" : record.alts[a]);
      for (size_t c = 0; c < columns_; ++c) {
        buffer_ += '\t';
        append_value(buffer_, values[a * columns_ + c]);
      }
      buffer_ += '\n';
    }
    if (buffer_.size() >= (1u << 20)) flush();
  }

  void commit() override {
    flush();
    if (file_) {
      file_->commit();
    } else {
      stream_->flush();
      if (!*stream_) throw Error("--out -: writing the scores to standard output failed");
    }
  }

 private:
  void flush() {
    if (file_) {
      file_->write(buffer_);
    } else {
      *stream_ << buffer_;
    }
    buffer_.clear();
  }

  std::ostream* stream_;
  std::optional<io::AtomicFileWriter> file_;
  size_t columns_ = 0;
  std::string buffer_;
};

// A temporary file beside `target` ("<target>.tmp.XXXXXX", as io::AtomicFileWriter names its
// own, so that io::remove_orphan_temp_files() cleans up after a killed run), locked while it
// lives, removed unless published.
class TempSibling {
 public:
  explicit TempSibling(const fs::path& target) : target_(target) {
    std::string pattern = target.string() + ".tmp.XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    fd_ = ::mkstemp(name.data());
    if (fd_ < 0) {
      throw Error(fmt::format("creating a temporary file for '{}' failed: {}", target.string(),
                              std::strerror(errno)));
    }
    path_ = name.data();
    ::flock(fd_, LOCK_EX | LOCK_NB);
    ::fchmod(fd_, 0644);
  }
  TempSibling(const TempSibling&) = delete;
  TempSibling& operator=(const TempSibling&) = delete;
  ~TempSibling() {
    if (fd_ >= 0) ::close(fd_);
    if (!published_) {
      std::error_code ignored;
      fs::remove(path_, ignored);
    }
  }
  const std::string& path() const { return path_; }

  // Makes the bytes durable and renames the file onto its target.
  void publish() {
    if (::fsync(fd_) != 0 || ::rename(path_.c_str(), target_.c_str()) != 0) {
      throw Error(
          fmt::format("publishing '{}' failed: {}", target_.string(), std::strerror(errno)));
    }
    published_ = true;
  }

 private:
  fs::path target_;
  std::string path_;
  int fd_ = -1;
  bool published_ = false;
};

class VcfScoreFile : public VariantScoreSink {
 public:
  VcfScoreFile(std::string path, ScoreFileFormat format, std::string source)
      : path_(std::move(path)), format_(format), source_(std::move(source)) {}

  ~VcfScoreFile() override {
    if (file_ != nullptr) hts_close(file_);
    if (header_ != nullptr) bcf_hdr_destroy(header_);
  }

  bool needs_records() const override { return true; }

  void begin(std::span<const ScoreColumn> columns, const VariantReader& input) override {
    input_ = &input;
    if (input.format() == VariantFormat::kTsv) {
      throw Error(fmt::format(
          "--out '{}': a VCF or BCF output is the input's records with the scores added, and "
          "'{}' is a TSV; write a .tsv instead",
          path_, input.path()));
    }
    header_ = bcf_hdr_dup(input.header());
    if (header_ == nullptr) throw Error("variants: cannot copy the VCF header");
    std::set<std::string> keys;
    for (const ScoreColumn& column : columns) {
      const std::string key = info_key(column.name);
      if (!keys.insert(key).second) {
        throw Error(fmt::format("--out '{}': two columns share the INFO key '{}'", path_, key));
      }
      const int id = bcf_hdr_id2int(header_, BCF_DT_ID, key.c_str());
      if (bcf_hdr_idinfo_exists(header_, BCF_HL_INFO, id)) {
        if (bcf_hdr_id2type(header_, BCF_HL_INFO, id) != BCF_HT_REAL ||
            bcf_hdr_id2length(header_, BCF_HL_INFO, id) != BCF_VL_A) {
          throw data::DataError(fmt::format(
              "'{}' already declares INFO '{}' other than Number=A,Type=Float; strand variants "
              "writes its '{}' score there",
              input.path(), key, column.name));
        }
      } else {
        std::string description = column.description;
        for (char& c : description) c = c == '"' ? '\'' : c;
        const std::string line =
            fmt::format("##INFO=<ID={},Number=A,Type=Float,Description=\"strand variants: {}\">",
                        key, description);
        if (bcf_hdr_append(header_, line.c_str()) < 0) {
          throw Error(fmt::format("variants: cannot add INFO '{}' to the VCF header", key));
        }
      }
      keys_.push_back(key);
    }
    if (!source_.empty()) {
      std::string line = "##strand_variants=" + source_;
      for (char& c : line) c = c == '\n' ? ' ' : c;
      if (bcf_hdr_append(header_, line.c_str()) < 0)
        throw Error("variants: cannot add a header line");
    }
    if (bcf_hdr_sync(header_) < 0) throw Error("variants: cannot update the VCF header");
    temp_.emplace(path_);
    const char* mode = format_ == ScoreFileFormat::kBcf     ? "wb"
                       : format_ == ScoreFileFormat::kVcfGz ? "wz"
                                                            : "w";
    file_ = hts_open(temp_->path().c_str(), mode);
    if (file_ == nullptr || bcf_hdr_write(file_, header_) < 0) {
      throw Error(fmt::format("--out '{}': cannot write the VCF header", path_));
    }
    columns_ = columns.size();
  }

  void write(const VariantRecord& record, std::span<const float> values) override {
    bcf1_t* raw = record.raw.get();
    STRAND_CHECK(raw != nullptr, "variants: a VCF output needs the input's records");
    check_order(record);
    const size_t alts = record.alts.size();
    std::vector<float> column(alts);
    for (size_t c = 0; c < columns_; ++c) {
      for (size_t a = 0; a < alts; ++a) {
        const float value = values[a * columns_ + c];
        if (std::isnan(value)) {
          bcf_float_set_missing(column[a]);
        } else {
          column[a] = value;
        }
      }
      if (bcf_update_info_float(header_, raw, keys_[c].c_str(), column.data(),
                                static_cast<int>(alts)) < 0) {
        throw Error(fmt::format("{}: cannot set INFO '{}'", input_->where(record), keys_[c]));
      }
    }
    if (bcf_write(file_, header_, raw) < 0) {
      throw Error(
          fmt::format("--out '{}': writing the record of {} failed", path_, input_->where(record)));
    }
  }

  void commit() override {
    const int closed = hts_close(file_);
    file_ = nullptr;
    if (closed != 0) throw Error(fmt::format("--out '{}': closing the file failed", path_));
    if (format_ == ScoreFileFormat::kVcf) {
      temp_->publish();
      return;
    }
    const std::string index_target = path_ + (format_ == ScoreFileFormat::kBcf ? ".csi" : ".tbi");
    TempSibling index(index_target);
    const int built = bcf_index_build3(temp_->path().c_str(), index.path().c_str(),
                                       format_ == ScoreFileFormat::kBcf ? 14 : 0, 1);
    if (built != 0) {
      throw Error(
          fmt::format("--out '{}': HTSlib could not index the output (code {})", path_, built));
    }
    temp_->publish();
    index.publish();
  }

 private:
  // An index needs each contig's records together and in position order.
  void check_order(const VariantRecord& record) {
    if (format_ == ScoreFileFormat::kVcf) return;
    const int rid = record.raw->rid;
    const int64_t pos = record.raw->pos;
    if (rid == last_rid_ && pos >= last_pos_) {
      last_pos_ = pos;
      last_where_ = input_->where(record);
      return;
    }
    if (rid == last_rid_ || finished_.count(rid) > 0) {
      throw data::DataError(fmt::format(
          "{}: {}:{} comes after {}:{} ({}): '{}' is not sorted, and an indexed {} needs "
          "sorted records (sort it with `bcftools sort`, or write a .vcf or .tsv, which need "
          "no index; nothing written)",
          input_->where(record), record.chrom, pos + 1, last_chrom_, last_pos_ + 1, last_where_,
          input_->path(), format_ == ScoreFileFormat::kBcf ? "BCF" : "VCF"));
    }
    if (last_rid_ >= 0) finished_.insert(last_rid_);
    last_rid_ = rid;
    last_pos_ = pos;
    last_chrom_ = record.chrom;
    last_where_ = input_->where(record);
  }

  std::string path_;
  ScoreFileFormat format_;
  std::string source_;
  const VariantReader* input_ = nullptr;
  bcf_hdr_t* header_ = nullptr;
  htsFile* file_ = nullptr;
  std::optional<TempSibling> temp_;
  std::vector<std::string> keys_;
  size_t columns_ = 0;
  int last_rid_ = -1;
  int64_t last_pos_ = 0;
  std::string last_chrom_;
  std::string last_where_;
  std::set<int> finished_;
};

}  // namespace

ScoreFileFormat score_file_format(const std::string& path) {
  const std::string name = lower(path);
  if (name.ends_with(".vcf")) return ScoreFileFormat::kVcf;
  if (name.ends_with(".vcf.gz") || name.ends_with(".vcf.bgz")) return ScoreFileFormat::kVcfGz;
  if (name.ends_with(".bcf")) return ScoreFileFormat::kBcf;
  return ScoreFileFormat::kTsv;
}

std::string info_key(const std::string& column) {
  std::string key = column;
  for (char& c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '_' && c != '.') c = '_';
  }
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key.front()))) key = "_" + key;
  return key;
}

std::unique_ptr<VariantScoreSink> open_score_file(const std::string& path,
                                                  std::ostream* stdout_stream, std::string source) {
  const ScoreFileFormat format = score_file_format(path);
  if (format == ScoreFileFormat::kTsv) {
    STRAND_CHECK(path != "-" || stdout_stream != nullptr,
                 "open_score_file: '-' needs a stream to write to");
    return std::make_unique<TsvScoreFile>(path, stdout_stream);
  }
  return std::make_unique<VcfScoreFile>(path, format, std::move(source));
}

}  // namespace strand::variants
