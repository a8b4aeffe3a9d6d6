// SPDX-License-Identifier: MIT
// File: capi/lwc.cc                     Library: lwc::c, lwc::c_shared
//
// The C API (capi/include/lwc.h) over the C++ modules: argument checks first, then the C++ call, then the
// copy of its result into the caller's memory, so that an error writes nothing (docs/c_api.md F3). Every
// code is the absl::StatusCode of the C++ call (F1); its message is kept per thread (F2). Handles are ids
// in one registry, never reused and never dereferenced before they are found there (F5). Built with the
// tree's flags; no exception leaves an entry point (docs/c_api.md, "Conventions").
#include "lwc.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

import lwc;

namespace {

// Layouts the C structs share with their C++ counterparts' fields (copied field by field; these only
// pin the ABI: a change here is a change of LWC_ABI_VERSION).
static_assert(sizeof(lwc_chunk_point) == 16 && sizeof(lwc_int2) == 16 && sizeof(lwc_int3) == 24);
static_assert(sizeof(lwc_box2) == 32 && sizeof(lwc_box3) == 48 && sizeof(lwc_pair) == 8);
static_assert(sizeof(lwc_handle) == 8 && sizeof(lwc_contact) == 32 && sizeof(lwc_tracked2) == 40);
static_assert(sizeof(lwc_float_box2) == 16 && sizeof(lwc_float_box3) == 24 && sizeof(lwc_box_view) == 40);
static_assert(sizeof(lwc_filter) == 16 && sizeof(lwc_segment2) == 32 && sizeof(lwc_segment3) == 48);
static_assert(sizeof(lwc_query_hit) == 16 && sizeof(lwc_ray_hit) == 24);
static_assert(std::is_same_v<lwc::UserData, uintptr_t>, "user data crosses the boundary unchanged (E7)");
static_assert(sizeof(lwc_world_position2) == 32 && sizeof(lwc_render_point2) == 16 &&
              sizeof(lwc_render_point3) == 24);
static_assert(sizeof(lwc_grid_config) == 40 && sizeof(lwc_view_config) == 32);
static_assert(sizeof(lwc_chunk_run) == 24 && sizeof(lwc_batch_entry) == 32 && sizeof(lwc_commit_report) == 48);
static_assert(static_cast<int>(absl::StatusCode::kInvalidArgument) == LWC_INVALID_ARGUMENT &&
              static_cast<int>(absl::StatusCode::kResourceExhausted) == LWC_RESOURCE_EXHAUSTED &&
              static_cast<int>(absl::StatusCode::kOutOfRange) == LWC_OUT_OF_RANGE &&
              static_cast<int>(absl::StatusCode::kUnauthenticated) == LWC_UNAUTHENTICATED);

// ---------------------------------------------------------------------------------------------------
// Errors (F1, F2)

thread_local std::string last_error;  // NOLINT: the one piece of per-thread state, by design (F2)

lwc_status fail(lwc_status code, std::string message) {
  last_error = std::move(message);
  return code;
}

lwc_status fail(const absl::Status& status) {
  return fail(static_cast<lwc_status>(status.code()), std::string(status.message()));
}

// The refusal of an argument (F3): InvalidArgument naming the call and the argument.
lwc_status refuse(const char* call, const char* what) {
  return fail(LWC_INVALID_ARGUMENT, absl::StrCat(call, ": ", what, " (F3)"));
}

#define LWC_C_REQUIRE(ptr)                                    \
  do {                                                        \
    if ((ptr) == nullptr) return refuse(kCall, #ptr " is NULL"); \
  } while (false)
// An input or output array may be NULL only with a count of 0.
#define LWC_C_REQUIRE_ARRAY(ptr, n)                                                         \
  do {                                                                                      \
    if ((ptr) == nullptr && (n) != 0) return refuse(kCall, #ptr " is NULL with a count > 0"); \
  } while (false)

// Runs `body`; no exception leaves it. Without exceptions (the engine preset) an allocation failure
// ends the program, as it does for the C++ API in such a build.
template <typename Body>
lwc_status guarded(const char* call, Body&& body) noexcept {
#if defined(__cpp_exceptions)
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(LWC_RESOURCE_EXHAUSTED, absl::StrCat(call, ": out of memory"));
  } catch (...) {
    return fail(LWC_INTERNAL, absl::StrCat(call, ": unexpected C++ exception"));
  }
#else
  (void)call;
  return body();
#endif
}

// Copies `items` (through `convert`) into out[0, capacity), or reports the size needed (F4).
template <typename Item, typename Out, typename Convert>
lwc_status write_list(const char* call, const std::vector<Item>& items, Out* out, size_t capacity, size_t* count,
                      Convert&& convert) {
  if (items.size() > capacity) {
    *count = items.size();
    return fail(LWC_BUFFER_TOO_SMALL,
                absl::StrCat(call, ": the result has ", items.size(), " elements, the buffer room for ", capacity,
                             " (F4)"));
  }
  for (std::size_t i = 0; i < items.size(); ++i) out[i] = convert(items[i]);
  *count = items.size();
  return LWC_OK;
}

// ---------------------------------------------------------------------------------------------------
// Handles (F5): opaque ids, issued once each, looked up before any use.

enum class Kind : std::uint8_t { kGrid2, kGrid3, kPersistent2, kPersistent3, kView2, kView3, kCommitter, kPairList };

struct Entry {
  Kind kind;
  std::shared_ptr<void> object;
};

struct Registry {
  std::shared_mutex mutex;
  absl::flat_hash_map<std::uintptr_t, Entry> live;
  std::uintptr_t next = 0x1000;  // ids step by 16 from here: never 0, never reused
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: handles may outlive static destruction
  return *r;
}

template <typename Handle, typename Impl>
Handle* issue(Kind kind, std::shared_ptr<Impl> object) {
  Registry& r = registry();
  const std::unique_lock lock(r.mutex);
  r.next += 16;
  r.live.emplace(r.next, Entry{kind, std::move(object)});
  return reinterpret_cast<Handle*>(r.next);  // NOLINT: an id, never dereferenced
}

// The object of a live handle of `kind`, or nullptr. The shared_ptr keeps it alive for the call.
template <typename Impl>
std::shared_ptr<Impl> find(const void* handle, Kind kind) {
  Registry& r = registry();
  const std::shared_lock lock(r.mutex);
  const auto it = r.live.find(reinterpret_cast<std::uintptr_t>(handle));
  if (it == r.live.end() || it->second.kind != kind) return nullptr;
  return std::static_pointer_cast<Impl>(it->second.object);
}

bool retire(const void* handle, Kind kind) {
  std::shared_ptr<void> object;  // released after the lock
  Registry& r = registry();
  const std::unique_lock lock(r.mutex);
  const auto it = r.live.find(reinterpret_cast<std::uintptr_t>(handle));
  if (it == r.live.end() || it->second.kind != kind) return false;
  object = std::move(it->second.object);
  r.live.erase(it);
  return true;
}

lwc_status bad_handle(const char* call) {
  return fail(LWC_INVALID_ARGUMENT,
              absl::StrCat(call, ": the handle is NULL, destroyed, or not of this kind (F5)"));
}

// ---------------------------------------------------------------------------------------------------
// Conversions

absl::StatusOr<lwc::ChunkSize> make_chunk_size(int64_t size) { return lwc::ChunkSize::create(size); }

absl::StatusOr<lwc::GridConfig> grid_config(const lwc_grid_config& c) {
  absl::StatusOr<lwc::CellSize> h = lwc::CellSize::create(c.cell_size);
  if (!h.ok()) return h.status();
  absl::StatusOr<lwc::CellBudget> cells = lwc::CellBudget::create(c.max_cells_per_box);
  if (!cells.ok()) return cells.status();
  absl::StatusOr<lwc::MembershipBudget> memberships = lwc::MembershipBudget::create(c.max_memberships);
  if (!memberships.ok()) return memberships.status();
  absl::StatusOr<lwc::PairBudget> pairs = lwc::PairBudget::create(c.max_pairs);
  if (!pairs.ok()) return pairs.status();
  if (c.oversize != LWC_OVERSIZE_REJECT && c.oversize != LWC_OVERSIZE_COARSER_LEVELS) {
    return absl::InvalidArgumentError(
        absl::StrCat("oversize ", c.oversize, " is neither LWC_OVERSIZE_REJECT nor LWC_OVERSIZE_COARSER_LEVELS"));
  }
  return lwc::GridConfig{.cell_size = *h,
                         .max_cells_per_box = *cells,
                         .max_memberships = *memberships,
                         .max_pairs = *pairs,
                         .oversize = c.oversize == LWC_OVERSIZE_REJECT ? lwc::Oversize::kReject
                                                                       : lwc::Oversize::kCoarserLevels};
}

template <std::size_t D>
struct C;
template <>
struct C<2> {
  using Box = lwc_box2;
  using FloatBox = lwc_float_box2;
  using Segment = lwc_segment2;
  using Tracked = lwc_tracked2;
  using Position = lwc_world_position2;
  using Render = lwc_render_point2;
  using Plan = lwc_rebase_plan2;
  using Rebased = lwc_rebased2;
  using Late = lwc_late_result2;
  static constexpr Kind kGrid = Kind::kGrid2;
  static constexpr Kind kPersistent = Kind::kPersistent2;
  static constexpr Kind kView = Kind::kView2;
};
template <>
struct C<3> {
  using Box = lwc_box3;
  using FloatBox = lwc_float_box3;
  using Segment = lwc_segment3;
  using Tracked = lwc_tracked3;
  using Position = lwc_world_position3;
  using Render = lwc_render_point3;
  using Plan = lwc_rebase_plan3;
  using Rebased = lwc_rebased3;
  using Late = lwc_late_result3;
  static constexpr Kind kGrid = Kind::kGrid3;
  static constexpr Kind kPersistent = Kind::kPersistent3;
  static constexpr Kind kView = Kind::kView3;
};

template <std::size_t D>
lwc::Box<D> to_box(const typename C<D>::Box& b) {
  lwc::Box<D> out;
  for (std::size_t k = 0; k < D; ++k) {
    out.min[k] = b.min[k];
    out.max[k] = b.max[k];
  }
  return out;
}

template <std::size_t D>
typename C<D>::Box from_box(const lwc::Box<D>& b) {
  typename C<D>::Box out;
  for (std::size_t k = 0; k < D; ++k) {
    out.min[k] = b.min[k];
    out.max[k] = b.max[k];
  }
  return out;
}

template <std::size_t D>
std::vector<lwc::Box<D>> to_boxes(const typename C<D>::Box* boxes, size_t n) {
  std::vector<lwc::Box<D>> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = to_box<D>(boxes[i]);
  return out;
}

lwc_handle from_handle(lwc::Handle h) { return {h.slot, h.generation}; }
lwc::Handle to_handle(lwc_handle h) { return {h.slot, h.generation}; }
lwc_contact from_contact(const lwc::Contact& c) { return {from_handle(c.a), from_handle(c.b), c.user_a, c.user_b}; }

lwc_stats from_stats(const lwc::Stats& s) {
  return {s.boxes, s.memberships, s.occupied_cells, s.pair_visits, s.unique_candidates, s.pairs, s.levels,
          s.coarse_boxes};
}

template <std::size_t D>
lwc::CellIndex<D> to_cell(const int64_t* cell) {
  lwc::CellIndex<D> out;
  for (std::size_t k = 0; k < D; ++k) out[k] = cell[k];
  return out;
}

template <std::size_t D>
lwc::WorldPosition<D> to_position(const typename C<D>::Position& p) {
  lwc::WorldPosition<D> out;
  for (std::size_t k = 0; k < D; ++k) {
    out.cell[k] = p.cell[k];
    out.offset[k] = p.offset[k];
  }
  return out;
}

template <std::size_t D>
typename C<D>::Position from_position(const lwc::WorldPosition<D>& p) {
  typename C<D>::Position out;
  for (std::size_t k = 0; k < D; ++k) {
    out.cell[k] = p.cell[k];
    out.offset[k] = p.offset[k];
  }
  return out;
}

template <std::size_t D>
typename C<D>::Render from_render(const lwc::RenderPoint<D>& r) {
  typename C<D>::Render out;
  for (std::size_t k = 0; k < D; ++k) out.at[k] = r.at[k];
  out.version = r.version;
  return out;
}

lwc_int2 from_int2(lwc::Point2 p) { return {p.x, p.y}; }
lwc::Point2 to_int2(lwc_int2 p) { return {p.x, p.y}; }
lwc_chunk_span from_span(lwc::ChunkSpan s) { return {s.first(), s.last()}; }

// ---------------------------------------------------------------------------------------------------
// The broad phase, once for both dimensions

template <std::size_t D>
lwc_status find_pairs(const char* kCall, const typename C<D>::Box* boxes, size_t n, const lwc_grid_config* config,
                      lwc_pair* pairs, size_t capacity, size_t* count, lwc_stats* stats) {
  LWC_C_REQUIRE_ARRAY(boxes, n);
  LWC_C_REQUIRE(config);
  LWC_C_REQUIRE_ARRAY(pairs, capacity);
  LWC_C_REQUIRE(count);
  return guarded(kCall, [&] {
    absl::StatusOr<lwc::GridConfig> c = grid_config(*config);
    if (!c.ok()) return fail(c.status());
    // The caller's boxes are read in place (B13): no copy into Box<D>.
    absl::StatusOr<lwc::BoxView<D, double>> in =
        n == 0 ? lwc::BoxView<D, double>()
               : lwc::BoxView<D, double>::strided(boxes[0].min, boxes[0].max, n, sizeof(typename C<D>::Box));
    if (!in.ok()) return fail(in.status());
    absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(*in, *c);
    if (!r.ok()) return fail(r.status());
    const lwc_status s =
        write_list(kCall, r->pairs, pairs, capacity, count, [](lwc::Pair p) { return lwc_pair{p.a, p.b}; });
    if (s == LWC_OK && stats != nullptr) *stats = from_stats(r->stats);
    return s;
  });
}

template <std::size_t D, typename Handle>
lwc_status grid_create(const char* kCall, const typename C<D>::Box* boxes, size_t n, const lwc_grid_config* config,
                       Handle** out) {
  LWC_C_REQUIRE_ARRAY(boxes, n);
  LWC_C_REQUIRE(config);
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    absl::StatusOr<lwc::GridConfig> c = grid_config(*config);
    if (!c.ok()) return fail(c.status());
    absl::StatusOr<lwc::Grid<D>> grid = lwc::Grid<D>::create(to_boxes<D>(boxes, n), *c);
    if (!grid.ok()) return fail(grid.status());
    *out = issue<Handle>(C<D>::kGrid, std::make_shared<lwc::Grid<D>>(*std::move(grid)));
    return LWC_OK;
  });
}

