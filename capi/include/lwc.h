/* SPDX-License-Identifier: MIT */
/* File: capi/include/lwc.h              Library: lwc::c (static), lwc::c_shared (shared)
 *
 * The C11 API of lwc: the five contracts (docs/decompose.md, cover.md, broadphase.md, rebase.md,
 * commit.md) for engines and languages that cannot `import lwc;`. Spec of what this layer adds:
 * docs/c_api.md (clauses F1-F6); every call's contract clauses: the reference table there.
 *
 * Naming: lwc_<C++ name>. A C++ overload on the dimension takes the suffix of its C++ type (Point2, Box2,
 * WorldPosition2): lwc_split2, lwc_cover3, lwc_find_pairs2. A C++ class becomes an opaque handle type
 * lwc_<class> (snake_case, with the dimension digit for class templates: lwc_persistent_grid2,
 * lwc_origin_coordinator3, lwc_committer); its create() is lwc_<class>_create, each member function
 * lwc_<class>_<member>, and lwc_<class>_destroy frees it. C++ structs become lwc_<struct> with the same
 * field names; enums become LWC_<ENUM>_<VALUE>.
 *
 * Conventions of every entry point (docs/c_api.md):
 *  - The return value is an lwc_status: LWC_OK or the absl::StatusCode the C++ call returns, by the same
 *    number (F1). lwc_last_error() is the message of the calling thread's last failure (F2).
 *  - Results go to caller-owned memory through pointers. On any error nothing is written (F3), except
 *    LWC_BUFFER_TOO_SMALL, which writes the needed element count to *count and nothing else (F4).
 *  - A NULL pointer where a result or an input is needed, a NULL array with a non-zero count, or an
 *    element count that does not fit the call is refused with LWC_INVALID_ARGUMENT (F3).
 *  - Handles are opaque ids, never reused: a NULL, destroyed, foreign or wrong-kind handle is refused
 *    with LWC_INVALID_ARGUMENT (F5). Each handle is destroyed once; destroying it again is refused.
 *  - No C++ exception crosses this boundary; an allocation failure is LWC_RESOURCE_EXHAUSTED.
 *  - Thread safety is that of the C++ class: a committer may be used from any thread, the others from
 *    one thread at a time; destroying a handle must not race with a call on it.
 *  - A callback (a pair filter, a query or ray visitor, a prepare function) runs on the calling thread,
 *    inside the call that takes it. While a persistent grid's callback runs, every call on that grid is
 *    refused with LWC_FAILED_PRECONDITION and changes nothing (F7); other handles may be used.
 *  - Float boxes (lwc_float_box2/3) take C's f suffix, as sqrtf does: lwc_persistent_grid2_insertf. Each
 *    float is the double of the same value (every float is one), so a float box behaves as that box.
 */
#ifndef LWC_H_
#define LWC_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version of this header: lwc_abi_version() returns the version the library was built with.
 * It changes whenever a struct, a signature or a code's meaning changes. */
#define LWC_ABI_VERSION 3

#if defined(LWC_C_BUILDING) && defined(__GNUC__)
#define LWC_API __attribute__((visibility("default")))
#else
#define LWC_API
#endif

/* ---------------------------------------------------------------------------------------------------
 * Status codes: abseil's numbers (absl::StatusCode), plus one of the C layer's own. */
typedef enum lwc_status {
  LWC_OK = 0,
  LWC_CANCELLED = 1,
  LWC_UNKNOWN = 2,
  LWC_INVALID_ARGUMENT = 3,
  LWC_DEADLINE_EXCEEDED = 4,
  LWC_NOT_FOUND = 5,
  LWC_ALREADY_EXISTS = 6,
  LWC_PERMISSION_DENIED = 7,
  LWC_RESOURCE_EXHAUSTED = 8,
  LWC_FAILED_PRECONDITION = 9,
  LWC_ABORTED = 10,
  LWC_OUT_OF_RANGE = 11,
  LWC_UNIMPLEMENTED = 12,
  LWC_INTERNAL = 13,
  LWC_UNAVAILABLE = 14,
  LWC_DATA_LOSS = 15,
  LWC_UNAUTHENTICATED = 16,
  /* C layer only: the caller's buffer holds fewer elements than the result; *count is the number
   * needed and nothing else was written (F4). Call again with a buffer at least that large. */
  LWC_BUFFER_TOO_SMALL = 100
} lwc_status;

/* The version of the ABI the library was built with: LWC_ABI_VERSION of its header. */
LWC_API int lwc_abi_version(void);

/* The message of the calling thread's last failed call ("" before any): the C++ API's message, which
 * names the clause. Valid until the thread's next lwc call; thread-local, so threads never see each
 * other's messages (F2). */
LWC_API const char* lwc_last_error(void);

/* The name of a code, "LWC_INVALID_ARGUMENT" ..., or "LWC_UNKNOWN_CODE" for any other int. Static. */
LWC_API const char* lwc_status_name(int code);

/* ---------------------------------------------------------------------------------------------------
 * lwc.decompose (docs/decompose.md). A chunk size is an int64 > 0 (D5: InvalidArgument otherwise). */
