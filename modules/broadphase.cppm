// SPDX-License-Identifier: MIT
// File: modules/broadphase.cppm         Module: lwc.broadphase
//
// Broad phase on a uniform grid: every overlapping pair of closed axis-aligned boxes, each exactly once,
// in canonical order, without a global pair set. Boxes are registered in every cell from cell_of(min) to
// cell_of(max) (lwc.decompose, exact and monotone); memberships are sorted by (cell, box), and a pair is
// reported only from its reference cell, the cell of the lower corner of the two boxes' intersection.
// Oversized boxes are either refused or placed on coarser levels of the same grid, with cross-level
// probes that keep every pair.
// The shared vocabulary (Box, Pair, GridConfig, GridSpec and the per-box placement) lives in the
// partition :spec, the persistent grid with contact events (E-clauses) in :persistent.
// The caller's boxes (BoxView, B13), the caller's output (find_pairs_into, for_each_pair, B14) and the
// parallel split (TaskSystem, ThreadPool, B15) reuse the one path, templated over the box source.
// Spec: docs/broadphase.md (clauses B1-B15, E1-E12). Checker and oracle: lwc.contracts.broadphase.
#ifndef LWC_HEADER_BUILD
module;
#endif
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <ostream>
#include <span>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
#ifndef LWC_HEADER_BUILD
export module lwc.broadphase;

// The API speaks in CellSize and the budgets of lwc.decompose: importing lwc.broadphase is enough.
export import lwc.decompose;
export import :spec;
export import :persistent;
#else
#include "lwc/decompose.h"
#include "lwc/broadphase/spec.h"
#include "lwc/broadphase/persistent.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

// The double equal to a float, exactly in every floating-point mode: a normal float through the
// conversion instruction (exact), zeros, subnormals, infinities and NaNs from the bits (fp::widen), since
// cvtss2sd reads a subnormal as 0 under denormals-are-zero and a NaN is poison under -ffinite-math-only.
[[nodiscard]] inline double exact_double(float x) noexcept {
  const auto exponent = std::bit_cast<std::uint32_t>(x) & 0x7f800000U;
  if (exponent != 0 && exponent != 0x7f800000U) return static_cast<double>(x);
  return fp::widen(x);
}
[[nodiscard]] inline double exact_double(double x) noexcept { return x; }

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// BoxView
//
// The caller's boxes, read in place (B13): n boxes of D floats or doubles, wherever they live. Box i's
// min corner is D consecutive F at `min + i * stride` bytes, its max corner D consecutive F at
// `max + i * stride` bytes. That one shape covers an array of structs (an engine's AABB array: both
// pointers into element 0, stride sizeof(element)) and separate min and max arrays (stride D * sizeof(F)).
// A view never copies or owns: the boxes must outlive every call that reads them. find_pairs reads each
// bound as the double it is exactly (every float is a double), so a float box has the errors, the
// quantisation (D9: the floor of the float's exact value, not of a decimal it was written as) and the
// pairs of the same box widened to double.
//
// Example:
//   struct Aabb { float lower[2]; int tag; float upper[2]; };   // an engine's layout
//   absl::StatusOr<lwc::BoxView<2, float>> view = lwc::BoxView<2, float>::strided(
//       aabbs[0].lower, aabbs[0].upper, aabbs.size(), sizeof(Aabb));
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(*view, config);
template <std::size_t D, typename F>
  requires((D == 2 || D == 3) && (std::same_as<F, float> || std::same_as<F, double>))
class BoxView {
 public:
  // An empty view (no boxes).
  constexpr BoxView() noexcept = default;

  // of()
  //
  // The boxes of a span of Box<D> (F = double) or FloatBox<D> (F = float). Cannot fail.
  [[nodiscard]] static BoxView of(std::span<const Box<D>> boxes) noexcept
    requires std::same_as<F, double>
  {
    return from(boxes.data(), boxes.size());
  }
  [[nodiscard]] static BoxView of(std::span<const FloatBox<D>> boxes) noexcept
    requires std::same_as<F, float>
  {
    return from(boxes.data(), boxes.size());
  }

  // separate()
  //
  // Box i is [min[i], max[i]]. InvalidArgument (B13) when the spans differ in length.
  [[nodiscard]] static absl::StatusOr<BoxView> separate(std::span<const std::array<F, D>> min,
                                                        std::span<const std::array<F, D>> max) {
    if (min.size() != max.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("separate: ", min.size(), " min corners but ", max.size(), " max corners (B13)"));
    }
    BoxView v;
    v.min_ = reinterpret_cast<const std::byte*>(min.data());
    v.max_ = reinterpret_cast<const std::byte*>(max.data());
    v.count_ = min.size();
    v.stride_ = sizeof(std::array<F, D>);
    return v;
  }

  // strided()
  //
  // Box i's min corner is the D values of F at byte offset i * stride from `min`, its max corner the D
  // values at i * stride from `max`. InvalidArgument (B13), naming the argument, when count > 0 and a
  // pointer is null or not aligned for F, when the stride is not a multiple of alignof(F), or when the
  // last box would lie beyond the address space. The memory itself cannot be checked: the caller
  // promises count boxes there, as for a span.
  [[nodiscard]] static absl::StatusOr<BoxView> strided(const F* min, const F* max, std::size_t count,
                                                       std::size_t stride) {
    if (count == 0) return BoxView();
    for (const F* p : {min, max}) {
      const auto address = reinterpret_cast<std::uintptr_t>(p);
      if (p == nullptr || address % alignof(F) != 0) {
        return absl::InvalidArgumentError(absl::StrCat("strided: the ", p == min ? "min" : "max",
                                                       " pointer is null or not aligned for its type (B13)"));
      }
      constexpr std::uintptr_t kTop = std::numeric_limits<std::uintptr_t>::max() - D * sizeof(F);
      if (address > kTop || (stride != 0 && count - 1 > (kTop - address) / stride)) {
        return absl::InvalidArgumentError(
            absl::StrCat("strided: ", count, " boxes of stride ", stride, " pass the end of memory (B13)"));
      }
    }
    if (stride % alignof(F) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("strided: stride ", stride, " is not a multiple of ", alignof(F), " (B13)"));
    }
    BoxView v;
    v.min_ = reinterpret_cast<const std::byte*>(min);
    v.max_ = reinterpret_cast<const std::byte*>(max);
    v.count_ = count;
    v.stride_ = stride;
    return v;
  }

  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }

  // Box i (i < size()) as doubles, exactly (B13).
  [[nodiscard]] Box<D> operator[](std::size_t i) const noexcept {
    Box<D> out;
    F v[2 * D];
    std::memcpy(v, min_ + i * stride_, D * sizeof(F));
    std::memcpy(v + D, max_ + i * stride_, D * sizeof(F));
    for (std::size_t k = 0; k < D; ++k) {
      out.min[k] = internal::exact_double(v[k]);
      out.max[k] = internal::exact_double(v[D + k]);
    }
    return out;
  }

  // The boxes [offset, offset + count) (offset + count <= size()).
  [[nodiscard]] BoxView subspan(std::size_t offset, std::size_t count) const noexcept {
    BoxView v = *this;
    v.min_ = count == 0 ? nullptr : min_ + offset * stride_;
    v.max_ = count == 0 ? nullptr : max_ + offset * stride_;
    v.count_ = count;
    return v;
  }

  void prefetch(std::size_t i) const noexcept {
    __builtin_prefetch(min_ + i * stride_);
    __builtin_prefetch(max_ + i * stride_);
  }

 private:
  template <typename T>
  static BoxView from(const T* boxes, std::size_t n) noexcept {
    static_assert(std::is_standard_layout_v<T> && offsetof(T, min) == 0 && offsetof(T, max) == D * sizeof(F));
    BoxView v;
    if (n == 0) return v;
    v.min_ = reinterpret_cast<const std::byte*>(boxes);
    v.max_ = v.min_ + offsetof(T, max);
    v.count_ = n;
    v.stride_ = sizeof(T);
    return v;
  }

  const std::byte* min_ = nullptr;
  const std::byte* max_ = nullptr;
  std::size_t count_ = 0;
  std::size_t stride_ = 0;
};

// TaskSystem
//
// How a call may split its work (B15): into `workers` parts, run through the caller's job system in the
// shape of Box2D v3's enqueueTask/finishTask. enqueue(task, item_count, min_range, task_context,
// user_context) must arrange for task(begin, end, worker, task_context) to be called over ranges that
// cover [0, item_count) exactly once, on any threads, with worker < workers, and return a handle, or
// run them all before returning and return nullptr; finish(handle, user_context) must return only after
// every range of that handle has run. The default is serial: one part, on the calling thread. ThreadPool
// provides one. The result never depends on it: every call is bit-identical to the serial one (B15).
struct TaskSystem {
  using Task = void (*)(std::uint32_t begin, std::uint32_t end, std::uint32_t worker, void* task_context);
  using Enqueue = void* (*)(Task task, std::uint32_t item_count, std::uint32_t min_range, void* task_context,
                            void* user_context);
  using Finish = void (*)(void* user_task, void* user_context);

  std::uint32_t workers = 1;  // 1 to kMaxWorkers
  Enqueue enqueue = nullptr;  // required when workers > 1
  Finish finish = nullptr;    // required when workers > 1
  void* user_context = nullptr;

  static constexpr std::uint32_t kMaxWorkers = 256;
};

}  // namespace lwc

namespace lwc::internal {

// InvalidArgument (B15) for a task system that cannot be used.
[[nodiscard]] inline absl::Status validate_tasks(const TaskSystem& tasks) {
  if (tasks.workers < 1 || tasks.workers > TaskSystem::kMaxWorkers) {
    return absl::InvalidArgumentError(
        absl::StrCat("task system: ", tasks.workers, " workers, not in [1, ", TaskSystem::kMaxWorkers, "] (B15)"));
  }
  if (tasks.workers > 1 && (tasks.enqueue == nullptr || tasks.finish == nullptr)) {
    return absl::InvalidArgumentError("task system: more than one worker needs enqueue and finish (B15)");
  }
  return absl::OkStatus();
}

// Runs fn(part) for every part < parts, through `tasks` when it has more than one worker.
template <typename Fn>
void run_parts(const TaskSystem& tasks, std::uint32_t parts, Fn& fn) {
  if (parts <= 1 || tasks.workers <= 1) {
    for (std::uint32_t p = 0; p < parts; ++p) fn(p);
    return;
  }
  const TaskSystem::Task task = [](std::uint32_t begin, std::uint32_t end, std::uint32_t, void* context) {
    for (std::uint32_t p = begin; p < end; ++p) (*static_cast<Fn*>(context))(p);
  };
  void* handle = tasks.enqueue(task, parts, 1, &fn, tasks.user_context);
  if (handle != nullptr) tasks.finish(handle, tasks.user_context);
}

// The pair budget of one pairing pass (B7), shared by the parts of a parallel call (B15). A part asks
// full(size) before appending its (size + 1)-th pair: alone, that is size >= limit; in parallel, a part
// publishes its count every kChunk pairs and is full when the published total proves more than `limit`
// pairs exist. So a call is refused iff it has more than `limit` pairs whatever the split (the final
// totals are compared too), and the parts hold at most limit + parts * kChunk pairs between them.
class PairLimit {
 public:
  static constexpr std::uint64_t kChunk = 1024;

  explicit PairLimit(std::uint64_t limit, std::atomic<std::uint64_t>* shared = nullptr)
      : limit_(limit), shared_(shared), next_(shared == nullptr ? limit : std::min(limit, kChunk)) {}

