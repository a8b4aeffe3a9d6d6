// SPDX-License-Identifier: MIT
// File: properties/rebase_props.cc
//
// One RapidCheck property per R-clause of docs/rebase.md, named by clause id, over the extreme-biased
// generators of support/arbitrary_rebase.h and judged by lwc.contracts.rebase; and a model-based test
// (rc::state) of random operation sequences — observer moves, cell loads and unloads, plans, commits of
// current, stale and tampered plans, late results started and finished at random versions, render
// conversions both ways, injected failures — compared with the contract model after every step.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include <rapidcheck/state.h>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/arbitrary_decompose.h"
#include "support/property.h"
#include "support/arbitrary_rebase.h"
#include "lwc/exact_fp.h"

import lwc.rebase;
import lwc.contracts.rebase;

namespace {

using lwc::CellIndex;
using lwc::OriginCoordinator;
using lwc::RebasePlan;
using lwc::WorldPosition;
using lwc::contracts::RenderSpec;

// Fails the property with the checker's message (which names the clause).
void assert_ok(const absl::Status& status) {
  if (!status.ok()) RC_FAIL(std::string(status.message()));
}

lwc::ViewConfig config_of(const RenderSpec& spec, std::int64_t threshold = 2, std::int64_t radius = 1) {
  return *lwc::ViewConfig::create(threshold, radius, spec.units_per_render_unit, spec.bubble_units);
}

template <std::size_t D>
OriginCoordinator<D> make_view(const RenderSpec& spec, const CellIndex<D>& origin, std::uint64_t version = 0,
                               std::int64_t threshold = 2, std::int64_t radius = 1) {
  absl::StatusOr<OriginCoordinator<D>> v = OriginCoordinator<D>::create(
      *lwc::WorldGrid::create(*lwc::ChunkSize::create(spec.cell_size)), config_of(spec, threshold, radius), origin, version);
  RC_ASSERT(v.ok());
  return *std::move(v);
}

// An origin anywhere, ends of int64 favoured.
template <std::size_t D>
CellIndex<D> any_origin() {
  return *lwc::testing::cell_index<D>(rc::gen::weightedOneOf<std::int64_t>(
      {{2, rc::gen::just<std::int64_t>(0)}, {3, lwc::testing::any_cell()}, {1, rc::gen::inRange<std::int64_t>(-50, 51)}}));
}

template <std::size_t D>
void load_barrier(OriginCoordinator<D>& v, const CellIndex<D>& target) {
  for (const CellIndex<D>& c : v.missing_cells(target)) v.load(c);
}

LWC_PROP(Rebase, R1_NormaliseIsNearestWithCarryAndFixedPointIsExact, ()) {
  const std::int64_t size = *lwc::testing::rebase_cell_size();
  const lwc::WorldGrid grid = *lwc::WorldGrid::create(*lwc::ChunkSize::create(size));
  const CellIndex<3> cell = *lwc::testing::cell_index<3>(lwc::testing::any_cell());
  const std::array<double, 3> offset = {*lwc::testing::raw_offset(size), *lwc::testing::raw_offset(size),
                                        *lwc::testing::raw_offset(size)};
  const absl::StatusOr<WorldPosition<3>> p = grid.normalize(cell, offset);
  RC_TAG(p.ok() ? "ok" : absl::StatusCodeToString(p.status().code()));
  assert_ok(lwc::contracts::check_normalize(size, cell, offset, p));
  if (p.ok()) assert_ok(grid.validate(*p));

  const lwc::FixedPoint<2> point{{*lwc::testing::any_int64(), *lwc::testing::any_int64()}};
  const WorldPosition<2> q = grid.from_fixed(point);
  assert_ok(lwc::contracts::check_fixed(size, point, q, grid.to_fixed(q)));
}

LWC_PROP(Rebase, R2_NoOperationWritesAnAuthoritativePosition, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  const CellIndex<2> origin = any_origin<2>();
  OriginCoordinator<2> view = make_view<2>(spec, origin);
  OriginCoordinator<2> other = make_view<2>(spec, any_origin<2>(), 0, 1, 0);
  const auto world = *rc::gen::resize(10, rc::gen::container<std::vector<WorldPosition<2>>>(
      rc::gen::weightedOneOf<WorldPosition<2>>({{4, lwc::testing::position_near<2>(spec, origin)},
                                                {1, rc::gen::map(lwc::testing::cell_index<2>(lwc::testing::any_cell()),
                                                                 [](CellIndex<2> c) {
                                                                   return WorldPosition<2>{c, {-1.0, 0x1p80}};
                                                                 })}})));
  // The authority after the calls, against a copy taken before them (R2): a view never writes a position.
  const std::vector<WorldPosition<2>> snapshot = world;  // NOLINT(performance-unnecessary-copy-initialization)
  std::vector<std::array<float, 2>> locals(world.size());
  for (OriginCoordinator<2>* v : {&view, &other}) {
    for (const WorldPosition<2>& p : world) {
      (void)v->to_render(p);
      (void)v->place_late(v->start_late(p, lwc::LatePlacement::kRelocatable));
      absl::StatusOr<std::optional<RebasePlan<2>>> plan = v->plan(p);
      if (plan.ok() && *plan) {
        load_barrier(*v, (*plan)->target);
        (void)v->commit(**plan);
        (void)v->commit(**plan);  // stale: fails
      }
    }
    (void)v->to_render_all(world, locals);
  }
  assert_ok(lwc::contracts::check_authority<2>(snapshot, world));
}

LWC_PROP(Rebase, R3_EveryRenderPointOfAVersionUsesItsOneOrigin, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  OriginCoordinator<2> view = make_view<2>(spec, any_origin<2>(), 0, 1, 0);
  lwc::contracts::OriginLog<2> log;
  const int steps = *rc::gen::inRange(1, 12);
  for (int i = 0; i < steps; ++i) {
    const WorldPosition<2> p = *lwc::testing::position_near<2>(spec, view.origin());
    absl::StatusOr<lwc::RenderPoint<2>> r = view.to_render(p);
    if (r.ok()) {
      RC_ASSERT(r->version == view.version());
      assert_ok(log.observe(r->version, view.origin()));
    }
    assert_ok(lwc::contracts::check_render(lwc::contracts::spec_of(view), view.origin(), view.version(), p, r));
    absl::StatusOr<std::optional<RebasePlan<2>>> plan = view.plan(p);
    if (plan.ok() && *plan) {
      load_barrier(view, (*plan)->target);
      const std::uint64_t before = view.version();
      absl::StatusOr<lwc::Rebased<2>> done = view.commit(**plan);
      RC_ASSERT(done.ok());
      RC_ASSERT(done->version == before + 1);
      assert_ok(log.observe(done->version, done->origin));
    }
  }
}

LWC_PROP(Rebase, R4_RenderIsTheNearestFloatToTheExactValue, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  const CellIndex<3> origin = any_origin<3>();
  const OriginCoordinator<3> view = make_view<3>(spec, origin, *rc::gen::arbitrary<std::uint64_t>());
  const bool tie = *rc::gen::arbitrary<bool>();
  const WorldPosition<3> p = tie ? *lwc::testing::position_on_float_midpoint<3>(spec, origin)
                                 : *lwc::testing::position_near<3>(spec, origin);
  const absl::StatusOr<lwc::RenderPoint<3>> r = view.to_render(p);
  RC_CLASSIFY(tie, "on a float midpoint");
  RC_TAG(r.ok() ? "inside" : absl::StatusCodeToString(r.status().code()));
  assert_ok(lwc::contracts::check_render(spec, origin, view.version(), p, r));
}

LWC_PROP(Rebase, R5_BubbleIsExactAndErrorIsWithinTheBound, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  const CellIndex<2> origin = any_origin<2>();
  const OriginCoordinator<2> view = make_view<2>(spec, origin);
  RC_ASSERT(view.render_error_bound() == lwc::contracts::render_error_bound(spec));
  // On the bubble's edge, one world unit either side, or anywhere near.
  const WorldPosition<2> p = *rc::gen::weightedOneOf<WorldPosition<2>>({
      {2, lwc::testing::position_near<2>(spec, origin)},
      {2, rc::gen::exec([spec, origin] {  // by value: shrinking replays generators later
         const lwc::WorldGrid grid = *lwc::WorldGrid::create(*lwc::ChunkSize::create(spec.cell_size));
         CellIndex<2> cell = origin;
         std::array<double, 2> offset{};  // one axis on the edge, the other at the origin
         const std::size_t a = *rc::gen::inRange<std::size_t>(0, 2);
         const double edge = static_cast<double>(spec.bubble_units) * *rc::gen::element(-1.0, 1.0);
         offset[a] = lwc::testing::step_ulps(edge + *rc::gen::element(-1.0, 0.0, 1.0), *rc::gen::inRange(-1, 2));
         const absl::StatusOr<WorldPosition<2>> q = grid.normalize(cell, offset);
         RC_PRE(q.ok());
         return *q;
       })},
  });
  const absl::StatusOr<lwc::RenderPoint<2>> r = view.to_render(p);
  bool on_edge = false;
  for (std::size_t a = 0; a < 2; ++a) {
    const absl::int128 w = (absl::int128(p.cell[a]) - origin[a]) * spec.cell_size + static_cast<std::int64_t>(p.offset[a]);
    on_edge |= (w == spec.bubble_units || w == -spec.bubble_units - 1) && p.offset[a] != std::floor(p.offset[a]);
  }
  RC_CLASSIFY(on_edge, "a hair past the edge");
  RC_TAG(r.ok() ? "inside" : "outside");
  assert_ok(lwc::contracts::check_render(spec, origin, 0, p, r));
  if (r.ok()) assert_ok(lwc::contracts::check_render_bound(spec, origin, p, *r));
}

LWC_PROP(Rebase, R6_BarrierHoldsAtPlanAndAgainAtCommit, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  const std::int64_t threshold = *rc::gen::inRange<std::int64_t>(1, 4);
  const std::int64_t radius = *rc::gen::inRange<std::int64_t>(0, 3);
  const CellIndex<2> origin = any_origin<2>();
  OriginCoordinator<2> view = make_view<2>(spec, origin, 0, threshold, radius);
  lwc::contracts::OriginModel<2> model(spec.cell_size, threshold, radius, origin, 0, view.id());
  const WorldPosition<2> observer{*lwc::testing::cell_index<2>(rc::gen::weightedOneOf<std::int64_t>(
                                      {{3, lwc::testing::cell_near(origin[0], threshold + 2)},
                                       {1, lwc::testing::any_cell()}})),
                                  {0.5, 0.0}};
  // Each barrier cell loaded with probability 7/8.
  for (const CellIndex<2>& c : view.missing_cells(observer.cell)) {
    if (*rc::gen::inRange(0, 8) != 0) {
      view.load(c);
      model.load(c);
    }
  }
  const absl::StatusOr<std::optional<RebasePlan<2>>> plan = view.plan(observer);
  RC_TAG(plan.ok() ? (*plan ? "plan" : "nothing") : "blocked");
  assert_ok(model.check_plan(observer, plan));
  if (!plan.ok() || !*plan) return;
  // Between plan and commit the streamer may unload any cell of the barrier.
  for (const CellIndex<2>& c : view.loaded_cells()) {
    if (*rc::gen::inRange(0, 10) == 0) {
      view.unload(c);
      model.unload(c);
    }
  }
  assert_ok(model.check_commit(**plan, view.commit(**plan)));
  assert_ok(model.check_view(view.origin(), view.version(), view.loaded_cells()));
}

LWC_PROP(Rebase, R7_EveryFailureLeavesTheViewAsItWas, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  const CellIndex<2> origin = any_origin<2>();
  const std::uint64_t version = *rc::gen::element<std::uint64_t>(0, 1, std::numeric_limits<std::uint64_t>::max(),
                                                                 std::numeric_limits<std::uint64_t>::max() - 1);
  OriginCoordinator<2> view = make_view<2>(spec, origin, version, 1, 1);
  const OriginCoordinator<2> other = make_view<2>(spec, origin, version, 1, 1);  // same state, another identity
  lwc::contracts::OriginModel<2> model(spec.cell_size, 1, 1, origin, version, view.id());
  const CellIndex<2> target = *lwc::testing::cell_index<2>(lwc::testing::any_cell());
  const bool load = *rc::gen::arbitrary<bool>();
  if (load) {
    for (const CellIndex<2>& c : view.missing_cells(target)) {
      view.load(c);
      model.load(c);
    }
  }
  // A plan that is stale, from another origin or another view (R12), unloaded, or due to exhaust the
  // version counter; sometimes committed inside a simulation step (R13).
  const RebasePlan<2> plan{*rc::gen::arbitrary<bool>() ? origin : target, target,
                           *rc::gen::arbitrary<bool>() ? version : (version ^ 1),
                           *rc::gen::inRange(0, 4) == 0 ? other.id() : view.id()};
  const bool mid_step = *rc::gen::inRange(0, 4) == 0;
  if (mid_step) assert_ok(model.check_begin_step(view.begin_step()));
  RC_CLASSIFY(mid_step, "mid-step");
  RC_CLASSIFY(plan.view != view.id(), "foreign view");
  const absl::StatusOr<lwc::Rebased<2>> got = view.commit(plan);
  RC_TAG(got.ok() ? "committed" : absl::StatusCodeToString(got.status().code()));
  assert_ok(model.check_commit(plan, got));
  assert_ok(model.check_view(view.origin(), view.version(), view.loaded_cells()));
  // Failing conversions, too, leave the view alone.
  (void)view.to_render(WorldPosition<2>{target, {-1.0, 0.0}});
  (void)view.from_render(lwc::RenderPoint<2>{{1.0f, 2.0f}, view.version() ^ 1, view.id()});
  (void)view.from_render(lwc::RenderPoint<2>{{1.0f, 2.0f}, view.version(), other.id()});
  (void)view.place_late(other.start_late(WorldPosition<2>{target, {0.0, 0.0}}, lwc::LatePlacement::kRelocatable));
  assert_ok(view.in_step() ? model.check_begin_step(view.begin_step()) : model.check_end_step(view.end_step()));
  (void)view.plan(WorldPosition<2>{target, {std::nan(""), 0.0}});
  assert_ok(model.check_view(view.origin(), view.version(), view.loaded_cells()));
  assert_ok(model.check_phase(view.in_step()));
}

LWC_PROP(Rebase, R8_ReplayedAndOutdatedPlansAreRejected, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  OriginCoordinator<2> view = make_view<2>(spec, any_origin<2>(), 0, 1, 0);
  lwc::contracts::OriginModel<2> model(spec.cell_size, 1, 0, view.origin(), 0, view.id());
  std::vector<RebasePlan<2>> plans;
  const int steps = *rc::gen::inRange(1, 8);
  for (int i = 0; i < steps; ++i) {
    const WorldPosition<2> observer{*lwc::testing::cell_index<2>(lwc::testing::cell_near(view.origin()[0], 5)), {0, 0}};
    view.load(observer.cell);
    model.load(observer.cell);
    const absl::StatusOr<std::optional<RebasePlan<2>>> plan = view.plan(observer);
    assert_ok(model.check_plan(observer, plan));
    if (plan.ok() && *plan) plans.push_back(**plan);
    if (!plans.empty()) {
      const RebasePlan<2> pick = *rc::gen::elementOf(plans);  // the newest, or a replayed older one
      RC_CLASSIFY(pick.expected_version != view.version(), "stale");
      assert_ok(model.check_commit(pick, view.commit(pick)));
    }
  }
}

LWC_PROP(Rebase, R9_LateResultsArePlacedFromTheirAnchorWhateverHappened, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  OriginCoordinator<3> view = make_view<3>(spec, any_origin<3>(), 0, 1, 0);
  std::vector<lwc::LateResult<3>> tickets;
  const int steps = *rc::gen::inRange(1, 10);
  for (int i = 0; i < steps; ++i) {
    const WorldPosition<3> anchor = *lwc::testing::position_near<3>(spec, view.origin());
    tickets.push_back(view.start_late(anchor, *rc::gen::element(lwc::LatePlacement::kRelocatable, lwc::LatePlacement::kBakedLocal)));
    const CellIndex<3> target = *lwc::testing::cell_index<3>(lwc::testing::cell_near(view.origin()[0], 3));
    view.load(target);
    if (target != view.origin()) RC_ASSERT(view.commit({view.origin(), target, view.version(), view.id()}).ok());
  }
  const OriginCoordinator<3> fresh = make_view<3>(spec, view.origin(), view.version());
  for (const lwc::LateResult<3>& t : tickets) {
    const absl::StatusOr<lwc::RenderPoint<3>> placed = view.place_late(t);
    assert_ok(lwc::contracts::check_late(spec, view.origin(), view.version(), view.id(), t, placed));
    // Path independence: the same bits as a view that was created at this origin and never rebased.
    if (t.placement == lwc::LatePlacement::kRelocatable) {
      const absl::StatusOr<lwc::RenderPoint<3>> now = fresh.to_render(t.anchor);
      RC_ASSERT(placed.ok() == now.ok());
      if (placed.ok()) {
        RC_ASSERT((std::bit_cast<std::array<std::uint32_t, 3>>(placed->at) ==
                   std::bit_cast<std::array<std::uint32_t, 3>>(now->at)));
      }
    }
  }
  // A ticket from a version the view never reached is refused.
  lwc::LateResult<3> future = tickets.front();
  future.started_version = view.version() + 1;
  assert_ok(lwc::contracts::check_late(spec, view.origin(), view.version(), view.id(), future, view.place_late(future)));
  // And a ticket of another view at the same origin and version is refused (R12).
  const OriginCoordinator<3> twin = make_view<3>(spec, view.origin(), view.version());
  const lwc::LateResult<3> foreign = twin.start_late(tickets.back().anchor, tickets.back().placement);
  assert_ok(lwc::contracts::check_late(spec, view.origin(), view.version(), view.id(), foreign, view.place_late(foreign)));
}

LWC_PROP_SCALED(Rebase, R10_ActiveObjectsNeverDriftOverManyRebases, 10, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  OriginCoordinator<2> view = make_view<2>(spec, any_origin<2>(), 0, 1, 0);
  const CellIndex<2> start = view.origin();
  const auto anchors = *rc::gen::resize(20, rc::gen::container<std::vector<WorldPosition<2>>>(
                                                lwc::testing::position_near<2>(spec, start)));
  // As an engine does: every frame re-derives the locals, whether or not a rebase happened in it, and
  // every frame is checked, so drift is caught at the first rebase that introduces it. (The frame loop
  // used to render only after a commit, so a run whose drawn targets all equalled the origin compared
  // never-rendered zeros with the exact rendering: RC_PARAMS seed 25304354280712, issue 21.)
  std::vector<std::array<float, 2>> locals(anchors.size());
  RC_ASSERT(view.to_render_all(anchors, locals).ok());
  assert_ok(lwc::contracts::check_no_drift<2>(spec, view.origin(), anchors, locals));
  const int frames = *rc::gen::inRange(1, 60);
  int rebases = 0;
  for (int i = 0; i < frames; ++i) {
    const CellIndex<2> target = *lwc::testing::cell_index<2>(lwc::testing::cell_near(start[0], 4));
    if (target != view.origin()) {
      view.load(target);
      RC_ASSERT(view.commit({view.origin(), target, view.version(), view.id()}).ok());
      ++rebases;
    }
    RC_ASSERT(view.to_render_all(anchors, locals).ok());
    assert_ok(lwc::contracts::check_no_drift<2>(spec, view.origin(), anchors, locals));
  }
  RC_CLASSIFY(rebases == 0, "no rebase drawn");
}

LWC_PROP(Rebase, R11_RenderToWorldRoundTripsAtAKnownVersion, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  const OriginCoordinator<2> view = make_view<2>(spec, any_origin<2>(), *rc::gen::inRange<std::uint64_t>(0, 3));
  lwc::RenderPoint<2> y{{*lwc::testing::any_float(), *lwc::testing::any_float()},
                        *rc::gen::weightedOneOf<std::uint64_t>({{8, rc::gen::just(view.version())},
                                                                {1, rc::gen::inRange<std::uint64_t>(0, 4)}}),
                        view.id()};
  const absl::StatusOr<WorldPosition<2>> world = view.from_render(y);
  const absl::StatusOr<lwc::RenderPoint<2>> again = world.ok() ? view.to_render(*world) : world.status();
  RC_TAG(world.ok() ? (again.ok() ? "round trip" : "outside the bubble") : absl::StatusCodeToString(world.status().code()));
  assert_ok(lwc::contracts::check_round_trip(spec, view.origin(), view.version(), view.id(), y, world, again));
  // And from the world side: a position rendered, then taken back, renders the same.
  const WorldPosition<2> p = *lwc::testing::position_near<2>(spec, view.origin());
  const absl::StatusOr<lwc::RenderPoint<2>> r = view.to_render(p);
  if (r.ok()) {
    // Not necessarily OK: at the end of int64 the rounded render point can lie past the last cell.
    const absl::StatusOr<WorldPosition<2>> back = view.from_render(*r);
    const absl::StatusOr<lwc::RenderPoint<2>> r2 = back.ok() ? view.to_render(*back) : back.status();
    assert_ok(lwc::contracts::check_round_trip(spec, view.origin(), view.version(), view.id(), *r, back, r2));
  }
}

// R12: two views in the same state (origin, version, loaded cells) that rebase in lockstep, so nothing
// but identity tells their outputs apart; each is handed the other's render points, late tickets and
// plans, and must refuse every one with InvalidArgument and stay as it was.
LWC_PROP(Rebase, R12_SplitScreenViewsRefuseEachOthersOutputs, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  const CellIndex<2> origin = any_origin<2>();
  const std::uint64_t version = *rc::gen::element<std::uint64_t>(0, 1, std::numeric_limits<std::uint64_t>::max() - 20);
  std::array<OriginCoordinator<2>, 2> views = {make_view<2>(spec, origin, version, 1, 0),
                                               make_view<2>(spec, origin, version, 1, 0)};
  RC_ASSERT(views[0].id() != views[1].id());
  const int steps = *rc::gen::inRange(1, 10);
  for (int i = 0; i < steps; ++i) {
    const WorldPosition<2> p = *lwc::testing::position_near<2>(spec, views[0].origin());
    const std::size_t from = *rc::gen::inRange<std::size_t>(0, 2);
    OriginCoordinator<2>& mine = views[from];
    OriginCoordinator<2>& other = views[1 - from];
    const CellIndex<2> origin_before = other.origin();
    const std::uint64_t version_before = other.version();
    const absl::StatusOr<lwc::RenderPoint<2>> y = mine.to_render(p);
    if (y.ok()) {
      assert_ok(lwc::contracts::check_stamped(mine.id(), y->view, "a render point"));
      const absl::StatusOr<WorldPosition<2>> back = other.from_render(*y);
      assert_ok(lwc::contracts::check_round_trip<2>(spec, other.origin(), other.version(), other.id(), *y, back,
                                                    back.ok() ? other.to_render(*back) : back.status()));
    }
    const lwc::LateResult<2> ticket =
        mine.start_late(p, *rc::gen::element(lwc::LatePlacement::kRelocatable, lwc::LatePlacement::kBakedLocal));
    assert_ok(lwc::contracts::check_late(spec, other.origin(), other.version(), other.id(), ticket,
                                         other.place_late(ticket)));
    const CellIndex<2> target = *lwc::testing::cell_index<2>(lwc::testing::cell_near(origin[0], 3));
    for (OriginCoordinator<2>& v : views) v.load(target);
    const absl::StatusOr<std::optional<RebasePlan<2>>> plan = mine.plan(WorldPosition<2>{target, {0, 0}});
    if (plan.ok() && *plan) {
      const absl::StatusOr<lwc::Rebased<2>> stolen = other.commit(**plan);
      assert_ok(lwc::contracts::check_foreign_refused(other.id(), (*plan)->view, "a plan", stolen.status()));
      RC_ASSERT(other.origin() == origin_before);
      RC_ASSERT(other.version() == version_before);
      // Both move on, in lockstep, each with its own plan.
      RC_ASSERT(mine.commit(**plan).ok());
      RC_ASSERT(other.commit({other.origin(), target, other.version(), other.id()}).ok());
    }
    RC_ASSERT(views[0].origin() == views[1].origin() && views[0].version() == views[1].version());
  }
}

// R13: random begin_step / end_step / commit sequences (nested and unmatched steps, commits in and out of
// steps), judged by the model: every commit inside a step is Unavailable and changes nothing, and the
// same plan commits once the step has ended.
LWC_PROP(Rebase, R13_CommitsInsideAStepAreRefusedAndSucceedAfterIt, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  OriginCoordinator<2> view = make_view<2>(spec, any_origin<2>(), 0, 1, 0);
  lwc::contracts::OriginModel<2> model(spec.cell_size, 1, 0, view.origin(), 0, view.id());
  int refused = 0;
  const int steps = *rc::gen::inRange(1, 30);
  for (int i = 0; i < steps; ++i) {
    switch (*rc::gen::inRange(0, 3)) {
      case 0:
        assert_ok(model.check_begin_step(view.begin_step()));
        break;
      case 1:
        assert_ok(model.check_end_step(view.end_step()));
        break;
      default: {
        const CellIndex<2> target = *lwc::testing::cell_index<2>(lwc::testing::cell_near(view.origin()[0], 3));
        view.load(target);
        model.load(target);
        const RebasePlan<2> plan{view.origin(), target, view.version(), view.id()};
        const bool inside = view.in_step();
        const absl::StatusOr<lwc::Rebased<2>> got = view.commit(plan);
        assert_ok(model.check_commit(plan, got));
        if (inside) {
          RC_ASSERT(got.status().code() == absl::StatusCode::kUnavailable);
          ++refused;
          assert_ok(model.check_end_step(view.end_step()));
          assert_ok(model.check_commit(plan, view.commit(plan)));  // the same plan, at the safe point
        }
        break;
      }
    }
    assert_ok(model.check_phase(view.in_step()));
    assert_ok(model.check_view(view.origin(), view.version(), view.loaded_cells()));
  }
  RC_CLASSIFY(refused > 0, "a commit refused mid-step");
}

// Barriers that scale (R16): random loads and unloads in a small patch of cells (often at the ends of
// int64, where a run's neighbours x - 1 and x + 1 do not exist), the runs validated after each, and
// every plan's barrier verdict (by rows) judged by the model's cell-by-cell enumeration.
template <std::size_t D>
void barrier_by_rows() {
  const std::int64_t radius = *rc::gen::inRange<std::int64_t>(0, 6);
  const std::int64_t base = *rc::gen::element(lwc::testing::kInt64Min, lwc::testing::kInt64Max - 7, std::int64_t{-3});
  OriginCoordinator<D> view = *OriginCoordinator<D>::create(*lwc::WorldGrid::create(*lwc::ChunkSize::create(16)),
                                                            *lwc::ViewConfig::create(1, radius, 1, 1 << 24));
  lwc::contracts::OriginModel<D> model(16, 1, radius, {}, 0, view.id());
  const auto cell = [&] {
    CellIndex<D> c;
    for (std::size_t a = 0; a < D; ++a) c[a] = base + *rc::gen::inRange<std::int64_t>(0, 8);
    return c;
  };
  const int steps = *rc::gen::inRange(1, 80);
  for (int i = 0; i < steps; ++i) {
    const CellIndex<D> c = cell();
    switch (*rc::gen::inRange(0, 4)) {
      case 0:
      case 1:
        view.load(c);
        model.load(c);
        break;
      case 2:
        view.unload(c);
        model.unload(c);
        break;
      default: {
        const WorldPosition<D> observer{c, {}};
        assert_ok(model.check_plan(observer, view.plan(observer)));
        break;
      }
    }
    assert_ok(view.validate_runs());
  }
  assert_ok(model.check_view(view.origin(), view.version(), view.loaded_cells()));
}

LWC_PROP(Rebase, R16_BarrierByRowsMatchesTheModel, ()) {
  if (*rc::gen::arbitrary<bool>()) {
    barrier_by_rows<2>();
  } else {
    barrier_by_rows<3>();
  }
}

// Oriented views (R17): rotations from random angles (entries below 2^-60 written as 0) or exact signed
// axis permutations, positions anywhere near the origin or on float midpoints, every coordinate judged
// against the exact product in 2560-bit integers.
template <std::size_t D>
lwc::Rotation<D> any_rotation() {
  const auto clean = [](double v) { return std::fabs(v) < 0x1p-60 ? 0.0 : v; };
  lwc::Rotation<D> r;
  if (*rc::gen::inRange(0, 4) == 0) {  // an exact quarter turn
    if constexpr (D == 2) {
      r.rows = {{{0.0, -1.0}, {1.0, 0.0}}};
    } else {
      r.rows = {{{0.0, 0.0, 1.0}, {1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}}};
    }
    return r;
  }
  const double a = *rc::gen::inRange(0, 1 << 20) * (6.283185307179586 / (1 << 20));
  const double ca = clean(std::cos(a));
  const double sa = clean(std::sin(a));
  if constexpr (D == 2) {
    r.rows = {{{ca, -sa}, {sa, ca}}};
  } else {
    const double b = *rc::gen::inRange(0, 1 << 20) * (6.283185307179586 / (1 << 20));
    const double cb = clean(std::cos(b));
    const double sb = clean(std::sin(b));
    // Rz(a) * Rx(b)
    r.rows = {{{ca, clean(-sa * cb), clean(sa * sb)}, {sa, clean(ca * cb), clean(-ca * sb)}, {0.0, sb, cb}}};
  }
  return r;
}

template <std::size_t D>
void oriented_within_bound() {
  const RenderSpec spec = *lwc::testing::render_spec();
  const CellIndex<D> origin = any_origin<D>();
  const OriginCoordinator<D> view = make_view<D>(spec, origin);
  const lwc::Rotation<D> r = any_rotation<D>();
  RC_PRE(OriginCoordinator<D>::rotation_status(r).ok());
  RC_ASSERT(view.oriented_error_bound() == lwc::contracts::oriented_error_bound(spec, D));
  const WorldPosition<D> p = *rc::gen::arbitrary<bool>() ? *lwc::testing::position_on_float_midpoint<D>(spec, origin)
                                                         : *lwc::testing::position_near<D>(spec, origin);
  const absl::StatusOr<lwc::RenderPoint<D>> got = view.to_render_oriented(p, r);
  RC_TAG(got.ok() ? "inside" : absl::StatusCodeToString(got.status().code()));
  assert_ok(lwc::contracts::check_oriented_render<D>(spec, origin, view.version(), r, p, got));
  if (got.ok()) assert_ok(lwc::contracts::check_stamped(view.id(), got->view, "an oriented render point"));
}

LWC_PROP(Rebase, R17_OrientedRenderIsWithinTheExactBound, ()) {
  if (*rc::gen::arbitrary<bool>()) {
    oriented_within_bound<2>();
  } else {
    oriented_within_bound<3>();
  }
}

// The batch through an oriented view (R17, R10): each anchor's coordinates are its single conversion's, bit
// for bit, NaN where that is OutOfRange, and the count of those is returned; a refused rotation or
// mismatched spans write nothing.
template <std::size_t D>
void oriented_batch_is_each_single() {
  const RenderSpec spec = *lwc::testing::render_spec();
  const CellIndex<D> origin = any_origin<D>();
  const OriginCoordinator<D> view = make_view<D>(spec, origin);
  lwc::Rotation<D> r = any_rotation<D>();
  if (*rc::gen::inRange(0, 8) == 0) r.rows[0][0] = 2.0;  // a scale, refused
  const std::vector<WorldPosition<D>> anchors = *rc::gen::container<std::vector<WorldPosition<D>>>(
      *rc::gen::inRange<std::size_t>(0, 12), rc::gen::oneOf(lwc::testing::position_near<D>(spec, origin),
                                                            lwc::testing::position_on_float_midpoint<D>(spec, origin)));
  constexpr float kPoison = -7.0f;
  std::vector<std::array<float, D>> locals(anchors.size());
  for (auto& l : locals) l.fill(kPoison);
  const absl::StatusOr<std::size_t> got = view.to_render_all_oriented(anchors, r, locals);
  if (!OriginCoordinator<D>::rotation_status(r).ok()) {
    RC_TAG("rotation refused");
    RC_ASSERT(got.status().code() == absl::StatusCode::kInvalidArgument);
    for (const auto& l : locals) RC_ASSERT(std::ranges::all_of(l, [](float v) { return v == kPoison; }));
    return;
  }
  RC_ASSERT(got.ok());
  std::size_t outside = 0;
  for (std::size_t i = 0; i < anchors.size(); ++i) {
    const absl::StatusOr<lwc::RenderPoint<D>> one = view.to_render_oriented(anchors[i], r);
    if (one.ok()) {
      for (std::size_t a = 0; a < D; ++a) RC_ASSERT(std::bit_cast<std::uint32_t>(locals[i][a]) == std::bit_cast<std::uint32_t>(one->at[a]));
    } else {
      RC_ASSERT(one.status().code() == absl::StatusCode::kOutOfRange);
      for (std::size_t a = 0; a < D; ++a) RC_ASSERT(lwc::fp::is_nan(locals[i][a]));
      ++outside;
    }
  }
  RC_ASSERT(*got == outside);
  RC_TAG(outside == 0 ? "all inside" : "some outside");
  std::vector<std::array<float, D>> longer(anchors.size() + 1);
  for (auto& l : longer) l.fill(kPoison);
  RC_ASSERT(view.to_render_all_oriented(anchors, r, longer).status().code() == absl::StatusCode::kInvalidArgument);
  for (const auto& l : longer) RC_ASSERT(std::ranges::all_of(l, [](float v) { return v == kPoison; }));
}

LWC_PROP(Rebase, R17_OrientedBatchIsEachSingleConversion, ()) {
  if (*rc::gen::arbitrary<bool>()) {
    oriented_batch_is_each_single<2>();
  } else {
    oriented_batch_is_each_single<3>();
  }
}

// The wire format (R14, R15) -----------------------------------------------------------------------------

template <std::size_t D>
void wire_round_trip(std::int64_t size) {
  const lwc::WorldGrid grid = *lwc::WorldGrid::create(*lwc::ChunkSize::create(size));
  const lwc::ChunkSize chunk = *lwc::ChunkSize::create(size);
  CellIndex<D> cell = *lwc::testing::cell_index<D>(lwc::testing::any_cell());
  std::array<double, D> raw{};
  for (double& o : raw) o = *lwc::testing::raw_offset(size);
  const absl::StatusOr<WorldPosition<D>> p = grid.normalize(cell, raw);
  if (p.ok()) {
    const absl::StatusOr<std::vector<std::uint8_t>> bytes = lwc::encode_position<D>(*p, chunk);
    RC_ASSERT(bytes.ok());
    const absl::StatusOr<WorldPosition<D>> back = lwc::decode_position<D>(*bytes, chunk);
    RC_ASSERT(back.ok());
    assert_ok(lwc::contracts::check_wire_decode(*bytes, lwc::WireKind::kPosition, D, size, back.status(),
                                                lwc::contracts::wire_words<D>(*back),
                                                lwc::encode_position<D>(*back, chunk)));
    RC_ASSERT(lwc::contracts::wire_words<D>(*back) == lwc::contracts::wire_words<D>(*p));
  }
  const RebasePlan<D> plan{*lwc::testing::cell_index<D>(lwc::testing::any_cell()),
                           *lwc::testing::cell_index<D>(lwc::testing::any_cell()), *lwc::testing::raw_bits()};
  const std::vector<std::uint8_t> pb = lwc::encode_plan<D>(plan);
  const absl::StatusOr<RebasePlan<D>> plan_back = lwc::decode_plan<D>(pb);
  RC_ASSERT(plan_back.ok());
  RC_ASSERT(*plan_back == plan);
  assert_ok(lwc::contracts::check_wire_decode(pb, lwc::WireKind::kPlan, D, size, absl::OkStatus(),
                                              lwc::contracts::wire_words<D>(*plan_back), lwc::encode_plan<D>(*plan_back)));
  const lwc::Rebased<D> update{*lwc::testing::cell_index<D>(lwc::testing::any_cell()), *lwc::testing::raw_bits()};
  const std::vector<std::uint8_t> ub = lwc::encode_origin_update<D>(update);
  RC_ASSERT(*lwc::decode_origin_update<D>(ub) == update);
}

LWC_PROP(Rebase, R14_WireRoundTripsEveryValueBitForBit, ()) {
  const std::int64_t size = *lwc::testing::rebase_cell_size();
  if (*rc::gen::arbitrary<bool>()) {
    wire_round_trip<2>(size);
  } else {
    wire_round_trip<3>(size);
  }
}

// A valid message of any kind, then mutated: a byte set to any value, truncated, extended, or an offset
// replaced by an extreme double. Decoded as what it was (and sometimes as another kind or axes), the
// answer is judged by the oracle: refused with a reason exactly when malformed, else a round trip.
LWC_PROP(Rebase, R15_MutatedMessagesAreRefusedWithAReasonOrRoundTrip, ()) {
  const std::int64_t size = *lwc::testing::rebase_cell_size();
  const lwc::ChunkSize chunk = *lwc::ChunkSize::create(size);
  const std::size_t axes = *rc::gen::element<std::size_t>(2, 3);
  const auto kind = *rc::gen::element(lwc::WireKind::kPosition, lwc::WireKind::kPlan, lwc::WireKind::kOriginUpdate);
  std::vector<std::uint8_t> bytes;
  const CellIndex<3> c = *lwc::testing::cell_index<3>(lwc::testing::any_cell());
  const std::uint64_t v = *lwc::testing::raw_bits();
  const std::int64_t half_size = size / 2;  // an integer: exact as a double below 2^53
  const double half = static_cast<double>(half_size);
  if (axes == 2) {
    bytes = kind == lwc::WireKind::kPosition ? *lwc::encode_position<2>(WorldPosition<2>{{c[0], c[1]}, {half, 0.0}}, chunk)
            : kind == lwc::WireKind::kPlan   ? lwc::encode_plan<2>(RebasePlan<2>{{c[0], c[1]}, {c[2], c[0]}, v})
                                             : lwc::encode_origin_update<2>(lwc::Rebased<2>{{c[0], c[1]}, v});
  } else {
    bytes = kind == lwc::WireKind::kPosition ? *lwc::encode_position<3>(WorldPosition<3>{c, {half, 0.0, half}}, chunk)
            : kind == lwc::WireKind::kPlan   ? lwc::encode_plan<3>(RebasePlan<3>{c, c, v})
                                             : lwc::encode_origin_update<3>(lwc::Rebased<3>{c, v});
  }
  const int mutation = *rc::gen::inRange(0, 5);
  RC_TAG(mutation == 0 ? "byte" : mutation == 1 ? "truncated" : mutation == 2 ? "extended" : mutation == 3 ? "offset" : "as is");
  if (mutation == 0) {
    bytes[*rc::gen::inRange<std::size_t>(0, bytes.size())] = *rc::gen::arbitrary<std::uint8_t>();
  } else if (mutation == 1) {
    bytes.resize(*rc::gen::inRange<std::size_t>(0, bytes.size()));
  } else if (mutation == 2) {
    const auto extra = *rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>());
    bytes.insert(bytes.end(), extra.begin(), extra.end());
  } else if (mutation == 3 && kind == lwc::WireKind::kPosition) {
    const double sd = static_cast<double>(size);
    const double o = *rc::gen::element(-0.0, std::nan(""), std::numeric_limits<double>::infinity(), -1.0, sd,
                                       std::nextafter(sd, 0.0), 4.9e-324, std::nextafter(sd, 0x1p64));
    const auto bits = std::bit_cast<std::uint64_t>(o);
    const std::size_t at = 8 + 8 * axes + 8 * *rc::gen::inRange<std::size_t>(0, axes);
    for (std::size_t i = 0; i < 8; ++i) bytes[at + i] = static_cast<std::uint8_t>(bits >> (8 * i));
  }
  // Decoded as the kind and axes it was written as, or (one time in four) as a 2-D position.
  const bool as_written = *rc::gen::inRange(0, 4) != 0;
  const lwc::WireKind read_kind = as_written ? kind : lwc::WireKind::kPosition;
  const std::size_t read_axes = as_written ? axes : 2;
  absl::Status got;
  std::vector<std::uint64_t> words;
  absl::StatusOr<std::vector<std::uint8_t>> again = absl::UnknownError("not decoded");
  const auto judge = [&](const auto& decoded, auto&& encode) {
    got = decoded.status();
    if (decoded.ok()) {
      words = lwc::contracts::wire_words(*decoded);
      again = encode(*decoded);
    }
  };
  if (read_kind == lwc::WireKind::kPosition) {
    if (read_axes == 2) {
      judge(lwc::decode_position<2>(bytes, chunk), [&](const WorldPosition<2>& p) { return lwc::encode_position<2>(p, chunk); });
    } else {
      judge(lwc::decode_position<3>(bytes, chunk), [&](const WorldPosition<3>& p) { return lwc::encode_position<3>(p, chunk); });
    }
  } else if (read_kind == lwc::WireKind::kPlan) {
    if (read_axes == 2) {
      judge(lwc::decode_plan<2>(bytes), [](const RebasePlan<2>& p) { return absl::StatusOr<std::vector<std::uint8_t>>(lwc::encode_plan<2>(p)); });
    } else {
      judge(lwc::decode_plan<3>(bytes), [](const RebasePlan<3>& p) { return absl::StatusOr<std::vector<std::uint8_t>>(lwc::encode_plan<3>(p)); });
    }
  } else if (read_axes == 2) {
    judge(lwc::decode_origin_update<2>(bytes), [](const lwc::Rebased<2>& u) { return absl::StatusOr<std::vector<std::uint8_t>>(lwc::encode_origin_update<2>(u)); });
  } else {
    judge(lwc::decode_origin_update<3>(bytes), [](const lwc::Rebased<3>& u) { return absl::StatusOr<std::vector<std::uint8_t>>(lwc::encode_origin_update<3>(u)); });
  }
  RC_TAG(got.ok() ? "accepted" : absl::StatusCodeToString(got.code()));
  assert_ok(lwc::contracts::check_wire_decode(bytes, read_kind, read_axes, size, got, words, again));
}