typedef struct lwc_chunk_point {
  int64_t chunk;
  int64_t local;
} lwc_chunk_point;

typedef struct lwc_int2 {
  int64_t x;
  int64_t y;
} lwc_int2;

typedef struct lwc_int3 {
  int64_t x;
  int64_t y;
  int64_t z;
} lwc_int3;

typedef struct lwc_chunk_point2 {
  lwc_int2 chunk;
  lwc_int2 local;
} lwc_chunk_point2;

typedef struct lwc_chunk_point3 {
  lwc_int3 chunk;
  lwc_int3 local;
} lwc_chunk_point3;

/* split(x, size): x == chunk * size + local, 0 <= local < size, for every int64 x (D1-D4, D6). */
LWC_API lwc_status lwc_split(int64_t x, int64_t size, lwc_chunk_point* out);
LWC_API lwc_status lwc_split2(lwc_int2 p, int64_t size, lwc_chunk_point2* out); /* D8 */
LWC_API lwc_status lwc_split3(lwc_int3 p, int64_t size, lwc_chunk_point3* out); /* D8 */
/* split_all: out[i] = split(xs[i], size) for i < n (D11). */
LWC_API lwc_status lwc_split_all(const int64_t* xs, size_t n, int64_t size, lwc_chunk_point* out);

/* cell_of(v, h): the n with n * h <= v < (n + 1) * h exactly (D9, D10). InvalidArgument for a NaN or
 * infinite v or an h that is not finite and positive; OutOfRange when n is not an int64. */
LWC_API lwc_status lwc_cell_of(double v, double h, int64_t* out);
/* cell_of_all: out[i] = cell_of(vs[i], h) (D11). On an error, nothing is written (checked first, F3). */
LWC_API lwc_status lwc_cell_of_all(const double* vs, size_t n, double h, int64_t* out);

/* ---------------------------------------------------------------------------------------------------
 * lwc.cover (docs/cover.md). A span is [first, last], first <= last; "no chunks" is *nonempty == 0. */
typedef struct lwc_chunk_span {
  int64_t first;
  int64_t last;
} lwc_chunk_span;

typedef struct lwc_chunk_box2 {
  lwc_chunk_span x;
  lwc_chunk_span y;
} lwc_chunk_box2;

typedef struct lwc_chunk_box3 {
  lwc_chunk_span x;
  lwc_chunk_span y;
  lwc_chunk_span z;
} lwc_chunk_box3;

/* cover([min, max_exclusive)): *nonempty = 1 and *out the span, or *nonempty = 0 (out untouched) for
 * an empty range; InvalidArgument when reversed (C1-C5, C10). cover_closed: [min, max_inclusive]. */
LWC_API lwc_status lwc_cover(int64_t min, int64_t max_exclusive, int64_t size, lwc_chunk_span* out,
                             int* nonempty);
LWC_API lwc_status lwc_cover_closed(int64_t min, int64_t max_inclusive, int64_t size, lwc_chunk_span* out,
                                    int* nonempty);
LWC_API lwc_status lwc_cover2(lwc_int2 min, lwc_int2 max_exclusive, int64_t size, lwc_chunk_box2* out,
                              int* nonempty); /* C9 */
LWC_API lwc_status lwc_cover3(lwc_int3 min, lwc_int3 max_exclusive, int64_t size, lwc_chunk_box3* out,
                              int* nonempty);
LWC_API lwc_status lwc_cover_closed2(lwc_int2 min, lwc_int2 max_inclusive, int64_t size, lwc_chunk_box2* out,
                                     int* nonempty);
LWC_API lwc_status lwc_cover_closed3(lwc_int3 min, lwc_int3 max_inclusive, int64_t size, lwc_chunk_box3* out,
                                     int* nonempty);
/* count: the exact chunk count; OutOfRange when above UINT64_MAX (C6, C9). InvalidArgument for a
 * reversed span (ChunkSpan::create, C4). */
LWC_API lwc_status lwc_count(lwc_chunk_span span, uint64_t* out);
LWC_API lwc_status lwc_count2(lwc_chunk_box2 box, uint64_t* out);
LWC_API lwc_status lwc_count3(lwc_chunk_box3 box, uint64_t* out);

/* ---------------------------------------------------------------------------------------------------
 * lwc.broadphase (docs/broadphase.md). */
typedef struct lwc_box2 {
  double min[2];
  double max[2];
} lwc_box2;

typedef struct lwc_box3 {
  double min[3];
  double max[3];
} lwc_box3;

typedef struct lwc_pair {
  uint32_t a;
  uint32_t b;
} lwc_pair;

/* FloatBox<D> (E10): a box of floats as engines hold them. */
typedef struct lwc_float_box2 {
  float min[2];
  float max[2];
} lwc_float_box2;

typedef struct lwc_float_box3 {
  float min[3];
  float max[3];
} lwc_float_box3;

/* BoxView<D, F> (B13): the caller's boxes read in place, in any layout. Box i's min corner is D reals
 * at (const char*)min + i * stride, its max corner D reals at (const char*)max + i * stride; `real` is
 * LWC_REAL_DOUBLE or LWC_REAL_FLOAT. An engine's AABB array: min and max point into element 0, stride
 * is the element's size. An array of lwc_box2: min = boxes[0].min, max = boxes[0].max, stride 32. */
