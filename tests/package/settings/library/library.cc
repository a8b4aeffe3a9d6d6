// SPDX-License-Identifier: MIT
// File: tests/package/settings/library/library.cc (configured only, never built: settings.cmake)
import lwc.decompose;

int library_chunk() { return static_cast<int>(lwc::split(-1, lwc::ChunkSize::of<16>()).chunk); }