  [[nodiscard]] bool full(std::size_t size) { return size >= next_ && !grow(size); }

 private:
  [[nodiscard]] bool grow(std::size_t size) {
    if (shared_ == nullptr) return false;
    const std::uint64_t total = shared_->fetch_add(size - published_, std::memory_order_relaxed) + (size - published_);
    published_ = size;
    if (total >= limit_) return false;  // with the pair about to be added, more than limit_
    next_ = size + std::min(kChunk, limit_ - total);
    return true;
  }

  std::uint64_t limit_;
  std::atomic<std::uint64_t>* shared_;
  std::uint64_t next_;
  std::uint64_t published_ = 0;
};

template <std::size_t D>
inline void prefetch_box(std::span<const Box<D>> boxes, std::uint64_t id) {
  __builtin_prefetch(&boxes[id]);
}
template <std::size_t D, typename F>
inline void prefetch_box(const BoxView<D, F>& boxes, std::uint64_t id) {
  boxes.prefetch(id);
}

// One level of the grid: its boxes' (cell, box) memberships sorted by cell, then box.
//
// Packed form (the common case): one uint64 per membership, [cell key | box id | D start flags], where
// the key linearises the cell relative to the level's lowest cell with x fastest, so the words sort by
// (z, y, x, id) and a row of cells along x is contiguous. Start flag k is set when the cell is the box's
// first cell on axis k: then the reference cell of two boxes sharing cell c, max(lo_a, lo_b) per axis,
// equals c exactly when, on every axis, one of the two boxes starts there (B9).
// Dense form (a packed key whose range is at most about twice the memberships, as in any populated
// world): the memberships bucketed by key with a counting sort, one uint32 each, [box id | D start
// flags], cell k's at members[starts[k], starts[k + 1]); no sort and half the memory of the packed form.
// Wide form, when the key, id and flags do not fit 64 bits (a world spanning more than ~2^40 cells):
// the same order on explicit coordinates.
template <std::size_t D>
struct Level {
  int level = 0;
  CellSize size = *CellSize::create(1.0);  // h * 2^level
  std::array<std::int64_t, D> origin{};  // lowest cell on each axis
  std::array<std::int64_t, D> top{};     // highest cell on each axis
  std::array<std::uint64_t, D> stride{};  // key = sum (c[k] - origin[k]) * stride[k]
  bool packed = true;
  int id_bits = 0;
  int key_shift = 0;
  int key_bits = 0;
  std::uint64_t keys = 0;            // packed: the number of keys, one per cell of [origin, top]
  bool dense = false;
  std::vector<std::uint32_t> starts;   // dense form: keys + 1 offsets into members
  std::vector<std::uint32_t> members;  // dense form
  std::vector<std::uint64_t> words;  // packed form
  struct Wide {  // LCOV_EXCL_LINE: clang maps this line to the implicit special members of a trivially copyable type, and the unused ones are never emitted
    std::array<std::int64_t, D> reversed;  // (z, y, x): lexicographic order puts rows along x together
    std::uint32_t id;
    std::uint32_t flags;
    friend bool operator<(const Wide& a, const Wide& b) {
      return a.reversed != b.reversed ? a.reversed < b.reversed : a.id < b.id;
    }
  };
  std::vector<Wide> wide;       // wide form
  std::vector<std::uint32_t> residents;  // boxes on this level, ascending
  Box<D> bounds{};              // union of the residents' boxes
  std::int64_t occupied = 0;

  [[nodiscard]] std::size_t count() const { return dense ? members.size() : packed ? words.size() : wide.size(); }
  [[nodiscard]] std::uint64_t key_of(const std::array<std::int64_t, D>& c) const {
    std::uint64_t key = 0;
    for (std::size_t k = 0; k < D; ++k) key += static_cast<std::uint64_t>(c[k] - origin[k]) * stride[k];
    return key;
  }
};

// The work counters of a pairing or probing pass.
struct Counters {
  std::int64_t visits = 0;
  std::int64_t candidates = 0;
};

template <std::size_t D>
constexpr std::uint32_t all_flags() {
  return (std::uint32_t{1} << D) - 1;
}

// radix_sort(a, scratch, shift, bits) is :spec's, shared with the persistent grid (issue 15): stable, so
// equal keys keep their input order (ascending box ids).

// radix_sort over a task system (B15): the same passes, each a histogram of every part's contiguous
// range and then a scatter of each range to its bucket offsets, taken bucket by bucket and, within a
// bucket, part by part, so the sort stays stable and its result is radix_sort's, word for word.
inline void radix_sort(std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& scratch, int shift, int bits,
                       const TaskSystem& tasks) {
  constexpr std::size_t kMinPart = std::size_t{1} << 14;  // below this a part costs more than it saves
  const auto parts = static_cast<std::uint32_t>(std::min<std::size_t>(tasks.workers, a.size() / kMinPart));
  if (parts <= 1 || bits <= 0) {
    radix_sort(a, scratch, shift, bits);
    return;
  }
  const int passes = (bits + 10) / 11;
  const int digit = (bits + passes - 1) / passes;
  const std::size_t buckets = std::size_t{1} << digit;
  const std::uint64_t mask = buckets - 1;
  const std::size_t n = a.size();
  const auto begin_of = [&](std::uint32_t q) { return n / parts * q; };
  const auto end_of = [&](std::uint32_t q) { return q + 1 == parts ? n : n / parts * (q + 1); };
  std::vector<std::size_t> counts(static_cast<std::size_t>(parts) * buckets);
  scratch.resize(n);
  for (int p = 0; p < passes; ++p) {
    const int s = shift + p * digit;
    auto histogram = [&](std::uint32_t q) {
      std::size_t* c = counts.data() + static_cast<std::size_t>(q) * buckets;
      std::fill(c, c + buckets, std::size_t{0});
      for (std::size_t i = begin_of(q); i < end_of(q); ++i) ++c[(a[i] >> s) & mask];
    };
    run_parts(tasks, parts, histogram);
    const std::size_t first = (a[0] >> s) & mask;
    std::size_t same = 0;
    for (std::uint32_t q = 0; q < parts; ++q) same += counts[static_cast<std::size_t>(q) * buckets + first];
    if (same == n) continue;  // every word has the same digit
    std::size_t sum = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
      for (std::uint32_t q = 0; q < parts; ++q) sum += std::exchange(counts[static_cast<std::size_t>(q) * buckets + b], sum);
    }
    auto scatter = [&](std::uint32_t q) {
      std::size_t* c = counts.data() + static_cast<std::size_t>(q) * buckets;
      for (std::size_t i = begin_of(q); i < end_of(q); ++i) {
        const std::uint64_t w = a[i];
        scratch[c[(w >> s) & mask]++] = w;
      }
    };
    run_parts(tasks, parts, scatter);
    a.swap(scratch);
  }
}


// Key layout of a level from its cell bounds: packed iff the key, the id and D flags fit 64 bits.
// Dense (a counting sort on the key) when the key range is at most twice the memberships plus 1024 (so
// its offsets cost at most ~2 uint32 per membership) and a membership fits a uint32.
template <std::size_t D>
void plan_keys(Level<D>& level, std::size_t box_count, std::int64_t memberships) {
  level.id_bits = static_cast<int>(std::bit_width(box_count > 1 ? box_count - 1 : std::size_t{1}));
  absl::uint128 cells = 1;
  bool fits = true;
  for (std::size_t k = 0; k < D; ++k) {
    const absl::uint128 span =
        static_cast<absl::uint128>(absl::int128(level.top[k]) - absl::int128(level.origin[k]) + 1);
    if (!fits) break;
    level.stride[k] = static_cast<std::uint64_t>(cells);
    cells *= span;  // both factors <= 2^64, so no wrap
    if (cells > absl::uint128(std::numeric_limits<std::uint64_t>::max())) fits = false;
  }
  level.key_shift = level.id_bits + static_cast<int>(D);
  if (fits) {
    const auto max_key = static_cast<std::uint64_t>(cells - 1);
    level.key_bits = static_cast<int>(std::bit_width(max_key));
    fits = level.key_bits + level.key_shift <= 64;
    level.keys = static_cast<std::uint64_t>(cells);
  }
  level.packed = fits;
  level.dense = fits && level.id_bits + static_cast<int>(D) <= 32 &&
                memberships <= std::int64_t{std::numeric_limits<std::uint32_t>::max()} &&
                absl::uint128(level.keys) <= 2 * absl::uint128(static_cast<std::uint64_t>(memberships)) + 1024;
}

// Calls emit(cell, flags) for every cell of `r`, x fastest, with the start flags of the cell.
template <std::size_t D, typename Emit>
inline void for_each_cell(const CellRange<D>& r, Emit&& emit) {
  std::array<std::int64_t, D> c = r.lo;
  for (;;) {
    std::uint32_t outer = 0;
    for (std::size_t k = 1; k < D; ++k) outer |= static_cast<std::uint32_t>(c[k] == r.lo[k]) << k;
    for (std::int64_t x = r.lo[0];; ++x) {
      c[0] = x;
      emit(c, outer | static_cast<std::uint32_t>(x == r.lo[0]));
      if (x == r.hi[0]) break;
    }
    std::size_t k = 1;
    for (; k < D; ++k) {
      if (c[k] != r.hi[k]) {
        ++c[k];
        break;
      }
      c[k] = r.lo[k];
    }
    if (k == D) return;
  }
}

// Appends the memberships of one box to its level, in the level's form.
template <std::size_t D>
inline void register_box(Level<D>& level, std::uint32_t id, const CellRange<D>& r) {
  if (level.packed) {
    const std::uint64_t tag = static_cast<std::uint64_t>(id) << D;
    for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
      level.words.push_back((level.key_of(c) << level.key_shift) | tag | flags);
    });
  } else {
    for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
      typename Level<D>::Wide w{};
      for (std::size_t k = 0; k < D; ++k) w.reversed[static_cast<std::size_t>(D - 1 - k)] = c[k];
      w.id = id;
      w.flags = flags;
      level.wide.push_back(w);
    });
  }
}

// Sorts the level's memberships by (cell, id) and counts its occupied cells.
template <std::size_t D>
void sort_level(Level<D>& level, const TaskSystem& tasks = {}) {
  if (level.dense) {
    std::int64_t cells = 0;
    for (std::uint64_t k = 0; k < level.keys; ++k) cells += level.starts[k + 1] != level.starts[k] ? 1 : 0;
    level.occupied = cells;
  } else if (level.packed) {
    std::vector<std::uint64_t> scratch;
    radix_sort(level.words, scratch, level.key_shift, level.key_bits, tasks);
    std::int64_t cells = 0;
    for (std::size_t i = 0; i < level.words.size(); ++i) {
      cells += (i == 0 || (level.words[i] >> level.key_shift) != (level.words[i - 1] >> level.key_shift)) ? 1 : 0;
    }
    level.occupied = cells;
  } else {
    // Memberships are appended in ascending id order, so a stable sort by cell alone would do; sorting by
    // (cell, id) states the order outright.
    std::sort(level.wide.begin(), level.wide.end());
    std::int64_t cells = 0;
    for (std::size_t i = 0; i < level.wide.size(); ++i) {
      cells += (i == 0 || level.wide[i].reversed != level.wide[i - 1].reversed) ? 1 : 0;
    }
    level.occupied = cells;
  }
}