template <std::size_t D>
lwc_status grid_query(const char* kCall, const void* handle, const typename C<D>::Box* probe, uint32_t* hits,
                      size_t capacity, size_t* count) {
  LWC_C_REQUIRE(probe);
  LWC_C_REQUIRE_ARRAY(hits, capacity);
  LWC_C_REQUIRE(count);
  return guarded(kCall, [&] {
    const std::shared_ptr<lwc::Grid<D>> grid = find<lwc::Grid<D>>(handle, C<D>::kGrid);
    if (grid == nullptr) return bad_handle(kCall);
    absl::StatusOr<std::vector<std::uint32_t>> r = grid->query(to_box<D>(*probe));
    if (!r.ok()) return fail(r.status());
    return write_list(kCall, *r, hits, capacity, count, [](std::uint32_t i) { return i; });
  });
}

// The caller's boxes through a view (B13) into a pair list (F8): one broad phase, streamed into the list's
// spare vector and swapped in only on success, so a failed call leaves the list as it was (F3).
struct PairList {
  std::vector<lwc_pair> pairs;
  std::vector<lwc_pair> spare;  // the next fill; keeps its capacity from frame to frame
};

template <std::size_t D>
lwc_status find_pairs_view(const char* kCall, const lwc_box_view* boxes, const lwc_grid_config* config,
                           lwc_pair_list* out, lwc_stats* stats) {
  LWC_C_REQUIRE(boxes);
  LWC_C_REQUIRE(config);
  if (boxes->real != LWC_REAL_DOUBLE && boxes->real != LWC_REAL_FLOAT) {
    return refuse(kCall, "boxes->real is neither LWC_REAL_DOUBLE nor LWC_REAL_FLOAT");
  }
  return guarded(kCall, [&] {
    const std::shared_ptr<PairList> list = find<PairList>(out, Kind::kPairList);
    if (list == nullptr) return bad_handle(kCall);
    absl::StatusOr<lwc::GridConfig> c = grid_config(*config);
    if (!c.ok()) return fail(c.status());
    const auto run = [&]<typename F>() {
      absl::StatusOr<lwc::BoxView<D, F>> in = lwc::BoxView<D, F>::strided(
          static_cast<const F*>(boxes->min), static_cast<const F*>(boxes->max), boxes->count, boxes->stride);
      if (!in.ok()) return fail(in.status());
      list->spare.clear();
      absl::StatusOr<lwc::Stats> r =
          lwc::for_each_pair(*in, *c, [&](lwc::Pair p) { list->spare.push_back({p.a, p.b}); });
      if (!r.ok()) return fail(r.status());
      list->pairs.swap(list->spare);
      if (stats != nullptr) *stats = from_stats(*r);
      return LWC_OK;
    };
    return boxes->real == LWC_REAL_DOUBLE ? run.template operator()<double>() : run.template operator()<float>();
  });
}

// The caller's pair filter (E8), read by the C++ grid through PairFilter::context.
struct CPairFilter {
  lwc_pair_filter_fn fn = nullptr;
  void* context = nullptr;
};

bool call_pair_filter(void* context, lwc::UserData lower, lwc::UserData higher) {
  const auto* f = static_cast<const CPairFilter*>(context);
  return f->fn(f->context, lower, higher) != 0;
}

// A persistent grid, the events of its last successful update, and what its callbacks need.
template <std::size_t D>
struct Persistent {
  CPairFilter pair_filter;        // read by the C++ grid through PairFilter::context: its address is fixed
  std::optional<lwc::PersistentGrid<D>> grid;
  lwc::ContactEvents last;        // the events _events reads; a refused update leaves them (E4, F3)
  std::vector<lwc_query_hit> hits;  // query's scratch
  std::vector<lwc_ray_hit> rays;    // raycast's scratch
  int in_callback = 0;            // > 0 while one of this grid's callbacks runs (F7)
};

// Marks a grid busy while its callback runs (F7).
class InCallback {
 public:
  explicit InCallback(int& n) : n_(n) { ++n_; }
  ~InCallback() { --n_; }
  InCallback(const InCallback&) = delete;
  InCallback& operator=(const InCallback&) = delete;

 private:
  int& n_;
};

lwc_status reentered(const char* call) {
  return fail(LWC_FAILED_PRECONDITION,
              absl::StrCat(call, ": called from inside a callback of the same grid (F7)"));
}

// Runs body(persistent) on a live persistent grid that no callback of its own is running in (F5, F7).
template <std::size_t D, typename Body>
lwc_status with_persistent(const char* kCall, const void* handle, Body&& body) {
  return guarded(kCall, [&] {
    const auto p = find<Persistent<D>>(handle, C<D>::kPersistent);
    if (p == nullptr) return bad_handle(kCall);
    if (p->in_callback > 0) return reentered(kCall);
    return body(*p);
  });
}

lwc::Filter to_filter(lwc_filter f) { return {f.group, f.mask}; }
lwc_filter from_filter(lwc::Filter f) { return {f.group, f.mask}; }

