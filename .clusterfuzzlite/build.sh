#!/bin/bash -eu
# SPDX-License-Identifier: MIT
# ClusterFuzzLite entry point: build abseil with the image's compiler and flags (libc++), then the lwc
# fuzz targets through the project's own fuzz/build.sh.
cmake -S "$SRC/abseil-cpp" -B "$WORK/abseil" -G Ninja -DCMAKE_CXX_STANDARD=20 \
  -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DCMAKE_INSTALL_PREFIX="$WORK/prefix" -DABSL_PROPAGATE_CXX_STD=ON
cmake --build "$WORK/abseil" --target install
CMAKE_PREFIX_PATH="$WORK/prefix" "$SRC/lwc/fuzz/build.sh"
