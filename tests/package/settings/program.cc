// SPDX-License-Identifier: MIT
// File: tests/package/settings/program.cc (configured only, never built: settings.cmake)
int library_chunk();

int main() { return library_chunk() == -1 ? 0 : 1; }
