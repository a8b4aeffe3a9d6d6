#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds every lwc fuzz target the way OSS-Fuzz and ClusterFuzzLite build fuzzers:
#   $CXX $CXXFLAGS ... $LIB_FUZZING_ENGINE, binaries in $OUT, with <target>_seed_corpus.zip and
#   <target>.dict beside each.
# It is the ClusterFuzzLite build script (.clusterfuzzlite/Dockerfile copies it to $SRC/build.sh), and
# `./lwc oss-fuzz` runs it locally with those variables set, as CI does.
#
# The targets are C++20 modules, so CMake (>= 3.28, with clang-scan-deps) drives the compiler rather than
# one $CXX line per file; the flags are exactly the environment's. $CXXFLAGS is applied to the whole tree
# (the library gets the same sanitizer coverage as the targets, or libFuzzer sees half the edges).
set -euo pipefail
: "${CXX:?set CXX (e.g. clang++-19)}" "${OUT:?set OUT}" "${LIB_FUZZING_ENGINE:?set LIB_FUZZING_ENGINE (e.g. -fsanitize=fuzzer)}"
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${WORK:-$SRC_DIR/build/oss-fuzz-work}
mkdir -p "$OUT" "$WORK"

cmake -S "$SRC_DIR" -B "$WORK/build" -G Ninja \
  -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="${CXXFLAGS:-}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLWC_BUILD_FUZZERS=ON -DLWC_BUILD_TESTS=OFF -DLWC_BUILD_PROPERTIES=OFF \
  -DLWC_FUZZ_ENGINE="$LIB_FUZZING_ENGINE"
cmake --build "$WORK/build" -j "$(nproc 2>/dev/null || echo 2)"

for src in "$SRC_DIR"/fuzz/*_fuzzer.cc; do
  target=$(basename "$src" .cc)
  cp "$WORK/build/fuzz/$target" "$OUT/$target"
  [ -f "$SRC_DIR/fuzz/$target.dict" ] && cp "$SRC_DIR/fuzz/$target.dict" "$OUT/$target.dict"
  if [ -d "$SRC_DIR/fuzz/corpus/$target" ]; then
    rm -f "$OUT/${target}_seed_corpus.zip"
    (cd "$SRC_DIR/fuzz/corpus/$target" && cmake -E tar cf "$OUT/${target}_seed_corpus.zip" --format=zip -- *)
  fi
  echo "built $OUT/$target"
done