template <std::size_t D>
lwc::FloatBox<D> to_float_box(const typename C<D>::FloatBox& b) {
  lwc::FloatBox<D> out;
  for (std::size_t k = 0; k < D; ++k) {
    out.min[k] = b.min[k];
    out.max[k] = b.max[k];
  }
  return out;
}
// The C++ box of a C box of either real (E10: a float box is the box of the same values).
template <std::size_t D>
lwc::Box<D> to_cpp(const typename C<D>::Box& b) { return to_box<D>(b); }
template <std::size_t D>
lwc::FloatBox<D> to_cpp(const typename C<D>::FloatBox& b) { return to_float_box<D>(b); }

template <std::size_t D>
lwc::Segment<D> to_segment(const typename C<D>::Segment& s) {
  lwc::Segment<D> out;
  for (std::size_t k = 0; k < D; ++k) {
    out.from[k] = s.from[k];
    out.to[k] = s.to[k];
  }
  return out;
}

template <std::size_t D, typename Handle>
lwc_status persistent_create(const char* kCall, const lwc_grid_config* config, lwc_pair_filter_fn pair_filter,
                             void* context, Handle** out) {
  LWC_C_REQUIRE(config);
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    absl::StatusOr<lwc::GridConfig> c = grid_config(*config);
    if (!c.ok()) return fail(c.status());
    auto p = std::make_shared<Persistent<D>>();
    p->pair_filter = {pair_filter, context};
    const lwc::PairFilter filter =
        pair_filter == nullptr ? lwc::PairFilter{} : lwc::PairFilter{call_pair_filter, &p->pair_filter};
    absl::StatusOr<lwc::PersistentGrid<D>> grid = lwc::PersistentGrid<D>::create(*c, filter);
    if (!grid.ok()) return fail(grid.status());
    p->grid.emplace(*std::move(grid));
    *out = issue<Handle>(C<D>::kPersistent, std::move(p));
    return LWC_OK;
  });
}

template <std::size_t D>
lwc_status persistent_destroy(const char* kCall, void* handle) {
  return with_persistent<D>(kCall, handle, [&](Persistent<D>&) {
    return retire(handle, C<D>::kPersistent) ? LWC_OK : bad_handle(kCall);
  });
}

template <std::size_t D, typename Box>
lwc_status persistent_insert(const char* kCall, void* handle, const Box* box, uintptr_t user, lwc_filter filter,
                             lwc_handle* out) {
  LWC_C_REQUIRE(box);
  LWC_C_REQUIRE(out);
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    absl::StatusOr<lwc::Handle> h = p.grid->insert(to_cpp<D>(*box), user, to_filter(filter));
    if (!h.ok()) return fail(h.status());
    *out = from_handle(*h);
    return LWC_OK;
  });
}

template <std::size_t D, typename Box>
lwc_status persistent_move(const char* kCall, void* handle, lwc_handle box_handle, const Box* box, int motion) {
  LWC_C_REQUIRE(box);
  if (motion != LWC_MOTION_TELEPORT && motion != LWC_MOTION_SWEPT) {
    return refuse(kCall, "motion is neither LWC_MOTION_TELEPORT nor LWC_MOTION_SWEPT");
  }
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    const absl::Status s = p.grid->move(to_handle(box_handle), to_cpp<D>(*box),
                                        motion == LWC_MOTION_SWEPT ? lwc::Motion::kSwept : lwc::Motion::kTeleport);
    return s.ok() ? LWC_OK : fail(s);
  });
}

// remove, set_filter, set_user_data, refilter: one C++ call on a box handle returning a Status.
template <std::size_t D, typename Op>
lwc_status persistent_change(const char* kCall, void* handle, Op&& op) {
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    const absl::Status s = op(*p.grid);
    return s.ok() ? LWC_OK : fail(s);
  });
}

template <std::size_t D>
lwc_status persistent_update(const char* kCall, void* handle, lwc_update_stats* stats) {
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    absl::Status s;
    {
      const InCallback busy(p.in_callback);  // the pair filter runs inside (F7)
      s = p.grid->update_into(p.last);
    }
    if (!s.ok()) return fail(s);
    if (stats != nullptr) {
      const lwc::UpdateStats& u = p.last.stats;
      *stats = {u.boxes, u.memberships, u.pairs, u.dirty, u.memberships_touched, u.pair_visits, u.began, u.ended,
                u.swept};
    }
    return LWC_OK;
  });
}

template <std::size_t D>
lwc_status persistent_events(const char* kCall, const void* handle, int which, lwc_contact* out, size_t capacity,
                             size_t* count) {
  LWC_C_REQUIRE_ARRAY(out, capacity);
  LWC_C_REQUIRE(count);
  if (which != LWC_EVENTS_BEGAN && which != LWC_EVENTS_ENDED && which != LWC_EVENTS_SWEPT) {
    return refuse(kCall, "which is not LWC_EVENTS_BEGAN, LWC_EVENTS_ENDED or LWC_EVENTS_SWEPT");
  }
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    const std::vector<lwc::Contact>& list =
        which == LWC_EVENTS_BEGAN ? p.last.began : which == LWC_EVENTS_ENDED ? p.last.ended : p.last.swept;
    return write_list(kCall, list, out, capacity, count, from_contact);
  });
}

template <std::size_t D>
lwc_status persistent_pairs(const char* kCall, const void* handle, lwc_contact* out, size_t capacity, size_t* count) {
  LWC_C_REQUIRE_ARRAY(out, capacity);
  LWC_C_REQUIRE(count);
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    return write_list(kCall, p.grid->pairs(), out, capacity, count, from_contact);
  });
}

template <std::size_t D, typename Box>
lwc_status persistent_query(const char* kCall, const void* handle, const Box* box, lwc_query_hit* out,
                            size_t capacity, size_t* count) {
  LWC_C_REQUIRE(box);
  LWC_C_REQUIRE_ARRAY(out, capacity);
  LWC_C_REQUIRE(count);
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    p.hits.clear();
    const absl::Status s = p.grid->query(to_cpp<D>(*box), [&](lwc::Handle h, lwc::UserData user) {
      p.hits.push_back({from_handle(h), user});
      return true;
    });
    if (!s.ok()) return fail(s);
    // C++ promises no order; the C list is by slot, so that a caller sees the same list every time.
    std::sort(p.hits.begin(), p.hits.end(),
              [](const lwc_query_hit& a, const lwc_query_hit& b) { return a.handle.slot < b.handle.slot; });
    return write_list(kCall, p.hits, out, capacity, count, [](const lwc_query_hit& h) { return h; });
  });
}

template <std::size_t D>
lwc_status persistent_query_each(const char* kCall, const void* handle, const typename C<D>::Box* box,
                                 lwc_query_fn fn, void* context) {
  LWC_C_REQUIRE(box);
  LWC_C_REQUIRE(fn);
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    const InCallback busy(p.in_callback);
    const absl::Status s = p.grid->query(to_box<D>(*box), [&](lwc::Handle h, lwc::UserData user) {
      return fn(context, from_handle(h), user) != 0;
    });
    return s.ok() ? LWC_OK : fail(s);
  });
}

template <std::size_t D>
lwc_status persistent_raycast(const char* kCall, const void* handle, const typename C<D>::Segment* segment,
                              lwc_ray_hit* out, size_t capacity, size_t* count) {
  LWC_C_REQUIRE(segment);
  LWC_C_REQUIRE_ARRAY(out, capacity);
  LWC_C_REQUIRE(count);
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    p.rays.clear();
    const absl::Status s = p.grid->raycast(to_segment<D>(*segment), [&](lwc::Handle h, lwc::UserData user, double t) {
      p.rays.push_back({from_handle(h), user, t});
      return true;
    });
    if (!s.ok()) return fail(s);
    return write_list(kCall, p.rays, out, capacity, count, [](const lwc_ray_hit& h) { return h; });
  });
}

template <std::size_t D>
lwc_status persistent_raycast_each(const char* kCall, const void* handle, const typename C<D>::Segment* segment,
                                   lwc_ray_fn fn, void* context) {
  LWC_C_REQUIRE(segment);
  LWC_C_REQUIRE(fn);
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    const InCallback busy(p.in_callback);
    const absl::Status s = p.grid->raycast(to_segment<D>(*segment), [&](lwc::Handle h, lwc::UserData user, double t) {
      return fn(context, from_handle(h), user, t) != 0;
    });
    return s.ok() ? LWC_OK : fail(s);
  });
}

template <std::size_t D>
lwc_status persistent_boxes(const char* kCall, const void* handle, typename C<D>::Tracked* out, size_t capacity,
                            size_t* count) {
  LWC_C_REQUIRE_ARRAY(out, capacity);
  LWC_C_REQUIRE(count);
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    return write_list(kCall, p.grid->boxes(), out, capacity, count, [](const lwc::Tracked<D>& t) {
      return typename C<D>::Tracked{from_handle(t.handle), from_box<D>(t.box)};
    });
  });
}

// box, user_data, filter: a C++ StatusOr read of one box handle, converted into *out.
template <std::size_t D, typename Out, typename Read, typename Convert>
lwc_status persistent_box_read(const char* kCall, const void* handle, Out* out, Read&& read, Convert&& convert) {
  LWC_C_REQUIRE(out);
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    const auto r = read(*p.grid);
    if (!r.ok()) return fail(r.status());
    *out = convert(*r);
    return LWC_OK;
  });
}

// size, pending: a plain read of the grid.
template <std::size_t D, typename Out, typename Read>
lwc_status persistent_read(const char* kCall, const void* handle, Out* out, Read&& read) {
  LWC_C_REQUIRE(out);
  return with_persistent<D>(kCall, handle, [&](Persistent<D>& p) {
    *out = read(*p.grid);
    return LWC_OK;
  });
}

// ---------------------------------------------------------------------------------------------------
// The floating origin, once for both dimensions

absl::StatusOr<lwc::ViewConfig> to_view_config(const lwc_view_config& c) {
  return lwc::ViewConfig::create(c.threshold_cells, c.barrier_radius, c.units_per_render_unit, c.bubble_units);
}

