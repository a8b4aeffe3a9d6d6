#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# File: scripts/evidence.py
#
# The evidence behind `./lwc audit`, `./lwc fuzz`, `./lwc test --seeds N` and `./lwc clauses`: it runs the
# built property suites, exhaustive checks and fuzz targets, reads what they report (GoogleTest's JSON
# output: the `rc_cases`, `rc_reproduce` and `exhaustive.<contract>.<clause>` test properties; libFuzzer's
# final stats), and writes the per-clause report and docs/clauses.md.
#
# Why Python 3 with the standard library only, not C++ with simdjson: this is glue between tools, not
# part of the library. It reads JSON written by other programs and Markdown and source text written by
# people, runs processes and prints tables; `./lwc clauses --check` must work on a tree that was never
# built (CI's clause step, a contributor's editor), and a C++ tool would need a configured build first
# and a second copy of what CMake already knows. Debian's `python3` is one package (the driver's setup
# installs it) and json, re, subprocess and argparse are all this needs.
#
# The tree is discovered, never listed here: clauses are the headings "### <ID> — <statement>" of
# docs/<contract>.md; a property or exhaustive test named <ID>_... verifies clause <ID>; a proof
# (proofs/<contract>_proof.cc --json) proves the clauses its claims name; a fuzz target
# fuzz/<contract>_fuzzer.cc declares the clauses each execution checks on its "lwc-clauses:" line.
import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADING = re.compile(r"^### ([A-Z][0-9]+) — (.*)$")
ADVICE = ("A failed property is a library bug or a property bug: run the command above, read the shrunk\n"
          "counterexample, fix whichever is wrong, and keep the case as a named regression test in\n"
          "tests/<contract>_test.cc with its reproduce= string in a comment (docs/development.md,\n"
          "\"Reproducing a property failure\").")


def say(message):
    print(f"\033[1m[lwc]\033[0m {message}", file=sys.stderr, flush=True)


def jobs():
    return max(1, int(os.environ.get("LWC_JOBS") or os.cpu_count() or 2))


def rel(path):
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------------------------------
# The tree: clauses, fuzz targets.

def clauses():
    """[(contract, id, statement)] of every docs/<contract>.md, in file order."""
    out = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for line in doc.read_text(encoding="utf-8").splitlines():
            m = HEADING.match(line)
            if m:
                out.append((doc.stem, m.group(1), m.group(2)))
    return out


def fuzz_targets():
    return sorted(p.stem for p in (ROOT / "fuzz").glob("*_fuzzer.cc"))


def fuzz_clauses(target):
    """The ids on the first "lwc-clauses:" line of fuzz/<target>.cc."""
    for line in (ROOT / "fuzz" / f"{target}.cc").read_text(encoding="utf-8").splitlines():
        if "lwc-clauses:" in line:
            return line.split("lwc-clauses:", 1)[1].split()
    return []


def binaries(build_dir, folder, suffix):
    """The executables build_dir/folder/*suffix, sorted."""
    return sorted(p for p in (Path(build_dir) / folder).glob(f"*{suffix}") if p.is_file() and os.access(p, os.X_OK))


def clause_of(test_name):
    """D1_Reconstructs -> D1; the first id of a test named after the clauses it checks."""
    return test_name.split("_", 1)[0]


# ---------------------------------------------------------------------------------------------------
# Running GoogleTest binaries and reading their JSON.

