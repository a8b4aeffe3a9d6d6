# SPDX-License-Identifier: MIT
# File: cmake/aarch64-linux-gnu.cmake
#
# Cross-compiles lwc for AArch64 Linux on an x86-64 Debian machine and runs what it builds under
# qemu-user (the `aarch64` preset; `./lwc cross` installs the pieces). Nothing is a sysroot of its own:
# Debian's multiarch packages put the arm64 C library, libstdc++, abseil, GoogleTest and RapidCheck under
# /usr/lib/aarch64-linux-gnu and /usr/include/aarch64-linux-gnu beside the host's, where clang's Debian
# driver finds them for --target=aarch64-linux-gnu, and arm64's dynamic loader is at /lib, so qemu needs
# no -L either. lld links (the host's ld knows no AArch64); clang-scan-deps reads the target from each
# compile command, so modules work as on the host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(LWC_TARGET_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER clang-19)
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_C_COMPILER_TARGET ${LWC_TARGET_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${LWC_TARGET_TRIPLE})
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT -fuse-ld=lld)
endforeach()

# CTest, gtest_discover_tests and add_test(COMMAND <target>) run the binaries through this.
find_program(LWC_QEMU_AARCH64 qemu-aarch64-static)
if(NOT LWC_QEMU_AARCH64)
  find_program(LWC_QEMU_AARCH64 qemu-aarch64)
endif()
if(LWC_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${LWC_QEMU_AARCH64})
endif()

# The host's own packages (x86-64 pkg-config files, libraries) must not be picked up: search only the
# arm64 multiarch directories and the architecture-independent ones.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${LWC_TARGET_TRIPLE}/pkgconfig:/usr/share/pkgconfig")
set(CMAKE_LIBRARY_ARCHITECTURE ${LWC_TARGET_TRIPLE})
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/cmake /lib/x86_64-linux-gnu)