absl::StatusOr<lwc::WorldGrid> world_grid(int64_t cell_size) {
  absl::StatusOr<lwc::ChunkSize> size = lwc::ChunkSize::create(cell_size);
  if (!size.ok()) return size.status();
  return lwc::WorldGrid::create(*size);
}

template <std::size_t D>
lwc_status normalize(const char* kCall, int64_t cell_size, const int64_t* cell, const double* offset,
                     typename C<D>::Position* out) {
  LWC_C_REQUIRE(cell);
  LWC_C_REQUIRE(offset);
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    absl::StatusOr<lwc::WorldGrid> grid = world_grid(cell_size);
    if (!grid.ok()) return fail(grid.status());
    std::array<double, D> off;
    for (std::size_t k = 0; k < D; ++k) off[k] = offset[k];
    absl::StatusOr<lwc::WorldPosition<D>> p = grid->normalize(to_cell<D>(cell), off);
    if (!p.ok()) return fail(p.status());
    *out = from_position<D>(*p);
    return LWC_OK;
  });
}

template <std::size_t D, typename Handle>
lwc_status view_create(const char* kCall, int64_t cell_size, const lwc_view_config* config, const int64_t* origin,
                       uint64_t version, Handle** out) {
  LWC_C_REQUIRE(config);
  LWC_C_REQUIRE(origin);
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    absl::StatusOr<lwc::WorldGrid> grid = world_grid(cell_size);
    if (!grid.ok()) return fail(grid.status());
    absl::StatusOr<lwc::ViewConfig> view_config = to_view_config(*config);
    if (!view_config.ok()) return fail(view_config.status());
    absl::StatusOr<lwc::OriginCoordinator<D>> view =
        lwc::OriginCoordinator<D>::create(*grid, *view_config, to_cell<D>(origin), version);
    if (!view.ok()) return fail(view.status());
    *out = issue<Handle>(C<D>::kView, std::make_shared<lwc::OriginCoordinator<D>>(*std::move(view)));
    return LWC_OK;
  });
}

template <std::size_t D, typename Body>
lwc_status with_view(const char* kCall, const void* handle, Body&& body) {
  return guarded(kCall, [&] {
    const auto v = find<lwc::OriginCoordinator<D>>(handle, C<D>::kView);
    if (v == nullptr) return bad_handle(kCall);
    return body(*v);
  });
}

template <std::size_t D>
lwc_status view_plan(const char* kCall, const void* handle, const typename C<D>::Position* observer,
                     typename C<D>::Plan* out, int* planned) {
  LWC_C_REQUIRE(observer);
  LWC_C_REQUIRE(out);
  LWC_C_REQUIRE(planned);
  return with_view<D>(kCall, handle, [&](const lwc::OriginCoordinator<D>& v) {
    absl::StatusOr<std::optional<lwc::RebasePlan<D>>> r = v.plan(to_position<D>(*observer));
    if (!r.ok()) return fail(r.status());
    if (r->has_value()) {
      for (std::size_t k = 0; k < D; ++k) {
        out->from[k] = (*r)->from[k];
        out->target[k] = (*r)->target[k];
      }
      out->expected_version = (*r)->expected_version;
    }
    *planned = r->has_value() ? 1 : 0;
    return LWC_OK;
  });
}

template <std::size_t D>
lwc_status view_commit(const char* kCall, void* handle, const typename C<D>::Plan* plan,
                       typename C<D>::Rebased* out) {
  LWC_C_REQUIRE(plan);
  LWC_C_REQUIRE(out);
  return with_view<D>(kCall, handle, [&](lwc::OriginCoordinator<D>& v) {
    lwc::RebasePlan<D> p;
    for (std::size_t k = 0; k < D; ++k) {
      p.from[k] = plan->from[k];
      p.target[k] = plan->target[k];
    }
    p.expected_version = plan->expected_version;
    // The C structs carry no view id (docs/rebase.md R12): a C plan is taken as the handle's view's, so
    // C callers keep the earlier guard (a plan from another origin or version is refused).
    p.view = v.id();
    absl::StatusOr<lwc::Rebased<D>> r = v.commit(p);
    if (!r.ok()) return fail(r.status());
    for (std::size_t k = 0; k < D; ++k) out->origin[k] = r->origin[k];
    out->version = r->version;
    return LWC_OK;
  });
}

template <std::size_t D>
lwc_status view_to_render(const char* kCall, const void* handle, const typename C<D>::Position* p,
                          typename C<D>::Render* out) {
  LWC_C_REQUIRE(p);
  LWC_C_REQUIRE(out);
  return with_view<D>(kCall, handle, [&](const lwc::OriginCoordinator<D>& v) {
    absl::StatusOr<lwc::RenderPoint<D>> r = v.to_render(to_position<D>(*p));
    if (!r.ok()) return fail(r.status());
    *out = from_render<D>(*r);
    return LWC_OK;
  });
}

template <std::size_t D>
lwc_status view_start_late(const char* kCall, const void* handle, const typename C<D>::Position* anchor,
                           int placement, typename C<D>::Late* out) {
  LWC_C_REQUIRE(anchor);
  LWC_C_REQUIRE(out);
  if (placement != LWC_LATE_RELOCATABLE && placement != LWC_LATE_BAKED_LOCAL) {
    return refuse(kCall, "placement is neither LWC_LATE_RELOCATABLE nor LWC_LATE_BAKED_LOCAL");
  }
  return with_view<D>(kCall, handle, [&](const lwc::OriginCoordinator<D>& v) {
    const lwc::LateResult<D> r = v.start_late(
        to_position<D>(*anchor),
        placement == LWC_LATE_RELOCATABLE ? lwc::LatePlacement::kRelocatable : lwc::LatePlacement::kBakedLocal);
    *out = typename C<D>::Late{from_position<D>(r.anchor), r.started_version, placement};
    return LWC_OK;
  });
}

template <std::size_t D>
lwc_status view_place_late(const char* kCall, const void* handle, const typename C<D>::Late* result,
                           typename C<D>::Render* out) {
  LWC_C_REQUIRE(result);
  LWC_C_REQUIRE(out);
  if (result->placement != LWC_LATE_RELOCATABLE && result->placement != LWC_LATE_BAKED_LOCAL) {
    return refuse(kCall, "result->placement is neither LWC_LATE_RELOCATABLE nor LWC_LATE_BAKED_LOCAL");
  }
  return with_view<D>(kCall, handle, [&](const lwc::OriginCoordinator<D>& v) {
    const lwc::LateResult<D> late{to_position<D>(result->anchor), result->started_version,
                                  result->placement == LWC_LATE_RELOCATABLE ? lwc::LatePlacement::kRelocatable
                                                                            : lwc::LatePlacement::kBakedLocal,
                                  v.id()};  // as for plans: the C ticket is the handle's view's (R12)
    absl::StatusOr<lwc::RenderPoint<D>> r = v.place_late(late);
    if (!r.ok()) return fail(r.status());
    *out = from_render<D>(*r);
    return LWC_OK;
  });
}

// ---------------------------------------------------------------------------------------------------
// The committer: snapshots are the caller's uint64 tokens.

using Committer = lwc::Committer<std::uint64_t>;

lwc_chunk_run from_run(const lwc::ChunkRun& r) { return {r.y, r.x_first, r.x_last}; }

// The code a prepare callback returned, as an absl code: 1..16 as they are, anything else kUnknown.
absl::StatusCode callback_code(int v) {
  return v >= 1 && v <= 16 ? static_cast<absl::StatusCode>(v) : absl::StatusCode::kUnknown;
}

template <typename Body>
lwc_status with_committer(const char* kCall, const void* handle, Body&& body) {
  return guarded(kCall, [&] {
    const auto c = find<Committer>(handle, Kind::kCommitter);
    if (c == nullptr) return bad_handle(kCall);
    return body(*c);
  });
}

}  // namespace

// ===================================================================================================
// The entry points (C linkage from their declarations in lwc.h)

LWC_API int lwc_abi_version(void) { return LWC_ABI_VERSION; }

LWC_API const char* lwc_last_error(void) { return last_error.c_str(); }

LWC_API const char* lwc_status_name(int code) {
  switch (code) {
    case LWC_OK: return "LWC_OK";
    case LWC_CANCELLED: return "LWC_CANCELLED";
    case LWC_UNKNOWN: return "LWC_UNKNOWN";
    case LWC_INVALID_ARGUMENT: return "LWC_INVALID_ARGUMENT";
    case LWC_DEADLINE_EXCEEDED: return "LWC_DEADLINE_EXCEEDED";
    case LWC_NOT_FOUND: return "LWC_NOT_FOUND";
    case LWC_ALREADY_EXISTS: return "LWC_ALREADY_EXISTS";
    case LWC_PERMISSION_DENIED: return "LWC_PERMISSION_DENIED";
    case LWC_RESOURCE_EXHAUSTED: return "LWC_RESOURCE_EXHAUSTED";
    case LWC_FAILED_PRECONDITION: return "LWC_FAILED_PRECONDITION";
    case LWC_ABORTED: return "LWC_ABORTED";
    case LWC_OUT_OF_RANGE: return "LWC_OUT_OF_RANGE";
    case LWC_UNIMPLEMENTED: return "LWC_UNIMPLEMENTED";
    case LWC_INTERNAL: return "LWC_INTERNAL";
    case LWC_UNAVAILABLE: return "LWC_UNAVAILABLE";
    case LWC_DATA_LOSS: return "LWC_DATA_LOSS";
    case LWC_UNAUTHENTICATED: return "LWC_UNAUTHENTICATED";
    case LWC_BUFFER_TOO_SMALL: return "LWC_BUFFER_TOO_SMALL";
  }
  return "LWC_UNKNOWN_CODE";
}

// lwc.decompose ------------------------------------------------------------------------------------

