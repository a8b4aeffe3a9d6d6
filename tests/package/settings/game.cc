// SPDX-License-Identifier: MIT
// File: tests/package/settings/game.cc (configured only, never built: settings.cmake)
import lwc;

int main() { return lwc::split(-1, lwc::ChunkSize::of<16>()).chunk == -1 ? 0 : 1; }
