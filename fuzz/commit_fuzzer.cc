// SPDX-License-Identifier: MIT
// File: fuzz/commit_fuzzer.cc
//
// libFuzzer target for lwc.commit: the input is a program of marks and commits, run against
// lwc::Committer and lwc::contracts::CommitModel side by side. Every mark checks T1 and T2 (the chunk
// count); the whole state (T2, T3, T5) is compared with the model's right before and after every commit
// and at the end of the input, and every commit checks T4-T8.
//
// Byte 0 picks the chunk size (1, where chunks reach INT64_MIN and INT64_MAX; the tilemap dirty-chunk
// example's 16; others up to INT64_MAX). Then, until the input ends (at most 96 steps), one opcode byte each:
//   0-3  mark a cell near the cursor: two bytes move the cursor chunk (by -3..3, -2..2), one picks the
//        cell's offset in it (0: first, 255: last)
//   4    mark a cell given as two raw little-endian int64 words (the dictionary holds the extremes); the
//        cursor moves to its chunk
//   5-7  commit: a budget byte (0: unlimited, else 1-4 runs), a failure byte (bit 7: none; else fail at
//        preparation (b & 7), by throwing when bit 6 is set and exceptions are on), a count byte (0-3)
//        of cells to mark from inside preparations, each a preparation index byte (0-3) and a cursor
//        move as for opcodes 0-3
// The cursor keeps most cells within a few chunks of each other, so that runs form.
//
// lwc-clauses: T1 T2 T3 T4 T5 T6 T7 T8
// (T2 and T3: at every check point the pending runs equal the model's, one entry per chunk, and pass
// check_runs. A state that goes wrong at a mark is compared at the next check point, and the shorter
// inputs libFuzzer derives end right after that mark. Comparing after every mark instead cost two thirds
// of the target's time: pending_runs, the model's runs and check_runs are each linear in the dirty
// chunks. A state already compared is not compared again before the next mark.)
// (T7 single-threaded: while a batch is prepared, published() is still the previous one, and every
// published batch holds snapshots of one commit; threads are the property's and tests' business.)
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "fuzz_support.h"

import lwc.decompose;
import lwc.commit;
import lwc.contracts.commit;

namespace {

using lwc::fuzzing::require;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kSizes[] = {1, 16, 1, 3, 1000, kMax, std::int64_t{1} << 62, 2};

struct Snap {
  lwc::ChunkRun run;
  std::uint64_t origin;
};

struct InjectedThrow {};

void require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "contract violated: %s\n", what);
  __builtin_trap();
}