LWC_API lwc_status lwc_split(int64_t x, int64_t size, lwc_chunk_point* out) {
  static constexpr const char* kCall = "lwc_split";
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSize> s = make_chunk_size(size);
    if (!s.ok()) return fail(s.status());
    const lwc::ChunkPoint p = lwc::split(x, *s);
    *out = {p.chunk, p.local};
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_split2(lwc_int2 p, int64_t size, lwc_chunk_point2* out) {
  static constexpr const char* kCall = "lwc_split2";
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSize> s = make_chunk_size(size);
    if (!s.ok()) return fail(s.status());
    const lwc::ChunkPoint2 r = lwc::split(lwc::Point2{p.x, p.y}, *s);
    *out = {from_int2(r.chunk), from_int2(r.local)};
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_split3(lwc_int3 p, int64_t size, lwc_chunk_point3* out) {
  static constexpr const char* kCall = "lwc_split3";
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSize> s = make_chunk_size(size);
    if (!s.ok()) return fail(s.status());
    const lwc::ChunkPoint3 r = lwc::split(lwc::Point3{p.x, p.y, p.z}, *s);
    *out = {{r.chunk.x, r.chunk.y, r.chunk.z}, {r.local.x, r.local.y, r.local.z}};
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_split_all(const int64_t* xs, size_t n, int64_t size, lwc_chunk_point* out) {
  static constexpr const char* kCall = "lwc_split_all";
  LWC_C_REQUIRE_ARRAY(xs, n);
  LWC_C_REQUIRE_ARRAY(out, n);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSize> s = make_chunk_size(size);
    if (!s.ok()) return fail(s.status());
    // split_all's loops (D11), writing the C struct directly: the path is chosen once per batch.
    if (s->is_power_of_two()) {
      const int shift = s->log2();
      const std::int64_t mask = s->value() - 1;
      for (std::size_t i = 0; i < n; ++i) out[i] = {xs[i] >> shift, xs[i] & mask};
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        const lwc::ChunkPoint p = lwc::split_by_reciprocal<std::int64_t>(xs[i], *s);
        out[i] = {p.chunk, p.local};
      }
    }
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_cell_of(double v, double h, int64_t* out) {
  static constexpr const char* kCall = "lwc_cell_of";
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    const absl::StatusOr<std::int64_t> cell = lwc::cell_of(v, h);
    if (!cell.ok()) return fail(cell.status());
    *out = *cell;
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_cell_of_all(const double* vs, size_t n, double h, int64_t* out) {
  static constexpr const char* kCall = "lwc_cell_of_all";
  LWC_C_REQUIRE_ARRAY(vs, n);
  LWC_C_REQUIRE_ARRAY(out, n);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::CellSize> size = lwc::CellSize::create(h);
    if (!size.ok()) return fail(size.status());
    const absl::Status s = lwc::cell_of_all(std::span<const double>(vs, n), *size, std::span<std::int64_t>(out, n));
    return s.ok() ? LWC_OK : fail(s);
  });
}

// lwc.cover ----------------------------------------------------------------------------------------

LWC_API lwc_status lwc_cover(int64_t min, int64_t max_exclusive, int64_t size, lwc_chunk_span* out, int* nonempty) {
  static constexpr const char* kCall = "lwc_cover";
  LWC_C_REQUIRE(out);
  LWC_C_REQUIRE(nonempty);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSize> s = make_chunk_size(size);
    if (!s.ok()) return fail(s.status());
    const absl::StatusOr<std::optional<lwc::ChunkSpan>> r = lwc::cover(min, max_exclusive, *s);
    if (!r.ok()) return fail(r.status());
    if (r->has_value()) *out = from_span(**r);
    *nonempty = r->has_value() ? 1 : 0;
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_cover_closed(int64_t min, int64_t max_inclusive, int64_t size, lwc_chunk_span* out,
                                    int* nonempty) {
  static constexpr const char* kCall = "lwc_cover_closed";
  LWC_C_REQUIRE(out);
  LWC_C_REQUIRE(nonempty);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSize> s = make_chunk_size(size);
    if (!s.ok()) return fail(s.status());
    const absl::StatusOr<std::optional<lwc::ChunkSpan>> r = lwc::cover_closed(min, max_inclusive, *s);
    if (!r.ok()) return fail(r.status());
    if (r->has_value()) *out = from_span(**r);
    *nonempty = r->has_value() ? 1 : 0;
    return LWC_OK;
  });
}

namespace {

template <bool kClosed, typename Point, typename Box, typename CBox, typename Convert>
lwc_status cover_n(const char* kCall, const Point& min, const Point& max, int64_t size, CBox* out, int* nonempty,
                   Convert&& convert) {
  LWC_C_REQUIRE(out);
  LWC_C_REQUIRE(nonempty);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSize> s = make_chunk_size(size);
    if (!s.ok()) return fail(s.status());
    const absl::StatusOr<std::optional<Box>> r = kClosed ? lwc::cover_closed(min, max, *s) : lwc::cover(min, max, *s);
    if (!r.ok()) return fail(r.status());
    if (r->has_value()) *out = convert(**r);
    *nonempty = r->has_value() ? 1 : 0;
    return LWC_OK;
  });
}

lwc_chunk_box2 from_box2(const lwc::ChunkBox2& b) { return {from_span(b.x), from_span(b.y)}; }
lwc_chunk_box3 from_box3(const lwc::ChunkBox3& b) { return {from_span(b.x), from_span(b.y), from_span(b.z)}; }

absl::StatusOr<lwc::ChunkSpan> to_span(lwc_chunk_span s) { return lwc::ChunkSpan::create(s.first, s.last); }

}  // namespace

LWC_API lwc_status lwc_cover2(lwc_int2 min, lwc_int2 max_exclusive, int64_t size, lwc_chunk_box2* out, int* nonempty) {
  return cover_n<false, lwc::Point2, lwc::ChunkBox2>("lwc_cover2", to_int2(min), to_int2(max_exclusive), size, out,
                                                   nonempty, from_box2);
}
LWC_API lwc_status lwc_cover3(lwc_int3 min, lwc_int3 max_exclusive, int64_t size, lwc_chunk_box3* out, int* nonempty) {
  return cover_n<false, lwc::Point3, lwc::ChunkBox3>("lwc_cover3", lwc::Point3{min.x, min.y, min.z},
                                                   lwc::Point3{max_exclusive.x, max_exclusive.y, max_exclusive.z},
                                                   size, out, nonempty, from_box3);
}
LWC_API lwc_status lwc_cover_closed2(lwc_int2 min, lwc_int2 max_inclusive, int64_t size, lwc_chunk_box2* out,
                                     int* nonempty) {
  return cover_n<true, lwc::Point2, lwc::ChunkBox2>("lwc_cover_closed2", to_int2(min), to_int2(max_inclusive), size,
                                                  out, nonempty, from_box2);
}
LWC_API lwc_status lwc_cover_closed3(lwc_int3 min, lwc_int3 max_inclusive, int64_t size, lwc_chunk_box3* out,
                                     int* nonempty) {
  return cover_n<true, lwc::Point3, lwc::ChunkBox3>("lwc_cover_closed3", lwc::Point3{min.x, min.y, min.z},
                                                  lwc::Point3{max_inclusive.x, max_inclusive.y, max_inclusive.z},
                                                  size, out, nonempty, from_box3);
}

LWC_API lwc_status lwc_count(lwc_chunk_span span, uint64_t* out) {
  static constexpr const char* kCall = "lwc_count";
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSpan> s = to_span(span);
    if (!s.ok()) return fail(s.status());
    const absl::StatusOr<std::uint64_t> n = lwc::count(*s);
    if (!n.ok()) return fail(n.status());
    *out = *n;
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_count2(lwc_chunk_box2 box, uint64_t* out) {
  static constexpr const char* kCall = "lwc_count2";
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSpan> x = to_span(box.x);
    if (!x.ok()) return fail(x.status());
    const absl::StatusOr<lwc::ChunkSpan> y = to_span(box.y);
    if (!y.ok()) return fail(y.status());
    const absl::StatusOr<std::uint64_t> n = lwc::count(lwc::ChunkBox2{*x, *y});
    if (!n.ok()) return fail(n.status());
    *out = *n;
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_count3(lwc_chunk_box3 box, uint64_t* out) {
  static constexpr const char* kCall = "lwc_count3";
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSpan> x = to_span(box.x);
    if (!x.ok()) return fail(x.status());
    const absl::StatusOr<lwc::ChunkSpan> y = to_span(box.y);
    if (!y.ok()) return fail(y.status());
    const absl::StatusOr<lwc::ChunkSpan> z = to_span(box.z);
    if (!z.ok()) return fail(z.status());
    const absl::StatusOr<std::uint64_t> n = lwc::count(lwc::ChunkBox3{*x, *y, *z});
    if (!n.ok()) return fail(n.status());
    *out = *n;
    return LWC_OK;
  });
}

// lwc.broadphase -----------------------------------------------------------------------------------

LWC_API lwc_grid_config lwc_grid_config_default(void) {
  const lwc::GridConfig d{};
  return {d.cell_size.value(), d.max_cells_per_box.value(), d.max_memberships.value(), d.max_pairs.value(),
          d.oversize == lwc::Oversize::kReject ? LWC_OVERSIZE_REJECT : LWC_OVERSIZE_COARSER_LEVELS};
}

LWC_API lwc_status lwc_find_pairs2(const lwc_box2* boxes, size_t n, const lwc_grid_config* config, lwc_pair* pairs,
                                   size_t capacity, size_t* count, lwc_stats* stats) {
  return find_pairs<2>("lwc_find_pairs2", boxes, n, config, pairs, capacity, count, stats);
}
LWC_API lwc_status lwc_find_pairs3(const lwc_box3* boxes, size_t n, const lwc_grid_config* config, lwc_pair* pairs,
                                   size_t capacity, size_t* count, lwc_stats* stats) {
  return find_pairs<3>("lwc_find_pairs3", boxes, n, config, pairs, capacity, count, stats);
}