enum { LWC_REAL_DOUBLE = 0, LWC_REAL_FLOAT = 1 };
typedef struct lwc_box_view {
  const void* min;
  const void* max;
  size_t count;
  size_t stride; /* bytes */
  int real;      /* LWC_REAL_DOUBLE or LWC_REAL_FLOAT */
} lwc_box_view;

enum { LWC_OVERSIZE_REJECT = 0, LWC_OVERSIZE_COARSER_LEVELS = 1 };

/* GridConfig with raw numbers, each validated by its C++ create() at every call (B6, B7, B11). */
typedef struct lwc_grid_config {
  double cell_size;          /* CellSize: finite, > 0 */
  int64_t max_cells_per_box; /* CellBudget: >= 1 (>= 4^D with LWC_OVERSIZE_COARSER_LEVELS) */
  int64_t max_memberships;   /* MembershipBudget: >= 0 */
  int64_t max_pairs;         /* PairBudget: >= 0 */
  int oversize;              /* LWC_OVERSIZE_REJECT or LWC_OVERSIZE_COARSER_LEVELS */
} lwc_grid_config;

/* The C++ defaults of GridConfig{}: cell size 1, 4096 cells per box, 2^26 memberships and pairs. */
LWC_API lwc_grid_config lwc_grid_config_default(void);

typedef struct lwc_stats {
  int64_t boxes;
  int64_t memberships;
  int64_t occupied_cells;
  int64_t pair_visits;
  int64_t unique_candidates;
  int64_t pairs;
  int64_t levels;
  int64_t coarse_boxes;
} lwc_stats;

/* find_pairs: every overlapping pair once, a < b, in canonical order (B1-B7, B11, B12). `pairs` has room
 * for `capacity` pairs; *count is the number of pairs; LWC_BUFFER_TOO_SMALL (F4) when it exceeds the
 * capacity (pairs may be NULL with capacity 0, to ask for the count). `stats` may be NULL. */
LWC_API lwc_status lwc_find_pairs2(const lwc_box2* boxes, size_t n, const lwc_grid_config* config, lwc_pair* pairs,
                                   size_t capacity, size_t* count, lwc_stats* stats);
LWC_API lwc_status lwc_find_pairs3(const lwc_box3* boxes, size_t n, const lwc_grid_config* config, lwc_pair* pairs,
                                   size_t capacity, size_t* count, lwc_stats* stats);

/* A list of pairs the library holds (F8), as Box2D v3's world holds its contact events: filled by
 * lwc_find_pairs2_view / 3_view, read in place with lwc_pair_list_pairs, reused frame after frame. One
 * thread at a time per list (one list per thread for concurrent broad phases). */
typedef struct lwc_pair_list lwc_pair_list;
LWC_API lwc_status lwc_pair_list_create(lwc_pair_list** out);
LWC_API lwc_status lwc_pair_list_destroy(lwc_pair_list* list);
/* *pairs: the list's *count pairs, in canonical order; valid until the list is next filled or destroyed
 * (NULL when the list is empty). */
LWC_API lwc_status lwc_pair_list_pairs(const lwc_pair_list* list, const lwc_pair** pairs, size_t* count);

/* find_pairs over a view (B13), into a list: one broad phase, whatever the number of pairs (F8). On an
 * error the list keeps what it held (F3). `stats` may be NULL. */
LWC_API lwc_status lwc_find_pairs2_view(const lwc_box_view* boxes, const lwc_grid_config* config, lwc_pair_list* out,
                                        lwc_stats* stats);
LWC_API lwc_status lwc_find_pairs3_view(const lwc_box_view* boxes, const lwc_grid_config* config, lwc_pair_list* out,
                                        lwc_stats* stats);

/* Grid<D>: registered boxes kept for queries (B1-B12). query: the ascending indices of every box
 * overlapping `probe` (B10), into `hits` (capacity, *count as above). */
typedef struct lwc_grid2 lwc_grid2;
typedef struct lwc_grid3 lwc_grid3;
LWC_API lwc_status lwc_grid2_create(const lwc_box2* boxes, size_t n, const lwc_grid_config* config, lwc_grid2** out);
LWC_API lwc_status lwc_grid3_create(const lwc_box3* boxes, size_t n, const lwc_grid_config* config, lwc_grid3** out);
LWC_API lwc_status lwc_grid2_destroy(lwc_grid2* grid);
LWC_API lwc_status lwc_grid3_destroy(lwc_grid3* grid);
LWC_API lwc_status lwc_grid2_query(const lwc_grid2* grid, const lwc_box2* probe, uint32_t* hits, size_t capacity,
                                   size_t* count);
LWC_API lwc_status lwc_grid3_query(const lwc_grid3* grid, const lwc_box3* probe, uint32_t* hits, size_t capacity,
                                   size_t* count);

/* PersistentGrid<D> (E1-E12). */
typedef struct lwc_handle {
  uint32_t slot;
  uint32_t generation;
} lwc_handle;

/* Filter (E8): two boxes are considered iff (a.group & b.mask) != 0 and (b.group & a.mask) != 0. */
typedef struct lwc_filter {
  uint64_t group;
  uint64_t mask;
} lwc_filter;

