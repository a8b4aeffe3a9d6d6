#!/usr/bin/env bash
# tests/broadphase_mutants.sh — the "Done means" mutants of issue 4, one at a time: each is applied with sed
# to modules/broadphase.cppm (every place that computes a registered range: cell_range and the batch fast
# path), the dev tests (and, with PROPS=1, the properties at 300 cases) are rebuilt and run, and the file is
# restored. A mutant is killed when the run fails. Run from the repository root after `./lwc build dev`.
set -u
f=modules/broadphase.cppm
keep=$(mktemp)
trap 'cp "$keep" "$f"; rm -f "$keep"' EXIT
cp "$f" "$keep"
survivors=0
mutant() {
  local name=$1 expr=$2 log
  sed -i "$expr" "$f"
  if cmp -s "$f" "$keep"; then echo "$name: the sed did not apply (stale script)"; survivors=$((survivors + 1)); return; fi
  log=build/dev/mutant_$name.log
  if ! cmake --build build/dev --target broadphase_test ${PROPS:+broadphase_props} >"$log" 2>&1; then
    echo "$name: does not build"; cp "$keep" "$f"; return
  fi
  local killed=0
  ./build/dev/broadphase_test --gtest_brief=1 >>"$log" 2>&1 || killed=1
  if [ -n "${PROPS:-}" ]; then
    RC_PARAMS="seed=20261129 max_success=300" ./build/dev/properties/broadphase_props --gtest_brief=1 >>"$log" 2>&1 || killed=1
  fi
  echo "$name: $([ $killed = 1 ] && echo killed || echo SURVIVED); $(grep -c '^\[  FAILED  \] [A-Za-z]' "$log") failing tests (log $log)"
  [ $killed = 1 ] || survivors=$((survivors + 1))
  cp "$keep" "$f"
}
mutant centre_cell_only 's|cell_of(box.min\[k\], h);|cell_of(box.min[k] / 2 + box.max[k] / 2, h);|; s|cell_of(box.max\[k\], h);|cell_of(box.min[k] / 2 + box.max[k] / 2, h);|; s|out.coords\[2 \* (b \* D + k)\] = boxes\[b\].min\[k\];|out.coords[2 * (b * D + k)] = boxes[b].min[k] / 2 + boxes[b].max[k] / 2;|; s|out.coords\[2 \* (b \* D + k) + 1\] = boxes\[b\].max\[k\];|out.coords[2 * (b * D + k) + 1] = boxes[b].min[k] / 2 + boxes[b].max[k] / 2;|'
mutant ceil_minus_one_last_cell 's|absl::StatusOr<std::int64_t> hi = cell_of(box.max\[k\], h);|absl::StatusOr<std::int64_t> hi = static_cast<std::int64_t>(std::ceil(box.max[k] / h.value())) - 1;|; s|^    std::int64_t count = 1;|    for (std::size_t k = 0; k < D; ++k) out.cells[2 * (b * D + k) + 1] = static_cast<std::int64_t>(std::ceil(boxes[b].max[k] / h.value())) - 1;\n    std::int64_t count = 1;|'
mutant no_reference_cell_rule 's|if ((fa \| flags\[b\]) != all_flags<D>()) continue;|if ((fa \| flags[b]) == 0xffffffffu) continue;|'
cmake --build build/dev --target broadphase_test ${PROPS:+broadphase_props} >/dev/null 2>&1
exit $survivors
