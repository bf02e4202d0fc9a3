// Reading the .npz pair of `strand explain` (or of any tool writing modisco-lite's inputs).
#include "motifs/score_set.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/shape.h"
#include "io/npz.h"

namespace strand::motifs {
namespace {

// One arr_0 as float values in C order, with its shape.
struct RawArray {
  Shape shape;
  std::vector<float> values;
};

template <typename T>
void convert(const std::vector<char>& bytes, std::vector<float>& out) {
  const size_t count = bytes.size() / sizeof(T);
  out.resize(count);
  for (size_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
    out[i] = static_cast<float>(value);
  }
}

RawArray read_arr0(const std::filesystem::path& path) {
  std::vector<io::NpyArray> arrays = io::read_npz(path);
  for (io::NpyArray& array : arrays) {
    if (array.name != "arr_0") continue;
    RawArray raw{array.shape, {}};
    if (array.descr == "<f4") {
      convert<float>(array.bytes, raw.values);
    } else if (array.descr == "<f8") {
      convert<double>(array.bytes, raw.values);
    } else if (array.descr == "|u1" || array.descr == "|b1") {
      convert<uint8_t>(array.bytes, raw.values);
    } else if (array.descr == "<i8") {
      convert<int64_t>(array.bytes, raw.values);
    } else {
      throw std::runtime_error(
          fmt::format("'{}': arr_0 has type '{}'; expected float32, "
                      "float64, uint8, bool or int64",
                      path.string(), array.descr));
    }
    return raw;
  }
  throw std::runtime_error(
      fmt::format("'{}': no array arr_0 (expected the (N, 4, L) scores "
                  "that strand explain writes)",
                  path.string()));
}

// (N, 4, L) or (N, L, 4) values as (N, L, 4). A (N, 4, 4) array is read as (N, L, 4).
std::vector<float> to_positions_last(const RawArray& raw, const std::filesystem::path& path,
                                     int64_t& sequences, int64_t& length) {
  const Shape& s = raw.shape;
  if (s.size() != 3 || (s[1] != 4 && s[2] != 4)) {
    throw std::runtime_error(
        fmt::format("'{}': arr_0 has shape {}; expected (N, 4, L) or "
                    "(N, L, 4)",
                    path.string(), shape_to_string(s)));
  }
  sequences = s[0];
  if (s[2] == 4) {
    length = s[1];
    return raw.values;
  }
  length = s[2];
  std::vector<float> out(raw.values.size());
  for (int64_t n = 0; n < sequences; ++n) {
    for (int64_t c = 0; c < 4; ++c) {
      for (int64_t p = 0; p < length; ++p) {
        out[((n * length + p) * 4) + c] = raw.values[((n * 4 + c) * length) + p];
      }
    }
  }
  return out;
}

}  // namespace

ScoreSet make_score_set(int64_t sequences, int64_t length, std::vector<float> hypothetical,
                        std::vector<float> one_hot) {
  const size_t size = static_cast<size_t>(sequences * length * 4);
  if (hypothetical.size() != size || one_hot.size() != size) {
    throw std::runtime_error(fmt::format(
        "scores: expected {} values ({} sequences x {} positions x 4) in both arrays, got {} "
        "and {}",
        size, sequences, length, hypothetical.size(), one_hot.size()));
  }
  ScoreSet set{sequences, length, std::move(hypothetical), std::move(one_hot), {}};
  set.contrib.resize(size);
  for (size_t i = 0; i < size; ++i) {
    if (!std::isfinite(set.hypothetical[i])) {
      throw std::runtime_error(
          fmt::format("scores: value {} at sequence {}, position {} is not "
                      "finite",
                      set.hypothetical[i], i / 4 / length, i / 4 % length));
    }
    set.contrib[i] = set.hypothetical[i] * set.one_hot[i];
  }
  return set;
}

std::filesystem::path default_sequences_path(const std::filesystem::path& scores) {
  std::filesystem::path out = scores;
  out.replace_filename(scores.stem().string() + "_onehot.npz");
  return out;
}

ScoreSet read_score_set(const std::filesystem::path& scores,
                        const std::filesystem::path& sequences) {
  int64_t n_scores = 0, l_scores = 0, n_bases = 0, l_bases = 0;
  std::vector<float> hyp = to_positions_last(read_arr0(scores), scores, n_scores, l_scores);
  std::vector<float> bases = to_positions_last(read_arr0(sequences), sequences, n_bases, l_bases);
  if (n_scores != n_bases || l_scores != l_bases) {
    throw std::runtime_error(
        fmt::format("'{}' holds {} sequences of {} bases but '{}' holds {} of {}: they must match",
                    scores.string(), n_scores, l_scores, sequences.string(), n_bases, l_bases));
  }
  for (size_t i = 0; i < bases.size(); i += 4) {
    const float sum = bases[i] + bases[i + 1] + bases[i + 2] + bases[i + 3];
    if (sum > 1.0f + 1e-4f) {
      throw std::runtime_error(
          fmt::format("'{}': sequence {}, position {} has more than one "
                      "base (one-hot values sum to {})",
                      sequences.string(), i / 4 / l_bases, i / 4 % l_bases, sum));
    }
  }
  try {
    return make_score_set(n_scores, l_scores, std::move(hyp), std::move(bases));
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(fmt::format("'{}': {}", scores.string(), error.what()));
  }
}

}  // namespace strand::motifs