/* The C++ default Filter{}: group 1, every mask bit; passes with every default box. */
LWC_API lwc_filter lwc_filter_default(void);

/* A contact, lower slot first, with both boxes' payloads (E7): as now for began and swept, as at the
 * previous update for ended. */
typedef struct lwc_contact {
  lwc_handle a;
  lwc_handle b;
  uintptr_t user_a;
  uintptr_t user_b;
} lwc_contact;

typedef struct lwc_tracked2 {
  lwc_handle handle;
  lwc_box2 box;
} lwc_tracked2;

typedef struct lwc_tracked3 {
  lwc_handle handle;
  lwc_box3 box;
} lwc_tracked3;

/* Segment<D> (E9): the points from + t * (to - from), t in [0, 1]. */
typedef struct lwc_segment2 {
  double from[2];
  double to[2];
} lwc_segment2;

typedef struct lwc_segment3 {
  double from[3];
  double to[3];
} lwc_segment3;

/* A box a query found (E11), and a box a ray hit at entry fraction t (E9). */
typedef struct lwc_query_hit {
  lwc_handle handle;
  uintptr_t user;
} lwc_query_hit;

typedef struct lwc_ray_hit {
  lwc_handle handle;
  uintptr_t user;
  double t;
} lwc_ray_hit;

/* PairFilter (E8): a pair whose filter bits pass is considered iff fn(context, user of the lower slot,
 * user of the higher slot) != 0. A pure function of its arguments; after its answer for a box changes,
 * call _refilter on the box. */
typedef int (*lwc_pair_filter_fn)(void* context, uintptr_t lower, uintptr_t higher);
/* Visitors of _query_each and _raycast_each: return non-zero to go on, 0 to stop (F7). */
typedef int (*lwc_query_fn)(void* context, lwc_handle handle, uintptr_t user);
typedef int (*lwc_ray_fn)(void* context, lwc_handle handle, uintptr_t user, double t);

enum { LWC_MOTION_TELEPORT = 0, LWC_MOTION_SWEPT = 1 };
/* Which list of the last update's ContactEvents to read. */
enum { LWC_EVENTS_BEGAN = 0, LWC_EVENTS_ENDED = 1, LWC_EVENTS_SWEPT = 2 };

typedef struct lwc_update_stats {
  int64_t boxes;
  int64_t memberships;
  int64_t pairs;
  int64_t dirty;
  int64_t memberships_touched;
  int64_t pair_visits;
  int64_t began;
  int64_t ended;
  int64_t swept;
} lwc_update_stats;

typedef struct lwc_persistent_grid2 lwc_persistent_grid2;
typedef struct lwc_persistent_grid3 lwc_persistent_grid3;

/* create (B6, E8): `pair_filter` may be NULL (every pair whose bits pass is considered); `context` is
 * passed to it unread. */
LWC_API lwc_status lwc_persistent_grid2_create(const lwc_grid_config* config, lwc_pair_filter_fn pair_filter,
                                               void* context, lwc_persistent_grid2** out);
LWC_API lwc_status lwc_persistent_grid3_create(const lwc_grid_config* config, lwc_pair_filter_fn pair_filter,
                                               void* context, lwc_persistent_grid3** out);
LWC_API lwc_status lwc_persistent_grid2_destroy(lwc_persistent_grid2* grid);
LWC_API lwc_status lwc_persistent_grid3_destroy(lwc_persistent_grid3* grid);
/* insert (E3, E4, E7, E8, E10): a new box with its payload and filter; move (E3, E4, E6; motion
 * LWC_MOTION_*), remove (E3): as in C++; NotFound for a box handle naming no live box. */
LWC_API lwc_status lwc_persistent_grid2_insert(lwc_persistent_grid2* grid, const lwc_box2* box, uintptr_t user,
                                               lwc_filter filter, lwc_handle* out);
LWC_API lwc_status lwc_persistent_grid3_insert(lwc_persistent_grid3* grid, const lwc_box3* box, uintptr_t user,
                                               lwc_filter filter, lwc_handle* out);
LWC_API lwc_status lwc_persistent_grid2_insertf(lwc_persistent_grid2* grid, const lwc_float_box2* box, uintptr_t user,
                                                lwc_filter filter, lwc_handle* out);
LWC_API lwc_status lwc_persistent_grid3_insertf(lwc_persistent_grid3* grid, const lwc_float_box3* box, uintptr_t user,
                                                lwc_filter filter, lwc_handle* out);
LWC_API lwc_status lwc_persistent_grid2_move(lwc_persistent_grid2* grid, lwc_handle handle, const lwc_box2* box,
                                             int motion);
LWC_API lwc_status lwc_persistent_grid3_move(lwc_persistent_grid3* grid, lwc_handle handle, const lwc_box3* box,
                                             int motion);
LWC_API lwc_status lwc_persistent_grid2_movef(lwc_persistent_grid2* grid, lwc_handle handle,
                                              const lwc_float_box2* box, int motion);
LWC_API lwc_status lwc_persistent_grid3_movef(lwc_persistent_grid3* grid, lwc_handle handle,
                                              const lwc_float_box3* box, int motion);