// The model-based test ------------------------------------------------------------------------------------

struct Model {
  RenderSpec spec;
  lwc::contracts::OriginModel<2> view;
  std::vector<WorldPosition<2>> world;     // the shared authoritative positions
  WorldPosition<2> observer;
  std::vector<RebasePlan<2>> plans;        // every plan ever issued (stale ones stay, to be replayed)
  std::vector<lwc::LateResult<2>> late;    // tickets started at their versions
  lwc::ViewId other;                       // the identity of Sut::other (R12)
};

struct Sut {
  OriginCoordinator<2> view;
  const std::vector<WorldPosition<2>>* world;  // read-only: R2 is checked against the model's copy
  // A second view of the same world, created in the same state: only its identity tells its render
  // points, tickets and plans from the first view's (R12). It never rebases.
  OriginCoordinator<2> other;
};

using Command = rc::state::Command<Model, Sut>;

// Every command checks its own answer in act(), then the view against the model after the step (R7) and
// the authoritative positions (R2).
struct Step : Command {
  virtual void act(const Model& m, Sut& sut) const = 0;
  void run(const Model& m, Sut& sut) const override {
    act(m, sut);
    Model next = m;
    apply(next);
    assert_ok(next.view.check_view(sut.view.origin(), sut.view.version(), sut.view.loaded_cells()));
    assert_ok(next.view.check_phase(sut.view.in_step()));  // R13
    assert_ok(lwc::contracts::check_authority<2>(m.world, *sut.world));
  }
};

