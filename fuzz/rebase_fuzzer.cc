// SPDX-License-Identifier: MIT
// File: fuzz/rebase_fuzzer.cc
//
// libFuzzer target for lwc.rebase: the input is a view configuration followed by an operation sequence —
// cell loads and unloads, observer moves, plans, commits of current, replayed and tampered plans, render
// conversions both ways, late results started and finished, batch re-derivation — run in lockstep with
// lwc.contracts.rebase's model, every answer judged by its checker. Raw 8-byte words reach every int64
// (cells at both ends, where cell - origin overflows) and every double and float bit pattern (NaN, inf,
// -0.0, subnormals); small deltas keep cells near the observer so plans and commits do happen.
//
// A second view (`twin`, created in the same state, never rebased) supplies render points, tickets and
// plans that only their identity tells apart (R12); simulation steps begin and end at random, nested and
// unmatched ones included, so commits land mid-step (R13).
//
// Wire mode: an input that starts with the wire magic "LWCR" is a wire message (R14, R15) instead, decoded
// as every kind, with 2 and 3 axes and several cell sizes, each answer judged by the oracle
// contracts::check_wire_decode (refused with a reason exactly when malformed; else exact, canonical and
// a round trip). Seeds: the corpus files that start with "LWCR" (valid messages of every kind and axes,
// and one per malformation), fuzz/rebase_fuzzer.dict's header tokens.
//
// lwc-clauses: R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R14 R15 R16 R17
// (the whole tree is built with ASan + UBSan + -fsanitize=integer in the fuzz preset, so an overflowing
// intermediate aborts too.)
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fuzz_support.h"

import lwc.rebase;
import lwc.contracts.rebase;

namespace {

using lwc::fuzzing::word;
using lwc::fuzzing::require;

using lwc::CellIndex;
using lwc::WorldPosition;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::int64_t clamp_add(std::int64_t a, std::int64_t d) {
  const absl::int128 v = absl::int128(a) + d;
  return v < kMin ? kMin : (v > kMax ? kMax : static_cast<std::int64_t>(v));
}

// A cell near `centre` (a signed byte away) or, one time in four, any int64.
CellIndex<2> cell_from(FuzzedDataProvider& in, const CellIndex<2>& centre) {
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    return {std::bit_cast<std::int64_t>(word(in)), std::bit_cast<std::int64_t>(word(in))};
  }
  return {clamp_add(centre[0], in.ConsumeIntegral<std::int8_t>() % 6),
          clamp_add(centre[1], in.ConsumeIntegral<std::int8_t>() % 6)};
}

