#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# File: scripts/coverage_summary.py
#
# The coverage figures of modules/ from `llvm-cov-19 export -format=lcov` (one merged profile, see
# cmd_coverage in ./lwc), with the documented exclusions applied, into build/coverage-report/summary.json
# (read by scripts/evidence.py: the audit report's coverage column).
#
# Why a filter of our own: llvm-cov has no per-line exclusion for source-based coverage (only
# --ignore-filename-regex, whole files). lcov's markers are the convention genhtml users know, so this
# script reads them, and each one must give its reason after a colon (a bare marker fails the run):
#   // LCOV_EXCL_LINE: <why no test can reach it>         this line and its branches
#   // LCOV_EXCL_BR_LINE: <why>                           only this line's branches
#   // LCOV_EXCL_START: <why>  ...  // LCOV_EXCL_STOP     every line and branch in between
# One exclusion is by rule, not by marker: the branches of a defaulted operator== or operator<=>
# (`... operator==(...) const = default;`). Clang gives such a function one counter but a branch per
# member comparison, so the false side of each member's comparison reads 0 however the tests compare
# (tests/ compare such values both equal and unequal on every member; the line counts stay in the
# figures). The report prints the raw figures (everything llvm-cov counts) beside the filtered ones, and
# lists every excluded line with its reason.
#
# Lines are lcov's (DA records: a line counts once, run when any instantiation ran it); branch sides come
# from the JSON export, merged the same way over a template's instantiations (lcov lists every
# instantiation's sides apart).
#
# usage: scripts/coverage_summary.py LCOV_FILE EXPORT_JSON ROOT OUT_JSON
import json
import re
import sys
from pathlib import Path

MARKER = re.compile(r"LCOV_EXCL_(LINE|BR_LINE|START|STOP)(?::\s*(\S.*))?")
DEFAULTED = re.compile(r"operator\s*(==|<=>)\s*\(.*\)\s*(const\s*)?(noexcept\s*)?=\s*default\s*;")


def exclusions(path):
    """({line: reason} for lines, {line: reason} for branches only) of one source file (1-based lines)."""
    lines, branches, start = {}, {}, None
    for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if DEFAULTED.search(text):
            branches[n] = "defaulted comparison: one counter, a branch per member (see scripts/coverage_summary.py)"
        m = MARKER.search(text)
        if not m:
            if start is not None:
                lines[n] = start[1]
            continue
        kind = m.group(1)
        reason = re.sub(r"\s*\*/.*$", "", m.group(2) or "").strip()  # a marker inside /* */ (in a macro)
        if kind != "STOP" and len(reason.split()) < 3:
            sys.exit(f"{path}:{n}: LCOV_EXCL_{kind} needs a reason (`LCOV_EXCL_{kind}: why no test reaches it`)")
        if kind == "LINE":
            lines[n] = reason
        elif kind == "BR_LINE":
            branches[n] = reason
        elif kind == "START":
            if start is not None:
                sys.exit(f"{path}:{n}: LCOV_EXCL_START inside the range opened at line {start[0]}")
            start = (n, reason)
            lines[n] = reason
        else:
            if start is None:
                sys.exit(f"{path}:{n}: LCOV_EXCL_STOP without LCOV_EXCL_START")
            lines[n] = start[1]
            start = None
    if start is not None:
        sys.exit(f"{path}:{start[0]}: LCOV_EXCL_START is never stopped")
    return lines, branches


def read_lcov(text):
    """{source path: {"lines": {line: count}, "branches": [(line, count)]}}."""
    files, cur = {}, None
    for line in text.splitlines():
        if line.startswith("SF:"):
            cur = files.setdefault(line[3:], {"lines": {}, "branches": []})
        elif line.startswith("DA:") and cur is not None:
            n, count = line[3:].split(",")[:2]
            cur["lines"][int(n)] = cur["lines"].get(int(n), 0) + int(count)
        elif line.startswith("BRDA:") and cur is not None:
            n, _, _, count = line[5:].split(",")
            cur["branches"].append((int(n), 0 if count == "-" else int(count)))
        elif line == "end_of_record":
            cur = None
    return files


def read_branches(export):
    """{source path: [(line, taken)]} from `llvm-cov export -format=text`: one entry per branch side, the
    instantiations of a template merged by the side's source range (taken when any instantiation took it;
    llvm-cov's own report instead counts, per function, its best-covered instantiation)."""
    out = {}
    for f in json.loads(export)["data"][0]["files"]:
        sides = {}
        for b in f["branches"]:
            key = tuple(b[:4]) + (b[6], b[7])
            t, fl = sides.get(key, (False, False))
            sides[key] = (t or b[4] > 0, fl or b[5] > 0)
        out[f["filename"]] = [(k[0], taken) for k, pair in sorted(sides.items()) for taken in pair]
    return out


