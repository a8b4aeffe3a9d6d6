// SPDX-License-Identifier: MIT
// File: fuzz/c_api_fuzzer.cc
//
// libFuzzer target for the C API boundary (capi/include/lwc.h, docs/c_api.md): a sequence of calls with
// arbitrary values (raw 64-bit words, so every int64 and double bit pattern is reachable), NULLs, counts and
// capacities, and arbitrary handles — live, destroyed, of another kind, or any integer cast to a handle.
// Every output starts poisoned; an error that wrote one traps (F3, F4), as does a disagreement with the
// C++ call (F1), a stale or foreign handle that is not refused (F5), a double destroy that succeeds, or a
// persistent grid whose C and C++ twins part (F6): in events with their payloads, filters, queries and rays
// (float boxes included), a callback that re-enters its grid and is not refused (F7), or a pair list that
// disagrees with find_pairs on the caller's layout or changes on a failed call (F8). Memory errors and UB
// trap through ASan + UBSan.
//
// lwc-clauses: F1 F3 F4 F5 F6 F7 F8
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../tests/support/poison.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fuzz_support.h"
#include "lwc.h"

import lwc;

namespace {

using lwc::fuzzing::word;

void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "C API clause violated: %s\n", what);
  __builtin_trap();
}

// A byte pattern no call writes (tests/support/poison.h): fill an output, check it survived (F3, F4).
using lwc::testing::poisoned;
using lwc::testing::untouched;

lwc_status code_of(const absl::Status& s) { return static_cast<lwc_status>(s.code()); }

double any_double(FuzzedDataProvider& in) { return std::bit_cast<double>(word(in)); }
std::int64_t any_int64(FuzzedDataProvider& in) { return std::bit_cast<std::int64_t>(word(in)); }

lwc_box2 any_box(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return {{any_double(in), any_double(in)}, {any_double(in), any_double(in)}};
  const double x = in.ConsumeIntegralInRange<int>(-40, 40) / 2.0;
  const double y = in.ConsumeIntegralInRange<int>(-40, 40) / 2.0;
  return {{x, y}, {x + in.ConsumeIntegralInRange<int>(0, 8) / 2.0, y + in.ConsumeIntegralInRange<int>(0, 8) / 2.0}};
}

lwc::Box2 to_cpp(const lwc_box2& b) { return {{b.min[0], b.min[1]}, {b.max[0], b.max[1]}}; }

lwc::Filter any_filter(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return {};
    case 1: return {2, ~std::uint64_t{2}};
    case 2: return {4, 1};
    default: return {word(in), word(in)};
  }
}

// A float box with the bounds of `b` where each is a float (else a box of zeros: still a valid box).
bool float_box(const lwc_box2& b, lwc_float_box2& out) {
  const double v[4] = {b.min[0], b.min[1], b.max[0], b.max[1]};
  float f[4];
  for (int i = 0; i < 4; ++i) {
    if (std::isnan(v[i]) || (std::isfinite(v[i]) && std::fabs(v[i]) > std::numeric_limits<float>::max())) return false;
    f[i] = static_cast<float>(v[i]);
    if (static_cast<double>(f[i]) != v[i]) return false;
  }
  out = {{f[0], f[1]}, {f[2], f[3]}};
  return true;
}

// What a query or ray visitor does (F7): one call on its own grid, which must be refused, then go on or stop.
struct Visit {
  lwc_persistent_grid2* grid;
  int action;
  int stop_after;
  int calls = 0;
  bool refused = true;
};

int visit(void* context, lwc_handle handle, uintptr_t) {
  auto* v = static_cast<Visit*>(context);
  const lwc_box2 box{{0, 0}, {1, 1}};
  std::int64_t n = 0;
  lwc_status s = LWC_OK;
  switch (v->action) {
    case 0: s = lwc_persistent_grid2_move(v->grid, handle, &box, LWC_MOTION_TELEPORT); break;
    case 1: s = lwc_persistent_grid2_remove(v->grid, handle); break;
    case 2: s = lwc_persistent_grid2_update(v->grid, nullptr); break;
    case 3: s = lwc_persistent_grid2_size(v->grid, &n); break;
    default: s = lwc_persistent_grid2_destroy(v->grid); break;
  }
  v->refused = v->refused && s == LWC_FAILED_PRECONDITION;
  return ++v->calls < v->stop_after ? 1 : 0;
}

