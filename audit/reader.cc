// SPDX-License-Identifier: MIT
// File: audit/reader.cc                 Module: lwc.audit.trace (implementation unit)
//
// The trace reader, the JSON side of the audit: each line is parsed whole by simdjson's DOM parser
// (strict JSON, UTF-8 validated, numbers classified as int64, uint64 or double without rounding) and
// wrapped as a TraceRecord (LineReader); a number simdjson refused is re-lexed to name it. The error-field
// rule and the real-number text of messages live here too. simdjson's error-code API is used throughout,
// so this builds with -fno-exceptions; no other file of the audit includes a JSON header.
module;
#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/check.h"
module lwc.audit.trace;

namespace lwc::internal {
namespace {

using audit::BadKind;
using audit::TraceRecord;
using simdjson::dom::element;
using simdjson::dom::element_type;

// absl 20220623 has its own string_view; these cross between the two.
absl::string_view sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// The shortest text that reads back as `d` (std::to_chars' guarantee).
std::string shortest(double d) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string json_string_impl(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

// A short description of a JSON value for messages: its value for scalars, its type otherwise.
std::string describe(element e) {
  switch (e.type()) {
    case element_type::INT64: {
      std::int64_t v = 0;
      (void)e.get_int64().get(v);
      return absl::StrCat(v);
    }
    case element_type::UINT64: {
      std::uint64_t v = 0;
      (void)e.get_uint64().get(v);
      return absl::StrCat(v);
    }
    case element_type::DOUBLE: {
      double v = 0;
      (void)e.get_double().get(v);
      return shortest(v);
    }
    case element_type::STRING: {
      std::string_view v;
      (void)e.get_string().get(v);
      if (v.size() > 40) return absl::StrCat(json_string_impl(v.substr(0, 40)), "...");
      return json_string_impl(v);
    }
    case element_type::BOOL: {
      bool v = false;
      (void)e.get_bool().get(v);
      return v ? "true" : "false";
    }
    case element_type::NULL_VALUE: return "null";
    case element_type::ARRAY: return "an array";
    case element_type::OBJECT: return "an object";
  }
  return "a value";
}

// A field's name, "section.key" or "section.key[i]", formatted only when a message needs it (a clean
// record is read without building a single string).
struct Path {
  std::string_view section;
  std::string_view key;
  std::size_t index = static_cast<std::size_t>(-1);
};

std::string to_string(const Path& p) {
  std::string out = absl::StrCat(sv(p.section), p.section.empty() ? "" : ".", sv(p.key));
  if (p.index != static_cast<std::size_t>(-1)) absl::StrAppend(&out, "[", p.index, "]");
  return out;
}

absl::StatusOr<std::int64_t> read_int64(element e, const Path& path) {
  switch (e.type()) {
    case element_type::INT64: {
      std::int64_t v = 0;
      (void)e.get_int64().get(v);
      return v;
    }
    case element_type::UINT64:
      return absl::OutOfRangeError(absl::StrCat(to_string(path), " = ", describe(e),
                                                " is beyond int64 (at most 9223372036854775807)"));
    case element_type::DOUBLE:
      return absl::OutOfRangeError(absl::StrCat(
          to_string(path), " = ", describe(e),
          " is a real-number literal; int64 fields must be integer literals (a double cannot hold every "
          "int64, so a writer that went through one may have rounded)"));
    default:
      return absl::InvalidArgumentError(absl::StrCat(to_string(path), " is ", describe(e), ", not an integer"));
  }
}

absl::StatusOr<std::uint64_t> read_uint64(element e, const Path& path) {
  switch (e.type()) {
    case element_type::INT64: {
      std::int64_t v = 0;
      (void)e.get_int64().get(v);
      if (v < 0) {
        return absl::OutOfRangeError(absl::StrCat(to_string(path), " = ", v, " is negative (a uint64 is due)"));
      }
      return static_cast<std::uint64_t>(v);
    }
    case element_type::UINT64: {
      std::uint64_t v = 0;
      (void)e.get_uint64().get(v);
      return v;
    }
    case element_type::DOUBLE:
      return absl::OutOfRangeError(absl::StrCat(
          to_string(path), " = ", describe(e),
          " is a real-number literal; integer fields must be integer literals (a double cannot hold every "
          "uint64, so a writer that went through one may have rounded)"));
    default:
      return absl::InvalidArgumentError(absl::StrCat(to_string(path), " is ", describe(e), ", not an integer"));
  }
}

// A real written as a string: "NaN", "Infinity", "-Infinity" (and "nan", "inf", "-inf"), a C99 hex float
// ("-0x1.8p+1"), or decimal text. The whole string must be the number.
absl::StatusOr<double> parse_real_text(std::string_view s, const Path& path) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity" || s == "inf" || s == "+Infinity" || s == "+inf") return kInf;
  if (s == "-Infinity" || s == "-inf") return -kInf;
  std::string_view body = s;
  const bool negative = !body.empty() && body.front() == '-';
  if (negative) body.remove_prefix(1);
  double v = 0;
  std::from_chars_result r{};
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    body.remove_prefix(2);
    if (!body.empty() && (body.front() == '+' || body.front() == '-')) body = {};  // "0x-1" is not a float
    r = std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::hex);
  } else {
    if (!body.empty() && (body.front() == '+' || body.front() == '-')) body = {};
    r = std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
  }
  if (body.empty() || r.ec == std::errc::invalid_argument || r.ptr != body.data() + body.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        to_string(path), " = ", json_string_impl(s),
        " is not a real: use a JSON number, a C99 hex float (\"0x1.8p+1\"), \"NaN\" or \"[-]Infinity\""));
  }
  if (r.ec == std::errc::result_out_of_range) {
    return absl::OutOfRangeError(absl::StrCat(to_string(path), " = ", json_string_impl(s), " is outside double"));
  }
  return negative ? -v : v;
}