def pct(covered, count):
    return round(100.0 * covered / count, 2) if count else 100.0


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: scripts/coverage_summary.py LCOV_FILE EXPORT_JSON ROOT OUT_JSON")
    lcov, root, out = Path(sys.argv[1]), Path(sys.argv[3]).resolve(), Path(sys.argv[4])
    branches = {str(Path(k).resolve()): v for k, v in read_branches(Path(sys.argv[2]).read_text(encoding="utf-8")).items()}
    modules = root / "modules"
    files = {}
    raw = {"lines_count": 0, "lines_covered": 0, "branches_count": 0, "branches_covered": 0}
    total = dict(raw)
    excluded, missed = [], []
    for source, data in sorted(read_lcov(lcov.read_text(encoding="utf-8")).items()):
        path = Path(source).resolve()
        if modules not in path.parents:
            continue
        rel = path.relative_to(root).as_posix()
        skip_lines, skip_branches = exclusions(path)
        f = {"lines_count": 0, "lines_covered": 0, "branches_count": 0, "branches_covered": 0}
        for n, count in sorted(data["lines"].items()):
            raw["lines_count"] += 1
            raw["lines_covered"] += count > 0
            if n in skip_lines:
                excluded.append({"file": rel, "line": n, "kind": "line", "hit": count > 0, "reason": skip_lines[n]})
                continue
            f["lines_count"] += 1
            f["lines_covered"] += count > 0
            if count == 0:
                missed.append(f"{rel}:{n}: line never run")
        by_line = {}
        for n, count in branches.get(str(path), []):
            raw["branches_count"] += 1
            raw["branches_covered"] += count > 0
            reason = skip_lines.get(n) or skip_branches.get(n)
            if reason:
                by_line.setdefault(n, [reason, 0, 0])
                by_line[n][1] += 1
                by_line[n][2] += count > 0
                continue
            f["branches_count"] += 1
            f["branches_covered"] += count > 0
            if count == 0:
                missed.append(f"{rel}:{n}: a branch side never taken")
        for n, (reason, count, hit) in sorted(by_line.items()):
            excluded.append({"file": rel, "line": n, "kind": f"{count} branch sides ({hit} taken)", "reason": reason})
        for k in total:
            total[k] += f[k]
        f["lines_percent"] = pct(f["lines_covered"], f["lines_count"])
        f["branches_percent"] = pct(f["branches_covered"], f["branches_count"])
        files[rel] = f
    if not files:
        sys.exit(f"{lcov}: no file of {modules}")
    summary = {
        "lines_percent": pct(total["lines_covered"], total["lines_count"]),
        "branches_percent": pct(total["branches_covered"], total["branches_count"]),
        **total,
        "raw": {**raw, "lines_percent": pct(raw["lines_covered"], raw["lines_count"]),
                "branches_percent": pct(raw["branches_covered"], raw["branches_count"])},
        "mismatched_functions": 0,
        "files": files,
        "excluded": excluded,
        "missed": missed,
    }
    out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    r = summary["raw"]
    print(f"modules/ coverage: lines {summary['lines_percent']}% ({total['lines_covered']}/{total['lines_count']}), "
          f"branches {summary['branches_percent']}% ({total['branches_covered']}/{total['branches_count']}) "
          f"after {len(excluded)} documented exclusions; raw: lines {r['lines_percent']}%, "
          f"branches {r['branches_percent']}%")
    # The misses, one line each: a file's never-run lines as ranges, then its lines with untaken branch sides.
    by_file = {}
    for m in missed:
        where, what = m.rsplit(": ", 1)
        f, n = where.rsplit(":", 1)
        by_file.setdefault(f, ([], {}))
        if what.startswith("line"):
            by_file[f][0].append(int(n))
        else:
            by_file[f][1][int(n)] = by_file[f][1].get(int(n), 0) + 1
    for f, (lines, branches) in sorted(by_file.items()):
        ranges, start = [], None
        for n in sorted(lines):
            if start is None or n != ranges[-1][1] + 1:
                ranges.append([n, n])
            else:
                ranges[-1][1] = n
            start = n
        if ranges:
            print(f"  {f}: lines never run: " + ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in ranges))
        if branches:
            print(f"  {f}: untaken branch sides: " + ", ".join(f"{n} (x{k})" if k > 1 else f"{n}"
                                                           for n, k in sorted(branches.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
