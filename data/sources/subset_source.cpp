// SubsetSource: index checks at construction.
#include "data/sources/subset_source.h"

#include "data/data_error.h"
#include "fmt/format.h"

namespace strand::data {

SubsetSource::SubsetSource(std::shared_ptr<const SequenceSource> inner,
                           std::vector<int64_t> indices)
    : inner_(std::move(inner)), indices_(std::move(indices)) {
  if (inner_ == nullptr) throw DataError("SubsetSource: no inner source");
  for (const int64_t i : indices_) {
    if (i < 0 || i >= inner_->size()) {
      throw DataError(fmt::format("SubsetSource: index {} is outside the inner source's {} samples",
                                  i, inner_->size()));
    }
  }
}

}  // namespace strand::data