// One box of a dense level, compact: the key of its first cell and its span (cells - 1) on each axis, in
// 32 / D bits each. Filled once from the quantised ranges, then read twice (count, place) with the
// memberships' offsets prefetched a few boxes ahead: the offsets are the random accesses of registration.
struct DenseBox {
  std::uint32_t key;
  std::uint32_t spans;
};

// Packs the spans (cells - 1) of a range into DenseBox::spans; false when one needs more than 32 / D bits.
template <std::size_t D>
[[nodiscard]] inline bool pack_spans(const std::array<std::int64_t, D>& lo, const std::array<std::int64_t, D>& hi,
                                     std::uint32_t& spans) {
  constexpr std::uint32_t kBits = 32 / D;
  spans = 0;
  bool fits = true;
  for (std::size_t k = 0; k < D; ++k) {
    std::int64_t span = 0;  // hi >= lo
    fits = fits && !__builtin_sub_overflow(hi[k], lo[k], &span) && span < (std::int64_t{1} << kBits);
    if (fits) spans |= static_cast<std::uint32_t>(span) << (k * kBits);
  }
  return fits;
}

// Calls fn(key, flags) for every cell of a dense box, x fastest (the order of for_each_cell).
template <std::size_t D, typename Fn>
inline void for_each_key(const Level<D>& level, DenseBox b, Fn&& fn) {
  constexpr std::uint32_t kBits = 32 / D;
  constexpr std::uint32_t kMask = (std::uint32_t{1} << kBits) - 1;
  const std::uint32_t sx = b.spans & kMask;
  const std::uint32_t sy = (b.spans >> kBits) & kMask;
  const std::uint32_t sz = D == 3 ? (b.spans >> (2 * kBits)) & kMask : 0;
  for (std::uint32_t z = 0; z <= sz; ++z) {
    for (std::uint32_t y = 0; y <= sy; ++y) {
      const std::uint64_t row = b.key + y * level.stride[1] + (D == 3 ? z * level.stride[D - 1] : 0);
      const std::uint32_t outer = (y == 0 ? 2u : 0u) | (D == 3 && z == 0 ? 4u : 0u);
      fn(row, outer | 1u);
      for (std::uint32_t x = 1; x <= sx; ++x) fn(row + x, outer);
    }
  }
}

// Registers the boxes of a level of `memberships` memberships (plan_keys done, residents listed): each(fn)
// calls fn(id, cell range) for every resident in ascending id order. A dense level is a stable counting
// sort (ids ascend within a cell); the others append and sort. `given`, when not empty, is the dense
// level's compact boxes, one per resident, already made (then each() is not called).
template <std::size_t D, typename Each>
void register_level(Level<D>& level, std::int64_t memberships, Each&& each, std::vector<DenseBox>&& given = {},
                    const TaskSystem& tasks = {}) {
  if (level.dense) {
    // The compact form needs 32-bit keys and spans of 32 / D bits; otherwise each() is asked again.
    std::vector<DenseBox> compact = std::move(given);
    bool fits = level.keys <= std::uint64_t{std::numeric_limits<std::uint32_t>::max()};
    const bool made = fits && !compact.empty();
    if (fits && !made) compact.reserve(level.residents.size());
    // starts[k + 1] counts key k, then becomes where key k's next membership goes, and ends as the end
    // of key k: the beginning of key k + 1.
    level.starts.assign(static_cast<std::size_t>(level.keys) + 1, 0);
    std::uint32_t* const starts = level.starts.data() + 1;
    if (!made) {
      each([&](std::uint32_t, const CellRange<D>& r) {
        if (!fits) return;
        std::uint32_t spans = 0;
        fits = pack_spans<D>(r.lo, r.hi, spans);
        compact.push_back({static_cast<std::uint32_t>(level.key_of(r.lo)), spans});
      });
    }
    constexpr std::size_t kAhead = 8;
    const std::size_t boxes = fits ? compact.size() : 0;
    if (fits) {
      for (std::size_t i = 0; i < boxes; ++i) {
        if (i + kAhead < boxes) __builtin_prefetch(&starts[compact[i + kAhead].key], 1);
        for_each_key<D>(level, compact[i], [&](std::uint64_t key, std::uint32_t) { ++starts[key]; });
      }
    }
    std::uint32_t sum = 0;
    for (std::uint64_t k = 0; k < level.keys; ++k) sum += std::exchange(starts[k], sum);
    level.members.resize(static_cast<std::size_t>(memberships));
    std::uint32_t* const members = level.members.data();
    if (fits) {
      for (std::size_t i = 0; i < boxes; ++i) {
        if (i + kAhead < boxes) __builtin_prefetch(&starts[compact[i + kAhead].key], 1);
        const std::uint32_t tag = level.residents[i] << D;
        for_each_key<D>(level, compact[i], [&](std::uint64_t key, std::uint32_t flags) {
          members[starts[key]++] = tag | flags;
        });
      }
    } else {
      compact = {};
      each([&](std::uint32_t, const CellRange<D>& r) {
        for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t) { ++starts[level.key_of(c)]; });
      });
      sum = 0;
      for (std::uint64_t k = 0; k < level.keys; ++k) sum += std::exchange(starts[k], sum);
      each([&](std::uint32_t id, const CellRange<D>& r) {
        const std::uint32_t tag = id << D;
        for_each_cell<D>(r, [&](const std::array<std::int64_t, D>& c, std::uint32_t flags) {
          members[starts[level.key_of(c)]++] = tag | flags;
        });
      });
    }
  } else {
    if (level.packed) {
      level.words.reserve(static_cast<std::size_t>(memberships));
    } else {
      level.wide.reserve(static_cast<std::size_t>(memberships));
    }
    each([&](std::uint32_t id, const CellRange<D>& r) { register_box(level, id, r); });
  }
  sort_level(level, tasks);
}

// Calls fn(count) for every cell of a wide level holding two or more boxes, with their ids and flags in
// `ids` and `flags`. Wide levels only: pair_level pairs packed levels from their words directly.
template <std::size_t D, typename Fn>
void for_each_shared_cell(const Level<D>& level, std::vector<std::uint32_t>& ids,
                          std::vector<std::uint32_t>& flags, Fn&& fn) {
  LWC_CHECK(!level.packed, "for_each_shared_cell reads the wide form");
  const std::size_t n = level.wide.size();
  std::size_t i = 0;
  while (i < n) {
    std::size_t j = i + 1;
    while (j < n && level.wide[j].reversed == level.wide[i].reversed) ++j;
    if (j - i >= 2) {
      ids.clear();
      flags.clear();
      for (std::size_t m = i; m < j; ++m) {
        ids.push_back(level.wide[m].id);
        flags.push_back(level.wide[m].flags);
      }
      fn(j - i);
    }
    i = j;
  }
}

// The pairs found so far: the first kHead in one vector (which the final sort then sorts in place, so
// small results pay for no blocks), the rest in blocks of kBlock behind a tail pointer: growing never
// reallocates beyond kHead (a vector's last doubling holds its old and new buffers at once, which was
// the peak of find_pairs on many pairs), and the final sort moves them out of their blocks.
struct PairBlocks {
  static constexpr std::size_t kHead = std::size_t{1} << 17;
  static constexpr std::size_t kBlock = std::size_t{1} << 13;  // 64 KiB: below malloc's mmap threshold
  std::vector<Pair> head;
  std::vector<std::unique_ptr<Pair[]>> blocks;  // full blocks, then the last one being filled
  std::size_t count = 0;
  Pair* tail = nullptr;  // next free entry of the last block
  Pair* end = nullptr;

  [[nodiscard]] std::size_t size() const { return count; }
  void push_back(Pair p) {
    ++count;
    if (count <= kHead) {
      head.push_back(p);
      return;
    }
    if (tail == end) grow();
    *tail++ = p;
  }
  // Calls fn(pairs) for the head, then every block in order, with its filled part.
  template <typename Fn>
  void for_each_part(Fn&& fn) const {
    fn(std::span<const Pair>(head));
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const std::size_t filled = i + 1 < blocks.size() ? kBlock : kBlock - static_cast<std::size_t>(end - tail);
      fn(std::span<const Pair>(blocks[i].get(), filled));
    }
  }

 private:
  [[gnu::noinline]] void grow() {
    blocks.push_back(std::unique_ptr<Pair[]>(new Pair[kBlock]));
    tail = blocks.back().get();
    end = tail + kBlock;
  }
};

// The boxes of one cell gathered once, axis by axis (structure of arrays). A pair is a candidate iff the
// cell is its reference cell, i.e. iff the union of the two boxes' start flags is all_flags (B9). A cell
// of more than kSmall boxes is grouped by flags (group f holds the boxes whose flags are f, in
// membership order), so that its candidates are exactly the pairs of the groups f, g with f | g ==
// all_flags and no other pair is looked at; a smaller one keeps membership order and each box's flags.
template <std::size_t D>
struct CellBoxes {
  static constexpr std::size_t kGroups = std::size_t{1} << D;
  static constexpr std::size_t kSmall = 8;
  std::vector<std::uint32_t> ids;
  std::vector<std::uint32_t> flags;  // small cells only
  std::vector<std::uint32_t> hits;  // pair_cell's scratch: the local indices of one box's hits
  std::vector<double> coords;  // axis k: mins at [2k * capacity, ...), maxes at [(2k + 1) * capacity, ...)
  std::size_t capacity = 0;
  std::array<std::size_t, kGroups + 1> group{};  // group f is [group[f], group[f + 1])

  // Gathers c memberships: get(m) returns {id, flags} of the m-th; boxes[id] is read once (a BoxView's
  // float box is widened here, B13).
  template <typename Boxes, typename Get>
  void gather(std::size_t c, const Boxes& boxes, Get&& get) {
    if (c > capacity) {
      capacity = std::max({c, 2 * capacity, std::size_t{64}});
      ids.resize(capacity);
      flags.resize(capacity);
      hits.resize(capacity);
      coords.resize(2 * D * capacity);
    }
    if (c <= kSmall) {
      for (std::size_t m = 0; m < c; ++m) {
        const auto [id, f] = get(m);
        ids[m] = id;
        flags[m] = f;
        const auto& box = boxes[id];  // by value from a BoxView
        for (std::size_t k = 0; k < D; ++k) {
          coords[2 * k * capacity + m] = box.min[k];
          coords[(2 * k + 1) * capacity + m] = box.max[k];
        }
      }
      return;
    }
    std::array<std::size_t, kGroups> at{};
    for (std::size_t m = 0; m < c; ++m) ++at[get(m).second];
    std::size_t sum = 0;
    for (std::size_t f = 0; f < kGroups; ++f) {
      group[f] = sum;
      sum += std::exchange(at[f], sum);
    }
    group[kGroups] = sum;
    for (std::size_t m = 0; m < c; ++m) {
      const auto [id, f] = get(m);
      const std::size_t slot = at[f]++;
      ids[slot] = id;
      const auto& box = boxes[id];  // by value from a BoxView
      for (std::size_t k = 0; k < D; ++k) {
        coords[2 * k * capacity + slot] = box.min[k];
        coords[(2 * k + 1) * capacity + slot] = box.max[k];
      }
    }
  }
};

