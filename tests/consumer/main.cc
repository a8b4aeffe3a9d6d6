// SPDX-License-Identifier: MIT
// File: tests/consumer/main.cc
//
// An engine's view of lwc: import the installed modules (or, in the header build, include them), use
// them, audit a result with the checkers. Exits non-zero if anything disagrees, so `./lwc package` fails
// loudly. The same file serves both uses; its CMakeLists.txt defines LWC_USE_HEADERS for the header build.
#include <cstdint>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#ifdef LWC_USE_HEADERS
#include "lwc/contracts/decompose.h"
#include "lwc/lwc.h"
#endif

#ifndef LWC_USE_HEADERS
import lwc;
import lwc.contracts.decompose;
#else
bool second_unit_ok();  // second_unit.cc: the other translation unit that includes lwc's headers
#endif

int main() {
  constexpr lwc::ChunkSize kChunk = lwc::ChunkSize::of<1000>();
  static_assert(lwc::split(-1, kChunk) == lwc::ChunkPoint{-1, 999});
  const lwc::ChunkPoint p = lwc::split(-1, kChunk);
  const absl::Status audit = lwc::contracts::check_split(-1, 1000, p.chunk, p.local);
  const absl::StatusOr<std::int64_t> cell = lwc::cell_of(-0.0, 0.5);
  bool ok = audit.ok() && cell.ok() && *cell == 0 &&
            !lwc::contracts::check_split(-1, 1000, 0, -1).ok();  // truncation is caught
#ifdef LWC_USE_HEADERS
  ok = second_unit_ok() && ok;
#endif
  std::printf("consumer: split(-1, 1000) = (%lld, %lld), audit %s\n", static_cast<long long>(p.chunk),
              static_cast<long long>(p.local), ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