absl::StatusOr<double> read_real(element e, const Path& path) {
  switch (e.type()) {
    case element_type::DOUBLE: {
      double v = 0;
      (void)e.get_double().get(v);
      return v;
    }
    case element_type::INT64: {
      std::int64_t v = 0;
      (void)e.get_int64().get(v);
      const auto d = static_cast<double>(v);
      // d is in [-2^63, 2^63]; only 2^63 itself cannot be cast back.
      if (d < 0x1p63 && static_cast<std::int64_t>(d) == v) return d;
      return absl::OutOfRangeError(absl::StrCat(to_string(path), " = ", v, " is not exactly a double"));
    }
    case element_type::UINT64: {
      std::uint64_t v = 0;
      (void)e.get_uint64().get(v);
      const auto d = static_cast<double>(v);
      if (d < 0x1p64 && static_cast<std::uint64_t>(d) == v) return d;
      return absl::OutOfRangeError(absl::StrCat(to_string(path), " = ", v, " is not exactly a double"));
    }
    case element_type::STRING: {
      std::string_view s;
      (void)e.get_string().get(s);
      return parse_real_text(s, path);
    }
    default:
      return absl::InvalidArgumentError(absl::StrCat(to_string(path), " is ", describe(e), ", not a number"));
  }
}

// Key equality, first byte before memcmp: record keys are short and mostly differ in length or first
// byte, and a libc memcmp call per comparison was a tenth of the audit's time.
inline bool same_key(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a[0] == b[0] && std::memcmp(a.data(), b.data(), a.size()) == 0));
}

// The first key that appears twice among `keys`, if any: a record with two values for one field is
// ambiguous (parsers disagree on which one wins), so it is malformed. Pairwise for the handful of keys a
// record has; sorted beyond, so that a 1 MiB line of distinct keys costs n log n, not n^2.
std::string_view repeated(std::span<const std::string_view> keys, std::vector<std::string_view>& scratch) {
  if (keys.size() <= 16) {
    for (std::size_t i = 1; i < keys.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (same_key(keys[i], keys[j])) return keys[i];
      }
    }
    return {};
  }
  scratch.assign(keys.begin(), keys.end());
  std::sort(scratch.begin(), scratch.end());
  const auto it = std::adjacent_find(scratch.begin(), scratch.end());
  return it == scratch.end() ? std::string_view() : *it;
}

// The record behind the TraceRecord interface: a parsed DOM object, its fields indexed once (the top
// level, and the fields of every object-valued section), valid until the next line.
class DomRecord final : public TraceRecord {
 public:
  // index()
  //
  // Indexes `root`; false, with `why` set, when a key repeats within an object.
  bool index(simdjson::dom::object root, std::string& why) {
    top_.clear();
    fields_.clear();
    for (const simdjson::dom::key_value_pair field : root) top_.push_back({field.key, field.value, 0});
    if (!unique(top_, 0, top_.size(), "")) return fail(why);
    for (std::size_t t = 0; t < top_.size(); ++t) {
      simdjson::dom::object section;
      if (top_[t].value.get_object().get(section) != simdjson::SUCCESS) continue;
      const std::size_t first = fields_.size();
      for (const simdjson::dom::key_value_pair field : section) fields_.push_back({field.key, field.value, t});
      if (!unique(fields_, first, fields_.size(), top_[t].key)) return fail(why);
    }
    return true;
  }

