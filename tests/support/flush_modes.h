// SPDX-License-Identifier: MIT
// File: tests/support/flush_modes.h
//
// What the tests and properties that run lwc in a -ffast-math process's floating-point modes share
// (tests/rebase_test.cc, properties/decompose_props.cc): the CPU's flush-to-zero and denormals-are-zero
// modes, which -ffast-math's startup code turns on for the whole process, on x86-64 and on AArch64.
#ifndef LWC_TESTS_SUPPORT_FLUSH_MODES_H_
#define LWC_TESTS_SUPPORT_FLUSH_MODES_H_

#include <cstdint>

#if defined(__SSE2__)
#include <xmmintrin.h>  // _mm_getcsr, _mm_setcsr: MXCSR's flush-to-zero and denormals-are-zero bits
#endif

namespace lwc::testing {

// with_subnormals_flushed()
//
// Runs fn() with the modes on and restores them: MXCSR bits 15 (flush-to-zero) and 6
// (denormals-are-zero) on x86-64, FPCR.FZ (bit 24, both at once) on AArch64. Returns false, without
// running fn, where neither is known. Not inlined, and the control-register writes clobber memory, so
// the compiler keeps fn's arithmetic between them.
template <typename Fn>
[[gnu::noinline]] bool with_subnormals_flushed(Fn&& fn) {
#if defined(__SSE2__)
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);
  fn();
  _mm_setcsr(saved);
  return true;
#elif defined(__aarch64__)
  std::uint64_t saved = 0;
  asm volatile("mrs %0, fpcr" : "=r"(saved) : : "memory");
  asm volatile("msr fpcr, %0" : : "r"(saved | (std::uint64_t{1} << 24)) : "memory");
  fn();
  asm volatile("msr fpcr, %0" : : "r"(saved) : "memory");
  return true;
#else
  (void)fn;
  return false;
#endif
}

}  // namespace lwc::testing

#endif  // LWC_TESTS_SUPPORT_FLUSH_MODES_H_