def run_gtest(binary, json_path, log_path, rc_params=None, gtest_filter=None):
    """Runs one GoogleTest binary with JSON output. Returns (exit status, [testcase], crashed_test).

    A binary that dies (a sanitizer report, a trap) writes no JSON: the test it was running when it died,
    from its log, is then `crashed_test`, and the testcases are empty."""
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.unlink(missing_ok=True)
    env = dict(os.environ)
    if rc_params is not None:
        env["RC_PARAMS"] = rc_params
    args = [str(binary), "--gtest_color=no", f"--gtest_output=json:{json_path}"]
    if gtest_filter:
        args.append(f"--gtest_filter={gtest_filter}")
    with open(log_path, "w", encoding="utf-8") as log:
        status = subprocess.run(args, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
    if not json_path.exists():
        running = None
        for line in Path(log_path).read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("[ RUN      ] "):
                running = line.split()[-1]
            elif line.startswith(("[       OK ] ", "[  FAILED  ] ")):
                running = None
        return status, [], running or "(before any test)"
    cases = []
    for suite in json.loads(json_path.read_text(encoding="utf-8")).get("testsuites", []):
        for case in suite.get("testsuite", []):
            if case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN":
                continue
            case["suite"] = suite["name"]
            case["failed"] = bool(case.get("failures"))
            cases.append(case)
    return status, cases, None


def reproduce_command(binary, case, rc_params, prop_seconds=0):
    """The exact command that replays a failed property: its own reproduce= string when RapidCheck found a
    counterexample, else the seed and case count it ran with (the run repeats: same seed, same cases; under
    a time budget, LWC_PROP_SECONDS, about the same)."""
    if case.get("rc_reproduce"):
        return f'RC_PARAMS="{case["rc_reproduce"]}" {rel(binary)} --gtest_filter={case["suite"]}.{case["name"]}'
    budget = f"LWC_PROP_SECONDS={prop_seconds} " if prop_seconds else ""
    return f'{budget}RC_PARAMS="{rc_params}" {rel(binary)} --gtest_filter={case["suite"]}.{case["name"]}'


def failure_text(case, lines=12):
    """The first lines of a testcase's failure messages, indented."""
    text = "\n".join(f.get("failure", "") for f in case.get("failures", []))
    noise = re.compile(r"^(Failed|Reproduce: RC_PARAMS=.*|.*support/property\.h:\d+)$")  # said elsewhere
    kept = [l for l in text.strip().splitlines() if l.strip() and not noise.match(l)]
    return "\n".join("    " + l for l in kept[:lines] + (["..."] if len(kept) > lines else []))


# ---------------------------------------------------------------------------------------------------
# Fuzzing (libFuzzer has no JSON output: its final stats are the record).

def run_fuzzer(fuzz_dir, target, seconds, fork_jobs=1):
    """Runs one target over its committed corpus (read-only: new inputs go to build/fuzz-corpus/<target>).
    Returns (executions, ok)."""
    binary = Path(fuzz_dir) / "fuzz" / target
    if not binary.exists():
        sys.exit(f"[lwc] error: no fuzz binary {rel(binary)}")
    new = ROOT / "build" / "fuzz-corpus" / target
    logs = ROOT / "build" / "fuzz-logs"
    artifacts = ROOT / "build" / "fuzz-artifacts"
    for d in (new, logs, artifacts):
        d.mkdir(parents=True, exist_ok=True)
    args = [str(binary), f"-max_total_time={seconds}", "-print_final_stats=1",
            f"-artifact_prefix={artifacts}/{target}-"]
    if (ROOT / "fuzz" / f"{target}.dict").exists():
        args.append(f"-dict={ROOT / 'fuzz' / f'{target}.dict'}")
    if fork_jobs > 1:
        args.append(f"-fork={fork_jobs}")
    args += [str(new), str(ROOT / "fuzz" / "corpus" / target)]
    log_path = logs / f"{target}.log"
    with open(log_path, "w", encoding="utf-8") as log:
        ok = subprocess.run(args, stdout=log, stderr=subprocess.STDOUT).returncode == 0
    text = log_path.read_text(encoding="utf-8", errors="replace")
    executions = sum(int(n) for n in re.findall(r"^stat::number_of_executed_units:\s*(\d+)", text, re.M))
    if executions == 0:  # fork mode prints no final stats: the last progress line counts
        progress = re.findall(r"^#(\d+)", text, re.M)
        executions = int(progress[-1]) if progress else 0
    if not ok:
        for line in [l for l in text.splitlines()
                     if re.search(r"contract violated|ERROR: |runtime error|Test unit written", l)][:5]:
            print(line, file=sys.stderr)
        say(f"{target}: crash; log {rel(log_path)}, reproducer in build/fuzz-artifacts/ "
            f"(commit it to fuzz/corpus/{target} and add a named regression test in tests/)")
    return executions, ok


def cmd_fuzz(args):
    targets = [args.target.removesuffix("_fuzzer") + "_fuzzer"] if args.target else fuzz_targets()
    failed = False
    for t in targets:
        if not (ROOT / "fuzz" / f"{t}.cc").exists():
            sys.exit(f"[lwc] error: no fuzz target fuzz/{t}.cc (have: {' '.join(fuzz_targets())})")
        say(f"fuzzing {t} for {args.seconds}s (jobs {args.jobs})")
        executions, ok = run_fuzzer(args.fuzz_dir, t, args.seconds, args.jobs)
        say(f"{t}: executions={executions} status={'ok' if ok else 'crash'}")
        failed |= not ok
        if args.merge:
            corpus = ROOT / "fuzz" / "corpus" / t
            before = len(list(corpus.iterdir()))
            merge_log = ROOT / "build" / "fuzz-logs" / f"{t}.merge.log"
            with open(merge_log, "w") as log:
                if subprocess.run([str(Path(args.fuzz_dir) / "fuzz" / t), "-merge=1", str(corpus),
                                   str(ROOT / "build" / "fuzz-corpus" / t)],
                                  stdout=log, stderr=subprocess.STDOUT).returncode != 0:
                    sys.exit(f"[lwc] error: merge failed for {t} (log {rel(merge_log)})")
            after = len(list(corpus.iterdir()))
            say(f"{t}: merged {after - before} inputs with new coverage into fuzz/corpus/{t} ({after} in all)")
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------------------
# Fresh seeds: every property suite under N new random seeds, so a seed-dependent bug cannot hide
# behind the fixed seed CI otherwise uses.

def cmd_seeds(args):
    suites = binaries(args.build_dir, "properties", "_props")
    if not suites:
        sys.exit(f"[lwc] error: no property suites in {rel(args.build_dir)}/properties")
    seeds = [random.SystemRandom().getrandbits(63) for _ in range(args.count)]
    out = Path(args.build_dir) / "seeds"
    say(f"{len(suites)} property suites x {args.count} fresh seeds ({', '.join(map(str, seeds))}), "
        f"{args.cases} cases per property")
    runs = [(seed, suite) for seed in seeds for suite in suites]

    def run(item):
        seed, suite = item
        rc_params = f"seed={seed} max_success={args.cases}"
        stem = f"{suite.name}.{seed}"
        return item, rc_params, run_gtest(suite, out / f"{stem}.json", out / f"{stem}.log", rc_params)

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(jobs()) as pool:
        for (seed, suite), rc_params, (status, cases, crashed) in pool.map(run, runs):
            bad = [c for c in cases if c["failed"]]
            if crashed or (status != 0 and not bad):
                failures += 1
                print(f"seed {seed}: {suite.name} died in {crashed} (log {rel(out)}/{suite.name}.{seed}.log)\n"
                      f'  reproduce: RC_PARAMS="{rc_params}" {rel(suite)} --gtest_filter={crashed}')
            for case in bad:
                failures += 1
                print(f"seed {seed}: FAILED {case['suite']}.{case['name']}\n{failure_text(case)}\n"
                      f"  reproduce: {reproduce_command(suite, case, rc_params)}")
            if not bad and not crashed and status == 0:
                say(f"seed {seed}: {suite.name} {len(cases)} properties passed")
    if failures:
        print(f"\n{failures} failures under fresh seeds.\n{ADVICE}")
        return 1
    say(f"every property passed under {args.count} fresh seeds ({args.cases} cases each)")
    return 0


# ---------------------------------------------------------------------------------------------------
# The audit: run every suite within a time budget (or to fixed counts: --thorough), then one row per clause.
#
# The budget is wall-clock seconds for the suites (the build is not in it). It is divided as the run goes,
# so that what one suite takes beyond its share comes out of the next: the exhaustive checks of the small
# scope run first (every input of the int8 / two-step scopes: fixed work, seconds); properties then get
# two thirds of what is left, spread evenly over every property (each runs in rounds until its slice is
# spent, LWC_PROP_SECONDS, properties/support/property.h, at most --cases cases); fuzzing gets the rest,
# spread evenly over every target. Suites run `jobs()` at a time (one per core): a property's slice is
# share x jobs / properties less a process's start-up, a target's the rest / ceil(targets / jobs). --thorough runs instead every property to --cases, every exhaustive scope whole and
# every fuzz target for --seconds: the run CI makes.

DEFAULT_BUDGET = 420
MIN_BUDGET = 180  # a slow setup or build never squeezes the suites below this
MIN_FUZZ_SECONDS = 5  # properties that overran their share never leave a target less than this
QUICK_EXHAUSTIVE = "*Int8*:*Quick*-*Slow*"  # the small scope, as CTest runs it (cmake/lwcEvidence.cmake)


def clock(seconds):
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """The progress line: elapsed against planned, the suite running, how far it is, and what is left.
    On a terminal it is one line rewritten in place; otherwise (a log, CI) a line per finished item."""

    def __init__(self, planned, left):
        self.started = time.monotonic()
        self.planned = planned
        self.left = dict(left)  # suite -> items not yet started
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()

    def show(self, suite, done, total, running, finished=None):
        with self.lock:
            elapsed = time.monotonic() - self.started
            rest = ", ".join(f"{n} {k}" for k, n in self.left.items() if n > 0 and k != suite)
            plan = (f" of ~{clock(self.planned)} ({clock(max(0, self.planned - elapsed))} left)"
                    if self.planned else "")
            text = (f"[lwc] {clock(elapsed)}{plan} | {suite} {done}/{total}"
                    + (f", running {', '.join(running)}" if running else "")
                    + (f" | then {rest}" if rest else " | last suite"))
            if self.tty:
                width = os.get_terminal_size(sys.stderr.fileno()).columns
                print("\r\033[K" + text[:max(20, width - 1)], end="", file=sys.stderr, flush=True)
            elif finished is not None:
                print(f"{text} | done {finished}", file=sys.stderr, flush=True)

    def end_line(self):
        if self.tty:
            print(file=sys.stderr, flush=True)


def run_pool(progress, suite, items, work, label):
    """Runs work(item) for every item, jobs() at a time, showing progress; returns [(item, result)]."""
    running, done = [], 0
    lock = threading.Lock()
    total = len(items)
    progress.left[suite] = 0

    def one(item):
        nonlocal done
        with lock:
            running.append(label(item))
            progress.show(suite, done, total, list(running))
        result = work(item)
        with lock:
            running.remove(label(item))
            done += 1
            progress.show(suite, done, total, list(running), finished=label(item))
        return item, result

    with concurrent.futures.ThreadPoolExecutor(jobs()) as pool:
        return list(pool.map(one, items))


def list_tests(binary, gtest_filter=None):
    """The tests of a GoogleTest binary, "Suite.Name", as --gtest_list_tests prints them (DISABLED_ ones
    are not run and not listed)."""
    args = [str(binary), "--gtest_list_tests"] + ([f"--gtest_filter={gtest_filter}"] if gtest_filter else [])
    out = subprocess.run(args, capture_output=True, text=True).stdout
    tests, suite = [], None
    for line in out.splitlines():
        if not line.strip() or line.startswith("Running main"):
            continue
        if not line.startswith(" "):
            suite = line.split()[0]
        elif suite and not line.split()[0].startswith("DISABLED_") and not suite.startswith("DISABLED_"):
            tests.append(suite + line.split()[0])
    return tests


def write_suite_json(path, cases_by_suite):
    """GoogleTest's JSON shape, {"testsuites": [{"name", "testsuite": [case...]}]}, for cases gathered from
    one process per test."""
    path.write_text(json.dumps({"testsuites": [{"name": name, "testsuite": cases}
                                               for name, cases in cases_by_suite.items()]}, indent=1) + "\n")


def run_property(binary, test, evidence, logs, rc_params, seconds):
    """One property in its own process (so that properties spread over the cores and a crash names its
    property). Returns its GoogleTest testcase, or a failed one when the process died."""
    stem = f"{binary.name}.{test}"
    started = time.monotonic()
    json_path, log_path = evidence / "cases" / f"{stem}.json", logs / f"{stem}.log"
    env = dict(os.environ, RC_PARAMS=rc_params)
    env.pop("LWC_PROP_SECONDS", None)
    if seconds:
        env["LWC_PROP_SECONDS"] = f"{seconds:.3f}"
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.unlink(missing_ok=True)
    with open(log_path, "w", encoding="utf-8") as log:
        subprocess.run([str(binary), "--gtest_color=no", f"--gtest_output=json:{json_path}", f"--gtest_filter={test}"],
                       stdout=log, stderr=subprocess.STDOUT, env=env)
    suite, name = test.split(".", 1)
    if json_path.exists():
        for s in json.loads(json_path.read_text(encoding="utf-8")).get("testsuites", []):
            for case in s.get("testsuite", []):
                return suite, case
    command = reproduce_command(binary, {"suite": suite, "name": name}, rc_params, round(seconds, 3))
    return suite, {"name": name, "time": f"{time.monotonic() - started:.3f}s",
                   "failures": [{"failure": f"the process died (log {rel(log_path)})\n  reproduce: {command}"}]}


def budget_of(args):
    """(seconds, why): the suites' budget, --budget when given; else DEFAULT_BUDGET, or less when --deadline
    (the time the whole command should end by, which the driver sets 14 minutes after it started) leaves
    less after setup and build, but never under MIN_BUDGET."""
    if args.budget is not None:
        return float(args.budget), "--budget"
    left = None if args.deadline is None else args.deadline - time.time()
    if left is None or left >= DEFAULT_BUDGET:
        return float(DEFAULT_BUDGET), "the default"
    if left <= MIN_BUDGET:
        return float(MIN_BUDGET), "the least the default gives"
    return float(left), "what the deadline left after setup and build"


def cmd_audit(args):
    started = time.monotonic()
    seed = random.SystemRandom().getrandbits(63) if args.seed == "random" else int(args.seed)
    out = Path(args.out)
    evidence, logs = out / "evidence", out / "logs"
    for d in (evidence, logs):
        d.mkdir(parents=True, exist_ok=True)
    for stale in list(evidence.glob("*.json")) + list((evidence / "cases").glob("*.json")):
        stale.unlink()
    thorough = args.thorough
    budget, budget_from = (None, None) if thorough else budget_of(args)
    build = Path(args.build_dir)
    fuzz_dir = Path(args.fuzz_dir)
    suites = binaries(build, "properties", "_props")
    exhaustive = binaries(build, "exhaustive", "_exhaustive")
    targets = fuzz_targets() if args.seconds != 0 else []  # --seconds 0: no fuzzing
    listing = time.monotonic()
    properties = [(suite, test) for suite in suites for test in list_tests(suite)]
    # A process's own cost (start, sanitizer runtime, JSON), measured on the listing: each property pays it.
    startup = (time.monotonic() - listing) / max(1, len(suites))
    rc_params = f"seed={seed} max_success={args.cases}"
    mode = (f"thorough: {args.cases} cases per property, every exhaustive scope, "
            f"{(60 if args.seconds is None else args.seconds) if targets else 0} s per fuzz target" if thorough
            else f"budget {budget:.0f} s for the suites ({budget_from}), {jobs()} at a time")
    say(f"audit ({mode}; seed {seed}): {len(properties)} properties in {len(suites)} suites, "
        f"{len(exhaustive)} exhaustive checks, {len(targets)} fuzz targets")
    progress = Progress(budget, {"exhaustive checks": len(exhaustive), "properties": len(properties),
                                 "fuzz targets": len(targets)})
    spent = {}

    # 1. Exhaustive checks: the small scope within a budget, every scope when thorough.
    t0 = time.monotonic()
    scope = None if thorough else QUICK_EXHAUSTIVE

    def run_exhaustive(binary):
        return run_gtest(binary, evidence / f"{binary.name}.json", logs / f"{binary.name}.log", gtest_filter=scope)

    for binary, (status, cases, crashed) in run_pool(progress, "exhaustive checks", exhaustive, run_exhaustive,
                                                      lambda b: b.stem.removesuffix("_exhaustive")):
        if crashed:
            say(f"exhaustive: {binary.name} died in {crashed}: see {rel(logs)}/{binary.name}.log")
    spent["exhaustive"] = time.monotonic() - t0

    # 2. Properties: two thirds of what the budget has left, the same slice for each.
    t0 = time.monotonic()
    prop_seconds = 0.0
    if not thorough and properties:
        left = max(0.0, budget - (time.monotonic() - started))
        if args.seconds:  # the fuzz time was given: the properties get the rest
            share = left - args.seconds * math.ceil(len(targets) / jobs())
        else:
            share = left * (2 / 3 if targets else 1)
        prop_seconds = max(0.5, share * jobs() / len(properties) - startup)
    results = run_pool(progress, "properties", properties,
                       lambda p: run_property(p[0], p[1], evidence, logs, rc_params, prop_seconds),
                       lambda p: f"{p[0].stem.removesuffix('_props')} {p[1].split('.', 1)[1]}")
    by_binary = {}
    for (suite, _), (suite_name, case) in results:
        by_binary.setdefault(suite, {}).setdefault(suite_name, []).append(case)
    for suite, cases in by_binary.items():
        write_suite_json(evidence / f"{suite.name}.json", cases)
    spent["properties"] = time.monotonic() - t0

    # 3. Fuzzing: the rest of the budget, the same for each target.
    t0 = time.monotonic()
    fuzz_seconds = args.seconds if args.seconds is not None else (60 if thorough else 0)
    if targets and not fuzz_seconds:  # the rest of the budget, in waves of jobs() targets
        left = max(0.0, budget - (time.monotonic() - started))
        fuzz_seconds = max(MIN_FUZZ_SECONDS, int(left / math.ceil(len(targets) / jobs())))
    fuzz = {}
    for t, (executions, ok) in run_pool(progress, "fuzz targets", targets, lambda t: run_fuzzer(fuzz_dir, t, fuzz_seconds),
                                        lambda t: t):
        fuzz[t] = {"executions": executions, "ok": ok, "seconds": fuzz_seconds}
    (evidence / "fuzz.json").write_text(json.dumps(fuzz, indent=2) + "\n")
    spent["fuzz"] = time.monotonic() - t0
    progress.end_line()

    # 4. Proofs (z3), where the build has them: outside the budget, like the build.
    for binary in binaries(build, "proofs", "_proof"):
        say(f"proof: {binary.stem.removesuffix('_proof')} (z3, every input)")
        t0 = time.monotonic()
        with open(logs / f"{binary.name}.log", "w") as log:
            status = subprocess.call([str(binary), "--json", str(evidence / f"{binary.name}.json")],
                                     stdout=log, stderr=subprocess.STDOUT)
        say(f"proof: {binary.name} {'all proved' if status == 0 else 'NOT all proved'} in {time.monotonic() - t0:.0f} s")

    run = {"seed": seed, "mode": "thorough" if thorough else "budget", "budget_seconds": budget,
           "budget_from": budget_from,
           "jobs": jobs(), "cases_per_property": args.cases, "seconds_per_property": round(prop_seconds, 3),
           "exhaustive_scope": "every scope" if thorough else f"small scope ({QUICK_EXHAUSTIVE})",
           "fuzz_seconds_per_target": fuzz_seconds if targets else 0,
           "spent_seconds": {k: round(v) for k, v in spent.items()},
           "elapsed_seconds": round(time.monotonic() - started)}
    (evidence / "run.json").write_text(json.dumps(run, indent=2) + "\n")
    return report(build, out)


def coverage_of(summary, contract):
    """(lines %, branches %) of a contract's sources, or None: its headers modules/lwc/<contract>.h and
    modules/lwc/<contract>/*.h (where the code of a unit in fmt's shape lives) and its module units
    modules/<contract>.cppm and modules/<contract>/*.cppm.

    summary.json's "files" maps a path to {"lines_percent", "branches_percent"} and, when it has them,
    "lines_count"/"lines_covered"/"branches_count"/"branches_covered": with counts the files are pooled
    exactly; without, a contract of several files shows its lowest file (a percentage cannot be pooled)."""
    files = [v for k, v in (summary or {}).get("files", {}).items()
             if re.search(rf"(^|/)modules/(lwc/{re.escape(contract)}(\.h|/[^/]+\.h)|{re.escape(contract)}(\.cppm|/[^/]+\.cppm))$", k)]
    if not files:
        return None
    figures = []
    for kind in ("lines", "branches"):
        if all(f"{kind}_count" in f and f"{kind}_covered" in f for f in files):
            count = sum(f[f"{kind}_count"] for f in files)
            figures.append(100.0 * sum(f[f"{kind}_covered"] for f in files) / count if count else 100.0)
        else:
            values = [f[f"{kind}_percent"] for f in files if f.get(f"{kind}_percent") is not None]
            figures.append(min(values) if values else None)
    return tuple(figures)


def mutants(path):
    """{(contract, id): {"killed", "total", "survived": [mutant ids]}} from build/mutants/results.tsv:
    contract, mutant_id, clauses (space-separated), status (killed|survived|no-build), evidence. A mutant
    that does not build proves nothing and is not counted."""
    table = {}
    if not path.exists():
        return None
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) < 4 or fields[3] not in ("killed", "survived"):
            continue
        contract, mutant, ids, status = fields[:4]
        for clause in ids.split():
            entry = table.setdefault((contract, clause), {"killed": 0, "total": 0, "survived": []})
            entry["total"] += 1
            if status == "killed":
                entry["killed"] += 1
            else:
                entry["survived"].append({"mutant": mutant, "evidence": fields[4] if len(fields) > 4 else ""})
    return table