  // top()
  //
  // The top-level field `key`, if present.
  [[nodiscard]] bool top(std::string_view key, element& out) const {
    for (const Entry& e : top_) {
      if (same_key(e.key, key)) {
        out = e.value;
        return true;
      }
    }
    return false;
  }

  [[nodiscard]] absl::StatusOr<std::int64_t> int64(std::string_view section,
                                                   std::string_view key) const override {
    absl::StatusOr<element> e = field(section, key);
    if (!e.ok()) return e.status();
    return read_int64(*e, Path{section, key});
  }

  [[nodiscard]] absl::StatusOr<double> real(std::string_view section, std::string_view key) const override {
    absl::StatusOr<element> e = field(section, key);
    if (!e.ok()) return e.status();
    return read_real(*e, Path{section, key});
  }

  [[nodiscard]] absl::StatusOr<std::uint64_t> uint64(std::string_view section,
                                                     std::string_view key) const override {
    absl::StatusOr<element> e = field(section, key);
    if (!e.ok()) return e.status();
    return read_uint64(*e, Path{section, key});
  }

  [[nodiscard]] absl::StatusOr<bool> boolean(std::string_view section, std::string_view key) const override {
    absl::StatusOr<element> e = field(section, key);
    if (!e.ok()) return e.status();
    bool b = false;
    if (e->get_bool().get(b) != simdjson::SUCCESS) {
      return absl::InvalidArgumentError(
          absl::StrCat(sv(section), ".", sv(key), " is ", describe(*e), ", not true or false"));
    }
    return b;
  }

  [[nodiscard]] absl::StatusOr<std::string_view> text(std::string_view section,
                                                      std::string_view key) const override {
    absl::StatusOr<element> e = field(section, key);
    if (!e.ok()) return e.status();
    std::string_view s;
    if (e->get_string().get(s) != simdjson::SUCCESS) {
      return absl::InvalidArgumentError(
          absl::StrCat(sv(section), ".", sv(key), " is ", describe(*e), ", not a string"));
    }
    return s;
  }

  [[nodiscard]] absl::Status int64s(std::string_view section, std::string_view key,
                                    std::vector<std::int64_t>& out) const override {
    out.clear();
    absl::StatusOr<element> e = field(section, key);
    if (!e.ok()) return e.status();
    simdjson::dom::array array;
    if (e->get_array().get(array) != simdjson::SUCCESS) {
      return absl::InvalidArgumentError(
          absl::StrCat(sv(section), ".", sv(key), " is ", describe(*e), ", not an array"));
    }
    for (const element item : array) {
      absl::StatusOr<std::int64_t> v = read_int64(item, Path{section, key, out.size()});
      if (!v.ok()) return v.status();
      out.push_back(*v);
    }
    return absl::OkStatus();
  }

  [[nodiscard]] absl::Status reals(std::string_view section, std::string_view key,
                                   std::vector<double>& out) const override {
    out.clear();
    absl::StatusOr<element> e = field(section, key);
    if (!e.ok()) return e.status();
    simdjson::dom::array array;
    if (e->get_array().get(array) != simdjson::SUCCESS) {
      return absl::InvalidArgumentError(
          absl::StrCat(sv(section), ".", sv(key), " is ", describe(*e), ", not an array"));
    }
    for (const element item : array) {
      absl::StatusOr<double> v = read_real(item, Path{section, key, out.size()});
      if (!v.ok()) return v.status();
      out.push_back(*v);
    }
    return absl::OkStatus();
  }

  [[nodiscard]] absl::Status real_tuples(std::string_view section, std::string_view key, std::size_t width,
                                         std::vector<double>& out) const override {
    return tuples(section, key, width, "reals", read_real, out);
  }

  [[nodiscard]] absl::Status int64_tuples(std::string_view section, std::string_view key, std::size_t width,
                                          std::vector<std::int64_t>& out) const override {
    return tuples(section, key, width, "integers", read_int64, out);
  }

  [[nodiscard]] bool has(std::string_view section, std::string_view key) const override {
    return find(section, key) != nullptr;
  }

