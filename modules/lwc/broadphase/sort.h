// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/sort.h
//
// The sorts of the broad phase: the LSD radix sort of 64-bit words (memberships by cell, a first build's
// pairs, a table's pending entries), over a task system too (B15), and the final sort of the pairs found
// into canonical order (B4), from the blocks they were collected in (PairBlocks), serial or in parallel,
// each bit-identical to the serial sort.
// Spec: docs/broadphase.md (B4, B15).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/sort.cppm exports the same declarations as lwc.broadphase:sort.
#ifndef LWC_BROADPHASE_SORT_H_
#define LWC_BROADPHASE_SORT_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/sort.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>
// ... and imports these.
#include "lwc/broadphase/cells.h"
#include "lwc/broadphase/tasks.h"
#endif

namespace lwc::internal {

// The digits of an LSD radix sort of `bits` bits from bit `shift` on: `passes` passes of `digit` bits.
struct Digits {
  int shift;
  int passes;
  int digit;
  std::size_t buckets;
  std::uint64_t mask;

  // Passes of at most `max_digit` bits.
  [[nodiscard]] static inline Digits of(int shift, int bits, int max_digit) {
    const int passes = (bits + max_digit - 1) / max_digit;
    const int digit = (bits + passes - 1) / passes;
    const std::size_t buckets = std::size_t{1} << digit;
    return {shift, passes, digit, buckets, buckets - 1};
  }
  [[nodiscard]] inline std::size_t at(std::uint64_t w, int pass) const {
    return static_cast<std::size_t>((w >> (shift + pass * digit)) & mask);
  }
};

// Turns the counts c[0, buckets) of one pass into scatter offsets; with `parts` parts, part q's counts at
// c + q * stride, taken bucket by bucket and, within a bucket, part by part (so the scatter is stable).
inline void to_offsets(std::size_t* c, std::size_t buckets, std::uint32_t parts = 1, std::size_t stride = 0) {
  std::size_t sum = 0;
  for (std::size_t i = 0; i < buckets; ++i) {
    for (std::uint32_t q = 0; q < parts; ++q) sum += std::exchange(c[stride * q + i], sum);
  }
}

// radix_sort()
//
// LSD radix sort of `a` by bits [shift, shift + bits) of each word; stable, so equal keys keep their
// input order. At most 11 bits per pass (2048 buckets stay in L1), every pass's histogram counted in one
// read of `a`; a pass whose digit is the same for every word is skipped. `scratch` and `counts` keep their
// capacity: a caller that keeps them allocates nothing once warm. The one radix sort of words of
// find_pairs and of the persistent grid.
inline void radix_sort(std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& scratch,
                       std::vector<std::size_t>& counts, int shift, int bits) {
  if (bits <= 0 || a.size() < 2) return;
  const Digits d = Digits::of(shift, bits, 11);
  counts.assign(d.buckets * static_cast<std::size_t>(d.passes), 0);
  for (const std::uint64_t w : a) {
    for (int p = 0; p < d.passes; ++p) ++counts[static_cast<std::size_t>(p) * d.buckets + d.at(w, p)];
  }
  scratch.resize(a.size());
  for (int p = 0; p < d.passes; ++p) {
    std::size_t* c = counts.data() + static_cast<std::size_t>(p) * d.buckets;
    if (c[d.at(a[0], p)] == a.size()) continue;  // every word has the same digit
    to_offsets(c, d.buckets);
    for (const std::uint64_t w : a) scratch[c[d.at(w, p)]++] = w;
    a.swap(scratch);
  }
}

// The same with counts of its own (allocated per call).
inline void radix_sort(std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& scratch, int shift, int bits) {
  std::vector<std::size_t> counts;
  radix_sort(a, scratch, counts, shift, bits);
}

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
  const Digits d = Digits::of(shift, bits, 11);
  const PartRanges range{a.size(), parts};
  std::vector<std::size_t> counts(static_cast<std::size_t>(parts) * d.buckets);
  scratch.resize(a.size());
  for (int p = 0; p < d.passes; ++p) {
    auto histogram = [&](std::uint32_t q) {
      std::size_t* c = counts.data() + static_cast<std::size_t>(q) * d.buckets;
      std::fill(c, c + d.buckets, std::size_t{0});
      for (std::size_t i = range.begin(q); i < range.end(q); ++i) ++c[d.at(a[i], p)];
    };
    run_parts(tasks, parts, histogram);
    std::size_t same = 0;
    for (std::uint32_t q = 0; q < parts; ++q) same += counts[static_cast<std::size_t>(q) * d.buckets + d.at(a[0], p)];
    if (same == a.size()) continue;  // every word has the same digit
    to_offsets(counts.data(), d.buckets, parts, d.buckets);
    auto scatter = [&](std::uint32_t q) {
      std::size_t* c = counts.data() + static_cast<std::size_t>(q) * d.buckets;
      for (std::size_t i = range.begin(q); i < range.end(q); ++i) scratch[c[d.at(a[i], p)]++] = a[i];
    };
    run_parts(tasks, parts, scatter);
    a.swap(scratch);
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

  [[nodiscard]] inline std::size_t size() const { return count; }
  inline void push_back(Pair p) {
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
  // Calls fn(pairs) as for_each_part, releasing each part once fn has read it; empty afterwards.
  template <typename Fn>
  void drain(Fn&& fn) {
    std::size_t part = 0;
    for_each_part([&](std::span<const Pair> pairs) {
      fn(pairs);
      if (part == 0) {
        head = {};
      } else {
        blocks[part - 1].reset();
      }
      ++part;
    });
    *this = PairBlocks{};
  }

 private:
  [[gnu::noinline]] void grow() {
    blocks.push_back(std::unique_ptr<Pair[]>(new Pair[kBlock]));
    tail = blocks.back().get();
    end = tail + kBlock;
  }
};

// The digits of the final sort's key (a << id_bits) | b: passes of at most 12 bits (4096 counters, in L1).
struct PairDigits : Digits {
  int id_bits;
  [[nodiscard]] inline std::uint64_t key(const Pair& p) const { return (static_cast<std::uint64_t>(p.a) << id_bits) | p.b; }
  [[nodiscard]] inline std::size_t at(const Pair& p, int pass) const { return Digits::at(key(p), pass); }
};
[[nodiscard]] inline PairDigits pair_digits(int id_bits) {
  return {Digits::of(0, std::max(2 * id_bits, 1), 12), id_bits};
}

// Every pass's histogram of one part's pairs, in c[pass * buckets + digit].
inline void count_pairs(const PairBlocks& in, const PairDigits& d, std::size_t* c) {
  in.for_each_part([&](std::span<const Pair> part) {
    for (const Pair& p : part) {
      const std::uint64_t k = d.key(p);
      for (int pass = 0; pass < d.passes; ++pass) ++c[static_cast<std::size_t>(pass) * d.buckets + d.Digits::at(k, pass)];
    }
  });
}

// The passes that move anything: pass 0 always (it leaves the head and the blocks), and every later pass
// whose digit is not the same for all n pairs; count(pass, digit) is that digit's count over all parts.
template <typename Count>
[[nodiscard]] std::vector<int> moving_passes(const PairDigits& d, std::size_t n, std::uint64_t first, Count&& count) {
  std::vector<int> active = {0};
  for (int pass = 1; pass < d.passes; ++pass) {
    if (count(pass, d.Digits::at(first, pass)) != n) active.push_back(pass);
  }
  return active;
}

// The two arrays the passes go back and forth between: `sorted` and an uninitialised scratch array,
// starting in whichever makes the last pass end in `sorted`. Peak: two arrays of the pairs.
struct PassArrays {
  std::unique_ptr<Pair[]> scratch;
  Pair* to;
  Pair* from;

  PassArrays(std::vector<Pair>& sorted, std::size_t n, std::size_t passes)
      : scratch(passes > 1 ? new Pair[n] : nullptr) {
    sorted.resize(n);
    // Pass j writes into sorted iff (passes - 1 - j) is even.
    to = passes % 2 == 1 ? sorted.data() : scratch.get();
    from = to == sorted.data() ? scratch.get() : sorted.data();
  }
};

// Pairs that all fit the head, sorted in place with one scratch array (counts: count_pairs').
inline void sort_head(PairBlocks& in, std::vector<Pair>& sorted, const PairDigits& d, std::vector<std::size_t>& counts) {
  const std::size_t n = in.size();
  sorted = std::move(in.head);
  in = PairBlocks{};
  if (n < 2) return;
  std::vector<Pair> scratch(n);
  for (int pass = 0; pass < d.passes; ++pass) {
    std::size_t* c = counts.data() + static_cast<std::size_t>(pass) * d.buckets;
    if (c[d.at(sorted[0], pass)] == n) continue;
    to_offsets(c, d.buckets);
    for (const Pair& p : sorted) scratch[c[d.at(p, pass)]++] = p;
    sorted.swap(scratch);
  }
}

// radix_sort_pairs()
//
// LSD radix sort of the pairs into lexicographic order, on the key (a << id_bits) | b: stable passes of
// at most 12 bits, b's bits first; a pass whose digit is the same for every pair is skipped. Pairs that
// all fit the head are sorted in place (sort_head). Otherwise the first pass moves them out of the head
// and the blocks (released one by one) into an array, and the later passes go back and forth (PassArrays).
inline void radix_sort_pairs(PairBlocks& in, std::vector<Pair>& sorted, int id_bits) {
  const PairDigits d = pair_digits(id_bits);
  const std::size_t n = in.size();
  std::vector<std::size_t> counts(d.buckets * static_cast<std::size_t>(d.passes), 0);
  count_pairs(in, d, counts.data());
  if (in.blocks.empty()) return sort_head(in, sorted, d, counts);
  const auto count = [&](int pass, std::size_t digit) { return counts[static_cast<std::size_t>(pass) * d.buckets + digit]; };
  const std::vector<int> active = moving_passes(d, n, d.key(in.head[0]), count);
  PassArrays arrays(sorted, n, active.size());
  std::size_t* c = counts.data();
  to_offsets(c, d.buckets);
  in.drain([&](std::span<const Pair> pairs) {
    for (const Pair& p : pairs) arrays.to[c[d.at(p, 0)]++] = p;
  });
  for (std::size_t j = 1; j < active.size(); ++j) {
    std::swap(arrays.from, arrays.to);
    c = counts.data() + static_cast<std::size_t>(active[j]) * d.buckets;
    to_offsets(c, d.buckets);
    for (std::size_t i = 0; i < n; ++i) arrays.to[c[d.at(arrays.from[i], active[j])]++] = arrays.from[i];
  }
}

// A later pass of the parallel sort: each part counts and scatters a contiguous range of `from`, to
// offsets taken bucket by bucket and, within a bucket, part by part (c: this pass's counts of part 0,
// part q's at c + q * stride).
inline void parallel_pass(const Pair* from, Pair* to, const PairDigits& d, int pass, std::size_t* c, std::size_t stride,
                          const PartRanges& range, const TaskSystem& tasks) {
  auto count_range = [&](std::uint32_t q) {
    std::size_t* h = c + stride * q;
    std::fill(h, h + d.buckets, std::size_t{0});
    for (std::size_t i = range.begin(q); i < range.end(q); ++i) ++h[d.at(from[i], pass)];
  };
  run_parts(tasks, range.parts, count_range);
  to_offsets(c, d.buckets, range.parts, stride);
  auto scatter = [&](std::uint32_t q) {
    std::size_t* h = c + stride * q;
    for (std::size_t i = range.begin(q); i < range.end(q); ++i) to[h[d.at(from[i], pass)]++] = from[i];
  };
  run_parts(tasks, range.parts, scatter);
}

// radix_sort_pairs over the parts of a parallel call (B15), one PairBlocks each, split over the task
// system: the first reading counts every pass's digits part by part; the first pass scatters each part
// (draining it) to offsets taken bucket by bucket and, within a bucket, part by part; each later pass
// counts and scatters contiguous ranges the same way (parallel_pass). Every pass is stable, and the pairs
// are distinct, so the result is the one sorted sequence: the serial sort's. Peak: two arrays of the pairs.
inline void radix_sort_pairs(std::span<PairBlocks> in, std::vector<Pair>& sorted, int id_bits, const TaskSystem& tasks) {
  if (in.size() == 1) return radix_sort_pairs(in[0], sorted, id_bits);
  const PairDigits d = pair_digits(id_bits);
  const auto parts = static_cast<std::uint32_t>(in.size());
  std::size_t n = 0;
  std::uint64_t first = 0;
  for (const PairBlocks& part : in) {
    if (n == 0 && part.size() > 0) first = d.key(part.head[0]);  // the first part with pairs
    n += part.size();
  }
  // Part q's counts, pass by pass: counts[q * per_part + pass * buckets + digit].
  const std::size_t per_part = d.buckets * static_cast<std::size_t>(d.passes);
  std::vector<std::size_t> counts(per_part * parts, 0);
  auto histogram = [&](std::uint32_t q) { count_pairs(in[q], d, counts.data() + per_part * q); };
  run_parts(tasks, parts, histogram);
  const std::vector<int> active = moving_passes(d, n, first, [&](int pass, std::size_t digit) {
    std::size_t same = 0;
    for (std::uint32_t q = 0; q < parts; ++q) same += counts[per_part * q + static_cast<std::size_t>(pass) * d.buckets + digit];
    return same;
  });
  PassArrays arrays(sorted, n, active.size());
  to_offsets(counts.data(), d.buckets, parts, per_part);
  auto first_pass = [&](std::uint32_t q) {
    std::size_t* c = counts.data() + per_part * q;
    in[q].drain([&](std::span<const Pair> pairs) {
      for (const Pair& p : pairs) arrays.to[c[d.at(p, 0)]++] = p;
    });
  };
  run_parts(tasks, parts, first_pass);
  for (std::size_t j = 1; j < active.size(); ++j) {
    std::swap(arrays.from, arrays.to);
    parallel_pass(arrays.from, arrays.to, d, active[j], counts.data() + static_cast<std::size_t>(active[j]) * d.buckets,
                  per_part, PartRanges{n, parts}, tasks);
  }
}

}  // namespace lwc::internal

#endif  // LWC_BROADPHASE_SORT_H_
