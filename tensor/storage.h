// Storage: a reference-counted block of memory on one device that tensors view.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "core/device.h"

namespace strand {

/// A block of memory on one device, shared by the tensors that view it.
class Storage {
 public:
  /// Allocates `nbytes` on `device` through its registered allocator.
  Storage(size_t nbytes, Device device);
  /// Wraps memory owned elsewhere; `release` (may be empty) runs when the storage dies.
  Storage(void* data, size_t nbytes, Device device, std::function<void(void*)> release);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  /// The first byte.
  void* data() const { return data_; }
  /// Size in bytes.
  size_t nbytes() const { return nbytes_; }
  /// Where the memory lives.
  Device device() const { return device_; }

 private:
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_;
  bool owned_by_allocator_ = false;
  std::function<void(void*)> release_;
};

using StoragePtr = std::shared_ptr<Storage>;

}  // namespace strand
