// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/tasks.h
//
// How a call runs: the caller's job system (TaskSystem, B15) or a pool of lwc's own (ThreadPool), the
// pair budget the parts of a parallel call share (PairLimit, B7), and the clock a caller may ask for
// (Timings). Nothing here knows a box: the rooms above hand it their work as numbered parts.
// Spec: docs/broadphase.md (B7, B15).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/tasks.cppm exports the same declarations as lwc.broadphase:tasks.
#ifndef LWC_BROADPHASE_TASKS_H_
#define LWC_BROADPHASE_TASKS_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/tasks.cppm includes these in its global module fragment
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#endif

LWC_EXPORT namespace lwc {

// Timings
//
// The wall-clock split of one call, in nanoseconds: a probe the caller asks for by passing a pointer
// (find_pairs, Grid::create, Grid::pairs, PersistentGrid::update), never part of a result. A call fills
// the fields of the phases it ran and leaves the others as they were; with no probe it reads no clock.
//
// Example:
//   lwc::Timings t;
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, config, &t);
//   log(t.validation_ns, t.registration_ns, t.pairing_ns);
struct Timings {
  std::int64_t validation_ns = 0;    // validation and placement of every box, and the budget checks
  std::int64_t registration_ns = 0;  // registering the boxes in their cells
  std::int64_t pairing_ns = 0;       // pairing and sorting
  std::int64_t update_ns = 0;        // one PersistentGrid::update, whole
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

using Clock = std::chrono::steady_clock;

// A stopwatch for an optional Timings probe: reads the clock only when there is a probe to fill.
class Stopwatch {
 public:
  explicit Stopwatch(const Timings* probe) : started_(probe != nullptr ? Clock::now() : Clock::time_point{}) {}
  // Stores the nanoseconds since construction in *field when `probe` is set; otherwise nothing.
  void stop(Timings* probe, std::int64_t Timings::*field) const {
    if (probe == nullptr) return;
    probe->*field = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started_).count();
  }

 private:
  Clock::time_point started_;
};

// InvalidArgument (B15) for a task system that cannot be used, naming the argument.
[[nodiscard]] inline absl::Status validate_tasks(const TaskSystem& tasks) {
  if (tasks.workers < 1 || tasks.workers > TaskSystem::kMaxWorkers) {
    return absl::InvalidArgumentError(absl::StrCat("task system: ", tasks.workers, " workers, not in [1, ",
                                                   TaskSystem::kMaxWorkers, "] (B15)"));
  }
  if (tasks.workers > 1 && (tasks.enqueue == nullptr || tasks.finish == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat("task system: ", tasks.workers, " workers but no ",
                                                   tasks.enqueue == nullptr ? "enqueue" : "finish",
                                                   " function; more than one worker needs both (B15)"));
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

// The contiguous ranges of n items cut into `parts` parts: part q is [begin(q), end(q)), the last one
// taking the remainder.
struct PartRanges {
  std::size_t n;
  std::uint32_t parts;
  [[nodiscard]] inline std::size_t begin(std::uint32_t q) const { return n / parts * q; }
  [[nodiscard]] inline std::size_t end(std::uint32_t q) const { return q + 1 == parts ? n : n / parts * (q + 1); }
};

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

  [[nodiscard]] inline bool full(std::size_t size) { return size >= next_ && !grow(size); }

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

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

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

}  // namespace lwc

#endif  // LWC_BROADPHASE_TASKS_H_