// A cell worth loading: around the observer or a planned target (so plans succeed), or anywhere.
CellIndex<2> interesting_cell(const Model& m) {
  CellIndex<2> centre = m.observer.cell;
  if (!m.plans.empty() && *rc::gen::arbitrary<bool>()) centre = (*rc::gen::elementOf(m.plans)).target;
  return *rc::gen::weightedOneOf<CellIndex<2>>({
      {6, rc::gen::map(rc::gen::pair(lwc::testing::cell_near(centre[0], 2), lwc::testing::cell_near(centre[1], 2)),
                       [](std::pair<std::int64_t, std::int64_t> c) { return CellIndex<2>{c.first, c.second}; })},
      {1, lwc::testing::cell_index<2>(lwc::testing::any_cell())},
  });
}

struct Load : Step {
  CellIndex<2> cell;
  explicit Load(const Model& m) : cell(interesting_cell(m)) {}
  void apply(Model& m) const override { m.view.load(cell); }
  void act(const Model&, Sut& sut) const override { sut.view.load(cell); }
  void show(std::ostream& os) const override { os << "Load(" << cell[0] << ", " << cell[1] << ")"; }
};

// The streamer finishes a whole neighbourhood: every barrier cell around the observer (or a planned
// target) becomes loaded, so that plans and commits go through.
struct LoadBarrier : Step {
  std::vector<CellIndex<2>> cells;
  explicit LoadBarrier(const Model& m) {
    CellIndex<2> centre = m.observer.cell;
    if (!m.plans.empty() && *rc::gen::arbitrary<bool>()) centre = m.plans.back().target;
    cells = m.view.missing(centre);
    RC_PRE(!cells.empty());
  }
  void apply(Model& m) const override {
    for (const CellIndex<2>& c : cells) m.view.load(c);
  }
  void act(const Model&, Sut& sut) const override {
    for (const CellIndex<2>& c : cells) sut.view.load(c);
  }
  void show(std::ostream& os) const override { os << "LoadBarrier(" << cells.size() << " cells)"; }
};

