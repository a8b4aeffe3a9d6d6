// SPDX-License-Identifier: MIT
// File: modules/lwc/format.h
//
// How lwc's error messages write a double: one notation everywhere. The shortest decimal that reads back
// as the same double (std::to_chars), so a message shows what the caller wrote (0.1, not
// 0.10000000000000001); and, where exactness matters — a value judged against a bound it may miss by one
// ulp — the same value in hexadecimal in parentheses ("1023.9999999999999 (0x1.fffffffffffffp+9)").
// Internal: a module unit includes it in its global module fragment, a header in its own includes. (The
// trace audit writes reals the same way but spells a NaN and an infinity as traces do, "NaN", "Infinity":
// lwc::internal::real_text in audit/reader.cc.)
#ifndef LWC_FORMAT_H_
#define LWC_FORMAT_H_

#include <charconv>
#include <string>

namespace lwc::internal {

// message_real()
//
// The shortest decimal that reads back as `v`: "0.1", "-0", "1e+300", "5e-324", "nan", "inf", "-inf".
inline std::string message_real(double v) {
  char buffer[32];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, r.ptr);
}

// message_real_exact()
//
// message_real(v) and the hexadecimal form of the same bits in parentheses: "0.1 (0x1.999999999999ap-4)",
// "-2 (-0x1p+1)". A NaN or an infinity has no other form: "nan", "-inf". (The classification is
// std::to_chars', in the library, so a caller's -ffinite-math-only cannot fold it away.)
inline std::string message_real_exact(double v) {
  std::string text = message_real(v);
  char buffer[32];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::hex);
  const std::string hex(buffer, r.ptr);
  if (hex.find_first_of("ni") != std::string::npos) return text;  // nan, inf: no digits to show
  const bool negative = hex[0] == '-';
  text += negative ? " (-0x" : " (0x";
  text += hex.substr(negative ? 1 : 0);
  text += ")";
  return text;
}

}  // namespace lwc::internal

#endif  // LWC_FORMAT_H_