def proofs(build_dir, evidence):
    """{(contract, clause): "proved" | "bounded" | "failed" | "unknown"} from the proofs' JSON
    (proofs/<contract>_proof.cc --json): the audit's own run, else the last CTest run's. A clause is proved
    when every claim naming it and every lemma of its proof was proved; "bounded" when a claim covers less
    than every input (its scope says what)."""
    table = {}
    for binary in binaries(build_dir, "proofs", "_proof"):
        contract = binary.name.removesuffix("_proof")
        path = evidence / f"{binary.name}.json"
        if not path.exists():
            path = build_dir / "proofs" / f"{contract}.json"
        if not path.exists():
            continue
        claims = json.loads(path.read_text()).get("claims", [])
        lemmas_ok = all(c["result"] == "proved" for c in claims if c["clause"] == "lemma")
        for c in claims:
            for clause in c["clause"].split():
                if clause == "lemma":
                    continue
                key = (contract, clause)
                if c["result"] == "failed":
                    state = "failed"
                elif c["result"] != "proved" or not lemmas_ok:
                    state = "unknown"
                else:
                    state = "proved" if c.get("scope", "every input") == "every input" else "bounded"
                rank = ["proved", "bounded", "unknown", "failed"]
                table[key] = max(table.get(key, "proved"), state, key=rank.index)
    return table