// The candidates of one gathered cell, each once (B3: every two boxes of the cell at most once, and only
// from their reference cell, B9): the pairs within group all_flags and across groups f < g with f | g ==
// all_flags. Each box's tests against its partners are evaluated without branches (their outcome is
// unpredictable), collecting the hits' local indices; then the hits alone are confirmed on the bits
// under denormals-are-zero (as in overlaps()) and appended, lower id first. Returns false as soon as
// `limit` is full (B7; shared by the parts of a parallel call, B15).
template <std::size_t D>
[[nodiscard]] inline bool pair_cell(CellBoxes<D>& g, std::size_t c, PairLimit& limit, PairBlocks& out,
                                    std::int64_t& candidates) {
  const std::uint32_t* const ids = g.ids.data();
  std::uint32_t* const hits = g.hits.data();
  const double* const coords = g.coords.data();
  const std::size_t cap = g.capacity;
  constexpr std::size_t kAll = all_flags<D>();
  if (c <= CellBoxes<D>::kSmall) {
    // Membership order, so ids ascend: each two once, the reference test folded into the hit.
    const std::uint32_t* const flags = g.flags.data();
    std::int64_t considered = 0;
    for (std::size_t a = 0; a + 1 < c; ++a) {
      const std::uint32_t fa = flags[a];
      std::array<double, D> amin;
      std::array<double, D> amax;
      for (std::size_t k = 0; k < D; ++k) {
        amin[k] = coords[2 * k * cap + a];
        amax[k] = coords[(2 * k + 1) * cap + a];
      }
      std::size_t found = 0;
      for (std::size_t b = a + 1; b < c; ++b) {
        const std::uint32_t reference = (fa | flags[b]) == kAll ? 1u : 0u;
        std::uint32_t hit = reference;
        for (std::size_t k = 0; k < D; ++k) {
          hit &= static_cast<std::uint32_t>(amin[k] <= coords[(2 * k + 1) * cap + b]);
          hit &= static_cast<std::uint32_t>(coords[2 * k * cap + b] <= amax[k]);
        }
        considered += reference;
        hits[found] = static_cast<std::uint32_t>(b);
        found += hit;
      }
      for (std::size_t j = 0; j < found; ++j) {
        const std::uint32_t b = hits[j];
#if LWC_DENORMALS_ARE_ZERO
        bool exact = true;
        for (std::size_t k = 0; k < D; ++k) {
          exact = exact && fp::less_equal(amin[k], coords[(2 * k + 1) * cap + b]) &&
                  fp::less_equal(coords[2 * k * cap + b], amax[k]);
        }
        if (!exact) continue;
#endif
        if (limit.full(out.size())) return false;
        out.push_back({ids[a], ids[b]});
      }
    }
    candidates += considered;
    return true;
  }
  for (std::size_t f = 0; f < CellBoxes<D>::kGroups; ++f) {
    for (std::size_t h = f; h < CellBoxes<D>::kGroups; ++h) {
      if ((f | h) != kAll) continue;
      const std::size_t a_end = g.group[f + 1];
      const std::size_t b_end = g.group[h + 1];
      const std::size_t na = a_end - g.group[f];
      const std::size_t nb = b_end - g.group[h];
      candidates += static_cast<std::int64_t>(f == h ? na * (na - (na > 0 ? 1 : 0)) / 2 : na * nb);
      for (std::size_t a = g.group[f]; a < a_end; ++a) {
        std::array<double, D> amin;
        std::array<double, D> amax;
        for (std::size_t k = 0; k < D; ++k) {
          amin[k] = coords[2 * k * cap + a];
          amax[k] = coords[(2 * k + 1) * cap + a];
        }
        std::size_t found = 0;
        for (std::size_t b = f == h ? a + 1 : g.group[h]; b < b_end; ++b) {
          std::uint32_t hit = 1;
          for (std::size_t k = 0; k < D; ++k) {
            hit &= static_cast<std::uint32_t>(amin[k] <= coords[(2 * k + 1) * cap + b]);
            hit &= static_cast<std::uint32_t>(coords[2 * k * cap + b] <= amax[k]);
          }
          hits[found] = static_cast<std::uint32_t>(b);
          found += hit;
        }
        for (std::size_t j = 0; j < found; ++j) {
          const std::uint32_t b = hits[j];
#if LWC_DENORMALS_ARE_ZERO
          bool exact = true;
          for (std::size_t k = 0; k < D; ++k) {
            exact = exact && fp::less_equal(amin[k], coords[(2 * k + 1) * cap + b]) &&
                    fp::less_equal(coords[2 * k * cap + b], amax[k]);
          }
          if (!exact) continue;
#endif
          if (limit.full(out.size())) return false;
          out.push_back({std::min(ids[a], ids[b]), std::max(ids[a], ids[b])});
        }
      }
    }
  }
  return true;
}

// Pairs the residents of one level with each other: in every shared cell, each two boxes once, reported
// only when the cell is their reference cell and they overlap (B1-B3, B9). Returns false as soon as
// `limit` says more than max_pairs pairs exist. A packed level is paired over the cells of its keys
// [from, to) (dense) or of its words [from, to) (sorted words, cut at cell boundaries), which a parallel
// call splits between its parts (B15); a wide level always whole.
template <std::size_t D, typename Boxes>
[[nodiscard]] bool pair_level(const Level<D>& level, const Boxes& boxes, PairLimit& limit, PairBlocks& out,
                              Counters& counters, std::uint64_t from = 0,
                              std::uint64_t to = std::numeric_limits<std::uint64_t>::max()) {
  CellBoxes<D> cell;
  bool within = true;
  const auto pair = [&](std::size_t c, auto&& get) {
    counters.visits += static_cast<std::int64_t>(c * (c - 1) / 2);
    cell.gather(c, boxes, get);
    within = pair_cell(cell, c, limit, out, counters.candidates);
  };
  using Member = std::pair<std::uint32_t, std::uint32_t>;  // id, start flags
  if (!level.packed) {
    std::vector<std::uint32_t> ids;
    std::vector<std::uint32_t> flags;
    for_each_shared_cell<D>(level, ids, flags, [&](std::size_t c) {
      if (within) pair(c, [&](std::size_t m) { return Member{ids[m], flags[m]}; });
    });
    return within;
  }
  // The boxes of the next memberships are prefetched: the box loads are the only random accesses, and
  // they dominate the pairing time without it.
  constexpr std::size_t kAhead = 40;
  if (level.dense) {
    const std::uint32_t* const members = level.members.data();
    const std::uint32_t* const starts = level.starts.data();
    const std::uint64_t last = std::min(to, level.keys);
    if (from >= last) return true;
    const std::size_t n = starts[last];  // the end of this part's memberships
    std::size_t fetched = starts[from];
    for (std::uint64_t key = from; key < last && within; ++key) {
      const std::size_t i = starts[key];
      const std::size_t j = starts[key + 1];
      for (const std::size_t until = std::min(n, j + kAhead); fetched < until; ++fetched) {
        prefetch_box(boxes, members[fetched] >> D);
      }
      if (j - i < 2) continue;
      pair(j - i, [&](std::size_t m) { return Member{members[i + m] >> D, members[i + m] & all_flags<D>()}; });
    }
    return within;
  }
  // Packed: the runs of equal keys, decoded in place.
  const std::vector<std::uint64_t>& w = level.words;
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(w.size(), to));
  const int shift = level.key_shift;
  const std::uint64_t id_mask = (std::uint64_t{1} << level.id_bits) - 1;
  std::size_t fetched = static_cast<std::size_t>(from);
  for (std::size_t i = static_cast<std::size_t>(from); i < n && within;) {
    const std::uint64_t key = w[i] >> shift;
    std::size_t j = i + 1;
    while (j < n && (w[j] >> shift) == key) ++j;
    for (const std::size_t until = std::min(n, j + kAhead); fetched < until; ++fetched) {
      prefetch_box(boxes, (w[fetched] >> D) & id_mask);
    }
    if (j - i >= 2) {
      pair(j - i, [&](std::size_t m) {
        return Member{static_cast<std::uint32_t>((w[i + m] >> D) & id_mask),
                      static_cast<std::uint32_t>(w[i + m] & all_flags<D>())};
      });
    }
    i = j;
  }
  return within;
}

// Calls fn(resident id) once for every resident of `level` whose cells meet the probe's and that
// overlaps `probe`, from the reference cell of the two (B9, B10). The probe's cells are clamped to the
// level's cell bounds (which leaves every reference cell in place, as residents start inside them);
// a probe whose clamped range has more rows than the level has memberships scans the residents instead.
template <std::size_t D, typename Boxes, typename Fn>
void probe_level(const Level<D>& level, const Boxes& boxes, const Box<D>& probe, Counters& counters, Fn&& fn) {
  if (level.residents.empty() || !overlaps(probe, level.bounds)) return;
  CellRange<D> r{};
  for (std::size_t k = 0; k < D; ++k) {
    // A finite probe coordinate outside int64 cells saturates: saturation is monotone, so it keeps the
    // order that completeness needs, and the clamp below removes it anyway.
    for (const bool upper : {false, true}) {
      const double v = upper ? probe.max[k] : probe.min[k];
      absl::StatusOr<std::int64_t> c = cell_of(v, level.size);
      std::int64_t cell = c.ok() ? *c : (v < 0 ? std::numeric_limits<std::int64_t>::min()
                                               : std::numeric_limits<std::int64_t>::max());
      cell = std::clamp(cell, level.origin[k], level.top[k]);
      (upper ? r.hi[k] : r.lo[k]) = cell;
    }
  }
  absl::uint128 rows = 1;
  for (std::size_t k = 1; k < D; ++k) rows *= static_cast<absl::uint128>(absl::int128(r.hi[k]) - absl::int128(r.lo[k]) + 1);
  if (rows > absl::uint128(level.count())) {
    for (const std::uint32_t id : level.residents) {
      ++counters.visits;
      ++counters.candidates;
      if (overlaps(probe, boxes[id])) fn(id);
    }
    return;
  }
  // Row by row: one binary search for the row's first cell, then a scan along x.
  std::array<std::int64_t, D> c = r.lo;
  for (;;) {
    // On every axis where the probe does not start in this cell, the resident must (its start flag).
    std::uint32_t outer_need = 0;
    for (std::size_t k = 1; k < D; ++k) {
      if (c[k] != r.lo[k]) outer_need |= std::uint32_t{1} << k;
    }
    const auto visit = [&](std::uint32_t id, std::uint32_t flags, std::int64_t x) {
      ++counters.visits;
      // Reference cell of (probe, resident): max(lo_probe, lo_resident) on every axis. The scan starts at
      // lo_probe, so the cell is the reference on an axis iff the probe or the resident starts there.
      const std::uint32_t need = outer_need | static_cast<std::uint32_t>(x != r.lo[0]);
      if ((flags & need) != need) return;
      ++counters.candidates;
      if (overlaps(probe, boxes[id])) fn(id);
    };
    if (level.dense) {
      std::array<std::int64_t, D> from = c;
      from[0] = r.lo[0];
      const std::uint64_t first = level.key_of(from);
      const std::uint64_t last = first + static_cast<std::uint64_t>(r.hi[0] - r.lo[0]);
      for (std::uint64_t key = first; key <= last; ++key) {
        const auto x = r.lo[0] + static_cast<std::int64_t>(key - first);
        for (std::uint32_t m = level.starts[key]; m < level.starts[key + 1]; ++m) {
          visit(level.members[m] >> D, level.members[m] & all_flags<D>(), x);
        }
      }
    } else if (level.packed) {
      std::uint64_t row = 0;
      for (std::size_t k = 1; k < D; ++k) row += static_cast<std::uint64_t>(c[k] - level.origin[k]) * level.stride[k];
      const std::uint64_t first = row + static_cast<std::uint64_t>(r.lo[0] - level.origin[0]);
      const std::uint64_t last = row + static_cast<std::uint64_t>(r.hi[0] - level.origin[0]);
      auto it = std::lower_bound(level.words.begin(), level.words.end(), first << level.key_shift);
      const std::uint64_t id_mask = (std::uint64_t{1} << level.id_bits) - 1;
      for (; it != level.words.end(); ++it) {
        const std::uint64_t key = *it >> level.key_shift;
        if (key > last) break;
        const auto x = r.lo[0] + static_cast<std::int64_t>(key - first);
        visit(static_cast<std::uint32_t>((*it >> D) & id_mask), static_cast<std::uint32_t>(*it & all_flags<D>()), x);
      }
    } else {
      typename Level<D>::Wide from{};
      for (std::size_t k = 0; k < D; ++k) from.reversed[static_cast<std::size_t>(D - 1 - k)] = c[k];
      from.reversed[static_cast<std::size_t>(D - 1)] = r.lo[0];
      from.id = 0;
      auto it = std::lower_bound(level.wide.begin(), level.wide.end(), from);
      for (; it != level.wide.end(); ++it) {
        bool same_row = true;
        for (std::size_t k = 0; k + 1 < static_cast<std::size_t>(D); ++k) same_row &= it->reversed[k] == from.reversed[k];
        if (!same_row || it->reversed[static_cast<std::size_t>(D - 1)] > r.hi[0]) break;
        visit(it->id, it->flags, it->reversed[static_cast<std::size_t>(D - 1)]);
      }
    }
    std::size_t k = 1;
    for (; k < D; ++k) {
      if (c[k] != r.hi[k]) {
        ++c[k];
        break;
      }
      c[k] = r.lo[k];
    }
    if (k == D) return;
  }
}

