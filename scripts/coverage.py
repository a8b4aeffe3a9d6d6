#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# File: scripts/coverage.py — `./lwc coverage [CASES]`: clang source-based coverage of modules/ from every
# test and property (the coverage preset), as one merged profile, into build/coverage-report/ (HTML, and
# summary.json, which `./lwc audit` splices into its report as the coverage column).
#
# One merged profile, read against one object that holds the coverage mappings of every unit the tests
# were built from. Why one object: a module's inline and template functions are emitted by the units that
# use them, and every other unit that sees them, the module's own unit included, records an empty (hash
# 0) stand-in. Within one program the reader replaces each stand-in by the emitted record; across several
# programs (-object per test binary) llvm-cov instead drops the stand-in as "mismatched data" (245
# functions) or, where it took the stand-in first, counts the function as never run and hides the
# emitted record (pair_index showed 0 hits). So the units are linked into one relocatable object (ld -r;
# duplicate main()s are allowed, it is never run; linked before the run, so the profile is newer), read
# as one program. The preset also compiles with -mllvm -limited-coverage-experimental=true, so importers
# write no stand-ins for module functions at all. A mismatched-data warning fails the run: the figures
# would not be the whole count.
#
# The figures, with the documented exclusions applied:
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
# figures). A second rule: a class head line (`struct Name {`) holds no code but the class's implicit
# members, which clang never instruments (an implicit copy or move assignment gets no counter, however
# often it runs: checked with a plain program, where such a line shows no count at all); in a module,
# units that name an implicit member still write an empty record for it at the class head, which reads 0
# (Level, DenseBox and PairBlocks in the broad phase did). The report prints the raw figures (everything llvm-cov counts) beside the filtered ones, and
# lists every excluded line with its reason.
#
# Lines are lcov's (DA records: a line counts once, run when any instantiation ran it); branch sides come
# from the JSON export, merged the same way over a template's instantiations (lcov lists every
# instantiation's sides apart).
#
# usage: scripts/coverage.py [CASES]     (RapidCheck cases per property; default 2000)
import contextlib
import os
import shutil
import subprocess
import json
import re
import sys
from pathlib import Path

MARKER = re.compile(r"LCOV_EXCL_(LINE|BR_LINE|START|STOP)(?::\s*(\S.*))?")
DEFAULTED = re.compile(r"operator\s*(==|<=>)\s*\(.*\)\s*(const\s*)?(noexcept\s*)?=\s*default\s*;")
CLASS_HEAD = re.compile(r"^\s*(struct|class)\s+[A-Za-z_]\w*(\s+final)?\s*(:[^{;]*)?\{\s*(//.*)?$")


def exclusions(path):
    """({line: reason} for lines, {line: reason} for branches only) of one source file (1-based lines)."""
    lines, branches, start = {}, {}, None
    for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if DEFAULTED.search(text):
            branches[n] = "defaulted comparison: one counter, a branch per member (see scripts/coverage.py)"
        if CLASS_HEAD.match(text):
            lines[n] = "class head: only implicit members sit here, never instrumented (see scripts/coverage.py)"
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


def summarise(lcov, export, root, out):
    branches = {str(Path(k).resolve()): v for k, v in read_branches(export.read_text(encoding="utf-8")).items()}
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


ROOT = Path(__file__).resolve().parent.parent
LLVM = "-19"  # Debian's versioned llvm tools, as the compiler


def run(args, out=None, errors_too=True, env=None):
    """Runs args in ROOT, its output into the file out (stderr too unless errors_too is False); on failure
    prints the end of that output and exits."""
    with open(out, "w", encoding="utf-8") if out else contextlib.nullcontext() as log:
        r = subprocess.run(args, cwd=ROOT, env=env, stdout=log, text=True,
                           stderr=subprocess.STDOUT if log and errors_too else subprocess.PIPE if log else None)
    if r.returncode != 0:
        if out:
            tail = r.stderr if r.stderr else "".join(Path(out).read_text(encoding="utf-8").splitlines(True)[-30:])
            sys.stderr.write(tail)
        sys.exit(f"[lwc] error: {' '.join(map(str, args[:3]))} ... failed ({r.returncode})")


def main():
    cases = sys.argv[1] if len(sys.argv) > 1 else "2000"
    build, d = ROOT / "build" / "coverage", ROOT / "build" / "coverage-report"
    run(["cmake", "--preset", "coverage"], out=ROOT / "build" / "coverage.configure.log")
    run(["cmake", "--build", "--preset", "coverage"])
    shutil.rmtree(d, ignore_errors=True)
    (d / "profiles").mkdir(parents=True)
    # The units of every program CTest runs (tests, properties, exhaustive runs, replays, examples,
    # lwc-audit), linked before the run so that the profile is newer than the object.
    # Each folder keeps its objects in its own <build>/<folder>/CMakeFiles: those of the folders the top-level
    # CMakeLists.txt adds for lwc's own targets, not draw/'s or engines/'s (never counted here).
    units = sorted(str(p) for p in build.rglob("*.o")
                   if ".dir" in str(p.relative_to(build)) and "CMakeFiles" in p.relative_to(build).parts
                   and p.relative_to(build).parts[0] not in ("draw", "engines", "package", "pictures"))
    everything = d / "all-units.o"
    run(["ld", "-r", "--allow-multiple-definition", "-o", str(everything), *units])
    print(f"[lwc] running tests and properties ({cases} cases) with coverage", file=sys.stderr)
    env = dict(os.environ, LLVM_PROFILE_FILE=str(d / "profiles" / "%m-%p.profraw"), RC_PARAMS=f"max_success={cases}")
    run(["ctest", "--test-dir", str(build), "-j", str(os.cpu_count() or 2), "--no-tests=error"], out=d / "ctest.log", env=env)
    profile = d / "merged.profdata"
    run([f"llvm-profdata{LLVM}", "merge", "-sparse", *map(str, (d / "profiles").glob("*.profraw")), "-o", str(profile)])
    cov = lambda *what: [f"llvm-cov{LLVM}", *what, f"-instr-profile={profile}", str(everything), str(ROOT / "modules")]
    report = subprocess.run(cov("report"), cwd=ROOT, capture_output=True, text=True)
    print(report.stdout, end="")
    if report.returncode != 0 or "mismatched data" in report.stderr:
        dump = subprocess.run(cov("report", "-dump"), cwd=ROOT, capture_output=True, text=True)
        sys.stderr.write("\n".join(sorted({l for l in (dump.stdout + dump.stderr).splitlines() if l.startswith("hash-mismatch")})[:20]) + "\n")
        sys.exit(f"[lwc] error: llvm-cov: {report.stderr.strip()[:300]} (the figures would undercount)")
    run(cov("show", "-format=html", f"-output-dir={d / 'html'}", "-show-branches=count", "-show-mcdc"))
    # summary.json: the figures after the documented exclusions, the raw figures beside them, every
    # exclusion and every miss.
    run(cov("export", "-format=lcov"), out=d / "lcov.info", errors_too=False)
    run(cov("export", "-format=text"), out=d / "export.json", errors_too=False)
    summarise(d / "lcov.info", d / "export.json", ROOT, d / "summary.json")
    print(f"[lwc] no mismatched data; html (raw, before exclusions) in {d / 'html' / 'index.html'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
