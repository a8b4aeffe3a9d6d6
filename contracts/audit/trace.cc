// SPDX-License-Identifier: MIT
// File: contracts/audit/trace.cc        Module: lwc.contracts.audit (implementation unit)
//
// The trace reader and judge: each line is parsed whole by simdjson's DOM parser (strict JSON, UTF-8
// validated, numbers classified as int64, uint64 or double without rounding), wrapped as a TraceRecord,
// routed by "contract" and "op" to its RecordKind, and tallied per clause. simdjson's error-code API is
// used throughout, so this builds with -fno-exceptions.
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
module lwc.contracts.audit;

namespace lwc::internal {
namespace {

using contracts::BadKind;
using contracts::ContractAudit;
using contracts::TraceRecord;
using simdjson::dom::element;
using simdjson::dom::element_type;

// absl 20220623 has its own string_view; these cross between the two.
absl::string_view sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }
std::string_view stdsv(absl::string_view s) { return std::string_view(s.data(), s.size()); }

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

std::string json_string(std::string_view s) {
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
      if (v.size() > 40) return absl::StrCat(json_string(v.substr(0, 40)), "...");
      return json_string(v);
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
        to_string(path), " = ", json_string(s),
        " is not a real: use a JSON number, a C99 hex float (\"0x1.8p+1\"), \"NaN\" or \"[-]Infinity\""));
  }
  if (r.ec == std::errc::result_out_of_range) {
    return absl::OutOfRangeError(absl::StrCat(to_string(path), " = ", json_string(s), " is outside double"));
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
    duplicate_ = absl::StrCat("duplicate key ", json_string(key), scope.empty() ? "" : " in ", sv(scope));
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

absl::StatusOr<TracedError> read_error(const lwc::contracts::TraceRecord& record, std::string_view section) {
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

namespace lwc::contracts {

std::string_view bad_kind_name(BadKind kind) {
  switch (kind) {
    case BadKind::kMalformed: return "malformed";
    case BadKind::kSchema: return "unsupported schema";
    case BadKind::kUnknownContract: return "unknown contract";
    case BadKind::kUnknownOp: return "unknown op";
    case BadKind::kMissingField: return "missing field";
    case BadKind::kInexactNumber: return "not an exact number of its type";
    case BadKind::kBadField: return "bad field";
  }
  return "bad";
}

int TraceReport::exit_code() const {
  if (violating > 0) return 1;
  if (!io.ok() || bad > 0 || records == 0) return 2;
  return 0;
}

struct TraceAuditor::Impl {
  // A contract once a record named it: where its clause tallies start in report.clauses, and for each
  // of its kinds the tallies of the clauses the kind exercises.
  struct Seen {
    const ContractAudit* audit;
    std::size_t first;
    std::vector<std::vector<std::size_t>> kind_tallies;
  };

  explicit Impl(TraceOptions o) : options(clamped(std::move(o))), parser(options.max_line_bytes + 64) {}

  static TraceOptions clamped(TraceOptions o) {
    o.max_line_bytes = std::min(o.max_line_bytes, kMaxLineLimit);
    return o;
  }

  void bad(BadKind kind, std::string reason) {
    ++report.bad;
    ++report.bad_by_kind[static_cast<int>(kind)];
    if (report.bad_examples.size() < options.examples) {
      report.bad_examples.push_back({report.lines, std::move(reason)});
    }
  }

  void overlong(std::uint64_t bytes) {
    ++report.lines;
    ++report.records;
    bad(BadKind::kMalformed, absl::StrCat("line of ", bytes, " bytes is longer than the limit of ",
                                          options.max_line_bytes,
                                          " bytes (lwc-audit --max-line-bytes raises it, up to 1 GiB)"));
  }

  Seen& seen_contract(const ContractAudit& audit) {
    for (Seen& s : seen) {
      if (s.audit == &audit) return s;
    }
    Seen s{&audit, report.clauses.size(), {}};
    for (const Clause& c : audit.clauses) report.clauses.push_back({audit.contract, c.id, c.statement, 0, 0, 0, {}});
    for (const RecordKind& kind : audit.kinds) {
      std::vector<std::size_t> tallies;
      for (const std::string_view id : kind.clauses) {
        if (const std::optional<std::size_t> t = tally_of(s, id); t.has_value()) tallies.push_back(*t);
      }
      s.kind_tallies.push_back(std::move(tallies));
    }
    seen.push_back(std::move(s));
    return seen.back();
  }

  std::optional<std::size_t> tally_of(const Seen& s, std::string_view id) const {
    for (std::size_t i = 0; i < s.audit->clauses.size(); ++i) {
      if (s.audit->clauses[i].id == id) return s.first + i;
    }
    return std::nullopt;
  }

  // The tally of the clause a failed verdict names first ("D6 truncation: ..."). A checker may name a
  // clause of the contract it builds on (cover's checker names D5 for a size <= 0 accepted): that clause
  // is counted under its own contract. Invariant: a checker names a clause of some traced contract; if
  // one ever does not, the violation is still counted, under the kind's first clause, with the checker's
  // full message.
  std::size_t violated_tally(const ContractAudit& audit, const RecordKind& kind, const absl::Status& verdict) {
    const std::string_view message = internal::stdsv(verdict.message());
    const std::string_view id = message.substr(0, message.find(' '));
    if (std::optional<std::size_t> t = tally_of(seen_contract(audit), id); t.has_value()) return *t;
    for (const ContractAudit& other : traced_contracts()) {
      if (&other == &audit) continue;
      for (const Clause& c : other.clauses) {
        if (c.id == id) return *tally_of(seen_contract(other), id);
      }
    }
    const Seen& s = seen_contract(audit);
    std::optional<std::size_t> t;
    if (!kind.clauses.empty()) t = tally_of(s, kind.clauses.front());
    return t.value_or(s.first);
  }

  // One session of a stateful contract: its state, the seq its next event must carry, and the line at
  // which its judging stopped (0 while it is judged).
  struct SessionState {
    std::unique_ptr<Session> state;
    std::int64_t next = 0;
    std::uint64_t broken_at = 0;
  };
  static constexpr std::string_view kEndOp = "end";

  // Routes an event of a stateful contract to its session and checks its order: seq 0 opens a session,
  // each later event carries the next seq. Returns null, the line reported bad, when the event cannot be
  // judged; `session_key` and `session_id` name the session found.
  SessionState* session_of(const ContractAudit& audit, std::string_view op) {
    simdjson::dom::element field;
    if (!record.top("session", field)) {
      bad(BadKind::kMissingField, "missing field session (a string naming the event's session)");
      return nullptr;
    }
    std::string_view id;
    if (field.get_string().get(id) != simdjson::SUCCESS) {
      bad(BadKind::kBadField, absl::StrCat("session is ", internal::describe(field), ", not a string"));
      return nullptr;
    }
    if (!record.top("seq", field)) {
      bad(BadKind::kMissingField, "missing field seq (the event's place in its session: 0, 1, 2, ...)");
      return nullptr;
    }
    const absl::StatusOr<std::int64_t> seq = internal::read_int64(field, internal::Path{"", "seq"});
    if (!seq.ok()) {
      bad(seq.status().code() == absl::StatusCode::kOutOfRange ? BadKind::kInexactNumber : BadKind::kBadField,
          std::string(seq.status().message()));
      return nullptr;
    }
    session_id.assign(id.data(), id.size());
    session_key.assign(audit.contract.data(), audit.contract.size());
    session_key += '\n';
    session_key += session_id;
    auto it = sessions.find(session_key);
    if (it == sessions.end()) {
      if (*seq != 0) {
        bad(BadKind::kBadField, absl::StrCat("session ", internal::json_string(id), " begins at seq ", *seq,
                                             ", not 0: its first events are missing, so it is not judged"));
        sessions.emplace(session_key, SessionState{nullptr, 0, report.lines});
        return nullptr;
      }
      it = sessions.emplace(session_key, SessionState{audit.open_session(), 0, 0}).first;
    }
    SessionState& s = it->second;
    if (s.broken_at != 0) {
      bad(BadKind::kBadField, absl::StrCat("session ", internal::json_string(id),
                                           " is no longer judged: its events broke off at line ", s.broken_at));
      if (op == kEndOp) sessions.erase(it);
      return nullptr;
    }
    if (*seq != s.next) {
      bad(BadKind::kBadField, absl::StrCat("session ", internal::json_string(id), ": seq ", *seq, " where ", s.next,
                                           " is due (an event is missing, repeated or out of order); the session "
                                           "is no longer judged"));
      s.broken_at = report.lines;
      s.state.reset();
      return nullptr;
    }
    ++s.next;
    return &s;
  }

  void line(std::string_view text) {
    ++report.lines;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) return;
    ++report.records;
    if (text.size() > options.max_line_bytes) {
      bad(BadKind::kMalformed, absl::StrCat("line of ", text.size(), " bytes is longer than the limit of ",
                                            options.max_line_bytes,
                                          " bytes (lwc-audit --max-line-bytes raises it, up to 1 GiB)"));
      return;
    }
    // simdjson reads up to SIMDJSON_PADDING bytes past the end; the line is copied into a padded buffer.
    padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
    std::memcpy(padded.data(), text.data(), text.size());
    simdjson::dom::element root;
    const simdjson::error_code error = parser.parse(padded.data(), text.size(), false).get(root);
    if (error != simdjson::SUCCESS) {
      parse_error(error, text.size());
      return;
    }
    simdjson::dom::object object;
    if (root.get_object().get(object) != simdjson::SUCCESS) {
      bad(BadKind::kMalformed, absl::StrCat("a record is a JSON object; this line holds ", internal::describe(root)));
      return;
    }
    if (std::string why; !record.index(object, why)) {
      bad(BadKind::kMalformed, std::move(why));
      return;
    }
    judge();
  }

  void parse_error(simdjson::error_code error, std::size_t size) {
    if (error == simdjson::NUMBER_ERROR) {
      // Name the number: the on-demand parser reads values lazily, so it can walk to the one at fault.
      std::string path;
      std::string token;
      simdjson::ondemand::document doc;
      simdjson::ondemand::value value;
      if (ondemand.iterate(padded.data(), size, padded.size()).get(doc) == simdjson::SUCCESS &&
          doc.get_value().get(value) == simdjson::SUCCESS &&
          internal::find_bad_number(value, path, token, 0)) {
        bool integer = false;
        if (!internal::is_json_number(token, integer)) {
          bad(BadKind::kMalformed, absl::StrCat(path, " = ", token, " is not JSON number syntax"));
        } else if (integer) {
          bad(BadKind::kInexactNumber, absl::StrCat(path, " = ", token, " is beyond int64 (and uint64)"));
        } else {
          bad(BadKind::kInexactNumber, absl::StrCat(path, " = ", token, " is outside double"));
        }
        return;
      }
    }
    bad(BadKind::kMalformed, absl::StrCat("not JSON: ", simdjson::error_message(error)));
  }

  void judge() {
    simdjson::dom::element field;
    std::int64_t schema = 0;
    if (!record.top("schema", field)) {
      bad(BadKind::kSchema, absl::StrCat("missing \"schema\" (this lwc-audit reads schema ", kTraceSchema, ")"));
      return;
    }
    if (field.get_int64().get(schema) != simdjson::SUCCESS || schema != kTraceSchema) {
      bad(BadKind::kSchema, absl::StrCat("schema ", internal::describe(field),
                                         " is not supported (this lwc-audit reads schema ", kTraceSchema, ")"));
      return;
    }
    std::string_view contract;
    if (!record.top("contract", field) ||
        field.get_string().get(contract) != simdjson::SUCCESS) {
      bad(BadKind::kUnknownContract, "missing \"contract\" (a string naming the contract)");
      return;
    }
    const ContractAudit* audit = nullptr;
    for (const ContractAudit& a : traced_contracts()) {
      if (a.contract == contract) {
        audit = &a;
        break;
      }
    }
    if (audit == nullptr) {
      std::string known;
      for (const ContractAudit& a : traced_contracts()) absl::StrAppend(&known, known.empty() ? "" : ", ", internal::sv(a.contract));
      bad(BadKind::kUnknownContract, absl::StrCat("unknown contract ", internal::json_string(contract),
                                                  " (this lwc-audit knows: ", known, ")"));
      return;
    }
    std::string_view op;
    if (!record.top("op", field) || field.get_string().get(op) != simdjson::SUCCESS) {
      bad(BadKind::kUnknownOp, "missing \"op\" (a string naming the operation traced)");
      return;
    }
    std::size_t kind_index = audit->kinds.size();
    for (std::size_t i = 0; i < audit->kinds.size(); ++i) {
      if (audit->kinds[i].op == op) {
        kind_index = i;
        break;
      }
    }
    if (kind_index == audit->kinds.size()) {
      std::string known;
      for (const RecordKind& k : audit->kinds) absl::StrAppend(&known, known.empty() ? "" : ", ", internal::sv(k.op));
      bad(BadKind::kUnknownOp, absl::StrCat(internal::sv(contract), " has no op ", internal::json_string(op),
                                            " (ops: ", known, ")"));
      return;
    }
    const RecordKind& kind = audit->kinds[kind_index];
    SessionState* session = nullptr;
    if (audit->open_session != nullptr) {
      session = session_of(*audit, op);
      if (session == nullptr) return;
    }

    judgement.verdict = absl::OkStatus();
    judgement.line = report.lines;
    judgement.canonicalise_pairs = options.canonicalise_pairs;
    judgement.input.clear();
    judgement.expected.clear();
    judgement.got.clear();
    judgement.migration.clear();
    judgement.checked = {};
    judgement.more.clear();
    judgement.follows = 0;
    const absl::Status read =
        session != nullptr ? kind.event(record, *session->state, judgement) : kind.judge(record, judgement);
    if (!read.ok()) {
      const BadKind why = read.code() == absl::StatusCode::kNotFound     ? BadKind::kMissingField
                          : read.code() == absl::StatusCode::kOutOfRange ? BadKind::kInexactNumber
                                                                         : BadKind::kBadField;
      if (session == nullptr || kind.query) {
        bad(why, std::string(read.message()));
        return;
      }
      bad(why, absl::StrCat(read.message(), "; session ", internal::json_string(session_id),
                            " is no longer judged (its model missed this event)"));
      session->broken_at = report.lines;
      session->state.reset();
      return;
    }
    if (session != nullptr && op == kEndOp) sessions.erase(session_key);

    ++report.judged;
    if (judgement.verdict.ok() && !judgement.more.empty()) {
      // Invariant: findings come beside a verdict; a judge that set only findings still has them counted.
      judgement.verdict = std::move(judgement.more.front().verdict);
      judgement.expected = std::move(judgement.more.front().expected);
      judgement.got = std::move(judgement.more.front().got);
      judgement.more.erase(judgement.more.begin());
    }
    // violated_tally() may add another contract's tallies (and so move `seen`): every call runs before `s`
    // is taken. violated[0] is the verdict's clause, then one per finding.
    violated.clear();
    if (!judgement.verdict.ok()) {
      violated.push_back(violated_tally(*audit, kind, judgement.verdict));
      for (const Finding& f : judgement.more) violated.push_back(violated_tally(*audit, kind, f.verdict));
    }
    const Seen& s = seen_contract(*audit);
    counted.assign(violated.size(), false);
    const auto check = [&](std::size_t t) {
      ++report.clauses[t].checked;
      for (std::size_t v = 0; v < violated.size(); ++v) counted[v] = counted[v] || violated[v] == t;
    };
    if (judgement.checked.empty()) {
      for (const std::size_t t : s.kind_tallies[kind_index]) check(t);
    } else {
      for (const std::string_view c : judgement.checked) {
        if (const std::optional<std::size_t> t = tally_of(s, c); t.has_value()) check(*t);
      }
    }
    if (judgement.verdict.ok()) return;

    ++report.violating;
    if (judgement.follows == 0) ++report.root_causes;
    const std::string_view id = report.clauses[violated[0]].id;
    for (std::size_t v = 0; v < violated.size(); ++v) {
      // A clause named twice in one record (two findings of one clause) counts the record once.
      bool repeat = false;
      for (std::size_t w = 0; w < v; ++w) repeat = repeat || violated[w] == violated[v];
      if (repeat) continue;
      ClauseTally& tally = report.clauses[violated[v]];
      if (!counted[v]) ++tally.checked;  // a clause the kind does not list still counts the record it judged
      ++tally.violations;
      if (judgement.follows != 0) ++tally.knock_on;
      if (tally.examples.size() >= options.examples) continue;
      if (v == 0) {
        tally.examples.push_back({report.lines, std::string(op), judgement.input, std::move(judgement.expected),
                                  std::move(judgement.got), std::string(judgement.verdict.message()),
                                  judgement.follows});
      } else {
        Finding& f = judgement.more[v - 1];
        tally.examples.push_back({report.lines, std::string(op), judgement.input, std::move(f.expected),
                                  std::move(f.got), std::string(f.verdict.message()), judgement.follows});
      }
    }
    if (!kind.stored) return;
    if (judgement.migration.empty()) {
      ++report.unmigratable;
      return;
    }
    ++report.migrated;
    if (!options.migration) return;
    migration_line.clear();
    absl::StrAppend(&migration_line, "{\"schema\":", kTraceSchema, ",\"line\":", report.lines,
                    ",\"contract\":", internal::json_string(contract), ",\"op\":", internal::json_string(op));
    if (record.top("id", field)) {
      absl::StrAppend(&migration_line, ",\"id\":", simdjson::minify(field));
    }
    absl::StrAppend(&migration_line, ",", judgement.migration, ",\"clause\":", internal::json_string(id), "}");
    options.migration(migration_line);
  }

  TraceOptions options;
  TraceReport report;
  simdjson::dom::parser parser;
  simdjson::ondemand::parser ondemand;
  std::vector<char> padded;
  internal::DomRecord record;
  Judgement judgement;
  std::vector<std::size_t> violated;  // the tallies a record violates: its verdict's, then its findings'
  std::vector<bool> counted;
  std::vector<Seen> seen;
  std::string migration_line;
  // The open sessions of stateful contracts, by contract and session name: memory grows with the
  // sessions open at once, never with the length of the trace.
  std::unordered_map<std::string, SessionState> sessions;
  std::string session_key;
  std::string session_id;
};

TraceAuditor::TraceAuditor(TraceOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
TraceAuditor::~TraceAuditor() = default;
TraceAuditor::TraceAuditor(TraceAuditor&&) noexcept = default;
TraceAuditor& TraceAuditor::operator=(TraceAuditor&&) noexcept = default;

void TraceAuditor::line(std::string_view text) { impl_->line(text); }

void TraceAuditor::text(std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      impl_->line(text);
      return;
    }
    impl_->line(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
}

absl::Status TraceAuditor::file(const std::string& path) {
  const bool is_stdin = path == "-";
  std::FILE* in = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (in == nullptr) {
    const int e = errno;
    const std::string why = absl::StrCat("cannot open ", path, ": ", std::strerror(e));
    impl_->report.io = e == ENOENT ? absl::NotFoundError(why)
                       : e == EACCES ? absl::PermissionDeniedError(why)
                                     : absl::UnavailableError(why);
    return impl_->report.io;
  }
  // Lines are cut from 1 MiB blocks; a line spanning blocks is gathered in `pending`, which never grows
  // past the line limit: a longer line is only measured, then reported.
  std::vector<char> block(std::size_t{1} << 20);
  std::string pending;
  std::uint64_t overlong = 0;  // bytes of a line already known to be too long; 0 otherwise
  const std::size_t limit = impl_->options.max_line_bytes;
  for (;;) {
    const std::size_t n = std::fread(block.data(), 1, block.size(), in);
    if (n == 0) break;
    std::string_view rest(block.data(), n);
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      const std::string_view piece = rest.substr(0, end);
      if (overlong > 0 || pending.size() + piece.size() > limit) {
        overlong = (overlong > 0 ? overlong : pending.size()) + piece.size();
        pending.clear();
      } else if (end != std::string_view::npos && pending.empty()) {
        impl_->line(piece);  // the common case: the whole line is in this block, no copy
      } else {
        pending.append(piece);
      }
      if (end == std::string_view::npos) break;
      if (overlong > 0) {
        impl_->overlong(overlong);
        overlong = 0;
      } else if (!pending.empty()) {
        impl_->line(pending);
        pending.clear();
      }
      rest.remove_prefix(end + 1);
    }
  }
  const bool failed = std::ferror(in) != 0;
  const int e = errno;
  if (!is_stdin) std::fclose(in);
  if (overlong > 0) {
    impl_->overlong(overlong);
  } else if (!pending.empty()) {
    impl_->line(pending);
  }
  if (failed) {
    impl_->report.io = absl::DataLossError(absl::StrCat("reading ", path, " failed after line ",
                                                        impl_->report.lines, ": ", std::strerror(e)));
  }
  return impl_->report.io;
}

const TraceReport& TraceAuditor::report() const { return impl_->report; }

std::string format_report(const TraceReport& r) {
  std::string out = absl::StrCat("lwc-audit: ", r.lines, " lines, ", r.records, " records: ", r.judged,
                                 " judged, ", r.violating, " violating, ", r.bad, " not readable\n");
  if (r.violating > r.root_causes) {
    absl::StrAppend(&out, "  of the violating records, ", r.violating - r.root_causes,
                    " follow from an earlier violation of their session (marked \"follows line N\"), ",
                    r.root_causes, " do not\n");
  }
  if (!r.clauses.empty()) {
    absl::StrAppend(&out, "\n", absl::StrFormat("%-12s %-6s %12s %11s  %s\n", "contract", "clause", "checked",
                                                "violations", "statement"));
  }
  for (const ClauseTally& t : r.clauses) {
    absl::StrAppend(&out, absl::StrFormat("%-12s %-6s %12s %11s  %s\n", internal::sv(t.contract), internal::sv(t.id),
                                          t.checked > 0 ? absl::StrCat(t.checked) : "-",
                                          t.checked > 0 ? absl::StrCat(t.violations) : "-",
                                          internal::sv(t.statement)));
    for (const Counterexample& c : t.examples) {
      absl::StrAppend(&out, "    line ", c.line, ": ", c.op, " ", c.input,
                      c.follows != 0 ? absl::StrCat(" (follows line ", c.follows, ")") : std::string(),
                      "\n      expected ", c.expected,
                      "\n      got      ", c.got, "\n      ", c.message, "\n");
    }
    if (t.violations > t.examples.size()) {
      absl::StrAppend(&out, "    ... and ", t.violations - t.examples.size(), " more\n");
    }
    if (t.knock_on > 0) {
      absl::StrAppend(&out, "    (", t.knock_on, " of the ", t.violations, " follow from an earlier violation)\n");
    }
  }
  if (r.bad > 0) {
    absl::StrAppend(&out, "\nnot readable: ", r.bad, " records (");
    bool first = true;
    for (int k = 0; k < kBadKinds; ++k) {
      if (r.bad_by_kind[k] == 0) continue;
      absl::StrAppend(&out, first ? "" : ", ", internal::sv(bad_kind_name(static_cast<BadKind>(k))), " ",
                      r.bad_by_kind[k]);
      first = false;
    }
    absl::StrAppend(&out, ")\n");
    for (const BadLine& b : r.bad_examples) absl::StrAppend(&out, "    line ", b.line, ": ", b.reason, "\n");
    if (r.bad > r.bad_examples.size()) absl::StrAppend(&out, "    ... and ", r.bad - r.bad_examples.size(), " more\n");
  }
  if (r.migrated + r.unmigratable > 0) {
    absl::StrAppend(&out, "\nstored addresses: ", r.migrated + r.unmigratable, " misfiled; ", r.migrated,
                    " with a migration line, ", r.unmigratable, " with no valid key\n");
  }
  if (!r.io.ok()) absl::StrAppend(&out, "\ninput: ", r.io.message(), "\n");
  const int code = r.exit_code();
  absl::StrAppend(&out, "\nresult: ",
                  code == 0   ? "clean"
                  : code == 1 ? "VIOLATIONS"
                  : r.records == 0 && r.io.ok() ? "NO RECORDS"
                                                : "UNREADABLE INPUT",
                  " (exit ", code, ")\n");
  return out;
}

std::string report_json(const TraceReport& r) {
  using internal::json_string;
  std::string out = absl::StrCat("{\"schema\":", kTraceSchema, ",\"lines\":", r.lines, ",\"records\":", r.records,
                                 ",\"judged\":", r.judged, ",\"violating\":", r.violating,
                                 ",\"root_causes\":", r.root_causes, ",\"bad\":", r.bad,
                                 ",\"bad_by_kind\":{");
  for (int k = 0; k < kBadKinds; ++k) {
    absl::StrAppend(&out, k > 0 ? "," : "", json_string(bad_kind_name(static_cast<BadKind>(k))), ":",
                    r.bad_by_kind[k]);
  }
  absl::StrAppend(&out, "},\"bad_examples\":[");
  for (std::size_t i = 0; i < r.bad_examples.size(); ++i) {
    absl::StrAppend(&out, i > 0 ? "," : "", "{\"line\":", r.bad_examples[i].line,
                    ",\"reason\":", json_string(r.bad_examples[i].reason), "}");
  }
  absl::StrAppend(&out, "],\"clauses\":[");
  for (std::size_t i = 0; i < r.clauses.size(); ++i) {
    const ClauseTally& t = r.clauses[i];
    absl::StrAppend(&out, i > 0 ? "," : "", "{\"contract\":", json_string(t.contract), ",\"id\":", json_string(t.id),
                    ",\"statement\":", json_string(t.statement), ",\"checked\":", t.checked,
                    ",\"violations\":", t.violations, ",\"knock_on\":", t.knock_on, ",\"examples\":[");
    for (std::size_t j = 0; j < t.examples.size(); ++j) {
      const Counterexample& c = t.examples[j];
      absl::StrAppend(&out, j > 0 ? "," : "", "{\"line\":", c.line, ",\"op\":", json_string(c.op),
                      ",\"input\":", json_string(c.input), ",\"expected\":", json_string(c.expected),
                      ",\"got\":", json_string(c.got), ",\"message\":", json_string(c.message),
                      ",\"follows\":", c.follows, "}");
    }
    absl::StrAppend(&out, "]}");
  }
  absl::StrAppend(&out, "],\"migrated\":", r.migrated, ",\"unmigratable\":", r.unmigratable,
                  ",\"io\":", r.io.ok() ? "null" : json_string(internal::stdsv(r.io.message())), ",\"exit_code\":", r.exit_code(),
                  "}\n");
  return out;
}

}  // namespace lwc::contracts