 private:
  // An array of `width`-element arrays at section.key, flattened into `out` row by row; each element read
  // by `read` (which names the row in its errors).
  template <typename T>
  [[nodiscard]] absl::Status tuples(std::string_view section, std::string_view key, std::size_t width,
                                    std::string_view noun, absl::StatusOr<T> (*read)(element, const Path&),
                                    std::vector<T>& out) const {
    out.clear();
    absl::StatusOr<element> e = field(section, key);
    if (!e.ok()) return e.status();
    simdjson::dom::array array;
    if (e->get_array().get(array) != simdjson::SUCCESS) {
      return absl::InvalidArgumentError(
          absl::StrCat(sv(section), ".", sv(key), " is ", describe(*e), ", not an array"));
    }
    std::size_t row = 0;
    for (const element item : array) {
      simdjson::dom::array tuple;
      if (item.get_array().get(tuple) != simdjson::SUCCESS || tuple.size() != width) {
        return absl::InvalidArgumentError(absl::StrCat(sv(section), ".", sv(key), "[", row, "] is ", describe(item),
                                                       ", not an array of ", width, " ", sv(noun)));
      }
      for (const element v : tuple) {
        absl::StatusOr<T> x = read(v, Path{section, key, row});
        if (!x.ok()) return x.status();
        out.push_back(*x);
      }
      ++row;
    }
    return absl::OkStatus();
  }

  struct Entry {
    std::string_view key;
    element value;
    std::size_t section;  // for fields_: the index in top_ of their section
  };

  bool unique(const std::vector<Entry>& entries, std::size_t first, std::size_t last, std::string_view scope) {
    keys_.clear();
    for (std::size_t i = first; i < last; ++i) keys_.push_back(entries[i].key);
    const std::string_view key = repeated(keys_, scratch_);
    if (key.empty()) return true;
    duplicate_ = absl::StrCat("duplicate key ", json_string_impl(key), scope.empty() ? "" : " in ", sv(scope));
    return false;
  }

  bool fail(std::string& why) {
    why = std::move(duplicate_);
    return false;
  }

  [[nodiscard]] const Entry* find(std::string_view section, std::string_view key) const {
    for (std::size_t t = 0; t < top_.size(); ++t) {
      if (!same_key(top_[t].key, section)) continue;
      for (const Entry& f : fields_) {
        if (f.section == t && same_key(f.key, key)) return &f;
      }
      return nullptr;
    }
    return nullptr;
  }

  [[nodiscard]] absl::StatusOr<element> field(std::string_view section, std::string_view key) const {
    if (const Entry* f = find(section, key); f != nullptr) return f->value;
    element s;
    if (top(section, s) && s.type() != element_type::OBJECT) {
      return absl::InvalidArgumentError(absl::StrCat(sv(section), " is ", describe(s), ", not an object"));
    }
    return absl::NotFoundError(absl::StrCat("missing field ", sv(section), ".", sv(key)));
  }

  // Reused from record to record: their capacity is bounded by the longest line.
  std::vector<Entry> top_;
  std::vector<Entry> fields_;
  std::vector<std::string_view> keys_;
  std::vector<std::string_view> scratch_;
  std::string duplicate_;
};

// JSON number syntax: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? — for naming what simdjson refused.
bool is_json_number(std::string_view t, bool& integer) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i > start;
  };
  if (i < t.size() && t[i] == '-') ++i;
  if (i < t.size() && t[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  integer = true;
  if (i < t.size() && t[i] == '.') {
    ++i;
    integer = false;
    if (!digits()) return false;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    integer = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == t.size();
}

// Walks a document that the DOM parser refused with NUMBER_ERROR to name the number at fault and its path.
bool find_bad_number(simdjson::ondemand::value value, std::string& path, std::string& found, int depth) {
  if (depth > 64) return false;
  simdjson::ondemand::json_type type;
  if (value.type().get(type) != simdjson::SUCCESS) return false;
  switch (type) {
    case simdjson::ondemand::json_type::object: {
      simdjson::ondemand::object object;
      if (value.get_object().get(object) != simdjson::SUCCESS) return false;
      for (auto field : object) {
        std::string_view key;
        simdjson::ondemand::value child;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
        if (field.value().get(child) != simdjson::SUCCESS) return false;
        const std::size_t mark = path.size();
        if (!path.empty()) path += '.';
        path.append(key.data(), key.size());
        if (find_bad_number(child, path, found, depth + 1)) return true;
        if (!found.empty()) return false;
        path.resize(mark);
      }
      return false;
    }
    case simdjson::ondemand::json_type::array: {
      simdjson::ondemand::array array;
      if (value.get_array().get(array) != simdjson::SUCCESS) return false;
      std::size_t index = 0;
      for (auto item : array) {
        simdjson::ondemand::value child;
        if (item.get(child) != simdjson::SUCCESS) return false;
        const std::size_t mark = path.size();
        path += absl::StrCat("[", index++, "]");
        if (find_bad_number(child, path, found, depth + 1)) return true;
        if (!found.empty()) return false;
        path.resize(mark);
      }
      return false;
    }
    case simdjson::ondemand::json_type::number: {
      std::string_view token = value.raw_json_token();
      while (!token.empty() && (token.back() == ' ' || token.back() == '\t' || token.back() == '\r' ||
                                token.back() == '\n')) {
        token.remove_suffix(1);
      }
      simdjson::ondemand::number number;
      if (value.get_number().get(number) == simdjson::SUCCESS) return false;
      found.assign(token.data(), token.size());
      return true;
    }
    default:
      return false;
  }
}

}  // namespace
}  // namespace lwc::internal

