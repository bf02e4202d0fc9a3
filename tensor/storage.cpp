// Storage allocation and release.
#include "tensor/storage.h"

#include "tensor/allocator.h"

namespace strand {

Storage::Storage(size_t nbytes, Device device)
    : data_(allocator_for(device.type).allocate(nbytes, device)),
      nbytes_(nbytes),
      device_(device),
      owned_by_allocator_(true) {}

Storage::Storage(void* data, size_t nbytes, Device device, std::function<void(void*)> release)
    : data_(data), nbytes_(nbytes), device_(device), release_(std::move(release)) {}

Storage::~Storage() {
  if (owned_by_allocator_) {
    allocator_for(device_.type).deallocate(data_, nbytes_, device_);
  } else if (release_) {
    release_(data_);
  }
}

}  // namespace strand