struct Unload : Step {
  CellIndex<2> cell;
  explicit Unload(const Model& m)
      : cell(m.view.loaded().empty() || *rc::gen::inRange(0, 4) == 0
                 ? interesting_cell(m)
                 : *rc::gen::elementOf(std::vector<CellIndex<2>>(m.view.loaded().begin(), m.view.loaded().end()))) {}
  void apply(Model& m) const override { m.view.unload(cell); }
  void act(const Model&, Sut& sut) const override { sut.view.unload(cell); }
  void show(std::ostream& os) const override { os << "Unload(" << cell[0] << ", " << cell[1] << ")"; }
};

struct MoveObserver : Step {
  WorldPosition<2> to;
  explicit MoveObserver(const Model& m)
      : to(*rc::gen::weightedOneOf<WorldPosition<2>>({
            {4, rc::gen::map(rc::gen::pair(lwc::testing::cell_near(m.view.origin()[0], 4),
                                           lwc::testing::cell_near(m.view.origin()[1], 4)),
                             [](std::pair<std::int64_t, std::int64_t> c) {
                               return WorldPosition<2>{{c.first, c.second}, {0.5, 0.0}};
                             })},
            {1, lwc::testing::position_near<2>(m.spec, m.view.origin())},
            // Injected failure: an observer that is not normalised.
            {1, rc::gen::just(WorldPosition<2>{m.observer.cell, {-1.0, std::nan("")}})},
        })) {}
  void apply(Model& m) const override { m.observer = to; }
  void act(const Model&, Sut&) const override {}
  void show(std::ostream& os) const override { os << "MoveObserver(" << to << ")"; }
};