// The fast path of registration: the cells of up to kBoxes boxes at once through the batch quantiser
// (lwc.decompose D11, whose loop inlines the exact quantiser). Returns false when any box of the block is
// invalid, has a cell outside int64 or spans more than `budget` cells: the caller then places that
// block box by box, which finds and names the first failure exactly (or a coarser level for it).
template <std::size_t D>
struct BlockCells {
  static constexpr std::size_t kBoxes = 64;
  std::array<double, kBoxes * 2 * D> coords;
  std::array<std::int64_t, kBoxes * 2 * D> cells;  // box b, axis k: lo at 2 * (b * D + k), hi after it
  std::array<std::int64_t, kBoxes> counts;

  [[nodiscard]] CellRange<D> range(std::size_t b) const {
    CellRange<D> r;
    for (std::size_t k = 0; k < D; ++k) {
      r.lo[k] = cells[2 * (b * D + k)];
      r.hi[k] = cells[2 * (b * D + k) + 1];
    }
    return r;
  }
};

template <std::size_t D, typename Boxes>
[[nodiscard]] bool quantise_block(const Boxes& boxes, CellSize h, std::int64_t budget, BlockCells<D>& out) {
  bool ordered = true;
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    const auto& box = boxes[b];  // a caller's float box is widened here, once (B13)
    for (std::size_t k = 0; k < D; ++k) {
      ordered &= box.min[k] <= box.max[k];  // false for NaN; infinities fail in cells_of
      out.coords[2 * (b * D + k)] = box.min[k];
      out.coords[2 * (b * D + k) + 1] = box.max[k];
    }
  }
  if (!ordered) return false;
  const std::size_t n = 2 * D * boxes.size();
  if (!cells_of(std::span<const double>(out.coords.data(), n), h, std::span<std::int64_t>(out.cells.data(), n)).ok()) {
    return false;
  }
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    std::int64_t count = 1;
    for (std::size_t k = 0; k < D; ++k) {
      std::int64_t span = 0;
      if (__builtin_sub_overflow(out.cells[2 * (b * D + k) + 1], out.cells[2 * (b * D + k)], &span) ||
          span >= budget || __builtin_mul_overflow(count, span + 1, &count) || count > budget) {
        return false;
      }
    }
    out.counts[b] = count;
  }
  return true;
}

// The registered grid of one set of boxes: one Level per level that holds boxes, level 0 first.
template <std::size_t D>
struct Index {
  std::vector<Level<D>> levels;
  std::vector<int> level_of;         // per box level; empty when every box is on level 0
  Stats stats;
  std::int64_t max_pairs = 0;
  int id_bits = 0;
};

[[nodiscard]] inline absl::Status too_many_boxes(std::size_t n) {
  return absl::ResourceExhaustedError(
      absl::StrCat(n, " boxes: box indices are 32-bit, at most 4294967295 boxes per call (B7)"));
}

// Validation, placement and registration (B6-B8, B11): nothing proportional to a box's cells is
// allocated before the span of every box and the total are known to be within budget.
//
// With a task system of W > 1 workers (B15) only the radix sort of a packed level that is not dense
// is split (radix_sort over the task system); the dense levels' counting sort, the common case, stays
// serial.
template <std::size_t D, typename Boxes>
[[nodiscard]] absl::StatusOr<Index<D>> build_index(const Boxes& boxes, const GridSpec<D>& spec, Timings* timings,
                                                  const TaskSystem& tasks = {}) {
  const Stopwatch validating(timings);
  if (boxes.size() > std::numeric_limits<std::uint32_t>::max()) return too_many_boxes(boxes.size());
  const GridConfig& config = spec.config();
  Index<D> index;
  index.max_pairs = config.max_pairs.value();
  index.id_bits = static_cast<int>(std::bit_width(boxes.size() > 1 ? boxes.size() - 1 : std::size_t{1}));

  // Pass 1: validate and place every box; total and per-level cell bounds, no allocation per cell.
  Level<D> base;
  base.level = 0;
  base.size = spec.cell_size();
  base.origin.fill(std::numeric_limits<std::int64_t>::max());
  base.top.fill(std::numeric_limits<std::int64_t>::min());
  std::int64_t base_memberships = 0;
  absl::int128 total = 0;
  struct Coarse {
    std::uint32_t id;
    Placement<D> where;
  };
  std::vector<Coarse> coarse;
  BlockCells<D> block;
  // Every box's first cell (relative to box 0's) and spans, kept while every box takes the fast path and
  // fits (int32 offsets, 32 / D bits of span): registration then does not quantise again. O(n).
  struct Relative {
    std::array<std::int32_t, D> lo;
    std::uint32_t spans;
  };
  std::vector<Relative> relative;
  bool relative_ok = true;
  relative.reserve(boxes.size());
  std::array<std::int64_t, D> anchor{};
  for (std::size_t begin = 0; begin < boxes.size(); begin += BlockCells<D>::kBoxes) {
    const auto part = boxes.subspan(begin, std::min(BlockCells<D>::kBoxes, boxes.size() - begin));
    if (quantise_block<D>(part, spec.cell_size(), config.max_cells_per_box.value(), block)) {
      for (std::size_t b = 0; b < part.size(); ++b) {
        total += block.counts[b];
        base_memberships += block.counts[b];  // <= total, which is checked below before any use
        const CellRange<D> r = block.range(b);
        for (std::size_t k = 0; k < D; ++k) {
          base.origin[k] = std::min(base.origin[k], r.lo[k]);
          base.top[k] = std::max(base.top[k], r.hi[k]);
        }
        if (relative_ok) {
          if (begin + b == 0) anchor = r.lo;
          Relative& e = relative.emplace_back();
          relative_ok = pack_spans<D>(r.lo, r.hi, e.spans);
          for (std::size_t k = 0; k < D; ++k) {
            std::int64_t offset = 0;
            relative_ok = relative_ok && !__builtin_sub_overflow(r.lo[k], anchor[k], &offset) &&
                          offset >= std::numeric_limits<std::int32_t>::min() &&
                          offset <= std::numeric_limits<std::int32_t>::max();
            e.lo[k] = static_cast<std::int32_t>(relative_ok ? offset : 0);
          }
        }
      }
      continue;
    }
    relative_ok = false;
    for (std::size_t i = begin; i < begin + part.size(); ++i) {
      absl::StatusOr<Placement<D>> where = spec.place(boxes[i], i);
      if (!where.ok()) return where.status();
      total += where->cell_count;
      if (where->level == 0) {
        base_memberships += where->cell_count;
        for (std::size_t k = 0; k < D; ++k) {
          base.origin[k] = std::min(base.origin[k], where->cells.lo[k]);
          base.top[k] = std::max(base.top[k], where->cells.hi[k]);
        }
      } else {
        coarse.push_back({static_cast<std::uint32_t>(i), *where});
      }
    }
  }
  if (total > config.max_memberships.value()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the boxes need ", static_cast<std::int64_t>(total), " memberships, more than max_memberships = ",
        config.max_memberships.value(), " (B7)"));
  }
  index.stats.boxes = static_cast<std::int64_t>(boxes.size());
  index.stats.memberships = static_cast<std::int64_t>(total);
  index.stats.coarse_boxes = static_cast<std::int64_t>(coarse.size());
  validating.stop(timings, &Timings::validation_ns);

  // Pass 2: registration. Level 0 recomputes each box's cells (cheaper than storing them: 4-6 exact
  // divisions per box against 32-48 bytes per box of memory traffic).
  const Stopwatch registering(timings);
  if (!coarse.empty()) {
    index.level_of.assign(boxes.size(), 0);
    for (const Coarse& c : coarse) index.level_of[c.id] = c.where.level;
  }
  if (base_memberships > 0) {
    plan_keys(base, boxes.size(), base_memberships);
    std::vector<DenseBox> compact;
    if (relative_ok && base.dense && coarse.empty() &&
        base.keys <= std::uint64_t{std::numeric_limits<std::uint32_t>::max()}) {
      compact.resize(relative.size());
      for (std::size_t i = 0; i < relative.size(); ++i) {
        std::uint64_t key = 0;  // < keys: the cell lies in [origin, top]
        for (std::size_t k = 0; k < D; ++k) {
          key += static_cast<std::uint64_t>(anchor[k] + relative[i].lo[k] - base.origin[k]) * base.stride[k];
        }
        compact[i] = {static_cast<std::uint32_t>(key), relative[i].spans};
      }
    }
    relative = {};
    base.residents.reserve(boxes.size() - coarse.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if (!index.level_of.empty() && index.level_of[i] != 0) continue;
      base.residents.push_back(static_cast<std::uint32_t>(i));
      const auto& box = boxes[i];
      for (std::size_t k = 0; k < D; ++k) {
        base.bounds.min[k] = base.residents.size() == 1 ? box.min[k] : std::min(base.bounds.min[k], box.min[k]);
        base.bounds.max[k] = base.residents.size() == 1 ? box.max[k] : std::max(base.bounds.max[k], box.max[k]);
      }
    }
    register_level(base, base_memberships, [&](auto&& add) {
      for (std::size_t begin = 0; begin < boxes.size(); begin += BlockCells<D>::kBoxes) {
        const auto part = boxes.subspan(begin, std::min(BlockCells<D>::kBoxes, boxes.size() - begin));
        if (quantise_block<D>(part, spec.cell_size(), config.max_cells_per_box.value(), block)) {
          for (std::size_t b = 0; b < part.size(); ++b) add(static_cast<std::uint32_t>(begin + b), block.range(b));
          continue;
        }
        for (std::size_t i = begin; i < begin + part.size(); ++i) {
          if (!index.level_of.empty() && index.level_of[i] != 0) continue;
          absl::StatusOr<CellRange<D>> r = cell_range(boxes[i], base.size);
          LWC_CHECK(r.ok(), "a box placed on level 0 has int64 cells there");
          add(static_cast<std::uint32_t>(i), *r);
        }
      }
    }, std::move(compact), tasks);
    index.levels.push_back(std::move(base));
  }
  // Coarser levels, ascending: few boxes, registered from their placements.
  std::sort(coarse.begin(), coarse.end(), [](const Coarse& a, const Coarse& b) {
    return a.where.level != b.where.level ? a.where.level < b.where.level : a.id < b.id;
  });
  for (std::size_t i = 0; i < coarse.size();) {
    std::size_t j = i;
    Level<D> level;
    level.level = coarse[i].where.level;
    level.size = *CellSize::create(level_cell_size(spec.cell_size().value(), level.level));
    level.origin = coarse[i].where.cells.lo;
    level.top = coarse[i].where.cells.hi;
    for (; j < coarse.size() && coarse[j].where.level == level.level; ++j) {
      for (std::size_t k = 0; k < D; ++k) {
        level.origin[k] = std::min(level.origin[k], coarse[j].where.cells.lo[k]);
        level.top[k] = std::max(level.top[k], coarse[j].where.cells.hi[k]);
      }
    }
    std::int64_t memberships = 0;
    level.bounds = boxes[coarse[i].id];
    for (std::size_t m = i; m < j; ++m) {  // ids ascend within a level
      const auto& b = boxes[coarse[m].id];
      memberships += coarse[m].where.cell_count;  // <= total
      level.residents.push_back(coarse[m].id);
      for (std::size_t k = 0; k < D; ++k) {
        level.bounds.min[k] = std::min(level.bounds.min[k], b.min[k]);
        level.bounds.max[k] = std::max(level.bounds.max[k], b.max[k]);
      }
    }
    plan_keys(level, boxes.size(), memberships);
    register_level(level, memberships, [&](auto&& add) {
      for (std::size_t m = i; m < j; ++m) add(coarse[m].id, coarse[m].where.cells);
    });
    index.levels.push_back(std::move(level));
    i = j;
  }
  for (const Level<D>& level : index.levels) index.stats.occupied_cells += level.occupied;
  index.stats.levels = static_cast<std::int64_t>(index.levels.size());
  registering.stop(timings, &Timings::registration_ns);
  return index;
}