def report(build_dir, out):
    """Reads build/audit/evidence/*.json (written by cmd_audit) and prints one row per clause of every
    docs/<contract>.md. A clause passes when it has evidence and none of it failed. Returns 1 if any failed."""
    evidence = out / "evidence"
    run = json.loads((evidence / "run.json").read_text())
    props, nprops, exh, fuzz, nfuzz, bad, broken, seen = {}, {}, {}, {}, {}, set(), set(), set()
    seconds = {}  # (contract, clause) -> seconds of the evidence naming it (a fuzz target's for each clause)
    failures = []
    rc_params = f"seed={run['seed']} max_success={run['cases_per_property']}"
    prop_seconds = run.get("seconds_per_property", 0)

    def case_seconds(case):
        return float(str(case.get("time", "0s")).rstrip("s") or 0)

    def gtest_evidence(kind, binary, contract):
        path = evidence / f"{binary.name}.json"
        if not path.exists():
            broken.add(contract)
            log = out / "logs" / f"{binary.name}.log"
            running = None
            if log.exists():
                for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
                    if line.startswith("[ RUN      ] "):
                        running = line.split()[-1]
                    elif line.startswith(("[       OK ] ", "[  FAILED  ] ")):
                        running = None
            failures.append({"contract": contract, "test": running or binary.name, "kind": kind,
                             "message": f"    {binary.name} died (log {rel(log)})",
                             "command": (f'RC_PARAMS="{rc_params}" ' if kind == "property" else "")
                                        + f"{rel(binary)}" + (f" --gtest_filter={running}" if running else "")})
            return
        for suite in json.loads(path.read_text()).get("testsuites", []):
            for case in suite.get("testsuite", []):
                if case.get("status") == "NOTRUN" or case.get("result") == "SKIPPED":
                    continue
                case["suite"] = suite["name"]
                failed = bool(case.get("failures"))
                if kind == "property":
                    key = (contract, clause_of(case["name"]))
                    seen.add(key)
                    props[key] = props.get(key, 0) + (0 if failed else int(case.get("rc_cases", 0)))
                    nprops[key] = nprops.get(key, 0) + 1
                    seconds[key] = seconds.get(key, 0.0) + case_seconds(case)
                    if failed:
                        bad.add(key)
                else:
                    ids = [k.split(".")[2] for k in case if k.startswith(f"exhaustive.{contract}.")]
                    for clause in ids:
                        key = (contract, clause)
                        seen.add(key)
                        exh[key] = exh.get(key, 0) + int(case[f"exhaustive.{contract}.{clause}"])
                        seconds[key] = seconds.get(key, 0.0) + case_seconds(case) / len(ids)
                        if failed:
                            bad.add(key)
                    if failed and not ids:
                        broken.add(contract)
                if failed:
                    failures.append({"contract": contract, "test": f"{case['suite']}.{case['name']}", "kind": kind,
                                     "message": failure_text(case),
                                     "command": reproduce_command(binary, case, rc_params, prop_seconds) if kind == "property"
                                     else f"{rel(binary)} --gtest_filter={case['suite']}.{case['name']}"})

    for binary in binaries(build_dir, "properties", "_props"):
        gtest_evidence("property", binary, binary.name.removesuffix("_props"))
    for binary in binaries(build_dir, "exhaustive", "_exhaustive"):
        gtest_evidence("exhaustive", binary, binary.name.removesuffix("_exhaustive"))
    fuzz_runs = json.loads((evidence / "fuzz.json").read_text()) if (evidence / "fuzz.json").exists() else {}
    for target, result in fuzz_runs.items():
        contract = target.removesuffix("_fuzzer")
        for clause in fuzz_clauses(target):
            key = (contract, clause)
            seen.add(key)
            fuzz[key] = fuzz.get(key, 0) + result["executions"]
            nfuzz[key] = nfuzz.get(key, 0) + 1
            seconds[key] = seconds.get(key, 0.0) + result.get("seconds", run.get("fuzz_seconds_per_target", 0))
            if not result["ok"]:
                bad.add(key)
        if not result["ok"]:
            failures.append({"contract": contract, "test": target, "kind": "fuzz",
                             "message": f"    crash; log build/fuzz-logs/{target}.log",
                             "command": f"build/fuzz/fuzz/{target} build/fuzz-artifacts/{target}-<crash file>"})

    proved = proofs(build_dir, evidence)
    for key, state in proved.items():
        seen.add(key)
        if state == "failed":
            bad.add(key)
            failures.append({"contract": key[0], "test": f"{key[0]}_proof", "kind": "proof",
                             "message": f"    a claim of {key[1]} is false: the counterexample is in the proof's output",
                             "command": f"{rel(build_dir / 'proofs' / (key[0] + '_proof'))}"})

    summary_path = ROOT / "build" / "coverage-report" / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    # This tree's own mutation run, else the run recorded in the tree (CI's clean clone has no build/mutants).
    mutant_source = ROOT / "build" / "mutants" / "results.tsv"
    if not mutant_source.exists():
        mutant_source = ROOT / "tests" / "mutants" / "recorded.tsv"
    mutant_table = mutants(mutant_source)

    rows, failed = [], 0
    known = set()
    for contract, clause, statement in clauses():
        key = (contract, clause)
        known.add(key)
        total = props.get(key, 0) + fuzz.get(key, 0) + exh.get(key, 0) + (proved.get(key) == "proved")
        result = "FAIL" if key in bad or contract in broken else ("pass" if total > 0 else "FAIL (no evidence)")
        rows.append((key, statement, result))
    for key in sorted(seen - known):
        rows.append((key, f"(not a clause of docs/{key[0]}.md)", "FAIL (unknown id)"))

    header = (f"{'contract':<10} {'id':<5} {'result':<18} {'property cases':>14} {'fuzz execs':>12} "
              f"{'exhaustive':>14} {'seconds':>8} {'proved':>8} {'coverage L/B %':>14} {'mutants':>8}  clause")
    line = "-" * (len(header) + 60)
    print(f"\n{header}\n{line}")
    json_rows, warnings = [], []
    for (contract, clause), statement, result in rows:
        key = (contract, clause)
        failed += result != "pass"
        cov = coverage_of(summary, contract)
        cov_text = "-" if cov is None else "/".join("-" if v is None else f"{v:.1f}" for v in cov)
        m = None if mutant_table is None else mutant_table.get(key)
        m_text = "-" if m is None else f"{m['killed']}/{m['total']}" + ("!" if m["survived"] else "")
        if m and m["survived"]:
            warnings += [(key, s) for s in m["survived"]]
        x = exh.get(key, 0)
        secs = seconds.get(key, 0.0)
        print(f"{contract:<10} {clause:<5} {result:<18} {props.get(key, 0):>14} {fuzz.get(key, 0):>12} "
              f"{x if x else '-':>14} {secs:>8.1f} {proved.get(key, '-'):>8} {cov_text:>14} {m_text:>8}  {statement}")
        json_rows.append({"contract": contract, "id": clause, "statement": statement,
                          "property_cases": props.get(key, 0), "properties": nprops.get(key, 0),
                          "fuzz_executions": fuzz.get(key, 0), "fuzz_targets": nfuzz.get(key, 0),
                          "exhaustive_cases": x, "seconds": round(secs, 1), "proved": proved.get(key),
                          "result": result,
                          "coverage": None if cov is None else {"lines_percent": cov[0], "branches_percent": cov[1]},
                          "mutants": m})
    print(line)
    spent = run.get("spent_seconds", {})
    if run.get("mode") == "budget":
        how = (f"budget {run['budget_seconds']:.0f} s ({run.get('budget_from')}), {run['jobs']} at a time: "
               f"exhaustive {run['exhaustive_scope']} "
               f"{spent.get('exhaustive', 0)} s; properties {spent.get('properties', 0)} s "
               f"({run['seconds_per_property']} s each, at most {run['cases_per_property']} cases, seed {run['seed']}); "
               f"fuzzing {spent.get('fuzz', 0)} s ({run['fuzz_seconds_per_target']} s per target)")
    else:
        how = (f"properties: {run['cases_per_property']} cases each (seed {run['seed']}), exhaustive: "
               f"{run.get('exhaustive_scope', 'every scope')}, fuzzing: {run['fuzz_seconds_per_target']} s per target")
    print(f"{len(known)} clauses, {failed} failed; {how}; {run['elapsed_seconds']} s in all")
    if run.get("mode") == "budget":
        print("the thorough run (every property to 100000 cases, every exhaustive scope, 60 s per fuzz target): "
              "./lwc audit --thorough")
    if summary is None:
        print("coverage: - (no build/coverage-report/summary.json: run ./lwc coverage)")
    else:
        total = summary.get("TOTAL", summary)
        raw = summary.get("raw")
        print(f"coverage of modules/ (last ./lwc coverage): lines {total.get('lines_percent')}%, "
              f"branches {total.get('branches_percent')}%"
              + (f" after {len(summary.get('excluded', []))} documented exclusions (raw: lines "
                 f"{raw.get('lines_percent')}%, branches {raw.get('branches_percent')}%)" if raw else "")
              + ("" if "files" in summary else "; per contract: - (summary.json has no \"files\" map)"))
    if mutant_table is None:
        print("mutants: - (no build/mutants/results.tsv, no tests/mutants/recorded.tsv: run ./lwc mutants)")
    else:
        heading = next((l[2:] for l in mutant_source.read_text(encoding="utf-8").splitlines()
                        if l.startswith("# recorded")), "this tree's last run")
        print(f"mutants ({rel(mutant_source)}: {heading}): per clause, killed/total of the mutants naming it"
              + ("" if all(not v["survived"] for v in mutant_table.values()) else "; some survived, see the warnings"))
    for (contract, clause), s in warnings:
        print(f"warning: {contract} {clause}: mutant {s['mutant']} survived ({s['evidence'] or 'no evidence named'}): "
              f"no check of {clause} tells it from the library; add one that does, or show it is equivalent")
    for f in failures:
        print(f"\nFAILED {f['contract']} {f['kind']} {f['test']}\n{f['message']}\n  reproduce: {f['command']}")
    if any(f["kind"] == "property" for f in failures):
        print(f"\n{ADVICE}")
    report_json = dict(run)
    if summary is not None:
        report_json["coverage"] = summary
    report_json.update({"failed": failed, "clauses": json_rows, "failures": failures})
    (out / "report.json").write_text(json.dumps(report_json, indent=2, ensure_ascii=False) + "\n")
    say(f"report written to {rel(out / 'report.json')}")
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------------------
# docs/clauses.md: clause -> statement -> properties (LWC_PROP names starting with the id) -> fuzz targets
# (their lwc-clauses line) -> tests (TEST blocks, up to their closing brace, of tests/<contract>_test.cc and
# _exhaustive.cc that mention the id; a static_assert outside any test counts as "(static_assert)").