namespace lwc::internal {

absl::StatusCode status_code_of(std::string_view text) {
  struct Name {
    std::string_view camel;
    std::string_view upper;
    absl::StatusCode code;
  };
  constexpr Name kNames[] = {
      {"Cancelled", "CANCELLED", absl::StatusCode::kCancelled},
      {"InvalidArgument", "INVALID_ARGUMENT", absl::StatusCode::kInvalidArgument},
      {"DeadlineExceeded", "DEADLINE_EXCEEDED", absl::StatusCode::kDeadlineExceeded},
      {"NotFound", "NOT_FOUND", absl::StatusCode::kNotFound},
      {"AlreadyExists", "ALREADY_EXISTS", absl::StatusCode::kAlreadyExists},
      {"PermissionDenied", "PERMISSION_DENIED", absl::StatusCode::kPermissionDenied},
      {"ResourceExhausted", "RESOURCE_EXHAUSTED", absl::StatusCode::kResourceExhausted},
      {"FailedPrecondition", "FAILED_PRECONDITION", absl::StatusCode::kFailedPrecondition},
      {"Aborted", "ABORTED", absl::StatusCode::kAborted},
      {"OutOfRange", "OUT_OF_RANGE", absl::StatusCode::kOutOfRange},
      {"Unimplemented", "UNIMPLEMENTED", absl::StatusCode::kUnimplemented},
      {"Internal", "INTERNAL", absl::StatusCode::kInternal},
      {"Unavailable", "UNAVAILABLE", absl::StatusCode::kUnavailable},
      {"DataLoss", "DATA_LOSS", absl::StatusCode::kDataLoss},
      {"Unauthenticated", "UNAUTHENTICATED", absl::StatusCode::kUnauthenticated},
  };
  for (const Name& n : kNames) {
    if (text == n.camel || text == n.upper) return n.code;
  }
  return absl::StatusCode::kUnknown;
}

absl::StatusOr<TracedError> read_error(const lwc::audit::TraceRecord& record, std::string_view section) {
  absl::StatusOr<std::string_view> text = record.text(section, "error");
  if (!text.ok()) return text.status();
  if (text->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        sv(section), ".error is empty: write the error's code (\"InvalidArgument\") or any text that says the "
                     "call failed"));
  }
  TracedError e;
  e.text = *text;
  e.code = status_code_of(*text);
  e.named = e.code != absl::StatusCode::kUnknown;
  return e;
}

absl::StatusOr<bool> read_refusal(const lwc::audit::TraceRecord& record, std::string_view answer) {
  if (!record.has("out", "error")) return false;
  if (!answer.empty() && record.has("out", answer)) {
    return absl::InvalidArgumentError(absl::StrCat("out has both an error and ", sv(answer)));
  }
  absl::StatusOr<TracedError> error = read_error(record, "out");
  if (!error.ok()) return error.status();
  return true;
}

absl::Status as_traced(const TracedError& error, const absl::Status& want) {
  if (error.named) return absl::Status(error.code, "traced");
  if (!want.ok()) return absl::Status(want.code(), "traced (free text)");
  return absl::UnknownError("traced (free text)");
}

std::string real_text(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return absl::StrCat(shortest(d), " (", absl::StrFormat("%a", d), ")");
}

}  // namespace lwc::internal

namespace lwc::internal {

std::string json_string(std::string_view s) { return json_string_impl(s); }

struct LineReader::Impl {
  explicit Impl(std::size_t max_line_bytes) : parser(max_line_bytes + 64) {}

