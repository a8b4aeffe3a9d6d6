// SPDX-License-Identifier: MIT
// File: audit/main.cc
//
// lwc-audit: audits a JSON Lines trace of any implementation against the lwc contracts (docs/audit.md).
//
//   lwc-audit [--migrate OUT] [--json REPORT] [--html REPORT] [--examples N] [--canonicalise] [--max-line-bytes N] TRACE
//   (TRACE "-" reads standard input; `--trace TRACE` is the same, as `./lwc audit --trace` passes it)
//
// Prints the report (per clause: records checked, violations, first counterexamples; bad lines with their
// numbers). --migrate writes one JSON line per misfiled stored address (old key -> correct key); clean
// records are never written. Exit status: 0 clean, 1 violations, 2 unreadable input or bad usage.
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"

import lwc.audit.trace;

namespace {

constexpr char kUsage[] =
    "usage: lwc-audit [--migrate OUT] [--json REPORT] [--html REPORT] [--examples N] [--canonicalise]\n"
    "                 [--max-line-bytes N] TRACE\n"
    "  Audits a JSON Lines trace (TRACE, or - for standard input; also --trace TRACE) against the lwc contracts.\n"
    "  --migrate OUT   write the remapping of every misfiled stored address (JSON Lines)\n"
    "  --json REPORT   also write the report as JSON\n"
    "  --html REPORT   also write the report as one self-contained HTML page, with drawings of the\n"
    "                  violating records (their boxes, chunks, runs; docs/audit.md)\n"
    "  --examples N    counterexamples kept per clause (default 5)\n"
    "  --canonicalise  read broadphase pairs as raw engine output: each pair lower index first and the\n"
    "                  list sorted before judging (B3 judges only repeats, B4 is not judged)\n"
    "  --max-line-bytes N  the longest record line read (default 16 MiB, at most 1 GiB); the reader\n"
    "                  holds one line and its parse, a few times N\n"
    "  exit status: 0 clean, 1 violations, 2 unreadable input (or bad usage)\n"
    "  schema: docs/audit.md\n";

// Writes `text` to `path`; false (with a message) when it cannot.
bool write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr && std::fclose(f) != 0) return std::fprintf(stderr, "lwc-audit: cannot write %s\n", path.c_str()), false;
  if (!ok) std::fprintf(stderr, "lwc-audit: cannot write %s\n", path.c_str());
  return ok;
}

int usage_error(const char* why) {
  std::fprintf(stderr, "lwc-audit: %s\n%s", why, kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string trace;
  std::string migrate;
  std::string json;
  std::string html;
  lwc::audit::TraceOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--trace" && has_value) {
      if (!trace.empty()) return usage_error("one trace at a time");
      trace = argv[++i];
    } else if (arg == "--migrate" && has_value) {
      migrate = argv[++i];
    } else if (arg == "--json" && has_value) {
      json = argv[++i];
    } else if (arg == "--html" && has_value) {
      html = argv[++i];
    } else if (arg == "--examples" && has_value) {
      char* end = nullptr;
      const long n = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || n < 0 || n > 1000) return usage_error("--examples takes a count from 0 to 1000");
      options.examples = static_cast<std::size_t>(n);
    } else if (arg == "--canonicalise" || arg == "--canonicalize") {
      options.canonicalise_pairs = true;
    } else if (arg == "--max-line-bytes" && has_value) {
      char* end = nullptr;
      const long long n = std::strtoll(argv[++i], &end, 10);
      if (*end != '\0' || n < 64 || static_cast<unsigned long long>(n) > lwc::audit::kMaxLineLimit) {
        return usage_error("--max-line-bytes takes a byte count from 64 to 1073741824");
      }
      options.max_line_bytes = static_cast<std::size_t>(n);
    } else if (arg.size() > 1 && arg.front() == '-') {
      return usage_error((std::string("unknown option or missing value: ") + argv[i]).c_str());
    } else if (trace.empty()) {
      trace = argv[i];
    } else {
      return usage_error("one trace at a time");
    }
  }
  if (trace.empty()) return usage_error("no trace given");

  std::FILE* out = nullptr;
  if (!migrate.empty()) {
    out = std::fopen(migrate.c_str(), "wb");
    if (out == nullptr) {
      std::fprintf(stderr, "lwc-audit: cannot write %s: %s\n", migrate.c_str(), std::strerror(errno));
      return 2;
    }
    options.migration = [out](std::string_view line) {
      std::fwrite(line.data(), 1, line.size(), out);
      std::fputc('\n', out);
    };
  }
  const lwc::audit::TraceOptions kept = options;  // --html reads the trace again with them
  lwc::audit::TraceAuditor auditor(std::move(options));
  const absl::Status read = auditor.file(trace);
  const lwc::audit::TraceReport& report = auditor.report();
  std::fputs(lwc::audit::format_report(report).c_str(), stdout);
  if (!read.ok()) std::fprintf(stderr, "lwc-audit: %s\n", std::string(read.message()).c_str());
  int code = report.exit_code();
  if (out != nullptr && std::fclose(out) != 0) {
    std::fprintf(stderr, "lwc-audit: writing %s failed\n", migrate.c_str());
    code = 2;
  }
  if (!json.empty() && !write_file(json, lwc::audit::report_json(report))) code = 2;
  if (!html.empty() && !write_file(html, lwc::audit::report_html(report, trace, kept))) code = 2;
  if (out != nullptr) {
    std::printf("migration: %llu lines written to %s\n", static_cast<unsigned long long>(report.migrated),
                migrate.c_str());
  }
  return code;
}