// The input, read front to back (a program reads in order; FuzzedDataProvider takes integers from the
// back). Past the end every byte reads 0.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  [[nodiscard]] bool done() const { return pos_ >= size_; }

  [[nodiscard]] std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }

  // A little-endian int64 (as the dictionary spells the extremes).
  [[nodiscard]] std::int64_t word() {
    std::uint64_t w = 0;
    for (int i = 0; i < 8; ++i) w |= std::uint64_t{byte()} << (8 * i);
    return std::bit_cast<std::int64_t>(w);
  }

  // A small signed step in [-limit, limit].
  [[nodiscard]] int step(int limit) { return byte() % (2 * limit + 1) - limit; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

std::int64_t clamp64(absl::int128 v) {
  return static_cast<std::int64_t>(std::clamp<absl::int128>(v, kMin, kMax));
}

// A cursor over chunks: moves by small steps and yields cells in its chunk.
struct Cursor {
  std::int64_t size;
  std::int64_t x = 0;
  std::int64_t y = 0;

  lwc::Point2 step(Reader& in) {
    x = clamp64(absl::int128(x) + in.step(3));
    y = clamp64(absl::int128(y) + in.step(2));
    // The cell's offset in the chunk: first, last, or a byte's worth in between; chunks past the last
    // one clamp to the int64 end.
    const std::uint8_t b = in.byte();
    const absl::int128 local = b == 0 ? 0 : (b == 255 ? size - 1 : absl::int128(b) * (size - 1) / 255);
    return lwc::Point2{clamp64(absl::int128(x) * size + local), clamp64(absl::int128(y) * size + local)};
  }
};

std::vector<lwc::ChunkRun> runs_of(const lwc::Batch<Snap>& batch) {
  std::vector<lwc::ChunkRun> runs;
  runs.reserve(batch.entries.size());
  for (const auto& e : batch.entries) runs.push_back(e.run);
  return runs;
}

// The whole state against the model: `pending` is c.pending_runs(), as the caller just read it.
void require_same_state(const lwc::contracts::CommitModel& model, const lwc::Committer<Snap>& c,
                        const std::vector<lwc::ChunkRun>& pending) {
  require(pending == model.pending_runs(), "T3 merge: pending runs differ from the model's");
  require(c.pending_chunks() == model.dirty().size(),
          "T2 dedup: pending chunk count differs from the model's");
  // The model's dirty set as a vector for check_runs, in a buffer kept across calls (no allocation once
  // it has grown).
  static std::vector<lwc::Point2> dirty;
  dirty.assign(model.dirty().begin(), model.dirty().end());
  require(lwc::contracts::check_runs(dirty, pending));  // T3
  const auto published = c.published();
  require(published->sequence == model.published_sequence(),
          "T5: published sequence differs from the model's");
  require(runs_of(*published) == model.published_runs(), "T5: published runs differ from the model's");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader in(data, size);
  const std::int64_t chunk_size = kSizes[in.byte() % std::size(kSizes)];
  lwc::Committer<Snap> c(*lwc::ChunkSize::create(chunk_size));
  lwc::contracts::CommitModel model(chunk_size);
  Cursor cursor{chunk_size};
  std::uint64_t attempts = 0;
  bool compared = true;  // the state was compared with the model since the last mark (none yet)
  std::vector<lwc::ChunkRun> pending;  // c.pending_runs() as last compared (valid while `compared`)
  // Per commit, reused (an allocation under ASan costs a stack trace): the runs prepare() was called with
  // and the chunks marked from inside it.
  std::vector<lwc::ChunkRun> prepared;
  std::vector<lwc::Point2> marked;

  for (int steps = 0; steps < 96 && !in.done(); ++steps) {
    const auto op = static_cast<std::uint8_t>(in.byte() % 8);
    if (op <= 4) {
      lwc::Point2 cell{};
      if (op == 4) {
        const std::int64_t x = in.word();
        cell = lwc::Point2{x, in.word()};
        const lwc::Point2 chunk = c.chunk_of(cell);
        cursor.x = chunk.x;
        cursor.y = chunk.y;
      } else {
        cell = cursor.step(in);
      }
      require(lwc::contracts::check_chunk_of(cell, chunk_size, c.chunk_of(cell)));  // T1
      c.mark(cell);
      model.mark(cell);
      require(c.pending_chunks() == model.dirty().size(),
              "T2 dedup: pending chunk count differs from the model's");
      compared = false;
      continue;
    }

    lwc::contracts::CommitModel::Plan plan;
    const auto budget = static_cast<std::uint8_t>(in.byte() % 5);
    plan.max_runs = budget;
    const std::uint8_t failure = in.byte();
    [[maybe_unused]] bool throws = false;  // read only where exceptions exist
    if ((failure & 0x80) == 0) {
      plan.fail_at = failure & 7;
#if __cpp_exceptions
      throws = (failure & 0x40) != 0;
#endif
    }
    const int during = in.byte() % 4;
    for (int i = 0; i < during; ++i) {
      const auto at = static_cast<std::size_t>(in.byte() % 4);
      if (plan.marks_during.size() <= at) plan.marks_during.resize(at + 1);
      plan.marks_during[at].push_back(cursor.step(in));
    }

    // With no mark since the last check point, the pending runs are the ones read there (`after` of
    // the previous commit): nothing else changes them.
    if (!compared) {
      pending = c.pending_runs();
      require_same_state(model, c, pending);
    }
    const std::vector<lwc::ChunkRun> before = std::move(pending);
    const auto published_before = c.published();
    const std::uint64_t origin = ++attempts;
    prepared.clear();
    marked.clear();
    bool reader_isolated = true;
    const auto prepare = [&](const lwc::ChunkRun& run) -> absl::StatusOr<Snap> {
      const std::size_t i = prepared.size();
      prepared.push_back(run);
      reader_isolated = reader_isolated && c.published() == published_before;
      if (i < plan.marks_during.size()) {
        for (const lwc::Point2 cell : plan.marks_during[i]) {
          c.mark(cell);
          marked.push_back(c.chunk_of(cell));
        }
      }
      if (plan.fail_at == i) {
#if __cpp_exceptions
        if (throws) throw InjectedThrow{};
#endif
        return absl::AbortedError("injected failure");
      }
      return Snap{run, origin};
    };
    const lwc::RunBudget run_budget =
        budget == 0 ? lwc::RunBudget::unlimited() : *lwc::RunBudget::create(budget);
    absl::Status status;
#if __cpp_exceptions
    try {
      status = c.commit(prepare, run_budget).status();
    } catch (const InjectedThrow&) {
      status = absl::AbortedError("prepare threw");
    }
#else
    status = c.commit(prepare, run_budget).status();
#endif
    const lwc::contracts::CommitModel::Outcome expected = model.commit(plan);

    require(prepared == expected.prepared, "T8 budget: prepared runs differ from the model's");
    require(reader_isolated, "T7 reader isolation: published() changed while the batch was prepared");
    std::vector<lwc::ChunkRun> after = c.pending_runs();
    const auto published = c.published();
    require(lwc::contracts::check_budget(before, plan.max_runs, prepared));  // T8
    require(lwc::contracts::check_generations(marked, after));               // T6
    if (!status.ok()) {
      require(lwc::contracts::check_failed_commit(status, published_before->sequence, published->sequence,
                                                  before, marked, after));  // T4
      require(!expected.published, "T4: the commit failed where the model publishes");
    } else if (!prepared.empty()) {
      require(lwc::contracts::check_successful_commit(before, prepared, runs_of(*published),
                                                      published_before->sequence, published->sequence, marked,
                                                      after));  // T5
      for (const auto& e : published->entries) {
        require(e.snapshot.origin == origin && e.snapshot.run == e.run,
                "T7 reader isolation: a published batch holds a snapshot of another commit");
      }
    }
    require_same_state(model, c, after);
    pending = std::move(after);
    compared = true;
  }
  if (!compared) require_same_state(model, c, c.pending_runs());
  return 0;
}
