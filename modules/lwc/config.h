// SPDX-License-Identifier: MIT
// File: modules/lwc/config.h
//
// One source, two modes ({fmt}'s pattern). The declarations of a contract live once, in a header
// (modules/lwc/<contract>.h, contracts/lwc/contracts/<contract>.h): `#include <lwc/<contract>.h>` is the
// header build, for compilers and build systems without C++20 modules (g++ 12, clang without
// clang-scan-deps, Make). The module unit (modules/<contract>.cppm) is thin: `module;`, then
// `#define LWC_MODULE_UNIT 1` and the header's standard and abseil includes (the global module fragment),
// then `export module lwc.<contract>;`, its imports, and `#include "lwc/<contract>.h"`. The header puts its
// own includes under `#ifndef LWC_MODULE_UNIT`: inside the unit the standard and abseil headers come from
// the global module fragment (so nothing of theirs is attached to the module; an include guard alone is not
// enough, <cmath> re-enters itself and clang refuses an angled include in a module's purview), and the other
// contracts' headers come by `import`.
//
// Because the text is a header in the header build, every function and variable it defines at namespace
// scope is `inline` (or constexpr, or a template), so two translation units that include it link.
// Names a module keeps to itself (lwc::internal) are visible to includers in the header build; they are
// not part of the API in either mode.
#ifndef LWC_CONFIG_H_
#define LWC_CONFIG_H_

// LWC_EXPORT
//
// `export` in a module unit (which defines LWC_MODULE_UNIT before its first include), nothing in a header.
#ifdef LWC_MODULE_UNIT
#define LWC_EXPORT export
#else
#define LWC_EXPORT
#endif

#endif  // LWC_CONFIG_H_