  bool fail(lwc::audit::BadKind k, std::string reason, lwc::audit::BadKind& kind, std::string& why) {
    kind = k;
    why = std::move(reason);
    return false;
  }

  bool parse_error(simdjson::error_code error, std::size_t size, lwc::audit::BadKind& kind, std::string& why) {
    using lwc::audit::BadKind;
    if (error == simdjson::NUMBER_ERROR) {
      // Name the number: the on-demand parser reads values lazily, so it can walk to the one at fault.
      std::string path;
      std::string token;
      simdjson::ondemand::document doc;
      simdjson::ondemand::value value;
      if (ondemand.iterate(padded.data(), size, padded.size()).get(doc) == simdjson::SUCCESS &&
          doc.get_value().get(value) == simdjson::SUCCESS && find_bad_number(value, path, token, 0)) {
        bool integer = false;
        if (!is_json_number(token, integer)) {
          return fail(BadKind::kMalformed, absl::StrCat(path, " = ", token, " is not JSON number syntax"), kind, why);
        }
        if (integer) {
          return fail(BadKind::kInexactNumber, absl::StrCat(path, " = ", token, " is beyond int64 (and uint64)"), kind,
                      why);
        }
        return fail(BadKind::kInexactNumber, absl::StrCat(path, " = ", token, " is outside double"), kind, why);
      }
    }
    return fail(BadKind::kMalformed, absl::StrCat("not JSON: ", simdjson::error_message(error)), kind, why);
  }

  simdjson::dom::parser parser;
  simdjson::ondemand::parser ondemand;
  std::vector<char> padded;
  DomRecord record;
};

LineReader::LineReader(std::size_t max_line_bytes) : impl_(std::make_unique<Impl>(max_line_bytes)) {}
LineReader::~LineReader() = default;
LineReader::LineReader(LineReader&&) noexcept = default;
LineReader& LineReader::operator=(LineReader&&) noexcept = default;

bool LineReader::parse(std::string_view text, lwc::audit::BadKind& kind, std::string& why) {
  Impl& m = *impl_;
  // simdjson reads up to SIMDJSON_PADDING bytes past the end; the line is copied into a padded buffer.
  m.padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(m.padded.data(), text.data(), text.size());
  simdjson::dom::element root;
  const simdjson::error_code error = m.parser.parse(m.padded.data(), text.size(), false).get(root);
  if (error != simdjson::SUCCESS) return m.parse_error(error, text.size(), kind, why);
  simdjson::dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) {
    return m.fail(lwc::audit::BadKind::kMalformed,
                  absl::StrCat("a record is a JSON object; this line holds ", describe(root)), kind, why);
  }
  if (!m.record.index(object, why)) {
    kind = lwc::audit::BadKind::kMalformed;
    return false;
  }
  return true;
}

const lwc::audit::TraceRecord& LineReader::record() const { return impl_->record; }

absl::StatusOr<std::int64_t> LineReader::top_int64(std::string_view key) const {
  simdjson::dom::element field;
  if (!impl_->record.top(key, field)) return absl::NotFoundError(absl::StrCat("missing field ", sv(key)));
  return read_int64(field, Path{"", key});
}

absl::StatusOr<std::string_view> LineReader::top_text(std::string_view key) const {
  simdjson::dom::element field;
  if (!impl_->record.top(key, field)) return absl::NotFoundError(absl::StrCat("missing field ", sv(key)));
  std::string_view s;
  if (field.get_string().get(s) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat(sv(key), " is ", describe(field), ", not a string"));
  }
  return s;
}

bool LineReader::route(std::int64_t& schema, std::string_view& contract, std::string_view& op) const {
  simdjson::dom::element field;
  const DomRecord& r = impl_->record;
  return r.top("schema", field) && field.get_int64().get(schema) == simdjson::SUCCESS && r.top("contract", field) &&
         field.get_string().get(contract) == simdjson::SUCCESS && r.top("op", field) &&
         field.get_string().get(op) == simdjson::SUCCESS;
}

std::string LineReader::top_describe(std::string_view key) const {
  simdjson::dom::element field;
  if (!impl_->record.top(key, field)) return "missing";
  return describe(field);
}

bool LineReader::top_json(std::string_view key, std::string& out) const {
  simdjson::dom::element field;
  if (!impl_->record.top(key, field)) return false;
  out = simdjson::minify(field);
  return true;
}

}  // namespace lwc::internal