// The digits of the final sort's key (a << id_bits) | b: passes of at most 12 bits (4096 counters, in L1).
struct PairDigits {
  int passes;
  int digit;
  std::size_t buckets;
  std::uint64_t mask;
};
[[nodiscard]] inline PairDigits pair_digits(int id_bits) {
  const int bits = std::max(2 * id_bits, 1);
  const int passes = (bits + 11) / 12;
  const int digit = (bits + passes - 1) / passes;
  const std::size_t buckets = std::size_t{1} << digit;
  return {passes, digit, buckets, buckets - 1};
}

// LSD radix sort of the pairs into lexicographic order, on the key (a << id_bits) | b: stable passes of
// at most 12 bits (4096 counters, in L1), b's bits first; a pass whose digit is the same for every pair
// is skipped. Pairs that all fit the head are sorted in place with one scratch array. Otherwise the
// first pass moves them out of the head and the blocks (released one by one) into an array, and the
// passes go back and forth between `sorted` and an uninitialised scratch array, starting in whichever
// makes the last pass end in `sorted`. Peak: two arrays of the pairs.
inline void radix_sort_pairs(PairBlocks& in, std::vector<Pair>& sorted, int id_bits) {
  const auto [passes, digit, buckets, mask] = pair_digits(id_bits);
  const std::size_t n = in.size();
  const auto key = [id_bits](const Pair& p) { return (static_cast<std::uint64_t>(p.a) << id_bits) | p.b; };
  std::vector<std::size_t> counts(buckets * static_cast<std::size_t>(passes), 0);
  in.for_each_part([&](std::span<const Pair> part) {
    for (const Pair& p : part) {
      const std::uint64_t k = key(p);
      for (int pass = 0; pass < passes; ++pass) {
        ++counts[static_cast<std::size_t>(pass) * buckets + ((k >> (pass * digit)) & mask)];
      }
    }
  });
  const auto offsets = [&](int pass) {
    std::size_t* c = counts.data() + static_cast<std::size_t>(pass) * buckets;
    std::size_t sum = 0;
    for (std::size_t i = 0; i < buckets; ++i) sum += std::exchange(c[i], sum);
    return c;
  };
  if (in.blocks.empty()) {
    sorted = std::move(in.head);
    in = PairBlocks{};
    if (n < 2) return;
    std::vector<Pair> scratch(n);
    for (int pass = 0; pass < passes; ++pass) {
      const int s = pass * digit;
      if (counts[static_cast<std::size_t>(pass) * buckets + ((key(sorted[0]) >> s) & mask)] == n) continue;
      std::size_t* c = offsets(pass);
      for (const Pair& p : sorted) scratch[c[(key(p) >> s) & mask]++] = p;
      sorted.swap(scratch);
    }
    return;
  }
  // The passes that move anything (pass 0 always runs: it leaves the head and the blocks).
  const std::uint64_t first = key(in.head[0]);
  std::vector<int> active = {0};
  for (int pass = 1; pass < passes; ++pass) {
    if (counts[static_cast<std::size_t>(pass) * buckets + ((first >> (pass * digit)) & mask)] != n) active.push_back(pass);
  }
  sorted.resize(n);
  std::unique_ptr<Pair[]> scratch(active.size() > 1 ? new Pair[n] : nullptr);
  // Pass j writes into sorted iff (active.size() - 1 - j) is even.
  Pair* to = active.size() % 2 == 1 ? sorted.data() : scratch.get();
  Pair* from = to == sorted.data() ? scratch.get() : sorted.data();
  {
    std::size_t* c = offsets(0);
    std::size_t part = 0;
    in.for_each_part([&](std::span<const Pair> pairs) {
      for (const Pair& p : pairs) to[c[key(p) & mask]++] = p;
      if (part == 0) {
        in.head = {};
      } else {
        in.blocks[part - 1].reset();
      }
      ++part;
    });
    in = PairBlocks{};
  }
  for (std::size_t j = 1; j < active.size(); ++j) {
    std::swap(from, to);
    const int s = active[j] * digit;
    std::size_t* c = offsets(active[j]);
    for (std::size_t i = 0; i < n; ++i) to[c[(key(from[i]) >> s) & mask]++] = from[i];
  }
}

// radix_sort_pairs over the parts of a parallel call (B15), one PairBlocks each, split over the task
// system: the first reading counts every pass's digits part by part; the first pass scatters each part
// (its head, then its blocks, released one by one) to offsets taken bucket by bucket and, within a
// bucket, part by part; each later pass counts and scatters contiguous ranges the same way. Every pass
// is stable, and the pairs are distinct, so the result is the one sorted sequence: the serial sort's.
// The passes go back and forth between `sorted` and an uninitialised scratch array, as in the serial
// sort of blocks. Peak: two arrays of the pairs.
inline void radix_sort_pairs(std::span<PairBlocks> in, std::vector<Pair>& sorted, int id_bits, const TaskSystem& tasks) {
  if (in.size() == 1) {
    radix_sort_pairs(in[0], sorted, id_bits);
    return;
  }
  const auto [passes, digit, buckets, mask] = pair_digits(id_bits);
  const auto parts = static_cast<std::uint32_t>(in.size());
  std::size_t n = 0;
  for (const PairBlocks& part : in) n += part.size();
  const auto key = [id_bits](const Pair& p) { return (static_cast<std::uint64_t>(p.a) << id_bits) | p.b; };
  // Part q's counts, pass by pass: counts[(q * passes + pass) * buckets + digit].
  const std::size_t per_part = buckets * static_cast<std::size_t>(passes);
  std::vector<std::size_t> counts(per_part * parts, 0);
  auto histogram = [&](std::uint32_t q) {
    std::size_t* c = counts.data() + per_part * q;
    in[q].for_each_part([&](std::span<const Pair> pairs) {
      for (const Pair& p : pairs) {
        const std::uint64_t k = key(p);
        for (int pass = 0; pass < passes; ++pass) {
          ++c[static_cast<std::size_t>(pass) * buckets + ((k >> (pass * digit)) & mask)];
        }
      }
    });
  };
  run_parts(tasks, parts, histogram);
  std::uint64_t first = 0;
  for (const PairBlocks& part : in) {
    if (part.size() > 0) {
      first = key(part.head[0]);
      break;
    }
  }
  // The passes that move anything (pass 0 always runs: it leaves the parts).
  std::vector<int> active = {0};
  for (int pass = 1; pass < passes; ++pass) {
    std::size_t same = 0;
    for (std::uint32_t q = 0; q < parts; ++q) {
      same += counts[per_part * q + static_cast<std::size_t>(pass) * buckets + ((first >> (pass * digit)) & mask)];
    }
    if (same != n) active.push_back(pass);
  }
  // The counts of one pass at c (part q's at c + q * per_part) become scatter offsets.
  const auto offsets = [&](std::size_t* c) {
    std::size_t sum = 0;
    for (std::size_t i = 0; i < buckets; ++i) {
      for (std::uint32_t q = 0; q < parts; ++q) sum += std::exchange(c[per_part * q + i], sum);
    }
  };
  sorted.resize(n);
  std::unique_ptr<Pair[]> scratch(active.size() > 1 ? new Pair[n] : nullptr);
  // Pass j writes into sorted iff (active.size() - 1 - j) is even.
  Pair* to = active.size() % 2 == 1 ? sorted.data() : scratch.get();
  Pair* from = to == sorted.data() ? scratch.get() : sorted.data();
  offsets(counts.data());
  auto first_pass = [&](std::uint32_t q) {
    std::size_t* c = counts.data() + per_part * q;
    std::size_t part = 0;
    in[q].for_each_part([&](std::span<const Pair> pairs) {
      for (const Pair& p : pairs) to[c[key(p) & mask]++] = p;
      if (part == 0) {
        in[q].head = {};
      } else {
        in[q].blocks[part - 1].reset();
      }
      ++part;
    });
    in[q] = PairBlocks{};
  };
  run_parts(tasks, parts, first_pass);
  const auto begin_of = [&](std::uint32_t q) { return n / parts * q; };
  const auto end_of = [&](std::uint32_t q) { return q + 1 == parts ? n : n / parts * (q + 1); };
  for (std::size_t j = 1; j < active.size(); ++j) {
    std::swap(from, to);
    const int s = active[j] * digit;
    std::size_t* c = counts.data() + static_cast<std::size_t>(active[j]) * buckets;
    auto count_range = [&](std::uint32_t q) {
      std::size_t* h = c + per_part * q;
      std::fill(h, h + buckets, std::size_t{0});
      for (std::size_t i = begin_of(q); i < end_of(q); ++i) ++h[(key(from[i]) >> s) & mask];
    };
    run_parts(tasks, parts, count_range);
    offsets(c);
    auto scatter = [&](std::uint32_t q) {
      std::size_t* h = c + per_part * q;
      for (std::size_t i = begin_of(q); i < end_of(q); ++i) to[h[(key(from[i]) >> s) & mask]++] = from[i];
    };
    run_parts(tasks, parts, scatter);
  }
}

[[nodiscard]] inline absl::Status too_many_pairs(std::int64_t max_pairs) {
  return absl::ResourceExhaustedError(
      absl::StrCat("more than max_pairs = ", max_pairs, " overlapping pairs (B7)"));
}

