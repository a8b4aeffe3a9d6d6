// SPDX-License-Identifier: MIT
// File: tests/support/counting_allocator.h
//
// E12's counting allocator, for the tests and properties that show a warm persistent grid allocates
// nothing: every heap allocation of the process is counted. Under AddressSanitizer or ThreadSanitizer,
// whose runtimes own operator new, through their public allocation hooks (which see malloc too); elsewhere
// by replacing the global operator new. Include it in exactly one translation unit of a test program: it
// defines the replacement operators.
//
//   ASSERT_TRUE(lwc::testing::counting_allocations());
//   const std::int64_t before = lwc::testing::allocations();
//   ...                                                    // the code that must not allocate
//   EXPECT_EQ(lwc::testing::allocations() - before, 0);
#ifndef LWC_TESTS_SUPPORT_COUNTING_ALLOCATOR_H_
#define LWC_TESTS_SUPPORT_COUNTING_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LWC_COUNT_THROUGH_SANITIZER_HOOKS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LWC_COUNT_THROUGH_SANITIZER_HOOKS 1
#endif

#ifdef LWC_COUNT_THROUGH_SANITIZER_HOOKS
#include <sanitizer/allocator_interface.h>
#endif

namespace lwc::testing {
namespace counting_internal {

inline std::atomic<std::int64_t> allocations{0};

#ifdef LWC_COUNT_THROUGH_SANITIZER_HOOKS
inline void count_malloc(const volatile void*, std::size_t) { allocations.fetch_add(1, std::memory_order_relaxed); }
inline void ignore_free(const volatile void*) {}
inline const bool counting = __sanitizer_install_malloc_and_free_hooks(count_malloc, ignore_free) != 0;
#else
inline const bool counting = true;
inline void* counted_new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) std::abort();
  return p;
}
#endif

}  // namespace counting_internal

// True once every allocation is counted (the sanitizer accepted the hooks, or operator new is replaced).
inline bool counting_allocations() { return counting_internal::counting; }

// The heap allocations of the process so far.
inline std::int64_t allocations() { return counting_internal::allocations.load(std::memory_order_relaxed); }

}  // namespace lwc::testing

#ifndef LWC_COUNT_THROUGH_SANITIZER_HOOKS
void* operator new(std::size_t n) { return lwc::testing::counting_internal::counted_new(n); }
void* operator new[](std::size_t n) { return lwc::testing::counting_internal::counted_new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif

#endif  // LWC_TESTS_SUPPORT_COUNTING_ALLOCATOR_H_