PROP = re.compile(r"LWC_PROP(?:_SCALED)?\(")
PROP_NAME = re.compile(r".*LWC_PROP(?:_SCALED)?\([^,]*, *")
TEST = re.compile(r"^TEST(?:_F)?\(([A-Za-z0-9_]+), *([A-Za-z0-9_]+)")
ID = re.compile(r"(?<![A-Za-z0-9_])([A-Z][0-9]+)(?![A-Za-z0-9])")


def generate_clauses():
    """(docs/clauses.md text, [(contract, id) with neither a property nor a fuzz check])."""
    out = ["# Clause traceability matrix", "",
           "Generated by `./lwc clauses` from `docs/<contract>.md` and the code; CI fails if it is stale or if a",
           "clause loses its last property or fuzz check. Do not edit by hand."]
    unverified = []
    by_contract = {}
    for contract, clause, statement in clauses():
        by_contract.setdefault(contract, []).append((clause, statement))
    for contract, rows in by_contract.items():
        props, fuzz, tests = {}, {}, {}
        source = lambda p: (ROOT / p).read_text(encoding="utf-8").splitlines() if (ROOT / p).exists() else []
        for line in source(f"properties/{contract}_props.cc"):
            if PROP.search(line):
                name = re.split(r"[, ]", PROP_NAME.sub("", line, count=1), maxsplit=1)[0]
                props.setdefault(clause_of(name), []).append(f"`{name}`")
        for line in source(f"fuzz/{contract}_fuzzer.cc"):
            if "lwc-clauses:" in line:
                for clause in line.rsplit("lwc-clauses:", 1)[1].split():
                    fuzz[clause] = f"`{contract}_fuzzer`"
        proof = {}
        for line in source(f"proofs/{contract}_proof.cc"):
            if "lwc-clauses:" in line:
                for clause in line.rsplit("lwc-clauses:", 1)[1].split():
                    proof[clause] = f"`{contract}_proof`"
        for path in (f"tests/{contract}_exhaustive.cc", f"tests/{contract}_test.cc"):
            current = None
            for line in source(path):
                m = TEST.match(line)
                if m:
                    current = f"{m.group(1)}.{m.group(2)}"
                if not current and "static_assert" not in line:
                    continue  # helpers outside any test verify nothing alone
                label = f"`{current or '(static_assert)'}`"
                for clause in ID.findall(line):
                    if label not in tests.setdefault(clause, []):
                        tests[clause].append(label)
                if line == "}":
                    current = None  # a test ends at its closing brace; a helper after it is not part of it
        out += ["", f"## {contract} ([spec]({contract}.md))", "",
                "| clause | statement | properties | fuzz | proofs | tests |", "|---|---|---|---|---|---|"]
        for clause, statement in rows:
            cells = [", ".join(props.get(clause, [])), fuzz.get(clause, ""), proof.get(clause, ""),
                     ", ".join(tests.get(clause, []))]
            out.append(f"| {clause} | {statement} | " + " | ".join(c or "—" for c in cells) + " |")
            if clause not in props and clause not in fuzz:
                unverified.append((contract, clause))
    return "\n".join(out) + "\n", unverified


