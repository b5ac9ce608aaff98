// A std::allocator for the engine's big preallocated tables (the client-id index, the order
// pool): memory aligned to 2 MiB and advised MADV_HUGEPAGE, so that with transparent huge
// pages in `madvise` mode (Debian's default) a random probe into a table of tens of MiB costs
// a cache miss but rarely a TLB miss as well. Where the kernel gives no huge page the advice
// is ignored and the memory behaves as any other.
//
//   std::vector<Slot, HugePageAllocator<Slot>> table(n);  // touched by value-initialization
#ifndef CFX_ENGINE_HUGE_PAGE_ALLOCATOR_H_
#define CFX_ENGINE_HUGE_PAGE_ALLOCATOR_H_

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace cfx::engine {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding, as std::allocator

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) {  // small: a huge page would waste more than it saves
      return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
    }
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) < kHugePage) {
      ::operator delete (p, std::align_val_t{alignof(T)});
    } else {
      std::free(p);
    }
  }
  template <typename U>
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator<U>&) {
    return true;
  }
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_HUGE_PAGE_ALLOCATOR_H_