struct Plan : Step {
  explicit Plan(const Model&) {}
  void apply(Model& m) const override {
    const absl::StatusOr<std::optional<RebasePlan<2>>> want = m.view.expected_plan(m.observer);
    if (want.ok() && *want) m.plans.push_back(**want);
  }
  void act(const Model& m, Sut& sut) const override { assert_ok(m.view.check_plan(m.observer, sut.view.plan(m.observer))); }
  void show(std::ostream& os) const override { os << "Plan"; }
};

struct Commit : Step {
  RebasePlan<2> plan;
  std::string kind;
  explicit Commit(const Model& m) {
    RC_PRE(!m.plans.empty());
    plan = *rc::gen::weightedOneOf<RebasePlan<2>>({{3, rc::gen::just(m.plans.back())}, {2, rc::gen::elementOf(m.plans)}});
    kind = plan.expected_version == m.view.version() ? "current" : "stale";
    if (m.view.in_step()) kind += ", mid-step";  // R13: refused, retried after EndStep
    // Injected failures: a tampered plan (foreign origin, a version from the future, another target).
    switch (*rc::gen::inRange(0, 8)) {
      case 0:
        plan.from[0] = static_cast<std::int64_t>(std::clamp<absl::int128>(absl::int128(plan.from[0]) + 1, lwc::testing::kInt64Min, lwc::testing::kInt64Max));
        kind = "foreign";
        break;
      case 1:
        plan.expected_version ^= 1;
        kind = "other version";
        break;
      case 2:
        plan.target = interesting_cell(m);
        kind = "retargeted";
        break;
      case 3:
        plan.view = m.other;  // injected: the other view's plan, same origin and version (R12)
        kind = "other view";
        break;
      default:
        break;
    }
  }
  void apply(Model& m) const override {
    const absl::StatusOr<lwc::Rebased<2>> want = m.view.expected_commit(plan);
    if (want.ok()) RC_ASSERT(m.view.check_commit(plan, want).ok());
  }
  void act(const Model& m, Sut& sut) const override {
    lwc::contracts::OriginModel<2> view = m.view;
    assert_ok(view.check_commit(plan, sut.view.commit(plan)));
  }
  void show(std::ostream& os) const override {
    os << "Commit(" << kind << ": " << plan.from[0] << "," << plan.from[1] << " -> " << plan.target[0] << ","
       << plan.target[1] << " @" << plan.expected_version << ")";
  }
};