// Wire mode: decodes `bytes` as each kind with D axes and judges every answer (R14, R15).
template <std::size_t D>
void fuzz_wire(std::span<const std::uint8_t> bytes) {
  using Encoded = absl::StatusOr<std::vector<std::uint8_t>>;
  for (const std::int64_t cell_size : {std::int64_t{1}, std::int64_t{16}, std::int64_t{1024}, std::int64_t{1} << 53}) {
    const lwc::ChunkSize chunk = *lwc::ChunkSize::create(cell_size);
    const absl::StatusOr<WorldPosition<D>> p = lwc::decode_position<D>(bytes, chunk);
    require(lwc::contracts::check_wire_decode(
        bytes, lwc::WireKind::kPosition, D, cell_size, p.status(),
        p.ok() ? lwc::contracts::wire_words<D>(*p) : std::vector<std::uint64_t>{},
        p.ok() ? lwc::encode_position<D>(*p, chunk) : Encoded(p.status())));
    if (p.ok()) (void)lwc::to_json<D>(*p);
  }
  const absl::StatusOr<lwc::RebasePlan<D>> plan = lwc::decode_plan<D>(bytes);
  require(lwc::contracts::check_wire_decode(
      bytes, lwc::WireKind::kPlan, D, 1, plan.status(),
      plan.ok() ? lwc::contracts::wire_words<D>(*plan) : std::vector<std::uint64_t>{},
      plan.ok() ? Encoded(lwc::encode_plan<D>(*plan)) : Encoded(plan.status())));
  const absl::StatusOr<lwc::Rebased<D>> update = lwc::decode_origin_update<D>(bytes);
  require(lwc::contracts::check_wire_decode(
      bytes, lwc::WireKind::kOriginUpdate, D, 1, update.status(),
      update.ok() ? lwc::contracts::wire_words<D>(*update) : std::vector<std::uint64_t>{},
      update.ok() ? Encoded(lwc::encode_origin_update<D>(*update)) : Encoded(update.status())));
  // The header reader agrees with the decoders: a message some decoder accepts has that header.
  const absl::StatusOr<lwc::WireHeader> header = lwc::read_wire_header(bytes);
  if (plan.ok() || update.ok()) {
    require(header.status());
    if (header->axes != D) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size >= 4 && std::memcmp(data, "LWCR", 4) == 0) {
    fuzz_wire<2>(std::span<const std::uint8_t>(data, size));
    fuzz_wire<3>(std::span<const std::uint8_t>(data, size));
    return 0;
  }
  FuzzedDataProvider in(data, size);
  // The view: every parameter within its documented range, reached from raw words.
  const auto cell_size = static_cast<std::int64_t>(word(in) % (std::uint64_t{1} << 53)) + 1;
  const lwc::contracts::RenderSpec spec{
      cell_size, static_cast<std::int64_t>(word(in) % (std::uint64_t{1} << 20)) + 1,
      static_cast<std::int64_t>(word(in) % (std::uint64_t{1} << 44)) + 1};
  const std::int64_t threshold = in.ConsumeIntegralInRange<std::int64_t>(1, 4);
  const std::int64_t radius = in.ConsumeIntegralInRange<std::int64_t>(0, 2);
  const CellIndex<2> origin{std::bit_cast<std::int64_t>(word(in)), std::bit_cast<std::int64_t>(word(in))};
  const std::uint64_t version = word(in);

  const lwc::WorldGrid grid = *lwc::WorldGrid::create(*lwc::ChunkSize::create(cell_size));
  absl::StatusOr<lwc::OriginCoordinator<2>> created = lwc::OriginCoordinator<2>::create(
      grid, *lwc::ViewConfig::create(threshold, radius, spec.units_per_render_unit, spec.bubble_units), origin, version);
  require(created.status());
  lwc::OriginCoordinator<2>& view = *created;
  absl::StatusOr<lwc::OriginCoordinator<2>> twin_created = lwc::OriginCoordinator<2>::create(
      grid, *lwc::ViewConfig::create(threshold, radius, spec.units_per_render_unit, spec.bubble_units), origin, version);
  require(twin_created.status());
  const lwc::OriginCoordinator<2>& twin = *twin_created;
  lwc::contracts::OriginModel<2> model(cell_size, threshold, radius, origin, version, view.id());
  lwc::contracts::OriginLog<2> log;

  std::vector<WorldPosition<2>> world;
  WorldPosition<2> observer{origin, {0, 0}};
  std::vector<lwc::RebasePlan<2>> plans;
  std::vector<lwc::LateResult<2>> late;

  // Normalises a raw position (R1) near `centre`; nullopt when normalisation rightly fails.
  const auto raw_position = [&](const CellIndex<2>& centre) -> std::optional<WorldPosition<2>> {
    const CellIndex<2> cell = cell_from(in, centre);
    const std::array<double, 2> offset{std::bit_cast<double>(word(in)), std::bit_cast<double>(word(in))};
    const absl::StatusOr<WorldPosition<2>> p = grid.normalize(cell, offset);
    require(lwc::contracts::check_normalize(cell_size, cell, offset, p));  // R1
    if (!p.ok()) return std::nullopt;
    return *p;
  };

  for (int step = 0; step < 64 && in.remaining_bytes() > 0; ++step) {
    const std::vector<WorldPosition<2>> snapshot = world;
    switch (in.ConsumeIntegralInRange<int>(0, 12)) {
      case 0: {
        const CellIndex<2> c = cell_from(in, observer.cell);
        view.load(c);
        model.load(c);
        break;
      }
      case 1: {
        const CellIndex<2> c = cell_from(in, observer.cell);
        view.unload(c);
        model.unload(c);
        break;
      }
      case 2: {  // observer moves; a raw (maybe unnormalised) observer is an injected failure for plan
        if (in.ConsumeBool()) {
          if (std::optional<WorldPosition<2>> p = raw_position(view.origin())) observer = *p;
        } else {
          observer.cell = cell_from(in, view.origin());
          observer.offset = {std::bit_cast<double>(word(in)), std::bit_cast<double>(word(in))};
        }
        break;
      }
      case 3: {
        const absl::StatusOr<std::optional<lwc::RebasePlan<2>>> plan = view.plan(observer);
        require(model.check_plan(observer, plan));  // R6 R8
        if (plan.ok() && *plan) plans.push_back(**plan);
        break;
      }
      case 4: {
        if (plans.empty()) break;
        lwc::RebasePlan<2> plan = plans[in.ConsumeIntegralInRange<std::size_t>(0, plans.size() - 1)];
        switch (in.ConsumeIntegralInRange<int>(0, 5)) {  // injected: tampered plans
          case 0: plan.from[1] ^= 1; break;
          case 1: plan.expected_version ^= in.ConsumeIntegral<std::uint64_t>(); break;
          case 2: plan.target = cell_from(in, plan.target); break;
          case 3: plan.view = twin.id(); break;  // R12
          default: break;
        }
        const absl::StatusOr<lwc::Rebased<2>> done = view.commit(plan);
        require(model.check_commit(plan, done));  // R3 R6 R7 R8
        if (done.ok()) require(log.observe(done->version, done->origin));  // R3
        break;
      }
      case 5: {
        if (std::optional<WorldPosition<2>> p = raw_position(view.origin())) {
          world.push_back(*p);
        }
        break;
      }
      case 6: {
        if (world.empty()) break;
        const WorldPosition<2>& p = world[in.ConsumeIntegralInRange<std::size_t>(0, world.size() - 1)];
        const absl::StatusOr<lwc::RenderPoint<2>> r = view.to_render(p);
        require(lwc::contracts::check_render(spec, model.origin(), model.version(), p, r));  // R4 R5
        if (r.ok()) {
          require(lwc::contracts::check_render_bound(spec, model.origin(), p, *r));  // R5
          require(log.observe(r->version, view.origin()));                          // R3
          require(lwc::contracts::check_stamped(view.id(), r->view, "a render point"));  // R12
        }
        // The same position in an oriented frame at a raw angle (R17), judged exactly.
        const double angle = static_cast<double>(word(in) % (std::uint64_t{1} << 20)) * (6.283185307179586 / 1048576.0);
        const auto clean = [](double v) { return std::fabs(v) < 0x1p-60 ? 0.0 : v; };
        const lwc::Rotation<2> rot{{{{clean(std::cos(angle)), clean(-std::sin(angle))},
                                     {clean(std::sin(angle)), clean(std::cos(angle))}}}};
        if (lwc::OriginCoordinator<2>::rotation_status(rot).ok()) {
          const absl::StatusOr<lwc::RenderPoint<2>> one = view.to_render_oriented(p, rot);
          require(lwc::contracts::check_oriented_render<2>(spec, model.origin(), model.version(), rot, p, one));  // R17
          // The batch gives the same bits, or NaN where the single conversion is OutOfRange.
          std::array<float, 2> local{};
          const absl::StatusOr<std::size_t> outside = view.to_render_all_oriented(std::span(&p, 1), rot, std::span(&local, 1));
          const std::size_t expected_outside = one.ok() ? 0 : 1;
          const bool same = one.ok() ? std::bit_cast<std::uint64_t>(local) == std::bit_cast<std::uint64_t>(one->at)
                                     : std::isnan(local[0]) && std::isnan(local[1]);
          if (!outside.ok() || *outside != expected_outside || !same) {
            require(absl::InternalError("to_render_all_oriented differs from to_render_oriented (R17)"));
          }
        }
        break;
      }
      case 7: {
        if (world.empty()) break;
        const WorldPosition<2>& p = world[in.ConsumeIntegralInRange<std::size_t>(0, world.size() - 1)];
        late.push_back(view.start_late(p, in.ConsumeBool() ? lwc::LatePlacement::kRelocatable : lwc::LatePlacement::kBakedLocal));
        break;
      }
      case 8: {
        if (late.empty()) break;
        lwc::LateResult<2> t = late[in.ConsumeIntegralInRange<std::size_t>(0, late.size() - 1)];
        if (in.ConsumeIntegralInRange<int>(0, 7) == 0) t.started_version = word(in);  // injected: any version
        if (in.ConsumeIntegralInRange<int>(0, 7) == 0) t.view = twin.id();  // injected: another view's ticket
        require(lwc::contracts::check_late(spec, model.origin(), model.version(), view.id(), t, view.place_late(t)));  // R9 R12
        break;
      }
      case 9: {
        lwc::RenderPoint<2> y{{std::bit_cast<float>(static_cast<std::uint32_t>(word(in))),
                               std::bit_cast<float>(static_cast<std::uint32_t>(word(in)))},
                              in.ConsumeBool() ? view.version() : word(in),
                              in.ConsumeIntegralInRange<int>(0, 7) == 0 ? twin.id() : view.id()};
        const absl::StatusOr<WorldPosition<2>> back = view.from_render(y);
        const absl::StatusOr<lwc::RenderPoint<2>> again = back.ok() ? view.to_render(*back) : back.status();
        require(lwc::contracts::check_round_trip(spec, model.origin(), model.version(), view.id(), y, back, again));  // R11 R12
        break;
      }
      case 11: {  // the engine's step: begin or end, unmatched ones included (R13)
        require(in.ConsumeBool() ? model.check_begin_step(view.begin_step()) : model.check_end_step(view.end_step()));
        break;
      }
      case 12: {  // the twin's render point or ticket of a world position, given to the view (R12)
        if (world.empty()) break;
        const WorldPosition<2>& p = world[in.ConsumeIntegralInRange<std::size_t>(0, world.size() - 1)];
        if (in.ConsumeBool()) {
          const absl::StatusOr<lwc::RenderPoint<2>> y = twin.to_render(p);
          if (!y.ok()) break;
          const absl::StatusOr<WorldPosition<2>> back = view.from_render(*y);
          require(lwc::contracts::check_round_trip<2>(spec, model.origin(), model.version(), view.id(), *y, back,
                                                      back.ok() ? view.to_render(*back) : back.status()));
        } else {
          const lwc::LateResult<2> t = twin.start_late(p, lwc::LatePlacement::kRelocatable);
          require(lwc::contracts::check_late(spec, model.origin(), model.version(), view.id(), t, view.place_late(t)));
        }
        break;
      }
      default: {
        std::vector<std::array<float, 2>> locals(world.size());
        require(view.to_render_all(world, locals).status());
        require(lwc::contracts::check_no_drift<2>(spec, model.origin(), world, locals));  // R10
        break;
      }
    }
    require(model.check_view(view.origin(), view.version(), view.loaded_cells()));  // R7
    require(model.check_phase(view.in_step()));                                       // R13
    require(lwc::contracts::check_authority<2>(snapshot, std::span<const WorldPosition<2>>(world).first(
                                                             std::min(snapshot.size(), world.size()))));  // R2
  }
  return 0;
}
