// SPDX-License-Identifier: MIT
// File: tests/consumer/main.cc
//
// An engine's view of lwc: import the installed modules, use them, audit a result with the checkers.
// Exits non-zero if anything disagrees, so `./lwc package` fails loudly.
#include <cstdint>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

import lwc;
import lwc.contracts.decompose;

int main() {
  constexpr lwc::ChunkSize kChunk = lwc::ChunkSize::of<1000>();
  static_assert(lwc::split(-1, kChunk) == lwc::ChunkPoint{-1, 999});
  const lwc::ChunkPoint p = lwc::split(-1, kChunk);
  const absl::Status audit = lwc::contracts::check_split(-1, 1000, p.chunk, p.local);
  const absl::StatusOr<std::int64_t> cell = lwc::cell_of(-0.0, 0.5);
  const bool ok = audit.ok() && cell.ok() && *cell == 0 &&
                  !lwc::contracts::check_split(-1, 1000, 0, -1).ok();  // truncation is caught
  std::printf("consumer: split(-1, 1000) = (%lld, %lld), audit %s\n", static_cast<long long>(p.chunk),
              static_cast<long long>(p.local), ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