def cmd_clauses(args):
    text, unverified = generate_clauses()
    target = ROOT / "docs" / "clauses.md"
    if args.check:
        rc = 0
        for contract, clause in unverified:
            print(f"clause without any property or fuzz check: {contract} {clause}", file=sys.stderr)
            rc = 1
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            import difflib
            sys.stderr.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       "docs/clauses.md", "generated"))
            say("docs/clauses.md is stale: run ./lwc clauses")
            rc = 1
        if rc == 0:
            say("docs/clauses.md is current and every clause has a check")
        return rc
    target.write_text(text, encoding="utf-8")
    for contract, clause in unverified:
        print(f"warning: clause without any property or fuzz check: {contract} {clause}", file=sys.stderr)
    say("wrote docs/clauses.md")
    return 0


def main():
    sys.stdout.reconfigure(line_buffering=True)  # the report and the progress on stderr stay in order
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("audit", help="run every property, exhaustive check and fuzz target; report")
    p.add_argument("--budget", type=float, default=None,
                   help=f"seconds for the suites, divided between them (default {DEFAULT_BUDGET}, or what "
                        f"--deadline leaves, at least {MIN_BUDGET})")
    p.add_argument("--deadline", type=float, default=None,
                   help="when the whole command should end (Unix time): the default budget shrinks to fit it")
    p.add_argument("--thorough", action="store_true",
                   help="no budget: --cases per property, every exhaustive scope, --seconds per fuzz target")
    p.add_argument("--cases", type=int, default=100000, help="cases per property (within a budget: at most)")
    p.add_argument("--seconds", type=int, default=None,
                   help="seconds per fuzz target (default: the budget's share; 60 when thorough; 0: no fuzzing)")
    p.add_argument("--seed", default="random")
    p.add_argument("--build-dir", default=str(ROOT / "build" / "audit"))
    p.add_argument("--fuzz-dir", default=str(ROOT / "build" / "fuzz"))
    p.add_argument("--out", default=str(ROOT / "build" / "audit"))
    p = sub.add_parser("report", help="print the report again from the last audit's evidence")
    p.add_argument("--build-dir", default=str(ROOT / "build" / "audit"))
    p.add_argument("--out", default=str(ROOT / "build" / "audit"))
    p = sub.add_parser("seeds", help="every property suite under N fresh random seeds")
    p.add_argument("count", type=int)
    p.add_argument("--cases", type=int, default=200)
    p.add_argument("--build-dir", default=str(ROOT / "build" / "dev"))
    p = sub.add_parser("fuzz", help="run one libFuzzer target, or all")
    p.add_argument("target", nargs="?")
    p.add_argument("--seconds", type=int, default=60)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--merge", action="store_true")
    p.add_argument("--fuzz-dir", default=str(ROOT / "build" / "fuzz"))
    p = sub.add_parser("clauses", help="regenerate docs/clauses.md; --check fails if stale or unverified")
    p.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.command == "report":
        return report(Path(args.build_dir), Path(args.out))
    return {"audit": cmd_audit, "seeds": cmd_seeds, "fuzz": cmd_fuzz, "clauses": cmd_clauses}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
