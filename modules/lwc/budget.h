// SPDX-License-Identifier: MIT
// File: modules/lwc/budget.h
//
// The one budget idiom of lwc: a validated limit on work proportional to the input. The contracts that
// take a budget declare their own (lwc.cover, lwc.broadphase, lwc.commit) and re-export this module.
//
// One source, two modes (lwc/config.h): `#include <lwc/budget.h>` brings it without module support; the
// module unit modules/budget.cppm exports the same declarations as `import lwc.budget;`.
#ifndef LWC_BUDGET_H_
#define LWC_BUDGET_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/budget.cppm includes these in its global module fragment
#include <limits>
#include <ostream>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#endif

LWC_EXPORT namespace lwc {

// Budget
//
// A validated limit on work proportional to the input, the one budget idiom of lwc: `create(n)` returns
// the budget or InvalidArgument when n is below the least useful limit, `of<N>()` checks a constant at
// compile time, `unlimited()` is the largest count, `value()` reads it back. Exactly at a budget is
// always allowed; one over is refused before anything proportional to it is done. Each budget is its own
// type (a `PairBudget` cannot be passed where a `RunBudget` is meant), told apart by its tag, and each is
// declared by the contract it limits:
//
//   ChunkBudget       chunks one for_each_chunk call may visit; any uint64 (0 allows none)    C7      lwc.cover
//   CellBudget        cells one box may span (GridConfig::max_cells_per_box); >= 1             B6, B7  lwc.broadphase
//   MembershipBudget  (box, cell) registrations of one grid (GridConfig::max_memberships); >= 0 B6, B7  lwc.broadphase
//   PairBudget        pairs one call may report (GridConfig::max_pairs); >= 0                  B6, B7  lwc.broadphase
//   RunBudget         runs one commit may publish; >= 1 (zero could never make progress)       T8      lwc.commit
//
// A tag names its Count type, its least limit kMin, and the words and clause of the refusal.
//
// Example:
//   absl::StatusOr<lwc::PairBudget> pairs = lwc::PairBudget::create(config.max_pairs);
//   if (!pairs.ok()) return pairs.status();
//   constexpr lwc::RunBudget kFour = lwc::RunBudget::of<4>();
template <typename Tag>
class Budget {
 public:
  using Count = typename Tag::Count;
  static constexpr Count kMin = Tag::kMin;

  // create()
  //
  // The budget `limit`, or InvalidArgument when limit < kMin; the message names the budget and clause.
  [[nodiscard]] static absl::StatusOr<Budget> create(Count limit) {
    if constexpr (kMin > std::numeric_limits<Count>::min()) {
      if (limit < kMin) {
        return absl::InvalidArgumentError(
            absl::StrCat(Tag::kName, " ", limit, " is below ", kMin, Tag::kWhy, " (", Tag::kClause, ")"));
      }
    }
    return Budget(limit);
  }

  // of()
  //
  // A budget known at compile time; one below kMin does not compile.
  template <Count N>
    requires(N >= kMin)
  [[nodiscard]] static consteval Budget of() noexcept {
    return Budget(N);
  }

  // unlimited()
  //
  // The largest count: every call that is within a Count is within this budget.
  [[nodiscard]] static constexpr Budget unlimited() noexcept { return Budget(std::numeric_limits<Count>::max()); }

  [[nodiscard]] constexpr Count value() const noexcept { return value_; }
  [[nodiscard]] constexpr bool is_unlimited() const noexcept {
    return value_ == std::numeric_limits<Count>::max();
  }

  friend constexpr bool operator==(Budget, Budget) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, Budget b) { return os << b.value_; }

 private:
  constexpr explicit Budget(Count limit) noexcept : value_(limit) {}

  // Invariant: value_ >= kMin.
  Count value_;
};

}  // namespace lwc

#endif  // LWC_BUDGET_H_
