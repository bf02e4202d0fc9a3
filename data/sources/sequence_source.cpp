// sample_class: the binary class of a sample, as used by balanced sampling; default task names;
// the identity track maps of sources without signal tracks.
#include "data/sources/sequence_source.h"

#include <cstddef>
#include <numeric>
#include <vector>

#include "fmt/format.h"

namespace strand::data {

std::vector<std::string> SequenceSource::default_task_names(int64_t count) {
  std::vector<std::string> names;
  for (int64_t t = 0; t < count; ++t) names.push_back(fmt::format("task_{}", t));
  return names;
}

std::vector<int64_t> SequenceSource::reverse_profile_tracks() const {
  std::vector<int64_t> map(static_cast<size_t>(profile_tracks()));
  std::iota(map.begin(), map.end(), int64_t{0});
  return map;
}

std::vector<int64_t> SequenceSource::reverse_control_tracks() const {
  std::vector<int64_t> map(static_cast<size_t>(control_tracks()));
  std::iota(map.begin(), map.end(), int64_t{0});
  return map;
}

int sample_class(const SequenceSource& source, int64_t index) {
  const auto t = static_cast<size_t>(source.num_targets());
  std::vector<float> labels(t);
  std::vector<uint8_t> mask(t);
  source.labels(index, labels.data(), mask.data());
  for (size_t i = 0; i < t; ++i) {
    if (mask[i] != 0 && labels[i] > 0.5F) return 1;
  }
  return 0;
}

}  // namespace strand::data