LWC_API lwc_status lwc_persistent_grid2_remove(lwc_persistent_grid2* grid, lwc_handle handle);
LWC_API lwc_status lwc_persistent_grid3_remove(lwc_persistent_grid3* grid, lwc_handle handle);
/* set_filter, set_user_data, refilter (E8): the box is dirty and the next update reports exactly the
 * pairs that begin or end because of the change. user_data, filter: as last given. NotFound as for move. */
LWC_API lwc_status lwc_persistent_grid2_set_filter(lwc_persistent_grid2* grid, lwc_handle handle, lwc_filter filter);
LWC_API lwc_status lwc_persistent_grid3_set_filter(lwc_persistent_grid3* grid, lwc_handle handle, lwc_filter filter);
LWC_API lwc_status lwc_persistent_grid2_set_user_data(lwc_persistent_grid2* grid, lwc_handle handle, uintptr_t user);
LWC_API lwc_status lwc_persistent_grid3_set_user_data(lwc_persistent_grid3* grid, lwc_handle handle, uintptr_t user);
LWC_API lwc_status lwc_persistent_grid2_refilter(lwc_persistent_grid2* grid, lwc_handle handle);
LWC_API lwc_status lwc_persistent_grid3_refilter(lwc_persistent_grid3* grid, lwc_handle handle);
LWC_API lwc_status lwc_persistent_grid2_user_data(const lwc_persistent_grid2* grid, lwc_handle handle,
                                                  uintptr_t* out);
LWC_API lwc_status lwc_persistent_grid3_user_data(const lwc_persistent_grid3* grid, lwc_handle handle,
                                                  uintptr_t* out);
LWC_API lwc_status lwc_persistent_grid2_filter(const lwc_persistent_grid2* grid, lwc_handle handle, lwc_filter* out);
LWC_API lwc_status lwc_persistent_grid3_filter(const lwc_persistent_grid3* grid, lwc_handle handle, lwc_filter* out);
/* update (E1, E2, E4-E8, E12): applies the pending operations; the events are kept in the handle until
 * the next successful update and read with _events (a failed update keeps the previous ones). Once
 * warm, an update allocates nothing. `stats` may be NULL. */
LWC_API lwc_status lwc_persistent_grid2_update(lwc_persistent_grid2* grid, lwc_update_stats* stats);
LWC_API lwc_status lwc_persistent_grid3_update(lwc_persistent_grid3* grid, lwc_update_stats* stats);
/* events: the `which` list (LWC_EVENTS_*) of the last successful update, canonical order (E1, E6, E7);
 * empty before the first. */
LWC_API lwc_status lwc_persistent_grid2_events(const lwc_persistent_grid2* grid, int which, lwc_contact* out,
                                               size_t capacity, size_t* count);
LWC_API lwc_status lwc_persistent_grid3_events(const lwc_persistent_grid3* grid, int which, lwc_contact* out,
                                               size_t capacity, size_t* count);
/* pairs: the overlapping pairs that pass the filters at the last update, canonical order (E2, E8). */
LWC_API lwc_status lwc_persistent_grid2_pairs(const lwc_persistent_grid2* grid, lwc_contact* out, size_t capacity,
                                              size_t* count);
LWC_API lwc_status lwc_persistent_grid3_pairs(const lwc_persistent_grid3* grid, lwc_contact* out, size_t capacity,
                                              size_t* count);
/* query (E11): every box as last given (pending operations included) overlapping `box`, by ascending
 * slot, into out (capacity, *count: F4). Filters are not applied. queryf: the same for a float box. */
LWC_API lwc_status lwc_persistent_grid2_query(const lwc_persistent_grid2* grid, const lwc_box2* box,
                                              lwc_query_hit* out, size_t capacity, size_t* count);
LWC_API lwc_status lwc_persistent_grid3_query(const lwc_persistent_grid3* grid, const lwc_box3* box,
                                              lwc_query_hit* out, size_t capacity, size_t* count);
LWC_API lwc_status lwc_persistent_grid2_queryf(const lwc_persistent_grid2* grid, const lwc_float_box2* box,
                                               lwc_query_hit* out, size_t capacity, size_t* count);
LWC_API lwc_status lwc_persistent_grid3_queryf(const lwc_persistent_grid3* grid, const lwc_float_box3* box,
                                               lwc_query_hit* out, size_t capacity, size_t* count);
/* query_each (E11, F7): fn(context, handle, user) for each such box, in no particular order, until fn
 * returns 0. Allocates nothing. */
LWC_API lwc_status lwc_persistent_grid2_query_each(const lwc_persistent_grid2* grid, const lwc_box2* box,
                                                   lwc_query_fn fn, void* context);
LWC_API lwc_status lwc_persistent_grid3_query_each(const lwc_persistent_grid3* grid, const lwc_box3* box,
                                                   lwc_query_fn fn, void* context);
/* raycast (E9, E11): every box the segment hits, in order of entry fraction t (ties by slot), into out
 * (F4). raycast_each: fn(context, handle, user, t) in that order until fn returns 0 (F7). */