LWC_API lwc_status lwc_grid2_create(const lwc_box2* boxes, size_t n, const lwc_grid_config* config, lwc_grid2** out) {
  return grid_create<2>("lwc_grid2_create", boxes, n, config, out);
}
LWC_API lwc_status lwc_grid3_create(const lwc_box3* boxes, size_t n, const lwc_grid_config* config, lwc_grid3** out) {
  return grid_create<3>("lwc_grid3_create", boxes, n, config, out);
}
LWC_API lwc_status lwc_grid2_destroy(lwc_grid2* grid) {
  return retire(grid, Kind::kGrid2) ? LWC_OK : bad_handle("lwc_grid2_destroy");
}
LWC_API lwc_status lwc_grid3_destroy(lwc_grid3* grid) {
  return retire(grid, Kind::kGrid3) ? LWC_OK : bad_handle("lwc_grid3_destroy");
}
LWC_API lwc_status lwc_grid2_query(const lwc_grid2* grid, const lwc_box2* probe, uint32_t* hits, size_t capacity,
                                   size_t* count) {
  return grid_query<2>("lwc_grid2_query", grid, probe, hits, capacity, count);
}
LWC_API lwc_status lwc_grid3_query(const lwc_grid3* grid, const lwc_box3* probe, uint32_t* hits, size_t capacity,
                                   size_t* count) {
  return grid_query<3>("lwc_grid3_query", grid, probe, hits, capacity, count);
}

LWC_API lwc_filter lwc_filter_default(void) { return from_filter(lwc::Filter{}); }

LWC_API lwc_status lwc_pair_list_create(lwc_pair_list** out) {
  static constexpr const char* kCall = "lwc_pair_list_create";
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    *out = issue<lwc_pair_list>(Kind::kPairList, std::make_shared<PairList>());
    return LWC_OK;
  });
}
LWC_API lwc_status lwc_pair_list_destroy(lwc_pair_list* list) {
  return retire(list, Kind::kPairList) ? LWC_OK : bad_handle("lwc_pair_list_destroy");
}
LWC_API lwc_status lwc_pair_list_pairs(const lwc_pair_list* list, const lwc_pair** pairs, size_t* count) {
  static constexpr const char* kCall = "lwc_pair_list_pairs";
  LWC_C_REQUIRE(pairs);
  LWC_C_REQUIRE(count);
  return guarded(kCall, [&] {
    const std::shared_ptr<PairList> l = find<PairList>(list, Kind::kPairList);
    if (l == nullptr) return bad_handle(kCall);
    *pairs = l->pairs.empty() ? nullptr : l->pairs.data();
    *count = l->pairs.size();
    return LWC_OK;
  });
}
LWC_API lwc_status lwc_find_pairs2_view(const lwc_box_view* boxes, const lwc_grid_config* config, lwc_pair_list* out,
                                        lwc_stats* stats) {
  return find_pairs_view<2>("lwc_find_pairs2_view", boxes, config, out, stats);
}
LWC_API lwc_status lwc_find_pairs3_view(const lwc_box_view* boxes, const lwc_grid_config* config, lwc_pair_list* out,
                                        lwc_stats* stats) {
  return find_pairs_view<3>("lwc_find_pairs3_view", boxes, config, out, stats);
}

