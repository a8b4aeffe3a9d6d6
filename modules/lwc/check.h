// SPDX-License-Identifier: MIT
// File: modules/lwc/check.h
//
// The library's two macros. Macros cannot be exported from a module, so they stay textual: a module
// unit includes this header in its global module fragment, any other file includes it first.
#ifndef LWC_CHECK_H_
#define LWC_CHECK_H_

#include <cstdio>
#include <cstdlib>

// LWC_CHECK()
//
// Aborts with file:line and `msg` when `cond` is false. For broken internal invariants only: a bad
// argument from a caller is an `absl::Status`, never a check. On when LWC_ENABLE_CHECKS is 1 (the dev and
// fuzz presets set it; so does any build without NDEBUG); otherwise `cond` is not evaluated.
#ifndef LWC_ENABLE_CHECKS
#ifdef NDEBUG
#define LWC_ENABLE_CHECKS 0
#else
#define LWC_ENABLE_CHECKS 1
#endif
#endif

#if LWC_ENABLE_CHECKS
#define LWC_CHECK(cond, msg)                                                          \
  do {                                                                                \
    if (!(cond)) [[unlikely]] {                                                       \
      std::fprintf(stderr, "%s:%d: LWC_CHECK(%s) failed: %s\n", __FILE__, __LINE__, /* LCOV_EXCL_START: aborts, so only a broken invariant gets here and no profile is written */ \
                   #cond, msg);                                                       \
      std::abort();                                                                   \
    } /* LCOV_EXCL_STOP */ \
  } while (false)
#else
#define LWC_CHECK(cond, msg) \
  do {                       \
  } while (false)
#endif

// LWC_ASSIGN_OR_RETURN()
//
// `LWC_ASSIGN_OR_RETURN(auto x, expr);` evaluates `expr` (an absl::StatusOr<T>), returns its status from
// the enclosing function when it is not OK, and otherwise declares `x` from its value.
#define LWC_INTERNAL_CONCAT2(a, b) a##b
#define LWC_INTERNAL_CONCAT(a, b) LWC_INTERNAL_CONCAT2(a, b)
#define LWC_ASSIGN_OR_RETURN(decl, expr) \
  LWC_INTERNAL_ASSIGN_OR_RETURN(LWC_INTERNAL_CONCAT(lwc_statusor_, __LINE__), decl, expr)
#define LWC_INTERNAL_ASSIGN_OR_RETURN(tmp, decl, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return std::move(tmp).status();       \
  decl = *std::move(tmp)

// LWC_RETURN_IF_ERROR()
//
// Returns the status of `expr` (an absl::Status) from the enclosing function when it is not OK.
#define LWC_RETURN_IF_ERROR(expr)                     \
  do {                                                \
    if (auto lwc_status = (expr); !lwc_status.ok()) { \
      return lwc_status;                              \
    }                                                 \
  } while (false)

#endif  // LWC_CHECK_H_