// Every box of [begin, end) against every coarser level than its own (B11): it probes the level and meets
// each resident there once, from their reference cell. Returns false when `limit` is full.
template <std::size_t D, typename Boxes>
[[nodiscard]] bool probe_coarse(const Index<D>& index, const Boxes& boxes, std::size_t begin, std::size_t end,
                                PairLimit& limit, PairBlocks& out, Counters& counters) {
  bool within = true;
  for (const Level<D>& level : index.levels) {
    if (level.level == 0 || !within) continue;
    for (std::size_t i = begin; i < end && within; ++i) {
      const int own = index.level_of.empty() ? 0 : index.level_of[i];
      if (own >= level.level) continue;
      const auto id = static_cast<std::uint32_t>(i);
      probe_level(level, boxes, boxes[i], counters, [&](std::uint32_t resident) {
        if (!within) return;
        if (limit.full(out.size())) {
          within = false;
          return;
        }
        out.push_back({std::min(id, resident), std::max(id, resident)});
      });
    }
  }
  return within;
}

// The pairs of an index, unsorted, one PairBlocks per part, with the work counters; within == false when
// there are more than `limit` (B7). Within every level, then every box against every coarser level it is
// finer than. No pair set: each pair is met in one reference cell only.
// With a task system of W > 1 workers (B15) the work is cut into W parts: a dense level by ranges of keys
// (whole cells, about the same number of memberships each), a sorted packed level by runs of words cut at
// cell boundaries, the probes by ranges of boxes; a wide level (a world of more than ~2^40 cells) is
// paired whole by part 0. Each part has its own pair blocks, counters and share of the one pair budget
// (PairLimit): every cell and every probing box is handled by exactly one part, so the counters' sums and
// the set of pairs are those of the serial pass, and the final sort makes the order the same.
struct FoundPairs {
  std::vector<PairBlocks> parts;
  Counters counters;
  std::size_t size = 0;
  bool within = true;
};

template <std::size_t D, typename Boxes>
[[nodiscard]] FoundPairs find_unsorted(const Index<D>& index, const Boxes& boxes, std::uint64_t limit,
                                       const TaskSystem& tasks) {
  const std::uint32_t parts = std::max<std::uint32_t>(1, tasks.workers);
  FoundPairs result;
  std::atomic<std::uint64_t> shared{0};
  // One part's state, on cache lines of its own: the counters and the pair count are written for every
  // cell and pair, and two parts sharing a line would make every write a miss on the other core.
  struct alignas(64) Part {
    Part(std::uint64_t limit, std::atomic<std::uint64_t>* shared) : budget(limit, shared) {}
    PairLimit budget;  // publishes this part's count to `shared`
    PairBlocks pairs;
    Counters counters;
  };
  std::vector<Part> part;
  part.reserve(parts);
  for (std::uint32_t p = 0; p < parts; ++p) part.emplace_back(limit, parts == 1 ? nullptr : &shared);
  std::atomic<bool> over{false};
  for (const Level<D>& level : index.levels) {
    if (over.load(std::memory_order_relaxed)) break;
    if (parts == 1 || !level.packed) {
      if (!pair_level(level, boxes, part[0].budget, part[0].pairs, part[0].counters)) over.store(true);
      continue;
    }
    // Cut points on cell boundaries: a cell's memberships are never split between two parts.
    std::vector<std::uint64_t> cut(parts + 1);
    cut[0] = 0;
    if (level.dense) {
      cut[parts] = level.keys;
      const std::size_t m = level.members.size();
      for (std::uint32_t p = 1; p < parts; ++p) {
        // The first key whose memberships start at or after p / parts of them.
        const auto* at = std::lower_bound(level.starts.data(), level.starts.data() + level.keys, m / parts * p);
        cut[p] = std::max<std::uint64_t>(cut[p - 1], static_cast<std::uint64_t>(at - level.starts.data()));
      }
    } else {
      const std::vector<std::uint64_t>& w = level.words;
      cut[parts] = w.size();
      for (std::uint32_t p = 1; p < parts; ++p) {
        std::size_t c = std::max<std::size_t>(static_cast<std::size_t>(cut[p - 1]), w.size() / parts * p);
        while (c > cut[p - 1] && c < w.size() && (w[c] >> level.key_shift) == (w[c - 1] >> level.key_shift)) ++c;
        cut[p] = c;
      }
    }
    auto run = [&](std::uint32_t p) {
      if (cut[p] < cut[p + 1] && !over.load(std::memory_order_relaxed) &&
          !pair_level(level, boxes, part[p].budget, part[p].pairs, part[p].counters, cut[p], cut[p + 1])) {
        over.store(true, std::memory_order_relaxed);
      }
    };
    run_parts(tasks, parts, run);
  }
  // Cross-level: a box of level j meets each coarser level's residents by probing it (B11).
  bool coarse = false;
  for (const Level<D>& level : index.levels) coarse |= level.level != 0;
  if (coarse && !over.load(std::memory_order_relaxed)) {
    auto run = [&](std::uint32_t p) {
      const std::size_t begin = boxes.size() / parts * p;
      const std::size_t end = p + 1 == parts ? boxes.size() : boxes.size() / parts * (p + 1);
      if (!probe_coarse(index, boxes, begin, end, part[p].budget, part[p].pairs, part[p].counters)) {
        over.store(true, std::memory_order_relaxed);
      }
    };
    run_parts(tasks, parts, run);
  }
  result.parts.reserve(parts);
  for (Part& p : part) {
    result.counters.visits += p.counters.visits;
    result.counters.candidates += p.counters.candidates;
    result.size += p.pairs.size();
    result.parts.push_back(std::move(p.pairs));
  }
  // Each part stops only when the published total proves more than `limit` pairs; the sum decides.
  result.within = !over.load(std::memory_order_relaxed) && result.size <= limit;
  return result;
}

[[nodiscard]] inline std::uint64_t pair_limit(std::int64_t max_pairs, std::size_t room) {
  return std::min(static_cast<std::uint64_t>(max_pairs), static_cast<std::uint64_t>(room));
}

// The parts' pairs sorted into canonical order (B4), each part released as the first pass reads it.
[[nodiscard]] inline std::vector<Pair> sorted_pairs(FoundPairs& found, int id_bits, const TaskSystem& tasks) {
  std::vector<Pair> sorted;
  radix_sort_pairs(std::span<PairBlocks>(found.parts), sorted, id_bits, tasks);
  return sorted;
}

// Level 0's resident list is read only by probes of level 0, i.e. queries: a spent index drops it
// before pairing, which lowers the peak memory of find_pairs.
template <std::size_t D>
void release_level0_residents(Index<D>& spent) {
  for (Level<D>& level : spent.levels) {
    if (level.level == 0) level.residents = {};
  }
}

// Pairing (B1-B4): find_unsorted, then one radix sort into canonical order.
// `spent`, when given, is `index` itself, no longer needed by the caller: level 0's resident list is
// released before pairing and the memberships before the final sort, which lowers the peak memory of
// find_pairs.
template <std::size_t D, typename Boxes>
[[nodiscard]] absl::StatusOr<PairsResult> pair_index(const Index<D>& index, const Boxes& boxes, Timings* timings,
                                                     Index<D>* spent = nullptr, const TaskSystem& tasks = {}) {
  const Stopwatch pairing(timings);
  if (spent != nullptr) release_level0_residents(*spent);
  FoundPairs found = find_unsorted(index, boxes, static_cast<std::uint64_t>(index.max_pairs), tasks);
  if (!found.within) return too_many_pairs(index.max_pairs);
  PairsResult result;
  result.stats = index.stats;
  const int id_bits = index.id_bits;
  if (spent != nullptr) {
    spent->levels = {};
    spent->level_of = {};
  }
  result.pairs = sorted_pairs(found, id_bits, tasks);
  result.stats.pair_visits = found.counters.visits;
  result.stats.unique_candidates = found.counters.candidates;
  result.stats.pairs = static_cast<std::int64_t>(result.pairs.size());
  pairing.stop(timings, &Timings::pairing_ns);
  return result;
}

// The sinks of the caller's output (B14): sink(sorted pairs) is called only after the whole call
// succeeded.
template <std::size_t D, typename Boxes, typename Sink>
[[nodiscard]] absl::StatusOr<Stats> pairs_to(const Boxes& boxes, const GridConfig& config, const TaskSystem& tasks,
                                             std::size_t room, Timings* timings, Sink&& sink) {
  if (absl::Status s = validate_tasks(tasks); !s.ok()) return s;
  absl::StatusOr<GridSpec<D>> spec = GridSpec<D>::create(config);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<Index<D>> index = build_index<D>(boxes, *spec, timings, tasks);
  if (!index.ok()) return index.status();
  const Stopwatch pairing(timings);
  release_level0_residents(*index);
  FoundPairs found = find_unsorted(*index, boxes, pair_limit(index->max_pairs, room), tasks);
  if (!found.within) {
    if (static_cast<std::uint64_t>(room) < static_cast<std::uint64_t>(index->max_pairs)) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "more than the output buffer's ", room, " pairs (max_pairs = ", index->max_pairs, "); nothing written (B14)"));
    }
    return too_many_pairs(index->max_pairs);
  }
  Stats stats = index->stats;
  stats.pair_visits = found.counters.visits;
  stats.unique_candidates = found.counters.candidates;
  stats.pairs = static_cast<std::int64_t>(found.size);
  const int id_bits = index->id_bits;
  index->levels = {};  // released before the final sort, as in find_pairs
  index->level_of = {};
  sink(sorted_pairs(found, id_bits, tasks));
  pairing.stop(timings, &Timings::pairing_ns);
  return stats;
}

template <std::size_t D, typename Boxes>
[[nodiscard]] absl::StatusOr<PairsResult> find_pairs(const Boxes& boxes, const GridConfig& config, Timings* timings,
                                                     const TaskSystem& tasks = {}) {
  if (absl::Status s = validate_tasks(tasks); !s.ok()) return s;
  absl::StatusOr<GridSpec<D>> spec = GridSpec<D>::create(config);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<Index<D>> index = build_index<D>(boxes, *spec, timings, tasks);
  if (!index.ok()) return index.status();
  return pair_index<D>(*index, boxes, timings, &*index, tasks);
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// find_pairs()
//
// Every pair of overlapping boxes (closed: touching counts), each exactly once as (a, b) with a < b, in
// lexicographic order (B1-B4); the same for every valid cell size and either oversize policy (B5).
// Errors, with no partial result (B6, B7): InvalidArgument for a bad config or a bad box (NaN or
// infinite bound, min > max; the message names the box index); OutOfRange for a box whose cells are not
// int64 (kReject); ResourceExhausted when a box spans more than max_cells_per_box cells (kReject), the
// memberships exceed max_memberships, or the pairs exceed max_pairs. The first failing box in index
// order decides; totals are checked after every box. Budgets are decided before anything proportional
// to them is allocated: a box spanning 10^15 cells is refused in constant time. `timings`, when given,
// receives the time of each phase (validation, registration, pairing).
//
// Example:
//   std::vector<lwc::Box2> boxes = {{{0, 0}, {10, 2}}, {{9, 0.5}, {9.5, 1.5}}};
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, {.cell_size = lwc::CellSize::of<2.0>()});
//   // r->pairs == {(0, 1)}; r->stats.memberships == 13
[[nodiscard]] inline absl::StatusOr<PairsResult> find_pairs(std::span<const Box2> boxes, const GridConfig& config,
                                                            Timings* timings = nullptr) {
  return internal::find_pairs<2>(boxes, config, timings);
}
[[nodiscard]] inline absl::StatusOr<PairsResult> find_pairs(std::span<const Box3> boxes, const GridConfig& config,
                                                            Timings* timings = nullptr) {
  return internal::find_pairs<3>(boxes, config, timings);
}

