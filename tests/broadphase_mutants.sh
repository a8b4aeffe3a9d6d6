#!/usr/bin/env bash
# tests/broadphase_mutants.sh — the "Done means" mutants of issues 4 and 7, one at a time: each is applied
# with sed to one source file (issue 4: modules/broadphase.cppm, every place that computes a registered
# range — cell_range and the batch fast path; issue 7: modules/broadphase/persistent.cppm), the dev tests
# (and, with PROPS=1, the properties at 300 cases) are rebuilt and run, and the file is restored. A mutant
# is killed when the run fails. Run from the repository root after `./lwc build dev`; ONLY=<prefix> runs
# the mutants whose name starts with it (e.g. ONLY=persistent_).
set -u
files=(modules/broadphase.cppm modules/broadphase/persistent.cppm)
keep=$(mktemp -d)
restore() { for g in "${files[@]}"; do cp "$keep/$(basename "$g")" "$g"; done; }
trap 'restore; rm -rf "$keep"' EXIT
for g in "${files[@]}"; do cp "$g" "$keep/$(basename "$g")"; done
survivors=0
mutant() {
  local name=$1 f=$2 expr=$3 log
  case "$name" in "${ONLY:-}"*) ;; *) return ;; esac
  sed -i "$expr" "$f"
  if cmp -s "$f" "$keep/$(basename "$f")"; then echo "$name: the sed did not apply (stale script)"; survivors=$((survivors + 1)); return; fi
  log=build/dev/mutant_$name.log
  if ! cmake --build build/dev --target broadphase_test ${PROPS:+broadphase_props} >"$log" 2>&1; then
    echo "$name: does not build"; restore; return
  fi
  local killed=0
  ./build/dev/broadphase_test --gtest_brief=1 >>"$log" 2>&1 || killed=1
  if [ -n "${PROPS:-}" ]; then
    RC_PARAMS="seed=20261129 max_success=300" ./build/dev/properties/broadphase_props --gtest_brief=1 >>"$log" 2>&1 || killed=1
  fi
  echo "$name: $([ $killed = 1 ] && echo killed || echo SURVIVED); $(grep -c '^\[  FAILED  \] [A-Za-z]' "$log") failing tests (log $log)"
  [ $killed = 1 ] || survivors=$((survivors + 1))
  restore
}
b=modules/broadphase.cppm
mutant centre_cell_only $b 's|cell_of(box.min\[k\], h);|cell_of(box.min[k] / 2 + box.max[k] / 2, h);|; s|cell_of(box.max\[k\], h);|cell_of(box.min[k] / 2 + box.max[k] / 2, h);|; s|out.coords\[2 \* (b \* D + k)\] = boxes\[b\].min\[k\];|out.coords[2 * (b * D + k)] = boxes[b].min[k] / 2 + boxes[b].max[k] / 2;|; s|out.coords\[2 \* (b \* D + k) + 1\] = boxes\[b\].max\[k\];|out.coords[2 * (b * D + k) + 1] = boxes[b].min[k] / 2 + boxes[b].max[k] / 2;|'
mutant ceil_minus_one_last_cell $b 's|absl::StatusOr<std::int64_t> hi = cell_of(box.max\[k\], h);|absl::StatusOr<std::int64_t> hi = static_cast<std::int64_t>(std::ceil(box.max[k] / h.value())) - 1;|; s|^    std::int64_t count = 1;|    for (std::size_t k = 0; k < D; ++k) out.cells[2 * (b * D + k) + 1] = static_cast<std::int64_t>(std::ceil(boxes[b].max[k] / h.value())) - 1;\n    std::int64_t count = 1;|'
mutant no_reference_cell_rule $b 's|if ((fa \| flags\[b\]) != all_flags<D>()) continue;|if ((fa \| flags[b]) == 0xffffffffu) continue;|'
p=modules/broadphase/persistent.cppm
# E6: the step volume is only the end box (no union with the start of the step).
mutant persistent_no_swept_union $p 's|volume.box = internal::hull(start, box);|volume.box = box; (void)start;|'
# E1: a pair that overlapped at the previous update is reported as began again when one of its boxes moves.
mutant persistent_began_for_present_pairs $p 's|if (a.committed \&\& b.committed \&\& overlaps(a.then.box, b.then.box)) return;||'
# E3: a handle is accepted by slot alone (a stale handle of a reused slot moves or removes the new box).
mutant persistent_no_generation_check $p 's|slots_\[handle.slot\].generation != handle.generation) {|slots_[handle.slot].generation == 0) {|'
# E1: a pair of two moved boxes is taken from both sides, not only from the lower slot.
mutant persistent_no_lower_slot_rule $p 's|if (!within \|\| t == s \|\| (b.dirty \&\& t < s) \|\| !overlaps(a.now.box, b.now.box)) return;|if (!within \|\| t == s \|\| !overlaps(a.now.box, b.now.box)) return;|'
# E1, E3: a removed slot is reusable at once, before the update that ends its pairs.
mutant persistent_reuse_slot_before_update $p 's|freed_.push_back(handle.slot);|free_.push_back(handle.slot);|'
cmake --build build/dev --target broadphase_test ${PROPS:+broadphase_props} >/dev/null 2>&1
exit $survivors
