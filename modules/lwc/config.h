// SPDX-License-Identifier: MIT
// File: modules/lwc/config.h
//
// One source, two modes. Every module unit of modules/ is also a header: compiled as a module unit it
// is `export module lwc.<contract>;`, and included by <lwc/<contract>.h> (which defines
// LWC_HEADER_BUILD first) the same text is an ordinary header, for builds without C++20 modules
// (g++ 12, clang without clang-scan-deps, any build system). The module lines of a unit are guarded by
// `#ifndef LWC_HEADER_BUILD`; what it exports is marked LWC_EXPORT.
//
// Because the text is a header in that mode, every function and variable a unit defines at namespace
// scope is `inline` (or constexpr, or a template), so two translation units that include it link.
// Names a module keeps to itself (lwc::internal) are visible to includers in header mode; they are not
// part of the API in either mode.
#ifndef LWC_CONFIG_H_
#define LWC_CONFIG_H_

// LWC_EXPORT
//
// `export` in a module unit, nothing in a header.
#ifdef LWC_HEADER_BUILD
#define LWC_EXPORT
#else
#define LWC_EXPORT export
#endif

#endif  // LWC_CONFIG_H_