LWC_API lwc_status lwc_persistent_grid2_raycast(const lwc_persistent_grid2* grid, const lwc_segment2* segment,
                                                lwc_ray_hit* out, size_t capacity, size_t* count);
LWC_API lwc_status lwc_persistent_grid3_raycast(const lwc_persistent_grid3* grid, const lwc_segment3* segment,
                                                lwc_ray_hit* out, size_t capacity, size_t* count);
LWC_API lwc_status lwc_persistent_grid2_raycast_each(const lwc_persistent_grid2* grid, const lwc_segment2* segment,
                                                     lwc_ray_fn fn, void* context);
LWC_API lwc_status lwc_persistent_grid3_raycast_each(const lwc_persistent_grid3* grid, const lwc_segment3* segment,
                                                     lwc_ray_fn fn, void* context);
/* boxes: the live boxes at the last update, by ascending slot. box: a live handle's box as last given. */
LWC_API lwc_status lwc_persistent_grid2_boxes(const lwc_persistent_grid2* grid, lwc_tracked2* out, size_t capacity,
                                              size_t* count);
LWC_API lwc_status lwc_persistent_grid3_boxes(const lwc_persistent_grid3* grid, lwc_tracked3* out, size_t capacity,
                                              size_t* count);
LWC_API lwc_status lwc_persistent_grid2_box(const lwc_persistent_grid2* grid, lwc_handle handle, lwc_box2* out);
LWC_API lwc_status lwc_persistent_grid3_box(const lwc_persistent_grid3* grid, lwc_handle handle, lwc_box3* out);
/* size: live boxes, pending operations counted; pending: boxes changed since the last update. */
LWC_API lwc_status lwc_persistent_grid2_size(const lwc_persistent_grid2* grid, int64_t* out);
LWC_API lwc_status lwc_persistent_grid3_size(const lwc_persistent_grid3* grid, int64_t* out);
LWC_API lwc_status lwc_persistent_grid2_pending(const lwc_persistent_grid2* grid, size_t* out);
LWC_API lwc_status lwc_persistent_grid3_pending(const lwc_persistent_grid3* grid, size_t* out);

/* ---------------------------------------------------------------------------------------------------
 * lwc.rebase (docs/rebase.md). A world grid is its cell size, an int64 in [1, 2^53] (R1). */
typedef struct lwc_world_position2 {
  int64_t cell[2];
  double offset[2];
} lwc_world_position2;

typedef struct lwc_world_position3 {
  int64_t cell[3];
  double offset[3];
} lwc_world_position3;

typedef struct lwc_view_config {
  int64_t threshold_cells;       /* >= 1 */
  int64_t barrier_radius;        /* [0, 64] */
  int64_t units_per_render_unit; /* [1, 2^20] */
  int64_t bubble_units;          /* [1, 2^44] */
} lwc_view_config;

/* The C++ defaults of ViewConfig{}: threshold 2, barrier radius 1, 1 unit per render unit, 2^24 bubble. */
LWC_API lwc_view_config lwc_view_config_default(void);

typedef struct lwc_render_point2 {
  float at[2];
  uint64_t version;
} lwc_render_point2;

typedef struct lwc_render_point3 {
  float at[3];
  uint64_t version;
} lwc_render_point3;

typedef struct lwc_rebase_plan2 {
  int64_t from[2];
  int64_t target[2];
  uint64_t expected_version;
} lwc_rebase_plan2;

typedef struct lwc_rebase_plan3 {
  int64_t from[3];
  int64_t target[3];
  uint64_t expected_version;
} lwc_rebase_plan3;

typedef struct lwc_rebased2 {
  int64_t origin[2];
  uint64_t version;
} lwc_rebased2;

typedef struct lwc_rebased3 {
  int64_t origin[3];
  uint64_t version;
} lwc_rebased3;

enum { LWC_LATE_RELOCATABLE = 0, LWC_LATE_BAKED_LOCAL = 1 };

typedef struct lwc_late_result2 {
  lwc_world_position2 anchor;
  uint64_t started_version;
  int placement; /* LWC_LATE_* */
} lwc_late_result2;

typedef struct lwc_late_result3 {
  lwc_world_position3 anchor;
  uint64_t started_version;
  int placement;
} lwc_late_result3;

/* WorldGrid::normalize (R1): the position nearest to cell * size + offset with offsets in [0, size). */
LWC_API lwc_status lwc_world_grid_normalize2(int64_t cell_size, const int64_t cell[2], const double offset[2],
                                             lwc_world_position2* out);
LWC_API lwc_status lwc_world_grid_normalize3(int64_t cell_size, const int64_t cell[3], const double offset[3],
                                             lwc_world_position3* out);

typedef struct lwc_origin_coordinator2 lwc_origin_coordinator2;
typedef struct lwc_origin_coordinator3 lwc_origin_coordinator3;

/* create: a view of the grid of `cell_size` (R1) with `origin` at `version` (R5, R6 for the config). */
LWC_API lwc_status lwc_origin_coordinator2_create(int64_t cell_size, const lwc_view_config* config,
                                                  const int64_t origin[2], uint64_t version,
                                                  lwc_origin_coordinator2** out);
