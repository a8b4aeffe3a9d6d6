// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/broadphase/persistent.h
//
// The persistent grid's E-clauses (docs/broadphase.md E1-E6): PersistentModel, a reference model of a
// persistent grid written from the spec (brute force at every update, placements from the batch oracle
// oracle_placement), the checkers of one operation or update, and PersistentJudge, which drives the
// model beside any persistent grid and judges its answers.
//
// Checkers return absl::Status and never abort. On failure the message starts with the clause id.
//
// One source, two modes (lwc/config.h): `#include <lwc/contracts/broadphase/persistent.h>` (through
// <lwc/contracts/broadphase.h>) brings it without module support; the module unit
// contracts/broadphase/persistent.cppm exports the same declarations as `import
// lwc.contracts.broadphase:persistent;`.
#ifndef LWC_CONTRACTS_BROADPHASE_PERSISTENT_H_
#define LWC_CONTRACTS_BROADPHASE_PERSISTENT_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // contracts/broadphase/persistent.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/broadphase.h"
#include "lwc/contracts/broadphase/batch.h"
#endif

LWC_EXPORT namespace lwc::contracts {

// ObjectPair
//
// Two objects of a PersistentModel by their insertion numbers, lower first.
using ObjectPair = std::pair<std::size_t, std::size_t>;

// PersistentModel
//
// The reference model of a persistent grid, written from the spec and nothing else: objects numbered in
// insertion order (successful inserts only), each with its box at the last update and its box now; the
// placement, error codes and cell counts from oracle_placement; the pair sets by brute force at every
// update, and the events as their set differences; the swept candidates by brute force over the step
// volumes. It is copyable, so a property can ask what an operation should do without doing it.
// Each operation returns the status code the grid must return, and applies the operation when it is OK.
template <std::size_t D>
class PersistentModel {
 public:
  struct Object {
    Box<D> then{};          // the box at the last successful update, if `committed`
    Box<D> now{};           // the box as last given, if `live`
    Box<D> volume{};        // the step volume, if `swept`
    bool committed = false;
    bool live = false;
    bool swept = false;
    bool teleported = false;  // inserted or teleported in this step: a later sweep starts at `now`
    bool dirty = false;
    std::int64_t then_cells = 0;
    std::int64_t now_cells = 0;
    std::int64_t volume_cells = 0;
    UserData user_now = 0;   // E7
    UserData user_then = 0;
    Filter filter_now;       // E8
    Filter filter_then;
  };

  // What update() must do: the code; when OK, the events as sorted object pairs and the exact counts.
  struct Update {
    absl::StatusCode code = absl::StatusCode::kOk;
    std::vector<ObjectPair> began, ended, swept;
    std::int64_t boxes = 0;
    std::int64_t memberships = 0;
    std::int64_t pairs = 0;
    std::int64_t dirty = 0;
    std::int64_t memberships_touched = 0;
    std::vector<UserData> users_now, users_then;  // per object: the payloads began/swept and ended carry (E7)
  };

  // `pair_filter`: the grid's pair predicate (E8); the model asks it with the objects' payloads in object
  // order, so it must be symmetric for the model to stand for a grid that asks in slot order.
  explicit PersistentModel(const GridConfig& config, PairFilter pair_filter = {})
      : config_(config), pair_filter_(pair_filter) {}

  [[nodiscard]] absl::StatusCode insert(const Box<D>& box, UserData user = 0, Filter filter = {}) {
    const absl::StatusOr<Placement<D>> where = oracle_placement<D>(box, config_);
    if (!where.ok()) return where.status().code();
    Object o;
    o.user_now = user;
    o.filter_now = filter;
    o.now = box;
    o.live = true;
    o.teleported = true;
    o.dirty = true;
    o.now_cells = where->cell_count;
    objects_.push_back(o);
    return absl::StatusCode::kOk;
  }

  [[nodiscard]] absl::StatusCode move(std::size_t object, const Box<D>& box, Motion motion) {
    if (object >= objects_.size() || !objects_[object].live) return absl::StatusCode::kNotFound;
    Object& o = objects_[object];
    const absl::StatusOr<Placement<D>> where = oracle_placement<D>(box, config_);
    if (!where.ok()) return where.status().code();
    if (motion == Motion::kSwept) {
      const Box<D>& start = o.swept ? o.volume : (o.teleported ? o.now : o.then);
      Box<D> volume;
      for (std::size_t k = 0; k < D; ++k) {
        volume.min[k] = std::min(start.min[k], box.min[k]);
        volume.max[k] = std::max(start.max[k], box.max[k]);
      }
      const absl::StatusOr<Placement<D>> swept = oracle_placement<D>(volume, config_);
      if (!swept.ok()) return swept.status().code();
      o.volume = volume;
      o.volume_cells = swept->cell_count;
      o.swept = true;
    } else {
      o.swept = false;
      o.teleported = true;
    }
    o.now = box;
    o.now_cells = where->cell_count;
    o.dirty = true;
    return absl::StatusCode::kOk;
  }

  [[nodiscard]] absl::StatusCode remove(std::size_t object) {
    if (object >= objects_.size() || !objects_[object].live) return absl::StatusCode::kNotFound;
    Object& o = objects_[object];
    o.live = false;
    o.swept = false;
    o.dirty = true;
    return absl::StatusCode::kOk;
  }

  // set_filter(), set_user_data(), refilter(): E8's changes; NotFound for an object that is not live.
  [[nodiscard]] absl::StatusCode set_filter(std::size_t object, Filter filter) {
    if (object >= objects_.size() || !objects_[object].live) return absl::StatusCode::kNotFound;
    objects_[object].filter_now = filter;
    objects_[object].dirty = true;
    return absl::StatusCode::kOk;
  }
  [[nodiscard]] absl::StatusCode set_user_data(std::size_t object, UserData user) {
    if (object >= objects_.size() || !objects_[object].live) return absl::StatusCode::kNotFound;
    objects_[object].user_now = user;
    objects_[object].dirty = true;
    return absl::StatusCode::kOk;
  }
  [[nodiscard]] absl::StatusCode refilter(std::size_t object) {
    if (object >= objects_.size() || !objects_[object].live) return absl::StatusCode::kNotFound;
    objects_[object].dirty = true;
    return absl::StatusCode::kOk;
  }

  // query(): E11, the live objects whose box as last given overlaps `box`, ascending.
  [[nodiscard]] std::vector<std::size_t> query(const Box<D>& box) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      if (objects_[i].live && internal::intersect(objects_[i].now, box)) out.push_back(i);
    }
    return out;
  }
  // ray(): E9, (entry fraction, object) for every live object the segment hits, by brute force.
  [[nodiscard]] std::vector<std::pair<double, std::size_t>> ray(const Segment<D>& segment) const {
    std::vector<std::pair<double, std::size_t>> out;
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      double t = 0;
      if (objects_[i].live && ray_entry<D>(objects_[i].now, segment, t)) out.push_back({t, i});
    }
    return out;
  }

  // update(): the expected outcome; applied when OK (a refused update leaves the model as it was, E4).
  [[nodiscard]] Update update() {
    Update u;
    for (const Object& o : objects_) {
      u.users_now.push_back(o.user_now);
      u.users_then.push_back(o.user_then);
    }
    const std::vector<ObjectPair> before = pairs();
    std::vector<ObjectPair> after;
    absl::int128 memberships = 0;
    absl::int128 volume_memberships = 0;
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      const Object& a = objects_[i];
      if (a.live) {
        memberships += a.now_cells;
        ++u.boxes;
      }
      if (a.swept) volume_memberships += a.volume_cells;
      if (a.dirty) {
        ++u.dirty;
        u.memberships_touched += (a.committed ? a.then_cells : 0) + (a.live ? a.now_cells : 0) +
                                 (a.swept ? a.volume_cells : 0);
      }
      for (std::size_t j = i + 1; j < objects_.size(); ++j) {
        const Object& b = objects_[j];
        if (!a.live || !b.live || !accepted(a.filter_now, a.user_now, b.filter_now, b.user_now)) continue;
        if (internal::intersect(a.now, b.now)) {
          after.push_back({i, j});
        } else if ((a.swept || b.swept) && internal::intersect(a.swept ? a.volume : a.now, b.swept ? b.volume : b.now)) {
          u.swept.push_back({i, j});
        }
      }
    }
    const auto limit = absl::int128(config_.max_memberships.value());
    if (memberships > limit || volume_memberships > limit ||
        static_cast<std::int64_t>(after.size()) > config_.max_pairs.value() ||
        static_cast<std::int64_t>(u.swept.size()) > config_.max_pairs.value()) {
      Update refused;
      refused.code = absl::StatusCode::kResourceExhausted;
      return refused;
    }
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(u.began));
    std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(u.ended));
    u.memberships = static_cast<std::int64_t>(memberships);
    u.pairs = static_cast<std::int64_t>(after.size());
    for (Object& o : objects_) {
      o.then = o.now;
      o.user_then = o.user_now;
      o.filter_then = o.filter_now;
      o.then_cells = o.now_cells;
      o.committed = o.live;
      o.swept = false;
      o.teleported = false;
      o.dirty = false;
    }
    return u;
  }

  // pairs(): the overlapping pairs of the boxes at the last successful update, by brute force.
  [[nodiscard]] std::vector<ObjectPair> pairs() const {
    std::vector<ObjectPair> out;
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      for (std::size_t j = i + 1; j < objects_.size(); ++j) {
        const Object& a = objects_[i];
        const Object& b = objects_[j];
        if (a.committed && b.committed && internal::intersect(a.then, b.then) &&
            accepted(a.filter_then, a.user_then, b.filter_then, b.user_then)) {
          out.push_back({i, j});
        }
      }
    }
    return out;
  }

  [[nodiscard]] const std::vector<Object>& objects() const noexcept { return objects_; }
  [[nodiscard]] const GridConfig& config() const noexcept { return config_; }

 private:
  // E8 from its definition: the filter rule written out, then the predicate.
  [[nodiscard]] bool accepted(const Filter& fa, UserData ua, const Filter& fb, UserData ub) const {
    if ((fa.group & fb.mask) == 0 || (fb.group & fa.mask) == 0) return false;
    return pair_filter_.fn == nullptr || pair_filter_.fn(pair_filter_.context, ua, ub);
  }

  GridConfig config_;
  PairFilter pair_filter_;
  std::vector<Object> objects_;
};

}  // namespace lwc::contracts