LWC_API lwc_status lwc_persistent_grid2_create(const lwc_grid_config* config, lwc_pair_filter_fn pair_filter,
                                               void* context, lwc_persistent_grid2** out) {
  return persistent_create<2>("lwc_persistent_grid2_create", config, pair_filter, context, out);
}
LWC_API lwc_status lwc_persistent_grid2_destroy(lwc_persistent_grid2* grid) {
  return persistent_destroy<2>("lwc_persistent_grid2_destroy", grid);
}
LWC_API lwc_status lwc_persistent_grid2_insert(lwc_persistent_grid2* grid, const lwc_box2* box, uintptr_t user,
                                               lwc_filter filter, lwc_handle* out) {
  return persistent_insert<2>("lwc_persistent_grid2_insert", grid, box, user, filter, out);
}
LWC_API lwc_status lwc_persistent_grid2_insertf(lwc_persistent_grid2* grid, const lwc_float_box2* box, uintptr_t user,
                                                lwc_filter filter, lwc_handle* out) {
  return persistent_insert<2>("lwc_persistent_grid2_insertf", grid, box, user, filter, out);
}
LWC_API lwc_status lwc_persistent_grid2_move(lwc_persistent_grid2* grid, lwc_handle handle, const lwc_box2* box,
                                             int motion) {
  return persistent_move<2>("lwc_persistent_grid2_move", grid, handle, box, motion);
}
LWC_API lwc_status lwc_persistent_grid2_movef(lwc_persistent_grid2* grid, lwc_handle handle, const lwc_float_box2* box,
                                              int motion) {
  return persistent_move<2>("lwc_persistent_grid2_movef", grid, handle, box, motion);
}
LWC_API lwc_status lwc_persistent_grid2_remove(lwc_persistent_grid2* grid, lwc_handle handle) {
  return persistent_change<2>("lwc_persistent_grid2_remove", grid,
                              [&](lwc::PersistentGrid<2>& g) { return g.remove(to_handle(handle)); });
}
LWC_API lwc_status lwc_persistent_grid2_set_filter(lwc_persistent_grid2* grid, lwc_handle handle, lwc_filter filter) {
  return persistent_change<2>("lwc_persistent_grid2_set_filter", grid, [&](lwc::PersistentGrid<2>& g) {
    return g.set_filter(to_handle(handle), to_filter(filter));
  });
}
LWC_API lwc_status lwc_persistent_grid2_set_user_data(lwc_persistent_grid2* grid, lwc_handle handle, uintptr_t user) {
  return persistent_change<2>("lwc_persistent_grid2_set_user_data", grid,
                              [&](lwc::PersistentGrid<2>& g) { return g.set_user_data(to_handle(handle), user); });
}
LWC_API lwc_status lwc_persistent_grid2_refilter(lwc_persistent_grid2* grid, lwc_handle handle) {
  return persistent_change<2>("lwc_persistent_grid2_refilter", grid,
                              [&](lwc::PersistentGrid<2>& g) { return g.refilter(to_handle(handle)); });
}
LWC_API lwc_status lwc_persistent_grid2_user_data(const lwc_persistent_grid2* grid, lwc_handle handle, uintptr_t* out) {
  return persistent_box_read<2>(
      "lwc_persistent_grid2_user_data", grid, out,
      [&](const lwc::PersistentGrid<2>& g) { return g.user_data(to_handle(handle)); },
      [](lwc::UserData u) { return u; });
}
LWC_API lwc_status lwc_persistent_grid2_filter(const lwc_persistent_grid2* grid, lwc_handle handle, lwc_filter* out) {
  return persistent_box_read<2>(
      "lwc_persistent_grid2_filter", grid, out,
      [&](const lwc::PersistentGrid<2>& g) { return g.filter(to_handle(handle)); }, from_filter);
}
LWC_API lwc_status lwc_persistent_grid2_update(lwc_persistent_grid2* grid, lwc_update_stats* stats) {
  return persistent_update<2>("lwc_persistent_grid2_update", grid, stats);
}
LWC_API lwc_status lwc_persistent_grid2_events(const lwc_persistent_grid2* grid, int which, lwc_contact* out,
                                               size_t capacity, size_t* count) {
  return persistent_events<2>("lwc_persistent_grid2_events", grid, which, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid2_pairs(const lwc_persistent_grid2* grid, lwc_contact* out, size_t capacity,
                                              size_t* count) {
  return persistent_pairs<2>("lwc_persistent_grid2_pairs", grid, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid2_query(const lwc_persistent_grid2* grid, const lwc_box2* box, lwc_query_hit* out,
                                              size_t capacity, size_t* count) {
  return persistent_query<2>("lwc_persistent_grid2_query", grid, box, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid2_queryf(const lwc_persistent_grid2* grid, const lwc_float_box2* box,
                                               lwc_query_hit* out, size_t capacity, size_t* count) {
  return persistent_query<2>("lwc_persistent_grid2_queryf", grid, box, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid2_query_each(const lwc_persistent_grid2* grid, const lwc_box2* box,
                                                   lwc_query_fn fn, void* context) {
  return persistent_query_each<2>("lwc_persistent_grid2_query_each", grid, box, fn, context);
}
LWC_API lwc_status lwc_persistent_grid2_raycast(const lwc_persistent_grid2* grid, const lwc_segment2* segment,
                                                lwc_ray_hit* out, size_t capacity, size_t* count) {
  return persistent_raycast<2>("lwc_persistent_grid2_raycast", grid, segment, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid2_raycast_each(const lwc_persistent_grid2* grid, const lwc_segment2* segment,
                                                     lwc_ray_fn fn, void* context) {
  return persistent_raycast_each<2>("lwc_persistent_grid2_raycast_each", grid, segment, fn, context);
}
LWC_API lwc_status lwc_persistent_grid2_boxes(const lwc_persistent_grid2* grid, lwc_tracked2* out, size_t capacity,
                                              size_t* count) {
  return persistent_boxes<2>("lwc_persistent_grid2_boxes", grid, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid2_box(const lwc_persistent_grid2* grid, lwc_handle handle, lwc_box2* out) {
  return persistent_box_read<2>(
      "lwc_persistent_grid2_box", grid, out, [&](const lwc::PersistentGrid<2>& g) { return g.box(to_handle(handle)); },
      from_box<2>);
}
LWC_API lwc_status lwc_persistent_grid2_size(const lwc_persistent_grid2* grid, int64_t* out) {
  return persistent_read<2>("lwc_persistent_grid2_size", grid, out,
                            [](const lwc::PersistentGrid<2>& g) { return g.size(); });
}
LWC_API lwc_status lwc_persistent_grid2_pending(const lwc_persistent_grid2* grid, size_t* out) {
  return persistent_read<2>("lwc_persistent_grid2_pending", grid, out,
                            [](const lwc::PersistentGrid<2>& g) { return g.pending(); });
}

LWC_API lwc_status lwc_persistent_grid3_create(const lwc_grid_config* config, lwc_pair_filter_fn pair_filter,
                                               void* context, lwc_persistent_grid3** out) {
  return persistent_create<3>("lwc_persistent_grid3_create", config, pair_filter, context, out);
}
LWC_API lwc_status lwc_persistent_grid3_destroy(lwc_persistent_grid3* grid) {
  return persistent_destroy<3>("lwc_persistent_grid3_destroy", grid);
}
LWC_API lwc_status lwc_persistent_grid3_insert(lwc_persistent_grid3* grid, const lwc_box3* box, uintptr_t user,
                                               lwc_filter filter, lwc_handle* out) {
  return persistent_insert<3>("lwc_persistent_grid3_insert", grid, box, user, filter, out);
}
LWC_API lwc_status lwc_persistent_grid3_insertf(lwc_persistent_grid3* grid, const lwc_float_box3* box, uintptr_t user,
                                                lwc_filter filter, lwc_handle* out) {
  return persistent_insert<3>("lwc_persistent_grid3_insertf", grid, box, user, filter, out);
}
LWC_API lwc_status lwc_persistent_grid3_move(lwc_persistent_grid3* grid, lwc_handle handle, const lwc_box3* box,
                                             int motion) {
  return persistent_move<3>("lwc_persistent_grid3_move", grid, handle, box, motion);
}
LWC_API lwc_status lwc_persistent_grid3_movef(lwc_persistent_grid3* grid, lwc_handle handle, const lwc_float_box3* box,
                                              int motion) {
  return persistent_move<3>("lwc_persistent_grid3_movef", grid, handle, box, motion);
}
LWC_API lwc_status lwc_persistent_grid3_remove(lwc_persistent_grid3* grid, lwc_handle handle) {
  return persistent_change<3>("lwc_persistent_grid3_remove", grid,
                              [&](lwc::PersistentGrid<3>& g) { return g.remove(to_handle(handle)); });
}
LWC_API lwc_status lwc_persistent_grid3_set_filter(lwc_persistent_grid3* grid, lwc_handle handle, lwc_filter filter) {
  return persistent_change<3>("lwc_persistent_grid3_set_filter", grid, [&](lwc::PersistentGrid<3>& g) {
    return g.set_filter(to_handle(handle), to_filter(filter));
  });
}
LWC_API lwc_status lwc_persistent_grid3_set_user_data(lwc_persistent_grid3* grid, lwc_handle handle, uintptr_t user) {
  return persistent_change<3>("lwc_persistent_grid3_set_user_data", grid,
                              [&](lwc::PersistentGrid<3>& g) { return g.set_user_data(to_handle(handle), user); });
}
LWC_API lwc_status lwc_persistent_grid3_refilter(lwc_persistent_grid3* grid, lwc_handle handle) {
  return persistent_change<3>("lwc_persistent_grid3_refilter", grid,
                              [&](lwc::PersistentGrid<3>& g) { return g.refilter(to_handle(handle)); });
}
LWC_API lwc_status lwc_persistent_grid3_user_data(const lwc_persistent_grid3* grid, lwc_handle handle, uintptr_t* out) {
  return persistent_box_read<3>(
      "lwc_persistent_grid3_user_data", grid, out,
      [&](const lwc::PersistentGrid<3>& g) { return g.user_data(to_handle(handle)); },
      [](lwc::UserData u) { return u; });
}
LWC_API lwc_status lwc_persistent_grid3_filter(const lwc_persistent_grid3* grid, lwc_handle handle, lwc_filter* out) {
  return persistent_box_read<3>(
      "lwc_persistent_grid3_filter", grid, out,
      [&](const lwc::PersistentGrid<3>& g) { return g.filter(to_handle(handle)); }, from_filter);
}
LWC_API lwc_status lwc_persistent_grid3_update(lwc_persistent_grid3* grid, lwc_update_stats* stats) {
  return persistent_update<3>("lwc_persistent_grid3_update", grid, stats);
}
LWC_API lwc_status lwc_persistent_grid3_events(const lwc_persistent_grid3* grid, int which, lwc_contact* out,
                                               size_t capacity, size_t* count) {
  return persistent_events<3>("lwc_persistent_grid3_events", grid, which, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid3_pairs(const lwc_persistent_grid3* grid, lwc_contact* out, size_t capacity,
                                              size_t* count) {
  return persistent_pairs<3>("lwc_persistent_grid3_pairs", grid, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid3_query(const lwc_persistent_grid3* grid, const lwc_box3* box, lwc_query_hit* out,
                                              size_t capacity, size_t* count) {
  return persistent_query<3>("lwc_persistent_grid3_query", grid, box, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid3_queryf(const lwc_persistent_grid3* grid, const lwc_float_box3* box,
                                               lwc_query_hit* out, size_t capacity, size_t* count) {
  return persistent_query<3>("lwc_persistent_grid3_queryf", grid, box, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid3_query_each(const lwc_persistent_grid3* grid, const lwc_box3* box,
                                                   lwc_query_fn fn, void* context) {
  return persistent_query_each<3>("lwc_persistent_grid3_query_each", grid, box, fn, context);
}
LWC_API lwc_status lwc_persistent_grid3_raycast(const lwc_persistent_grid3* grid, const lwc_segment3* segment,
                                                lwc_ray_hit* out, size_t capacity, size_t* count) {
  return persistent_raycast<3>("lwc_persistent_grid3_raycast", grid, segment, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid3_raycast_each(const lwc_persistent_grid3* grid, const lwc_segment3* segment,
                                                     lwc_ray_fn fn, void* context) {
  return persistent_raycast_each<3>("lwc_persistent_grid3_raycast_each", grid, segment, fn, context);
}
LWC_API lwc_status lwc_persistent_grid3_boxes(const lwc_persistent_grid3* grid, lwc_tracked3* out, size_t capacity,
                                              size_t* count) {
  return persistent_boxes<3>("lwc_persistent_grid3_boxes", grid, out, capacity, count);
}
LWC_API lwc_status lwc_persistent_grid3_box(const lwc_persistent_grid3* grid, lwc_handle handle, lwc_box3* out) {
  return persistent_box_read<3>(
      "lwc_persistent_grid3_box", grid, out, [&](const lwc::PersistentGrid<3>& g) { return g.box(to_handle(handle)); },
      from_box<3>);
}
LWC_API lwc_status lwc_persistent_grid3_size(const lwc_persistent_grid3* grid, int64_t* out) {
  return persistent_read<3>("lwc_persistent_grid3_size", grid, out,
                            [](const lwc::PersistentGrid<3>& g) { return g.size(); });
}
LWC_API lwc_status lwc_persistent_grid3_pending(const lwc_persistent_grid3* grid, size_t* out) {
  return persistent_read<3>("lwc_persistent_grid3_pending", grid, out,
                            [](const lwc::PersistentGrid<3>& g) { return g.pending(); });
}

// lwc.rebase ---------------------------------------------------------------------------------------

LWC_API lwc_view_config lwc_view_config_default(void) {
  const lwc::ViewConfig d{};
  return {d.threshold_cells.value(), d.barrier_radius.value(), d.units_per_render_unit.value(), d.bubble_units.value()};
}

LWC_API lwc_status lwc_world_grid_normalize2(int64_t cell_size, const int64_t cell[2], const double offset[2],
                                             lwc_world_position2* out) {
  return normalize<2>("lwc_world_grid_normalize2", cell_size, cell, offset, out);
}
LWC_API lwc_status lwc_world_grid_normalize3(int64_t cell_size, const int64_t cell[3], const double offset[3],
                                             lwc_world_position3* out) {
  return normalize<3>("lwc_world_grid_normalize3", cell_size, cell, offset, out);
}

LWC_API lwc_status lwc_origin_coordinator2_create(int64_t cell_size, const lwc_view_config* config,
                                                  const int64_t origin[2], uint64_t version,
                                                  lwc_origin_coordinator2** out) {
  return view_create<2>("lwc_origin_coordinator2_create", cell_size, config, origin, version, out);
}
LWC_API lwc_status lwc_origin_coordinator3_create(int64_t cell_size, const lwc_view_config* config,
                                                  const int64_t origin[3], uint64_t version,
                                                  lwc_origin_coordinator3** out) {
  return view_create<3>("lwc_origin_coordinator3_create", cell_size, config, origin, version, out);
}
LWC_API lwc_status lwc_origin_coordinator2_destroy(lwc_origin_coordinator2* view) {
  return retire(view, Kind::kView2) ? LWC_OK : bad_handle("lwc_origin_coordinator2_destroy");
}
LWC_API lwc_status lwc_origin_coordinator3_destroy(lwc_origin_coordinator3* view) {
  return retire(view, Kind::kView3) ? LWC_OK : bad_handle("lwc_origin_coordinator3_destroy");
}

namespace {

template <std::size_t D, typename Op>
lwc_status view_cell(const char* kCall, const void* handle, const int64_t* cell, Op&& op) {
  LWC_C_REQUIRE(cell);
  return with_view<D>(kCall, handle, [&](lwc::OriginCoordinator<D>& v) {
    op(v, to_cell<D>(cell));
    return LWC_OK;
  });
}

template <std::size_t D>
lwc_status view_is_loaded(const char* kCall, const void* handle, const int64_t* cell, int* out) {
  LWC_C_REQUIRE(cell);
  LWC_C_REQUIRE(out);
  return with_view<D>(kCall, handle, [&](const lwc::OriginCoordinator<D>& v) {
    *out = v.is_loaded(to_cell<D>(cell)) ? 1 : 0;
    return LWC_OK;
  });
}

template <std::size_t D>
lwc_status view_origin(const char* kCall, const void* handle, int64_t* origin, uint64_t* version) {
  LWC_C_REQUIRE(origin);
  LWC_C_REQUIRE(version);
  return with_view<D>(kCall, handle, [&](const lwc::OriginCoordinator<D>& v) {
    for (std::size_t k = 0; k < D; ++k) origin[k] = v.origin()[k];
    *version = v.version();
    return LWC_OK;
  });
}

}  // namespace

LWC_API lwc_status lwc_origin_coordinator2_load(lwc_origin_coordinator2* view, const int64_t cell[2]) {
  return view_cell<2>("lwc_origin_coordinator2_load", view, cell,
                      [](lwc::OriginCoordinator<2>& v, const lwc::CellIndex<2>& c) { v.load(c); });
}
LWC_API lwc_status lwc_origin_coordinator3_load(lwc_origin_coordinator3* view, const int64_t cell[3]) {
  return view_cell<3>("lwc_origin_coordinator3_load", view, cell,
                      [](lwc::OriginCoordinator<3>& v, const lwc::CellIndex<3>& c) { v.load(c); });
}
LWC_API lwc_status lwc_origin_coordinator2_unload(lwc_origin_coordinator2* view, const int64_t cell[2]) {
  return view_cell<2>("lwc_origin_coordinator2_unload", view, cell,
                      [](lwc::OriginCoordinator<2>& v, const lwc::CellIndex<2>& c) { v.unload(c); });
}
LWC_API lwc_status lwc_origin_coordinator3_unload(lwc_origin_coordinator3* view, const int64_t cell[3]) {
  return view_cell<3>("lwc_origin_coordinator3_unload", view, cell,
                      [](lwc::OriginCoordinator<3>& v, const lwc::CellIndex<3>& c) { v.unload(c); });
}
LWC_API lwc_status lwc_origin_coordinator2_is_loaded(const lwc_origin_coordinator2* view, const int64_t cell[2],
                                                     int* out) {
  return view_is_loaded<2>("lwc_origin_coordinator2_is_loaded", view, cell, out);
}
LWC_API lwc_status lwc_origin_coordinator3_is_loaded(const lwc_origin_coordinator3* view, const int64_t cell[3],
                                                     int* out) {
  return view_is_loaded<3>("lwc_origin_coordinator3_is_loaded", view, cell, out);
}
LWC_API lwc_status lwc_origin_coordinator2_origin(const lwc_origin_coordinator2* view, int64_t origin[2],
                                                  uint64_t* version) {
  return view_origin<2>("lwc_origin_coordinator2_origin", view, origin, version);
}
LWC_API lwc_status lwc_origin_coordinator3_origin(const lwc_origin_coordinator3* view, int64_t origin[3],
                                                  uint64_t* version) {
  return view_origin<3>("lwc_origin_coordinator3_origin", view, origin, version);
}
LWC_API lwc_status lwc_origin_coordinator2_plan(const lwc_origin_coordinator2* view,
                                                const lwc_world_position2* observer, lwc_rebase_plan2* out,
                                                int* planned) {
  return view_plan<2>("lwc_origin_coordinator2_plan", view, observer, out, planned);
}
LWC_API lwc_status lwc_origin_coordinator3_plan(const lwc_origin_coordinator3* view,
                                                const lwc_world_position3* observer, lwc_rebase_plan3* out,
                                                int* planned) {
  return view_plan<3>("lwc_origin_coordinator3_plan", view, observer, out, planned);
}
LWC_API lwc_status lwc_origin_coordinator2_commit(lwc_origin_coordinator2* view, const lwc_rebase_plan2* plan,
                                                  lwc_rebased2* out) {
  return view_commit<2>("lwc_origin_coordinator2_commit", view, plan, out);
}
LWC_API lwc_status lwc_origin_coordinator3_commit(lwc_origin_coordinator3* view, const lwc_rebase_plan3* plan,
                                                  lwc_rebased3* out) {
  return view_commit<3>("lwc_origin_coordinator3_commit", view, plan, out);
}
LWC_API lwc_status lwc_origin_coordinator2_to_render(const lwc_origin_coordinator2* view,
                                                     const lwc_world_position2* p, lwc_render_point2* out) {
  return view_to_render<2>("lwc_origin_coordinator2_to_render", view, p, out);
}
LWC_API lwc_status lwc_origin_coordinator3_to_render(const lwc_origin_coordinator3* view,
                                                     const lwc_world_position3* p, lwc_render_point3* out) {
  return view_to_render<3>("lwc_origin_coordinator3_to_render", view, p, out);
}
LWC_API lwc_status lwc_origin_coordinator2_start_late(const lwc_origin_coordinator2* view,
                                                      const lwc_world_position2* anchor, int placement,
                                                      lwc_late_result2* out) {
  return view_start_late<2>("lwc_origin_coordinator2_start_late", view, anchor, placement, out);
}
LWC_API lwc_status lwc_origin_coordinator3_start_late(const lwc_origin_coordinator3* view,
                                                      const lwc_world_position3* anchor, int placement,
                                                      lwc_late_result3* out) {
  return view_start_late<3>("lwc_origin_coordinator3_start_late", view, anchor, placement, out);
}
LWC_API lwc_status lwc_origin_coordinator2_place_late(const lwc_origin_coordinator2* view,
                                                      const lwc_late_result2* result, lwc_render_point2* out) {
  return view_place_late<2>("lwc_origin_coordinator2_place_late", view, result, out);
}
LWC_API lwc_status lwc_origin_coordinator3_place_late(const lwc_origin_coordinator3* view,
                                                      const lwc_late_result3* result, lwc_render_point3* out) {
  return view_place_late<3>("lwc_origin_coordinator3_place_late", view, result, out);
}

// lwc.commit ---------------------------------------------------------------------------------------

LWC_API lwc_status lwc_committer_create(int64_t chunk_size, lwc_committer** out) {
  static constexpr const char* kCall = "lwc_committer_create";
  LWC_C_REQUIRE(out);
  return guarded(kCall, [&] {
    const absl::StatusOr<lwc::ChunkSize> s = make_chunk_size(chunk_size);
    if (!s.ok()) return fail(s.status());
    *out = issue<lwc_committer>(Kind::kCommitter, std::make_shared<Committer>(*s));
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_committer_destroy(lwc_committer* committer) {
  return retire(committer, Kind::kCommitter) ? LWC_OK : bad_handle("lwc_committer_destroy");
}

LWC_API lwc_status lwc_committer_mark(lwc_committer* committer, lwc_int2 cell) {
  return with_committer("lwc_committer_mark", committer, [&](Committer& c) {
    c.mark(to_int2(cell));
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_committer_chunk_of(const lwc_committer* committer, lwc_int2 cell, lwc_int2* out) {
  static constexpr const char* kCall = "lwc_committer_chunk_of";
  LWC_C_REQUIRE(out);
  return with_committer(kCall, committer, [&](const Committer& c) {
    *out = from_int2(c.chunk_of(to_int2(cell)));
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_committer_pending_chunks(const lwc_committer* committer, size_t* out) {
  static constexpr const char* kCall = "lwc_committer_pending_chunks";
  LWC_C_REQUIRE(out);
  return with_committer(kCall, committer, [&](const Committer& c) {
    *out = c.pending_chunks();
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_committer_pending_runs(const lwc_committer* committer, lwc_chunk_run* out, size_t capacity,
                                              size_t* count) {
  static constexpr const char* kCall = "lwc_committer_pending_runs";
  LWC_C_REQUIRE_ARRAY(out, capacity);
  LWC_C_REQUIRE(count);
  return with_committer(kCall, committer, [&](const Committer& c) {
    return write_list(kCall, c.pending_runs(), out, capacity, count, from_run);
  });
}

LWC_API lwc_status lwc_committer_generation(const lwc_committer* committer, uint64_t* out) {
  static constexpr const char* kCall = "lwc_committer_generation";
  LWC_C_REQUIRE(out);
  return with_committer(kCall, committer, [&](const Committer& c) {
    *out = c.generation();
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_committer_commit(lwc_committer* committer, lwc_prepare_fn prepare, void* user,
                                        int64_t run_budget, lwc_commit_report* report) {
  static constexpr const char* kCall = "lwc_committer_commit";
  LWC_C_REQUIRE(prepare);
  return with_committer(kCall, committer, [&](Committer& c) {
    const absl::StatusOr<lwc::RunBudget> budget = lwc::RunBudget::create(run_budget);
    if (!budget.ok()) return fail(budget.status());
    const absl::StatusOr<lwc::CommitReport> r = c.commit(
        [&](const lwc::ChunkRun& run) -> absl::StatusOr<std::uint64_t> {
          const lwc_chunk_run in = from_run(run);
          std::uint64_t snapshot = 0;
          const int s = prepare(user, &in, &snapshot);
          if (s == LWC_OK) return snapshot;
          return absl::Status(callback_code(s), absl::StrCat("the prepare callback returned ", s, " (",
                                                             lwc_status_name(s), ")"));
        },
        *budget);
    if (!r.ok()) return fail(r.status());
    if (report != nullptr) {
      *report = {r->sequence, r->generation, r->runs_published, r->chunks_published, r->chunks_cleared,
                 r->chunks_pending};
    }
    return LWC_OK;
  });
}

LWC_API lwc_status lwc_committer_published(const lwc_committer* committer, lwc_batch_info* info,
                                           lwc_batch_entry* entries, size_t capacity, size_t* count) {
  static constexpr const char* kCall = "lwc_committer_published";
  LWC_C_REQUIRE(info);
  LWC_C_REQUIRE_ARRAY(entries, capacity);
  LWC_C_REQUIRE(count);
  return with_committer(kCall, committer, [&](const Committer& c) {
    const std::shared_ptr<const Committer::BatchType> batch = c.published();
    const lwc_status s = write_list(kCall, batch->entries, entries, capacity, count,
                                    [](const Committer::BatchType::Entry& e) {
                                      return lwc_batch_entry{from_run(e.run), e.snapshot};
                                    });
    if (s == LWC_OK) *info = {batch->sequence, batch->generation};
    return s;
  });
}

// For the C API's other units (capi/draw.cc): a failure recorded as the calling thread's message (F2).
lwc_status lwc_c_fail(lwc_status code, std::string message) { return fail(code, std::move(message)); }
