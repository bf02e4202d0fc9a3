// sample_class: the binary class of a sample, as used by balanced sampling.
#include "data/sequence_source.h"

#include <cstddef>
#include <vector>

namespace strand::data {

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