LWC_API lwc_status lwc_origin_coordinator3_create(int64_t cell_size, const lwc_view_config* config,
                                                  const int64_t origin[3], uint64_t version,
                                                  lwc_origin_coordinator3** out);
LWC_API lwc_status lwc_origin_coordinator2_destroy(lwc_origin_coordinator2* view);
LWC_API lwc_status lwc_origin_coordinator3_destroy(lwc_origin_coordinator3* view);
/* load, unload: the streaming system's cells (R6). is_loaded: *out 1 or 0. */
LWC_API lwc_status lwc_origin_coordinator2_load(lwc_origin_coordinator2* view, const int64_t cell[2]);
LWC_API lwc_status lwc_origin_coordinator3_load(lwc_origin_coordinator3* view, const int64_t cell[3]);
LWC_API lwc_status lwc_origin_coordinator2_unload(lwc_origin_coordinator2* view, const int64_t cell[2]);
LWC_API lwc_status lwc_origin_coordinator3_unload(lwc_origin_coordinator3* view, const int64_t cell[3]);
LWC_API lwc_status lwc_origin_coordinator2_is_loaded(const lwc_origin_coordinator2* view, const int64_t cell[2],
                                                     int* out);
LWC_API lwc_status lwc_origin_coordinator3_is_loaded(const lwc_origin_coordinator3* view, const int64_t cell[3],
                                                     int* out);
/* origin and version of the view. */
LWC_API lwc_status lwc_origin_coordinator2_origin(const lwc_origin_coordinator2* view, int64_t origin[2],
                                                  uint64_t* version);
LWC_API lwc_status lwc_origin_coordinator3_origin(const lwc_origin_coordinator3* view, int64_t origin[3],
                                                  uint64_t* version);
/* plan (R6, R7): *planned = 1 and *out the plan, or *planned = 0 (out untouched) within the threshold;
 * FailedPrecondition when the barrier is not loaded. Never changes the view. */
LWC_API lwc_status lwc_origin_coordinator2_plan(const lwc_origin_coordinator2* view,
                                                const lwc_world_position2* observer, lwc_rebase_plan2* out,
                                                int* planned);
LWC_API lwc_status lwc_origin_coordinator3_plan(const lwc_origin_coordinator3* view,
                                                const lwc_world_position3* observer, lwc_rebase_plan3* out,
                                                int* planned);
/* commit (R3, R6-R8): Aborted for a stale plan, FailedPrecondition for a broken barrier; the view is
 * unchanged on every error. */
LWC_API lwc_status lwc_origin_coordinator2_commit(lwc_origin_coordinator2* view, const lwc_rebase_plan2* plan,
                                                  lwc_rebased2* out);
LWC_API lwc_status lwc_origin_coordinator3_commit(lwc_origin_coordinator3* view, const lwc_rebase_plan3* plan,
                                                  lwc_rebased3* out);
/* to_render (R4, R5): floats rounded once from the exact integers; OutOfRange outside the bubble. */
LWC_API lwc_status lwc_origin_coordinator2_to_render(const lwc_origin_coordinator2* view,
                                                     const lwc_world_position2* p, lwc_render_point2* out);
LWC_API lwc_status lwc_origin_coordinator3_to_render(const lwc_origin_coordinator3* view,
                                                     const lwc_world_position3* p, lwc_render_point3* out);
/* start_late, place_late (R9): a relocatable result is placed from its anchor at the current origin. */
LWC_API lwc_status lwc_origin_coordinator2_start_late(const lwc_origin_coordinator2* view,
                                                      const lwc_world_position2* anchor, int placement,
                                                      lwc_late_result2* out);
LWC_API lwc_status lwc_origin_coordinator3_start_late(const lwc_origin_coordinator3* view,
                                                      const lwc_world_position3* anchor, int placement,
                                                      lwc_late_result3* out);
LWC_API lwc_status lwc_origin_coordinator2_place_late(const lwc_origin_coordinator2* view,
                                                      const lwc_late_result2* result, lwc_render_point2* out);
LWC_API lwc_status lwc_origin_coordinator3_place_late(const lwc_origin_coordinator3* view,
                                                      const lwc_late_result3* result, lwc_render_point3* out);

/* ---------------------------------------------------------------------------------------------------
 * lwc.commit (docs/commit.md). A snapshot is a uint64 the caller chooses (an index into its own
 * storage, or a pointer cast through uintptr_t); lwc stores it and never reads it. */
typedef struct lwc_chunk_run {
  int64_t y;
  int64_t x_first;
  int64_t x_last;
} lwc_chunk_run;

typedef struct lwc_commit_report {
  uint64_t sequence;
  uint64_t generation;
  uint64_t runs_published;
  uint64_t chunks_published;
  uint64_t chunks_cleared;
  uint64_t chunks_pending;
} lwc_commit_report;

typedef struct lwc_batch_entry {
  lwc_chunk_run run;
  uint64_t snapshot;
} lwc_batch_entry;

typedef struct lwc_batch_info {
  uint64_t sequence;
  uint64_t generation;
} lwc_batch_info;

/* The prepare callback: builds the snapshot of one run into *snapshot and returns LWC_OK (0), or returns
 * the code of its failure (T4: then nothing is published). It returns an int, so that any value is
 * defined: one outside 1..16 counts as LWC_UNKNOWN. It may call any lwc function, the committer's own
 * included. */