namespace lwc::internal {

inline std::string describe_object_pair(const contracts::ObjectPair& p) {
  return absl::StrCat("objects (", p.first, ", ", p.second, ")");
}

// Maps a list of contacts to object pairs through `handles` (object i has handles[i]), checking that each
// contact is lower slot first, that the list is in canonical order, and that every handle is known.
inline absl::Status to_object_pairs(absl::string_view clause, absl::string_view what, std::span<const Contact> got,
                                    std::span<const Handle> handles, std::vector<contracts::ObjectPair>& out) {
  std::map<Handle, std::size_t> object_of;
  for (std::size_t i = 0; i < handles.size(); ++i) object_of[handles[i]] = i;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const Contact& c = got[i];
    std::ostringstream os;
    os << what << " contact " << c;
    if (!(c.a.slot < c.b.slot)) return fail(clause, absl::StrCat(os.str(), " is not lower slot first"));
    if (i > 0 && !(std::pair(got[i - 1].a.slot, got[i - 1].b.slot) < std::pair(c.a.slot, c.b.slot))) {
      return fail(clause, absl::StrCat(os.str(), " at position ", i, " is not after the one before it (canonical order, each once)"));
    }
    const auto a = object_of.find(c.a);
    const auto b = object_of.find(c.b);
    if (a == object_of.end() || b == object_of.end()) {
      return fail("E3 handle safety: ", absl::StrCat(os.str(), " names a handle the grid never issued"));
    }
    out.push_back({std::min(a->second, b->second), std::max(a->second, b->second)});
  }
  std::sort(out.begin(), out.end());
  return absl::OkStatus();
}

