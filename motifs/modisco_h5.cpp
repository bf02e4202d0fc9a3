// The HDF5 results file in modisco-lite's layout.
#include "motifs/modisco_h5.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <hdf5.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace strand::motifs {
namespace {

// Closes an HDF5 handle with its own close function.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id < 0) throw std::runtime_error("HDF5: cannot create " + what);
  }
  ~Handle() { close_(id_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void write(hid_t group, const std::string& name, hid_t file_type, hid_t memory_type,
           const std::vector<hsize_t>& dims, const void* data) {
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose,
               "dataspace " + name);
  Handle set(
      H5Dcreate2(group, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, "dataset " + name);
  if (H5Dwrite(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    throw std::runtime_error("HDF5: cannot write dataset " + name);
  }
}

void write_doubles(hid_t group, const std::string& name, const std::vector<double>& values) {
  write(group, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {values.size() / 4, 4}, values.data());
}

void write_ints(hid_t group, const std::string& name, const std::vector<int64_t>& values) {
  write(group, name, H5T_STD_I64LE, H5T_NATIVE_INT64, {values.size()}, values.data());
}

// numpy bools as h5py stores them: an 8-bit enum FALSE = 0, TRUE = 1.
void write_bools(hid_t group, const std::string& name, const std::vector<int8_t>& values) {
  Handle type(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose, "bool type");
  int8_t no = 0, yes = 1;
  H5Tenum_insert(type, "FALSE", &no);
  H5Tenum_insert(type, "TRUE", &yes);
  write(group, name, type, type, {values.size()}, values.data());
}

void write_seqlets(hid_t pattern_group, const Pattern& pattern, const ScoreSet& scores) {
  Handle group(H5Gcreate2(pattern_group, "seqlets", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
               H5Gclose, "group seqlets");
  const std::vector<Seqlet>& seqlets = pattern.seqlets();
  std::vector<int64_t> start, end, example;
  std::vector<int8_t> revcomp;
  for (const Seqlet& s : seqlets) {
    start.push_back(s.start), end.push_back(s.end), example.push_back(s.example);
    revcomp.push_back(s.revcomp ? 1 : 0);
  }
  write_ints(group, "n_seqlets", {static_cast<int64_t>(seqlets.size())});
  write_ints(group, "start", start);
  write_ints(group, "end", end);
  write_ints(group, "example_idx", example);
  write_bools(group, "is_revcomp", revcomp);
  const auto length = static_cast<size_t>(pattern.length());
  const std::pair<const char*, Track> tracks[] = {{"sequence", Track::kOneHot},
                                                  {"contrib_scores", Track::kContrib},
                                                  {"hypothetical_contribs", Track::kHypothetical}};
  std::vector<float> values(seqlets.size() * length * 4);
  for (const auto& [name, track] : tracks) {
    for (size_t i = 0; i < seqlets.size(); ++i) {
      read_seqlet(scores, seqlets[i], track, values.data() + i * length * 4);
    }
    write(group, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {seqlets.size(), length, 4},
          values.data());
  }
}

// A pattern's means and seqlets into `group` (and its subpatterns, when given, as
// subpattern_<k> groups within it).
void write_pattern(hid_t group, const Pattern& pattern, const std::vector<Pattern>* subpatterns,
                   const ScoreSet& scores) {
  write_doubles(group, "sequence", pattern.mean(Track::kOneHot));
  write_doubles(group, "contrib_scores", pattern.mean(Track::kContrib));
  write_doubles(group, "hypothetical_contribs", pattern.mean(Track::kHypothetical));
  write_seqlets(group, pattern, scores);
  if (subpatterns == nullptr) return;
  for (size_t k = 0; k < subpatterns->size(); ++k) {
    const std::string name = fmt::format("subpattern_{}", k);
    Handle sub(H5Gcreate2(group, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
               name);
    write_pattern(sub, (*subpatterns)[k], nullptr, scores);
  }
}

void write_metacluster(hid_t file, const char* name, const Metacluster& m, const ScoreSet& scores) {
  if (m.patterns.empty()) return;
  Handle group(H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, name);
  for (size_t k = 0; k < m.patterns.size(); ++k) {
    const std::string pattern_name = fmt::format("pattern_{}", k);
    Handle pattern(H5Gcreate2(group, pattern_name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Gclose, pattern_name);
    write_pattern(pattern, m.patterns[k], k < m.subpatterns.size() ? &m.subpatterns[k] : nullptr,
                  scores);
  }
}

void write_file(const std::string& path, const Discovery& d, const ScoreSet& scores,
                int64_t window) {
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, path);
  {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose, "scalar");
    Handle attribute(
        H5Acreate2(file, "window_size", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
        "attribute window_size");
    H5Awrite(attribute, H5T_NATIVE_INT64, &window);
  }
  write_metacluster(file, "pos_patterns", d.positive, scores);
  write_metacluster(file, "neg_patterns", d.negative, scores);
}

}  // namespace

void write_modisco_h5(const std::filesystem::path& path, const Discovery& discovery,
                      const ScoreSet& scores, int64_t window) {
  const std::filesystem::path temp =
      path.parent_path() / fmt::format(".{}.tmp.{}", path.filename().string(), getpid());
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not stderr noise
  try {
    write_file(temp.string(), discovery, scores, window);
    const int fd = ::open(temp.c_str(), O_RDONLY);
    if (fd >= 0) ::fsync(fd), ::close(fd);
    std::filesystem::rename(temp, path);
  } catch (const std::exception& error) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw std::runtime_error(fmt::format("'{}': {}", path.string(), error.what()));
  }
}

}  // namespace strand::motifs