typedef int (*lwc_prepare_fn)(void* user, const lwc_chunk_run* run, uint64_t* snapshot);

/* RunBudget::unlimited(). */
#define LWC_RUN_BUDGET_UNLIMITED INT64_MAX

typedef struct lwc_committer lwc_committer;

LWC_API lwc_status lwc_committer_create(int64_t chunk_size, lwc_committer** out);
LWC_API lwc_status lwc_committer_destroy(lwc_committer* committer);
/* mark (T1, T2, T6); chunk_of (T1). */
LWC_API lwc_status lwc_committer_mark(lwc_committer* committer, lwc_int2 cell);
LWC_API lwc_status lwc_committer_chunk_of(const lwc_committer* committer, lwc_int2 cell, lwc_int2* out);
/* pending_chunks, pending_runs (T2, T3), generation (T6). */
LWC_API lwc_status lwc_committer_pending_chunks(const lwc_committer* committer, size_t* out);
LWC_API lwc_status lwc_committer_pending_runs(const lwc_committer* committer, lwc_chunk_run* out, size_t capacity,
                                              size_t* count);
LWC_API lwc_status lwc_committer_generation(const lwc_committer* committer, uint64_t* out);
/* commit (T4-T6, T8): at most `run_budget` runs (>= 1; LWC_RUN_BUDGET_UNLIMITED), all prepared before any
 * is published. `report` may be NULL. FailedPrecondition while another commit runs. */
LWC_API lwc_status lwc_committer_commit(lwc_committer* committer, lwc_prepare_fn prepare, void* user,
                                        int64_t run_budget, lwc_commit_report* report);
/* published (T7): the batch last published, read as one whole batch: *info and its entries. */
LWC_API lwc_status lwc_committer_published(const lwc_committer* committer, lwc_batch_info* info,
                                           lwc_batch_entry* entries, size_t capacity, size_t* count);

/* ---------------------------------------------------------------------------------------------------
 * lwc.draw (docs/draw.md): a picture of a 2-D broad-phase scene as one SVG document, outside the hot path
 * (capi/draw.cc). Exact values are in the hover titles; past style.dense_boxes boxes in view the boxes are
 * drawn as a density raster, and pairs, hits and marks for the first style.max_items of each kind. */
typedef struct lwc_draw_ray2 {
  double from[2];
  double to[2];
} lwc_draw_ray2;

/* A floating-origin view in the scene's units: its origin cell's corner, the cell's side, the half side of
 * its render bubble. */
typedef struct lwc_draw_view2 {
  double origin[2];
  double cell_size;
  double bubble;
} lwc_draw_view2;

/* What to draw. Every array may be NULL with a count of 0; a NULL pointer for an optional part (grid,
 * query, ray, view, title) leaves it out. Indices (pairs, hits) name boxes. */
typedef struct lwc_draw_scene2 {
  const lwc_box2* boxes;
  size_t box_count;
  const lwc_grid_config* grid; /* cell lines of level 0, and with `cells` each box's occupied cells */
  int cells;
  const lwc_pair* pairs; /* pairs to draw (all, or a chosen subset) */
  size_t pair_count;
  int reference_cells; /* with a grid: each drawn pair's reference cell (B9) */
  const lwc_pair* missed; /* pairs an implementation missed: both boxes and where they meet */
  size_t missed_count;
  const lwc_pair* extra; /* pairs it reported wrongly: both boxes and the gap */
  size_t extra_count;
  const lwc_box2* query;
  const uint32_t* query_hits;
  size_t query_hit_count;
  const lwc_draw_ray2* ray;
  const uint32_t* ray_hits; /* in order of entry */
  size_t ray_hit_count;
  const lwc_draw_view2* view;
  const char* title; /* UTF-8 */
} lwc_draw_scene2;

/* The size of the picture (pixels) and its limits (docs/draw.md, Style). */
typedef struct lwc_draw_style {
  int width;          /* [160, 8192] */
  int height;         /* [120, 8192] */
  size_t dense_boxes; /* >= 1 */
  size_t max_items;   /* >= 1 */
  int bin_pixels;     /* [1, 64] */
} lwc_draw_style;

/* The C++ defaults of lwc::draw::Style{}: 720 x 540, 2000 boxes, 2000 items, 4-pixel bins. */
LWC_API lwc_draw_style lwc_draw_style_default(void);

/* The SVG of `scene` (UTF-8, NUL-terminated) into svg[0, capacity); *size is its length in bytes, without
 * the NUL. LWC_BUFFER_TOO_SMALL when capacity <= that length: *size says it, nothing else is written (F4;
 * svg may be NULL with capacity 0, to ask). LWC_INVALID_ARGUMENT for what lwc::draw::svg refuses (a box
 * that is not valid, an index naming no box, a style out of range), naming it. `style` may be NULL (the
 * defaults). */
LWC_API lwc_status lwc_draw_svg2(const lwc_draw_scene2* scene, const lwc_draw_style* style, char* svg,
                                 size_t capacity, size_t* size);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* LWC_H_ */