struct Render : Step {
  std::size_t index;
  explicit Render(const Model& m) : index(*rc::gen::inRange<std::size_t>(0, m.world.size())) {}
  void apply(Model&) const override {}
  void act(const Model& m, Sut& sut) const override {
    const absl::StatusOr<lwc::RenderPoint<2>> r = sut.view.to_render(m.world[index]);
    assert_ok(lwc::contracts::check_render(m.spec, m.view.origin(), m.view.version(), m.world[index], r));
    if (r.ok()) assert_ok(lwc::contracts::check_stamped(m.view.view(), r->view, "a render point"));  // R12
  }
  void show(std::ostream& os) const override { os << "Render(" << index << ")"; }
};

struct RenderAll : Step {
  explicit RenderAll(const Model&) {}
  void apply(Model&) const override {}
  void act(const Model& m, Sut& sut) const override {
    std::vector<std::array<float, 2>> locals(m.world.size());
    RC_ASSERT(sut.view.to_render_all(*sut.world, locals).ok());
    assert_ok(lwc::contracts::check_no_drift<2>(m.spec, m.view.origin(), m.world, locals));
  }
  void show(std::ostream& os) const override { os << "RenderAll"; }
};

struct StartLate : Step {
  std::size_t index;
  lwc::LatePlacement placement;
  explicit StartLate(const Model& m)
      : index(*rc::gen::inRange<std::size_t>(0, m.world.size())),
        placement(*rc::gen::element(lwc::LatePlacement::kRelocatable, lwc::LatePlacement::kBakedLocal)) {}
  void apply(Model& m) const override { m.late.push_back({m.world[index], m.view.version(), placement, m.view.view()}); }
  void act(const Model& m, Sut& sut) const override {
    const lwc::LateResult<2> t = sut.view.start_late(m.world[index], placement);
    RC_ASSERT(t.started_version == m.view.version());
    RC_ASSERT(t.anchor == m.world[index]);
    assert_ok(lwc::contracts::check_stamped(m.view.view(), t.view, "a late ticket"));  // R12
  }
  void show(std::ostream& os) const override { os << "StartLate(" << index << ")"; }
};