// find_pairs(), parallel
//
// The same call split over `tasks` (a ThreadPool's, or the caller's job system): bit-identical pairs and
// stats and the same errors as the serial call for every input (B15); InvalidArgument for an unusable
// task system (0 or more than 256 workers, or more than one without enqueue and finish).
//
// Example:
//   absl::StatusOr<std::unique_ptr<lwc::ThreadPool>> pool = lwc::ThreadPool::create(4);
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, config, (*pool)->tasks());
[[nodiscard]] inline absl::StatusOr<PairsResult> find_pairs(std::span<const Box2> boxes, const GridConfig& config,
                                                            const TaskSystem& tasks, Timings* timings = nullptr) {
  return internal::find_pairs<2>(boxes, config, timings, tasks);
}
[[nodiscard]] inline absl::StatusOr<PairsResult> find_pairs(std::span<const Box3> boxes, const GridConfig& config,
                                                            const TaskSystem& tasks, Timings* timings = nullptr) {
  return internal::find_pairs<3>(boxes, config, timings, tasks);
}

// find_pairs(), the caller's boxes
//
// find_pairs over boxes read in place through a BoxView (B13): floats or doubles, an array of structs
// with any stride or separate min and max arrays, never copied. The result, the stats and the errors are
// those of find_pairs on the same boxes as a vector of Box<D> (each float widened exactly), B1-B7, B11,
// B12; with `tasks`, split as in B15.
//
// Example:
//   std::vector<lwc::FloatBox<2>> boxes = ...;   // or an engine's own AABB array through strided()
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(lwc::BoxView<2, float>::of(boxes), config);
template <std::size_t D, typename F>
[[nodiscard]] absl::StatusOr<PairsResult> find_pairs(const BoxView<D, F>& boxes, const GridConfig& config,
                                                     const TaskSystem& tasks = {}, Timings* timings = nullptr) {
  return internal::find_pairs<D>(boxes, config, timings, tasks);
}

// find_pairs_into()
//
// find_pairs writing the pairs into the caller's buffer (B14): on success out[0, stats.pairs) holds them
// in canonical order (B4) and the rest of `out` is untouched; the stats are find_pairs'. A buffer is a
// pair budget of its own: with more than out.size() pairs (and out.size() < max_pairs) the call is
// ResourceExhausted ("more than the output buffer's N pairs") and writes nothing; over max_pairs, the
// error of find_pairs. Every other error is find_pairs', with nothing written either.
//
// Example:
//   std::vector<lwc::Pair> out(1 << 20);
//   absl::StatusOr<lwc::Stats> s = lwc::find_pairs_into(view, config, out);
//   if (s.ok()) use(std::span(out).first(s->pairs));
template <std::size_t D, typename F>
[[nodiscard]] absl::StatusOr<Stats> find_pairs_into(const BoxView<D, F>& boxes, const GridConfig& config,
                                                    std::span<Pair> out, const TaskSystem& tasks = {},
                                                    Timings* timings = nullptr) {
  return internal::pairs_to<D>(boxes, config, tasks, out.size(), timings,
                               [&](const std::vector<Pair>& sorted) { std::copy(sorted.begin(), sorted.end(), out.begin()); });
}

// for_each_pair()
//
// find_pairs streaming the pairs to fn(Pair) in canonical order (B4, B14), on the calling thread, only
// after the whole call has succeeded: on any error (find_pairs', B6, B7) fn is never called. Returns the
// stats of find_pairs.
//
// Example:
//   absl::StatusOr<lwc::Stats> s = lwc::for_each_pair(view, config, [&](lwc::Pair p) { narrow(p.a, p.b); });
template <std::size_t D, typename F, typename Fn>
  requires std::invocable<Fn&, Pair>
[[nodiscard]] absl::StatusOr<Stats> for_each_pair(const BoxView<D, F>& boxes, const GridConfig& config, Fn&& fn,
                                                  const TaskSystem& tasks = {}, Timings* timings = nullptr) {
  return internal::pairs_to<D>(boxes, config, tasks, std::numeric_limits<std::size_t>::max(), timings,
                               [&](const std::vector<Pair>& sorted) {
                                 for (const Pair p : sorted) fn(p);
                               });
}

// ThreadPool
//
// A small pool of its own for the parallel find_pairs (B15): threads - 1 worker threads, the calling
// thread being the last worker. tasks() is its TaskSystem. One call at a time per pool (a second
// concurrent call waits for the first); the workers sleep between calls and are joined by the destructor.
// Neither copyable nor movable (its threads hold its address), hence create() returns a unique_ptr.
//
// Example:
//   absl::StatusOr<std::unique_ptr<lwc::ThreadPool>> pool = lwc::ThreadPool::create(2);
//   if (!pool.ok()) return pool.status();
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(view, config, (*pool)->tasks());
class ThreadPool {
 public:
  // create()
  //
  // InvalidArgument (B15) unless 1 <= threads <= TaskSystem::kMaxWorkers.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<ThreadPool>> create(std::uint32_t threads) {
    if (threads < 1 || threads > TaskSystem::kMaxWorkers) {
      return absl::InvalidArgumentError(
          absl::StrCat("thread pool: ", threads, " threads, not in [1, ", TaskSystem::kMaxWorkers, "] (B15)"));
    }
    return std::unique_ptr<ThreadPool>(new ThreadPool(threads));
  }

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  ~ThreadPool() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  [[nodiscard]] std::uint32_t threads() const noexcept { return threads_; }

  // The pool as a task system: enqueue runs every item on the pool and the calling thread and returns
  // when all are done (so it returns nullptr and finish is never needed).
  [[nodiscard]] TaskSystem tasks() noexcept {
    TaskSystem t;
    t.workers = threads_;
    t.enqueue = &ThreadPool::enqueue;
    t.finish = &ThreadPool::finish;
    t.user_context = this;
    return t;
  }

 private:
  explicit ThreadPool(std::uint32_t threads) : threads_(threads) {
    workers_.reserve(threads - 1);
    for (std::uint32_t w = 1; w < threads; ++w) workers_.emplace_back([this, w] { work(w); });
  }

  static void* enqueue(TaskSystem::Task task, std::uint32_t items, std::uint32_t, void* context, void* self) {
    static_cast<ThreadPool*>(self)->run(task, items, context);
    return nullptr;
  }
  static void finish(void*, void*) {}  // LCOV_EXCL_LINE: required beside enqueue, never called: enqueue returns nullptr

  void run(TaskSystem::Task task, std::uint32_t items, void* context) {
    const std::lock_guard<std::mutex> one_call(calling_);
    {
      // Invariant: no worker is inside drain() while the job is replaced (a late one of the last run
      // would otherwise take an item of this one with the last task).
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return active_ == 0; });
      task_ = task;
      context_ = context;
      items_ = items;
      next_.store(0, std::memory_order_relaxed);
      pending_ = items;
      ++generation_;
    }
    wake_.notify_all();
    drain(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0 && active_ == 0; });
  }

  // Takes items until none is left; each item is one call of the task.
  void drain(std::uint32_t worker) {
    TaskSystem::Task task = nullptr;
    void* context = nullptr;
    std::uint32_t items = 0;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      task = task_;
      context = context_;
      items = items_;
      ++active_;
    }
    std::uint32_t ran = 0;
    for (;;) {
      const std::uint32_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= items) break;
      task(i, i + 1, worker, context);
      ++ran;
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      pending_ -= ran;
      --active_;
    }
    done_.notify_all();
  }

  void work(std::uint32_t worker) {
    for (std::uint64_t seen = 0; next_run(seen);) drain(worker);
  }

  // Sleeps until a run newer than `seen` (true, and seen is its generation) or the pool stops (false).
  bool next_run(std::uint64_t& seen) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    seen = generation_;
    return !stopping_;
  }

  std::uint32_t threads_;
  std::vector<std::thread> workers_;
  std::mutex calling_;  // one run at a time
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  TaskSystem::Task task_ = nullptr;
  void* context_ = nullptr;
  std::uint32_t items_ = 0;
  std::atomic<std::uint32_t> next_{0};
  std::uint32_t pending_ = 0;
  std::uint32_t active_ = 0;  // threads inside drain()
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
};

// Grid
//
// A registered set of boxes kept for gameplay queries. Owns its boxes; immutable once built.
//
// Example:
//   absl::StatusOr<lwc::Grid<2>> grid =
//       lwc::Grid<2>::create(std::move(boxes), {.cell_size = lwc::CellSize::of<2.0>()});
//   absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query({{8, 0}, {9, 1}});
template <std::size_t D>
class Grid {
 public:
  // create()
  //
  // Validates and registers `boxes`, with the errors of find_pairs except max_pairs (checked by pairs()).
  // `timings`, when given, receives validation_ns and registration_ns.
  [[nodiscard]] static absl::StatusOr<Grid> create(std::vector<Box<D>> boxes, const GridConfig& config,
                                                   Timings* timings = nullptr) {
    absl::StatusOr<GridSpec<D>> spec = GridSpec<D>::create(config);
    if (!spec.ok()) return spec.status();
    absl::StatusOr<internal::Index<D>> index = internal::build_index<D>(std::span<const Box<D>>(boxes), *spec, timings);
    if (!index.ok()) return index.status();
    return Grid(std::move(boxes), *std::move(index));
  }

  // query()
  //
  // The indices of every box overlapping `probe` (closed), ascending, each once (B10). The probe may be
  // any valid box, however large or far: it is clamped to the grid, never budgeted. InvalidArgument
  // (naming index 0) for a non-finite bound or min > max.
  [[nodiscard]] absl::StatusOr<std::vector<std::uint32_t>> query(const Box<D>& probe) const {
    if (absl::Status s = validate_box(probe, 0); !s.ok()) return s;
    std::vector<std::uint32_t> hits;
    internal::Counters counters;
    for (const internal::Level<D>& level : index_.levels) {
      internal::probe_level(level, std::span<const Box<D>>(boxes_), probe, counters,
                            [&](std::uint32_t id) { hits.push_back(id); });
    }
    std::sort(hits.begin(), hits.end());
    return hits;
  }

  // pairs()
  //
  // find_pairs on the registered boxes: the same pairs and stats (ResourceExhausted over max_pairs).
  // `timings`, when given, receives pairing_ns.
  [[nodiscard]] absl::StatusOr<PairsResult> pairs(Timings* timings = nullptr) const {
    return internal::pair_index<D>(index_, std::span<const Box<D>>(boxes_), timings);
  }

  [[nodiscard]] std::span<const Box<D>> boxes() const noexcept { return boxes_; }
  // The registration stats (boxes, memberships, occupied cells, levels, coarse boxes).
  [[nodiscard]] const Stats& stats() const noexcept { return index_.stats; }

 private:
  Grid(std::vector<Box<D>> boxes, internal::Index<D> index) : boxes_(std::move(boxes)), index_(std::move(index)) {}

  std::vector<Box<D>> boxes_;
  internal::Index<D> index_;
};

}  // namespace lwc

LWC_EXACT_FP_END