inline absl::Status same_pairs(absl::string_view clause, absl::string_view what, const std::vector<contracts::ObjectPair>& got,
                               const std::vector<contracts::ObjectPair>& want) {
  if (std::adjacent_find(got.begin(), got.end()) != got.end()) {
    return fail(clause, absl::StrCat(what, ": ", describe_object_pair(*std::adjacent_find(got.begin(), got.end())),
                                     " reported twice"));
  }
  std::vector<contracts::ObjectPair> missing;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
  if (!missing.empty()) {
    return fail(clause, absl::StrCat(what, ": ", describe_object_pair(missing.front()), " missing (", missing.size(),
                                     " missing, ", got.size(), " reported, ", want.size(), " expected)"));
  }
  std::vector<contracts::ObjectPair> extra;
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  if (!extra.empty()) {
    return fail(clause, absl::StrCat(what, ": ", describe_object_pair(extra.front()), " reported but not expected (",
                                     extra.size(), " extra)"));
  }
  return absl::OkStatus();
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc::contracts {

// check_operation()
//
// E3, E4: the status of an insert, move or remove (or of any use of a stale handle) is the model's code.
// `want` comes from the same operation on a PersistentModel.
[[nodiscard]] inline absl::Status check_operation(absl::string_view operation, absl::StatusCode want, const absl::Status& got) {
  if (got.code() == want) return absl::OkStatus();
  const absl::string_view clause = want == absl::StatusCode::kNotFound || got.code() == absl::StatusCode::kNotFound
                                       ? "E3 handle safety: "
                                       : "E4 failure atomicity: ";
  return internal::fail(clause, absl::StrCat(operation, " must return ", absl::StatusCodeToString(want), ", got ",
                                             got.ToString()));
}

// check_fresh_handle()
//
// E3: an inserted box's handle was never issued before (`issued`: every handle returned so far).
[[nodiscard]] inline absl::Status check_fresh_handle(const Handle& got, std::span<const Handle> issued) {
  if (got.generation != 0 && std::find(issued.begin(), issued.end(), got) == issued.end()) return absl::OkStatus();
  std::ostringstream os;
  os << "insert returned handle " << got << ", " << (got.generation == 0 ? "generation 0" : "issued before");
  return internal::fail("E3 handle safety: ", os.str());
}

// check_update()
//
// E1, E2, E4, E5, E6: one update against the model's expectation (`want` = PersistentModel::update() on
// the same operations; `handles[i]` is the handle of object i). A refused update must carry the model's
// code; a successful one must report exactly the model's began and ended pairs (the set differences of the
// brute-force pair sets) and swept candidates, each list lower slot first, in canonical order, each pair
// once, and exact stats: boxes, memberships, pairs, the dirty boxes and the memberships they touch.
template <std::size_t D>
[[nodiscard]] absl::Status check_update(const typename PersistentModel<D>::Update& want,
                                        const absl::StatusOr<ContactEvents>& got, std::span<const Handle> handles) {
  if (want.code != absl::StatusCode::kOk || !got.ok()) {
    if (!got.ok() && got.status().code() == want.code) return absl::OkStatus();
    return internal::fail("E2 state equivalence: ",
                          absl::StrCat("update must return ", absl::StatusCodeToString(want.code), ", got ",
                                       got.ok() ? "OK" : got.status().ToString()));
  }
  const struct {
    absl::string_view clause, what;
    const std::vector<Contact>& got;
    const std::vector<ObjectPair>& want;
  } lists[] = {{"E1 events: ", "began", got->began, want.began},
               {"E1 events: ", "ended", got->ended, want.ended},
               {"E6 swept candidates: ", "swept", got->swept, want.swept}};
  for (const auto& list : lists) {
    std::vector<ObjectPair> mapped;
    if (absl::Status s = internal::to_object_pairs(list.clause, list.what, list.got, handles, mapped); !s.ok()) return s;
    if (absl::Status s = internal::same_pairs(list.clause, list.what, mapped, list.want); !s.ok()) return s;
    // E7: each contact carries its boxes' payloads, as now (began, swept) or as committed (ended).
    const std::vector<UserData>& users = list.what == absl::string_view("ended") ? want.users_then : want.users_now;
    if (users.size() < handles.size()) continue;  // an Update built by hand, without payloads
    for (const Contact& c : list.got) {
      for (const auto& [h, user] : {std::pair{c.a, c.user_a}, std::pair{c.b, c.user_b}}) {
        const auto at = std::find(handles.begin(), handles.end(), h);
        const auto object = static_cast<std::size_t>(at - handles.begin());
        if (users[object] != user) {
          std::ostringstream os;
          os << list.what << " contact " << c << " carries payload " << user << " for object " << object << ", expected "
             << users[object];
          return internal::fail("E7 payloads: ", os.str());
        }
      }
    }
  }
  const UpdateStats& st = got->stats;
  const struct {
    absl::string_view clause, name;
    std::int64_t got, want;
  } stats[] = {{"E2 state equivalence: ", "boxes", st.boxes, want.boxes},
               {"E2 state equivalence: ", "memberships", st.memberships, want.memberships},
               {"E2 state equivalence: ", "pairs", st.pairs, want.pairs},
               {"E1 events: ", "began count", st.began, static_cast<std::int64_t>(want.began.size())},
               {"E1 events: ", "ended count", st.ended, static_cast<std::int64_t>(want.ended.size())},
               {"E6 swept candidates: ", "swept count", st.swept, static_cast<std::int64_t>(want.swept.size())},
               {"E5 cost: ", "dirty boxes", st.dirty, want.dirty},
               {"E5 cost: ", "memberships touched", st.memberships_touched, want.memberships_touched}};
  for (const auto& s : stats) {
    if (s.got != s.want) return internal::fail(s.clause, absl::StrCat("stats.", s.name, " = ", s.got, ", expected ", s.want));
  }
  return absl::OkStatus();
}

// check_current_pairs()
//
// E2: the grid's pair list (PersistentGrid::pairs()) is the model's pair set at the last update, lower
// slot first, in canonical order, each once.
template <std::size_t D>
[[nodiscard]] absl::Status check_current_pairs(const PersistentModel<D>& model, std::span<const Contact> got,
                                               std::span<const Handle> handles) {
  std::vector<ObjectPair> mapped;
  if (absl::Status s = internal::to_object_pairs("E2 state equivalence: ", "current", got, handles, mapped); !s.ok()) {
    return s;
  }
  return internal::same_pairs("E2 state equivalence: ", "current pairs", mapped, model.pairs());
}

// check_tracked_pairs()
//
// E2 for any engine: `got` (contacts by handle) is exactly the overlapping pairs of `boxes` (the live
// boxes with their handles, by ascending slot), i.e. find_pairs on the boxes with positions mapped to
// handles — judged by brute force (check_pairs) after mapping each handle to its position.
template <std::size_t D>
[[nodiscard]] absl::Status check_tracked_pairs(std::span<const Tracked<D>> boxes, std::span<const Contact> got) {
  std::vector<Box<D>> plain;
  std::map<Handle, std::uint32_t> position;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (i > 0 && !(boxes[i - 1].handle.slot < boxes[i].handle.slot)) {
      return internal::fail("E2 state equivalence: ", "the boxes are not listed by ascending slot");
    }
    plain.push_back(boxes[i].box);
    position[boxes[i].handle] = static_cast<std::uint32_t>(i);
  }
  std::vector<Pair> pairs;
  for (const Contact& c : got) {
    const auto a = position.find(c.a);
    const auto b = position.find(c.b);
    if (a == position.end() || b == position.end()) {
      std::ostringstream os;
      os << "contact " << c << " names a box that is not live";
      return internal::fail("E2 state equivalence: ", os.str());
    }
    pairs.push_back({a->second, b->second});
  }
  if (absl::Status s = check_pairs<D>(plain, pairs); !s.ok()) {
    return internal::fail("E2 state equivalence: ", std::string(s.message()));
  }
  return absl::OkStatus();
}

// Hit
//
// One answer of a query or a ray cast (E9, E11): the handle and payload the callback received, and for a
// ray its entry fraction (0 for a box query).
struct Hit {
  Handle handle;
  UserData user = 0;
  double t = 0;
};

// check_query()
//
// E11, E7: `got` (the callbacks of one PersistentGrid::query, in call order) is exactly the model's live
// objects overlapping the box as last given, each once, with their payloads as last given.
template <std::size_t D>
[[nodiscard]] absl::Status check_query(const PersistentModel<D>& model, const Box<D>& box, std::span<const Hit> got,
                                       std::span<const Handle> handles) {
  std::vector<std::size_t> objects;
  for (const Hit& h : got) {
    const auto at = std::find(handles.begin(), handles.end(), h.handle);
    if (at == handles.end()) return internal::fail("E11 queries: ", "a hit names a handle the grid never issued");
    const auto object = static_cast<std::size_t>(at - handles.begin());
    if (model.objects()[object].user_now != h.user) {
      return internal::fail("E7 payloads: ", absl::StrCat("query hit of object ", object, " carries the wrong payload"));
    }
    objects.push_back(object);
  }
  std::sort(objects.begin(), objects.end());
  if (std::adjacent_find(objects.begin(), objects.end()) != objects.end()) {
    return internal::fail("E11 queries: ", "an object is reported twice");
  }
  if (objects != model.query(box)) {
    return internal::fail("E11 queries: ", absl::StrCat("query returned ", objects.size(), " objects, expected ",
                                                        model.query(box).size(), " (the boxes as last given)"));
  }
  return absl::OkStatus();
}

// check_ray()
//
// E9, E11, E7: `got` (the callbacks of one PersistentGrid::raycast, in call order, with the callback never
// stopping it) is exactly the model's hits, in ascending (t, slot), each once, with its payload.
template <std::size_t D>
[[nodiscard]] absl::Status check_ray(const PersistentModel<D>& model, const Segment<D>& segment, std::span<const Hit> got,
                                     std::span<const Handle> handles) {
  std::vector<std::pair<double, std::size_t>> want = model.ray(segment);
  std::sort(want.begin(), want.end(), [&](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : handles[x.second].slot < handles[y.second].slot;
  });
  if (got.size() != want.size()) {
    return internal::fail("E9 ray cast: ", absl::StrCat(got.size(), " hits, expected ", want.size()));
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::size_t object = want[i].second;
    if (got[i].handle != handles[object] || !(got[i].t == want[i].first)) {
      return internal::fail("E9 ray cast: ", absl::StrFormat("hit %d is not object %d at t = %a", i, object, want[i].first));
    }
    if (got[i].user != model.objects()[object].user_now) {
      return internal::fail("E7 payloads: ", absl::StrCat("ray hit of object ", object, " carries the wrong payload"));
    }
  }
  return absl::OkStatus();
}

// PersistentJudge
//
// Drives a PersistentModel beside any persistent grid and judges the grid's answers, operation by
// operation: feed each operation with the grid's result (objects are numbered by successful inserts, as
// in the model). Every method returns the verdict of the clause it checks; after a failed verdict the
// judge's state is unspecified. Used by the fuzzer, the properties and the tests; an engine can drive its
// own grid through it.
//
// Example:
//   lwc::contracts::PersistentJudge<2> judge(config);
//   absl::Status v = judge.insert(box, grid.insert(box));
//   v = judge.move(0, to, lwc::Motion::kSwept, grid.move(judge.handle(0), to, lwc::Motion::kSwept));
//   v = judge.update(grid.update());
//   v = judge.pairs(grid.pairs());
template <std::size_t D>
class PersistentJudge {
 public:
  explicit PersistentJudge(const GridConfig& config, PairFilter pair_filter = {}) : model_(config, pair_filter) {}

  [[nodiscard]] absl::Status insert(const Box<D>& box, const absl::StatusOr<Handle>& got) {
    return insert(box, 0, Filter{}, got);
  }
  [[nodiscard]] absl::Status insert(const Box<D>& box, UserData user, Filter filter, const absl::StatusOr<Handle>& got) {
    const absl::StatusCode want = model_.insert(box, user, filter);
    if (absl::Status s = check_operation("insert", want, got.status()); !s.ok()) return s;
    if (!got.ok()) return absl::OkStatus();
    if (absl::Status s = check_fresh_handle(*got, handles_); !s.ok()) return s;
    handles_.push_back(*got);
    return absl::OkStatus();
  }

  [[nodiscard]] absl::Status move(std::size_t object, const Box<D>& box, Motion motion, const absl::Status& got) {
    return check_operation("move", model_.move(object, box, motion), got);
  }

  [[nodiscard]] absl::Status remove(std::size_t object, const absl::Status& got) {
    return check_operation("remove", model_.remove(object), got);
  }

  [[nodiscard]] absl::Status set_filter(std::size_t object, Filter filter, const absl::Status& got) {
    return check_operation("set_filter", model_.set_filter(object, filter), got);
  }
  [[nodiscard]] absl::Status set_user_data(std::size_t object, UserData user, const absl::Status& got) {
    return check_operation("set_user_data", model_.set_user_data(object, user), got);
  }
  [[nodiscard]] absl::Status refilter(std::size_t object, const absl::Status& got) {
    return check_operation("refilter", model_.refilter(object), got);
  }
  [[nodiscard]] absl::Status query(const Box<D>& box, std::span<const Hit> got) const {
    return check_query<D>(model_, box, got, handles_);
  }
  [[nodiscard]] absl::Status ray(const Segment<D>& segment, std::span<const Hit> got) const {
    return check_ray<D>(model_, segment, got, handles_);
  }

  // stale(): the answer to an operation with a handle that was never issued (generation 0, or a slot
  // beyond every slot used): NotFound.
  [[nodiscard]] absl::Status stale(const absl::Status& got) {
    return check_operation("an operation with a never-issued handle", absl::StatusCode::kNotFound, got);
  }

  [[nodiscard]] absl::Status update(const absl::StatusOr<ContactEvents>& got) {
    return check_update<D>(model_.update(), got, handles_);
  }

  [[nodiscard]] absl::Status pairs(std::span<const Contact> got) const {
    return check_current_pairs<D>(model_, got, handles_);
  }

  // The handle of object `object` (issued by the grid at its insert).
  [[nodiscard]] Handle handle(std::size_t object) const { return handles_[object]; }
  [[nodiscard]] std::size_t objects() const noexcept { return handles_.size(); }
  [[nodiscard]] const PersistentModel<D>& model() const noexcept { return model_; }

 private:
  PersistentModel<D> model_;
  std::vector<Handle> handles_;
};

}  // namespace lwc::contracts

#endif  // LWC_CONTRACTS_BROADPHASE_PERSISTENT_H_