int visit_ray(void* context, lwc_handle handle, uintptr_t user, double) { return visit(context, handle, user); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const lwc_grid_config config = lwc_grid_config_default();
  lwc_persistent_grid2* grid = nullptr;
  require(lwc_persistent_grid2_create(&config, nullptr, nullptr, &grid) == LWC_OK, "create a persistent grid");
  absl::StatusOr<lwc::PersistentGrid<2>> twin = lwc::PersistentGrid<2>::create(lwc::GridConfig{});
  std::vector<lwc::Handle> boxes;
  std::vector<void*> dead;  // destroyed handles (F5: refused for ever)
  lwc_committer* committer = nullptr;
  require(lwc_committer_create(16, &committer) == LWC_OK, "create a committer");

  for (int step = 0; step < 64 && in.remaining_bytes() > 0; ++step) {
    switch (in.ConsumeIntegralInRange<int>(0, 13)) {
      case 0: {  // split, any size, NULL or not (F1, F3)
        const std::int64_t x = any_int64(in);
        const std::int64_t s = any_int64(in);
        const bool null = in.ConsumeBool();
        lwc_chunk_point p = poisoned<lwc_chunk_point>();
        const lwc_status got = lwc_split(x, s, null ? nullptr : &p);
        const absl::StatusOr<lwc::ChunkSize> cpp = lwc::ChunkSize::create(s);
        if (null) {
          require(got == LWC_INVALID_ARGUMENT, "F3 NULL out refused");
        } else {
          require(got == code_of(cpp.status()), "F1 split code");
          if (cpp.ok()) {
            const lwc::ChunkPoint q = lwc::split(x, *cpp);
            require(p.chunk == q.chunk && p.local == q.local, "F1 split result");
          }
        }
        if (got != LWC_OK) require(untouched(p), "F3 split wrote on error");
        break;
      }
      case 1: {  // cell_of (F1, F3)
        const double v = any_double(in);
        const double h = any_double(in);
        std::int64_t cell = 0x5a5a;
        const lwc_status got = lwc_cell_of(v, h, &cell);
        const absl::StatusOr<std::int64_t> cpp = lwc::cell_of(v, h);
        require(got == code_of(cpp.status()), "F1 cell_of code");
        require(cell == (cpp.ok() ? *cpp : 0x5a5a), "F1/F3 cell_of result");
        break;
      }
      case 2: {  // cell_of_all with a NULL or short array, any count (F3)
        std::vector<double> vs(in.ConsumeIntegralInRange<std::size_t>(0, 8));
        for (double& v : vs) v = any_double(in);
        std::vector<std::int64_t> out(vs.size(), 77);
        const bool null = in.ConsumeBool() && !vs.empty();
        const lwc_status got = lwc_cell_of_all(null ? nullptr : vs.data(), vs.size(), any_double(in), out.data());
        if (null) require(got == LWC_INVALID_ARGUMENT, "F3 NULL array refused");
        if (got != LWC_OK) {
          for (const std::int64_t c : out) require(c == 77, "F3 cell_of_all wrote on error");
        }
        break;
      }
      case 3: {  // find_pairs with any capacity (F1, F4)
        std::vector<lwc_box2> bs(in.ConsumeIntegralInRange<std::size_t>(0, 12));
        for (lwc_box2& b : bs) b = any_box(in);
        const std::size_t capacity = in.ConsumeIntegralInRange<std::size_t>(0, 80);
        std::vector<lwc_pair> pairs(capacity, poisoned<lwc_pair>());
        std::size_t count = 12345;
        const lwc_status got =
            lwc_find_pairs2(bs.data(), bs.size(), &config, pairs.data(), capacity, &count, nullptr);
        std::vector<lwc::Box2> cb;
        for (const lwc_box2& b : bs) cb.push_back(to_cpp(b));
        const absl::StatusOr<lwc::PairsResult> cpp = lwc::find_pairs(cb, lwc::GridConfig{});
        if (!cpp.ok()) {
          require(got == code_of(cpp.status()) && count == 12345u, "F1/F3 find_pairs error");
        } else if (cpp->pairs.size() > capacity) {
          require(got == LWC_BUFFER_TOO_SMALL && count == cpp->pairs.size(), "F4 count needed");
          for (const lwc_pair& p : pairs) require(untouched(p), "F4 wrote into a small buffer");
        } else {
          require(got == LWC_OK && count == cpp->pairs.size(), "F1 find_pairs count");
          for (std::size_t i = 0; i < count; ++i) {
            require(pairs[i].a == cpp->pairs[i].a && pairs[i].b == cpp->pairs[i].b, "F1 find_pairs pair");
          }
        }
        break;
      }
      case 4: {  // insert into both twins, with a payload and filter, as doubles or floats (F6)
        const lwc_box2 b = any_box(in);
        const auto user = static_cast<uintptr_t>(in.ConsumeIntegralInRange<int>(0, 5));
        const lwc::Filter filter = any_filter(in);
        lwc_float_box2 fb;
        const bool as_float = float_box(b, fb) && in.ConsumeBool();
        lwc_handle h = poisoned<lwc_handle>();
        const lwc_status got =
            as_float ? lwc_persistent_grid2_insertf(grid, &fb, user, {filter.group, filter.mask}, &h)
                     : lwc_persistent_grid2_insert(grid, &b, user, {filter.group, filter.mask}, &h);
        const absl::StatusOr<lwc::Handle> want = twin->insert(to_cpp(b), user, filter);
        require(got == code_of(want.status()), "F6 insert code");
        if (want.ok()) {
          require(h.slot == want->slot && h.generation == want->generation, "F6 insert handle");
          boxes.push_back(*want);
        } else {
          require(untouched(h), "F3 insert wrote on error");
        }
        break;
      }
      case 5: {  // move or remove any box handle, live or stale or made up (F6)
        lwc::Handle h{static_cast<std::uint32_t>(word(in)), static_cast<std::uint32_t>(word(in))};
        if (!boxes.empty() && in.ConsumeBool()) {
          h = boxes[in.ConsumeIntegralInRange<std::size_t>(0, boxes.size() - 1)];
        }
        if (in.ConsumeBool()) {
          require(lwc_persistent_grid2_remove(grid, {h.slot, h.generation}) == code_of(twin->remove(h)),
                  "F6 remove code");
        } else {
          const lwc_box2 b = any_box(in);
          const int motion = in.ConsumeIntegralInRange<int>(-1, 2);
          const lwc_status got = lwc_persistent_grid2_move(grid, {h.slot, h.generation}, &b, motion);
          if (motion == LWC_MOTION_TELEPORT || motion == LWC_MOTION_SWEPT) {
            const absl::Status want =
                twin->move(h, to_cpp(b), motion == LWC_MOTION_SWEPT ? lwc::Motion::kSwept : lwc::Motion::kTeleport);
            require(got == code_of(want), "F6 move code");
          } else {
            require(got == LWC_INVALID_ARGUMENT, "F3 bad motion refused");
          }
        }
        break;
      }
      case 6: {  // update both twins and compare the began list with any capacity (F4, F6)
        const lwc_status got = lwc_persistent_grid2_update(grid, nullptr);
        const absl::StatusOr<lwc::ContactEvents> want = twin->update();
        require(got == code_of(want.status()), "F6 update code");
        if (!want.ok()) break;
        const std::size_t capacity = in.ConsumeIntegralInRange<std::size_t>(0, 40);
        std::vector<lwc_contact> began(capacity, poisoned<lwc_contact>());
        std::size_t count = 0;
        const lwc_status read = lwc_persistent_grid2_events(grid, LWC_EVENTS_BEGAN, began.data(), capacity, &count);
        require(count == want->began.size(), "F4/F6 began count");
        if (count > capacity) {
          require(read == LWC_BUFFER_TOO_SMALL, "F4 small buffer");
          for (const lwc_contact& c : began) require(untouched(c), "F4 wrote into a small buffer");
        } else {
          require(read == LWC_OK, "F6 events read");
          for (std::size_t i = 0; i < count; ++i) {
            require(began[i].a.slot == want->began[i].a.slot && began[i].b.slot == want->began[i].b.slot &&
                        began[i].b.generation == want->began[i].b.generation &&
                        began[i].user_a == want->began[i].user_a && began[i].user_b == want->began[i].user_b,
                    "F6 began contact");
          }
        }
        break;
      }
      case 7: {  // any handle value for any kind: only the live one of the right kind is accepted (F5)
        void* h = nullptr;
        switch (in.ConsumeIntegralInRange<int>(0, 3)) {
          // A forged handle: any address at all, which the C API must refuse without dereferencing it.
          case 0: h = reinterpret_cast<void*>(static_cast<std::uintptr_t>(word(in))); break;  // NOLINT(performance-no-int-to-ptr)
          case 1: h = dead.empty() ? nullptr : dead[in.ConsumeIntegralInRange<std::size_t>(0, dead.size() - 1)]; break;
          case 2: h = grid; break;
          default: h = committer; break;
        }
        std::int64_t n = -1;
        const lwc_status got = lwc_persistent_grid2_size(static_cast<lwc_persistent_grid2*>(h), &n);
        require((got == LWC_OK) == (h == static_cast<void*>(grid)), "F5 only the live grid is a grid");
        if (got != LWC_OK) require(n == -1, "F3 size wrote on error");
        std::uint64_t generation = 0;
        const lwc_status g = lwc_committer_generation(static_cast<lwc_committer*>(h), &generation);
        require((g == LWC_OK) == (h == static_cast<void*>(committer)), "F5 only the live committer is one");
        break;
      }
      case 8: {  // destroy and recreate the committer: the old id is refused, also for a second destroy (F5)
        void* old = committer;
        require(lwc_committer_destroy(committer) == LWC_OK, "F5 destroy a live handle");
        require(lwc_committer_destroy(static_cast<lwc_committer*>(old)) == LWC_INVALID_ARGUMENT, "F5 destroyed once");
        dead.push_back(old);
        require(lwc_committer_create(in.ConsumeIntegralInRange<std::int64_t>(-2, 64), &committer) == LWC_OK ||
                    (committer = nullptr, lwc_committer_create(16, &committer) == LWC_OK),
                "create a committer");
        require(committer != old, "F5 an id is never reissued");
        break;
      }
      case 10: {  // a query or ray into any buffer against the twin's hits (F1, F4, F6)
        const lwc_box2 probe = any_box(in);
        const std::size_t capacity = in.ConsumeIntegralInRange<std::size_t>(0, 12);
        std::size_t count = 12345;
        if (in.ConsumeBool()) {
          std::vector<lwc_query_hit> want;
          const absl::Status s = twin->query(to_cpp(probe), [&](lwc::Handle h, lwc::UserData u) {
            want.push_back({{h.slot, h.generation}, u});
            return true;
          });
          std::sort(want.begin(), want.end(), [](const lwc_query_hit& a, const lwc_query_hit& b) {
            return a.handle.slot < b.handle.slot;
          });
          std::vector<lwc_query_hit> hits(capacity, poisoned<lwc_query_hit>());
          lwc_float_box2 fb;
          const lwc_status got = float_box(probe, fb) && in.ConsumeBool()
                                     ? lwc_persistent_grid2_queryf(grid, &fb, hits.data(), capacity, &count)
                                     : lwc_persistent_grid2_query(grid, &probe, hits.data(), capacity, &count);
          if (!s.ok()) {
            require(got == code_of(s) && count == 12345u, "F1/F3 query error");
          } else if (want.size() > capacity) {
            require(got == LWC_BUFFER_TOO_SMALL && count == want.size(), "F4 query count");
            for (const lwc_query_hit& h : hits) require(untouched(h), "F4 query wrote into a small buffer");
          } else {
            require(got == LWC_OK && count == want.size(), "F6 query count");
            for (std::size_t i = 0; i < count; ++i) {
              require(hits[i].handle.slot == want[i].handle.slot && hits[i].user == want[i].user, "F6 query hit");
            }
          }
        } else {
          const lwc_segment2 seg{{probe.min[0], probe.min[1]}, {probe.max[0], probe.max[1]}};
          std::vector<lwc_ray_hit> want;
          const absl::Status s = twin->raycast({{seg.from[0], seg.from[1]}, {seg.to[0], seg.to[1]}},
                                               [&](lwc::Handle h, lwc::UserData u, double t) {
                                                 want.push_back({{h.slot, h.generation}, u, t});
                                                 return true;
                                               });
          std::vector<lwc_ray_hit> hits(capacity, poisoned<lwc_ray_hit>());
          const lwc_status got = lwc_persistent_grid2_raycast(grid, &seg, hits.data(), capacity, &count);
          if (!s.ok()) {
            require(got == code_of(s) && count == 12345u, "F1/F3 raycast error");
          } else if (want.size() > capacity) {
            require(got == LWC_BUFFER_TOO_SMALL && count == want.size(), "F4 raycast count");
          } else {
            require(got == LWC_OK && count == want.size(), "F6 raycast count");
            for (std::size_t i = 0; i < count; ++i) {
              require(hits[i].handle.slot == want[i].handle.slot &&
                          std::bit_cast<std::uint64_t>(hits[i].t) == std::bit_cast<std::uint64_t>(want[i].t),
                      "F6 raycast hit");
            }
          }
        }
        break;
      }
      case 11: {  // a visitor that calls its own grid: refused every time, nothing changed (F7)
        const lwc_box2 probe = any_box(in);
        Visit v{grid, in.ConsumeIntegralInRange<int>(0, 4), in.ConsumeIntegralInRange<int>(1, 4)};
        std::int64_t before = -1;
        std::size_t pending_before = 0;
        require(lwc_persistent_grid2_size(grid, &before) == LWC_OK, "size");
        require(lwc_persistent_grid2_pending(grid, &pending_before) == LWC_OK, "pending");
        lwc_status got;
        absl::Status want;
        if (in.ConsumeBool()) {
          got = lwc_persistent_grid2_query_each(grid, &probe, visit, &v);
          want = twin->query(to_cpp(probe), [](lwc::Handle, lwc::UserData) { return true; });
        } else {
          const lwc_segment2 seg{{probe.min[0], probe.min[1]}, {probe.max[0], probe.max[1]}};
          got = lwc_persistent_grid2_raycast_each(grid, &seg, visit_ray, &v);
          want = twin->raycast({{seg.from[0], seg.from[1]}, {seg.to[0], seg.to[1]}},
                               [](lwc::Handle, lwc::UserData, double) { return true; });
        }
        require(got == code_of(want), "F1 visitor walk code");
        require(v.refused, "F7 a callback re-entered its grid");
        require(v.calls <= v.stop_after, "F7 the walk went on after the visitor stopped it");
        std::int64_t after = -2;
        std::size_t pending_after = 0;
        require(lwc_persistent_grid2_size(grid, &after) == LWC_OK && after == before, "F7 size changed");
        require(lwc_persistent_grid2_pending(grid, &pending_after) == LWC_OK && pending_after == pending_before,
                "F7 pending changed");
        break;
      }
      case 12: {  // find_pairs over any layout into a pair list; a failure keeps the list (F3, F8)
        struct Aabb {
          double lower[2];
          std::uint32_t tag;
          double upper[2];
        };
        std::vector<Aabb> aabbs(in.ConsumeIntegralInRange<std::size_t>(0, 10));
        std::vector<lwc::Box2> cb;
        for (Aabb& a : aabbs) {
          const lwc_box2 b = any_box(in);
          a = {{b.min[0], b.min[1]}, 9, {b.max[0], b.max[1]}};
          cb.push_back(to_cpp(b));
        }
        lwc_box_view view{aabbs.empty() ? nullptr : aabbs[0].lower, aabbs.empty() ? nullptr : aabbs[0].upper,
                          aabbs.size(), sizeof(Aabb), LWC_REAL_DOUBLE};
        const int defect = in.ConsumeIntegralInRange<int>(0, 5);
        if (defect == 1) view.real = in.ConsumeIntegral<int>();
        // A stride up to the element's size stays inside the array (a larger one would be the caller's
        // overrun, not the library's); one that is not a multiple of alignof(double) is refused (B13).
        if (defect == 2) view.stride = in.ConsumeIntegralInRange<std::size_t>(0, sizeof(Aabb));
        lwc_pair_list* list = nullptr;
        require(lwc_pair_list_create(&list) == LWC_OK, "create a pair list");
        const lwc_box2 seed[2] = {{{0, 0}, {1, 1}}, {{0, 0}, {1, 1}}};
        const lwc_box_view seed_view{seed[0].min, seed[0].max, 2, sizeof(lwc_box2), LWC_REAL_DOUBLE};
        require(lwc_find_pairs2_view(&seed_view, &config, list, nullptr) == LWC_OK, "seed the pair list");
        lwc_stats stats = poisoned<lwc_stats>();
        const lwc_status got = lwc_find_pairs2_view(&view, &config, list, &stats);
        const lwc_pair* pairs = nullptr;
        std::size_t count = 0;
        require(lwc_pair_list_pairs(list, &pairs, &count) == LWC_OK, "read the pair list");
        if (view.real != LWC_REAL_DOUBLE && view.real != LWC_REAL_FLOAT) {
          require(got == LWC_INVALID_ARGUMENT, "F3 a bad real is refused");
        } else if (defect != 2 || view.stride == sizeof(Aabb)) {
          const absl::StatusOr<lwc::PairsResult> cpp = lwc::find_pairs(cb, lwc::GridConfig{});
          require(got == code_of(cpp.status()), "F8 code");
          if (cpp.ok()) {
            require(count == cpp->pairs.size() && stats.pairs == cpp->stats.pairs, "F8 count");
            for (std::size_t i = 0; i < count; ++i) {
              require(pairs[i].a == cpp->pairs[i].a && pairs[i].b == cpp->pairs[i].b, "F8 pair");
            }
          }
        }
        if (got != LWC_OK) {
          require(untouched(stats), "F3 stats written on error");
          require(count == 1 && pairs[0].a == 0 && pairs[0].b == 1, "F8 a failed call changed the list");
        }
        require(lwc_pair_list_destroy(list) == LWC_OK, "destroy the pair list");
        break;
      }
      case 13: {  // change a payload or a filter, or refilter, on both twins (F6)
        lwc::Handle h{static_cast<std::uint32_t>(word(in)), static_cast<std::uint32_t>(word(in))};
        if (!boxes.empty() && in.ConsumeBool()) h = boxes[in.ConsumeIntegralInRange<std::size_t>(0, boxes.size() - 1)];
        const lwc_handle ch{h.slot, h.generation};
        switch (in.ConsumeIntegralInRange<int>(0, 2)) {
          case 0: {
            const auto user = static_cast<uintptr_t>(in.ConsumeIntegralInRange<int>(0, 5));
            require(lwc_persistent_grid2_set_user_data(grid, ch, user) == code_of(twin->set_user_data(h, user)),
                    "F6 set_user_data code");
            break;
          }
          case 1: {
            const lwc::Filter f = any_filter(in);
            require(lwc_persistent_grid2_set_filter(grid, ch, {f.group, f.mask}) == code_of(twin->set_filter(h, f)),
                    "F6 set_filter code");
            break;
          }
          default:
            require(lwc_persistent_grid2_refilter(grid, ch) == code_of(twin->refilter(h)), "F6 refilter code");
            break;
        }
        break;
      }
      default: {  // mark and commit with a prepare that fails at a chosen run (F6 via T4)
        const int marks = in.ConsumeIntegralInRange<int>(0, 4);
        for (int i = 0; i < marks; ++i) {
          require(lwc_committer_mark(committer, {any_int64(in), in.ConsumeIntegralInRange<std::int64_t>(-64, 64)}) ==
                      LWC_OK,
                  "mark");
        }
        std::size_t before = 0;
        require(lwc_committer_pending_chunks(committer, &before) == LWC_OK, "pending");
        int fail_at = in.ConsumeIntegralInRange<int>(-1, 3);
        lwc_commit_report report = poisoned<lwc_commit_report>();
        const lwc_status got = lwc_committer_commit(
            committer,
            [](void* user, const lwc_chunk_run*, std::uint64_t* snapshot) -> int {
              int& left = *static_cast<int*>(user);
              if (left-- == 0) return LWC_DATA_LOSS;
              *snapshot = 1;
              return LWC_OK;
            },
            &fail_at, in.ConsumeIntegralInRange<std::int64_t>(0, 3), &report);
        if (got != LWC_OK) {
          require(untouched(report), "F3 commit wrote on error");
          std::size_t after = 0;
          require(lwc_committer_pending_chunks(committer, &after) == LWC_OK && after == before,
                  "T4 a failed commit clears nothing");
        }
        break;
      }
    }
  }
  require(lwc_persistent_grid2_destroy(grid) == LWC_OK, "destroy the grid");
  require(lwc_committer_destroy(committer) == LWC_OK, "destroy the committer");
  return 0;
}
