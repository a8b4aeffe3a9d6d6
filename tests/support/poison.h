// SPDX-License-Identifier: MIT
// File: tests/support/poison.h
//
// What the C API's tests, properties and fuzz target share (tests/c_api_test.cc, properties/c_api_props.cc,
// fuzz/c_api_fuzzer.cc): a byte pattern no call writes. A check fills an output with it, makes a call
// that must fail, and checks the pattern survived (F3, F4 of docs/c_api.md: a failed call writes nothing).
#ifndef LWC_TESTS_SUPPORT_POISON_H_
#define LWC_TESTS_SUPPORT_POISON_H_

#include <cstring>

namespace lwc::testing {

// poisoned()
//
// A T whose every byte is 0xA5.
template <typename T>
T poisoned() {
  T t;
  std::memset(&t, 0xA5, sizeof t);
  return t;
}

// untouched()
//
// True when every byte of t is still poisoned()'s.
template <typename T>
bool untouched(const T& t) {
  const T p = poisoned<T>();
  return std::memcmp(&t, &p, sizeof t) == 0;
}

}  // namespace lwc::testing

#endif  // LWC_TESTS_SUPPORT_POISON_H_