struct FinishLate : Step {
  lwc::LateResult<2> ticket;
  explicit FinishLate(const Model& m) {
    RC_PRE(!m.late.empty());
    ticket = *rc::gen::elementOf(m.late);
    if (*rc::gen::inRange(0, 8) == 0 && m.view.version() < std::numeric_limits<std::uint64_t>::max()) {
      ticket.started_version = m.view.version() + 1;  // injected: a ticket from the future
    }
    if (*rc::gen::inRange(0, 6) == 0) ticket.view = m.other;  // injected: the other view's ticket (R12)
  }
  void apply(Model&) const override {}
  void act(const Model& m, Sut& sut) const override {
    assert_ok(lwc::contracts::check_late(m.spec, m.view.origin(), m.view.version(), m.view.view(), ticket,
                                         sut.view.place_late(ticket)));
  }
  void show(std::ostream& os) const override {
    os << "FinishLate(started @" << ticket.started_version << " by view " << ticket.view.value << ")";
  }
};

struct FromRender : Step {
  lwc::RenderPoint<2> y;
  explicit FromRender(const Model& m)
      : y{{*lwc::testing::any_float(), *lwc::testing::any_float()},
          *rc::gen::weightedOneOf<std::uint64_t>(
              {{4, rc::gen::just(m.view.version())}, {1, rc::gen::just(m.view.version() ^ 1)}}),
          // injected: a point of the other view, at the same version or not (R12)
          *rc::gen::weightedOneOf<lwc::ViewId>({{5, rc::gen::just(m.view.view())}, {1, rc::gen::just(m.other)}})} {}
  void apply(Model&) const override {}
  void act(const Model& m, Sut& sut) const override {
    const absl::StatusOr<WorldPosition<2>> world = sut.view.from_render(y);
    const absl::StatusOr<lwc::RenderPoint<2>> again = world.ok() ? sut.view.to_render(*world) : world.status();
    assert_ok(lwc::contracts::check_round_trip(m.spec, m.view.origin(), m.view.version(), m.view.view(), y, world, again));
  }
  void show(std::ostream& os) const override {
    os << std::hexfloat << "FromRender(" << y.at[0] << ", " << y.at[1] << " @" << y.version << " view " << y.view.value
       << ")" << std::defaultfloat;
  }
};

// The other view's render point of a world position, handed to the first view (R12): refused whatever
// its version, however identical the two views' origins.
struct ForeignRender : Step {
  std::size_t index;
  explicit ForeignRender(const Model& m) : index(*rc::gen::inRange<std::size_t>(0, m.world.size())) {}
  void apply(Model&) const override {}
  void act(const Model& m, Sut& sut) const override {
    const absl::StatusOr<lwc::RenderPoint<2>> y = sut.other.to_render(m.world[index]);
    if (!y.ok()) return;
    const absl::StatusOr<WorldPosition<2>> world = sut.view.from_render(*y);
    assert_ok(lwc::contracts::check_round_trip<2>(m.spec, m.view.origin(), m.view.version(), m.view.view(), *y, world,
                                                  world.ok() ? sut.view.to_render(*world) : world.status()));
    RC_ASSERT(!world.ok());
  }
  void show(std::ostream& os) const override { os << "ForeignRender(" << index << ")"; }
};

// The engine's simulation step (R13): commits between BeginStep and EndStep are refused. Injected
// failures: a BeginStep inside a step, an EndStep outside one.
struct BeginStep : Step {
  explicit BeginStep(const Model&) {}
  void apply(Model& m) const override { (void)m.view.check_begin_step(m.view.expected_begin_step()); }
  void act(const Model& m, Sut& sut) const override {
    lwc::contracts::OriginModel<2> view = m.view;
    assert_ok(view.check_begin_step(sut.view.begin_step()));
  }
  void show(std::ostream& os) const override { os << "BeginStep"; }
};

struct EndStep : Step {
  explicit EndStep(const Model&) {}
  void apply(Model& m) const override { (void)m.view.check_end_step(m.view.expected_end_step()); }
  void act(const Model& m, Sut& sut) const override {
    lwc::contracts::OriginModel<2> view = m.view;
    assert_ok(view.check_end_step(sut.view.end_step()));
  }
  void show(std::ostream& os) const override { os << "EndStep"; }
};

LWC_PROP_SCALED(Rebase, R7_RandomSequencesMatchTheModel, 20, ()) {
  const RenderSpec spec = *lwc::testing::render_spec();
  const std::int64_t threshold = *rc::gen::inRange<std::int64_t>(1, 4);
  const std::int64_t radius = *rc::gen::inRange<std::int64_t>(0, 3);
  const CellIndex<2> origin = any_origin<2>();
  const std::uint64_t version = *rc::gen::weightedOneOf<std::uint64_t>(
      {{6, rc::gen::just<std::uint64_t>(0)},
       {1, rc::gen::just(std::numeric_limits<std::uint64_t>::max() - 1)}});
  const auto world = *rc::gen::resize(
      8, rc::gen::nonEmpty(rc::gen::container<std::vector<WorldPosition<2>>>(lwc::testing::position_near<2>(spec, origin))));
  Sut sut{make_view<2>(spec, origin, version, threshold, radius), &world,
          make_view<2>(spec, origin, version, threshold, radius)};
  Model model{spec, lwc::contracts::OriginModel<2>(spec.cell_size, threshold, radius, origin, version, sut.view.id()),
              world, WorldPosition<2>{origin, {0, 0}}, {}, {}, sut.other.id()};
  rc::state::check(model, sut,
                   rc::state::gen::execOneOfWithArgs<Load, LoadBarrier, LoadBarrier, Unload, MoveObserver, MoveObserver,
                                                     Plan, Plan, Plan, Commit, Commit, Commit, Render, RenderAll,
                                                     StartLate, FinishLate, FromRender, ForeignRender, BeginStep,
                                                     EndStep>());
}

}  // namespace
