#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# File: scripts/mutants.py
#
# The mutation runner: every mutant of tests/mutants/<contract>.txt is applied, one at a time, to a scratch
# copy of the tree (build/mutants/scratch/<contract>; the real tree is never written), the contract's
# evidence is rebuilt incrementally in that copy's one configured build dir (the `mutants` preset: Debug
# -O0 + UBSan, checks on, no ASan; cheap to rebuild, and overflow mutants still trap) and run:
#   tests/<c>_test, properties/<c>_props (fixed seed, a few hundred cases) and the fuzz corpus replay.
# Each scratch copy builds only its contract and the modules it imports (lwc.decompose): CMakeLists.txt's
# other lwc_add_contract() lines and the umbrella's other `export import` lines are dropped in the copy,
# so a mutant rebuilds a handful of units, not the whole library.
# A mutant is killed when any of them fails (or times out), survived when all pass, no-build when it does
# not compile (no-build is not a kill: rewrite the mutant). Results go to build/mutants/results.tsv:
#   contract  mutant_id  clauses(space-separated)  status(killed|survived|no-build)  evidence
#
# usage: scripts/mutants.py [--contract C]... [--only ID_PREFIX] [--cases N] [--seed S] [--jobs N]
#                           [--parallel N] [--all-tiers] [--list]      (./lwc mutants ...)
# The evidence runs cheapest first (tests, then properties, then the replay) and stops at the first kill,
# so a mutant the tests kill never waits for the properties to compile; --all-tiers runs all three.
#
# Catalog format (tests/mutants/<contract>.txt), one block per mutant:
#   mutant <id>
#   clauses: <clause ids, space-separated>
#   why: <one line: the realistic bug it models>
#   file: <path relative to the repository root>
#   <<<
#   <exact text to find: one or more whole lines; must occur exactly once in the file>
#   ===
#   <replacement lines>
#   >>>
# A mutant may hold several <<< === >>> edits, and `file:` may change between them. An edit whose text does
# not occur exactly once fails the whole run, so a catalog cannot go stale silently. `#` lines outside an
# edit are comments.
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOGS = os.path.join(ROOT, "tests", "mutants")
OUT = os.path.join(ROOT, "build", "mutants")
PRESET = "mutants"
CONTRACTS = ["decompose", "cover", "rebase", "broadphase", "commit"]
TIMEOUT = 600  # seconds per evidence binary; a mutant that hangs one is killed ("timeout")


class CatalogError(Exception):
    pass


def parse_catalog(contract):
    path = os.path.join(CATALOGS, contract + ".txt")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    mutants, cur, file, i = [], None, None, 0
    where = lambda: f"{path}:{i + 1}"
    while i < len(lines):
        line = lines[i]
        if line.startswith("mutant "):
            cur = {"id": line.split()[1], "clauses": [], "why": "", "edits": []}
            mutants.append(cur)
            file = None
        elif line.startswith("clauses:") and cur:
            cur["clauses"] = line.split(":", 1)[1].split()
        elif line.startswith("why:") and cur:
            cur["why"] = line.split(":", 1)[1].strip()
        elif line.startswith("file:") and cur:
            file = line.split(":", 1)[1].strip()
        elif line == "<<<":
            if cur is None or file is None:
                raise CatalogError(f"{where()}: an edit outside a mutant or before its file:")
            start, j = i + 1, i + 1
            while j < len(lines) and lines[j] != "===":
                j += 1
            mid, k = j, j + 1
            while k < len(lines) and lines[k] != ">>>":
                k += 1
            if mid >= len(lines) or k >= len(lines):
                raise CatalogError(f"{where()}: unterminated edit")
            search = "\n".join(lines[start:mid]) + "\n"
            replace = "\n".join(lines[mid + 1:k]) + "\n" if k > mid + 1 else ""
            cur["edits"].append((file, search, replace))
            i = k
        elif line.strip() and not line.startswith("#"):
            raise CatalogError(f"{where()}: cannot read {line!r}")
        i += 1
    ids = [m["id"] for m in mutants]
    for m in mutants:
        if not m["clauses"] or not m["edits"]:
            raise CatalogError(f"{path}: mutant {m['id']} needs clauses: and at least one edit")
        if ids.count(m["id"]) > 1:
            raise CatalogError(f"{path}: mutant id {m['id']} is used twice")
    return mutants


def apply_edits(tree, mutant):
    """Applies the mutant's edits inside `tree`; returns {file: original text}. Raises on a stale edit."""
    originals = {}
    for file, search, replace in mutant["edits"]:
        path = os.path.join(tree, file)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        originals.setdefault(file, text)
        n = text.count(search)
        if n != 1:
            raise CatalogError(f"mutant {mutant['id']}: the text to replace occurs {n} times in {file} "
                               f"(must be exactly once):\n{search}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(search, replace))
    return originals


def restore(tree, originals):
    # The restored file gets a fresh mtime: ninja then rebuilds what the mutant built (restoring the old
    # mtime would leave the mutant's objects looking up to date).
    for file, text in originals.items():
        with open(os.path.join(tree, file), "w", encoding="utf-8") as f:
            f.write(text)


# A worker is one scratch tree: "<contract>" or, for the further shards of a contract, "<contract>~<k>".
def contract_of(worker):
    return worker.split("~")[0]


def scratch_of(worker):
    return os.path.join(OUT, "scratch", worker)


def build_of(worker):
    return os.path.join(scratch_of(worker), "build", PRESET)


def needed(contract):
    return {"decompose", contract}


def harness(contract, rel, data):
    """The scratch copy of file `rel`: the contracts `contract` does not need are left out of the build."""
    if rel == "CMakeLists.txt" or rel == os.path.join("modules", "lwc.cppm"):
        pattern = (re.compile(rb"^lwc_add_contract\((\w+)\)$") if rel == "CMakeLists.txt"
                   else re.compile(rb"^export import lwc\.(\w+);$"))
        lines = data.split(b"\n")
        keep = [l for l in lines if not (pattern.match(l) and pattern.match(l).group(1).decode() not in needed(contract))]
        return b"\n".join(keep)
    return data


def sync_scratch(worker):
    """Makes the contract's scratch tree a copy of the working tree (tracked and untracked, not ignored; see
    harness()), writing only files that differ, so an unchanged tree rebuilds nothing."""
    scratch, contract = scratch_of(worker), contract_of(worker)
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard", "-z"],
                           check=True, capture_output=True).stdout.decode().split("\0")
    files = {f for f in files if f and os.path.isfile(os.path.join(ROOT, f))}
    for f in files:
        src, dst = os.path.join(ROOT, f), os.path.join(scratch, f)
        with open(src, "rb") as a:
            data = harness(contract, f, a.read())
        if os.path.isfile(dst):
            with open(dst, "rb") as b:
                if b.read() == data:
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as b:  # a fresh mtime: newer than every object built from the old copy
            b.write(data)
        shutil.copymode(src, dst)
    SCRATCH = scratch
    for dirpath, dirnames, filenames in os.walk(SCRATCH):
        rel = os.path.relpath(dirpath, SCRATCH)
        if rel == "build" or rel.startswith("build" + os.sep):
            dirnames[:] = []
            continue
        for name in filenames:
            f = os.path.normpath(os.path.join(rel, name))
            if f not in files:
                os.remove(os.path.join(dirpath, name))


FAILED = re.compile(r"^\[  FAILED  \] ([A-Za-z_0-9]+\.[A-Za-z_0-9/]+)", re.M)


def tiers(worker, cases, seed):
    """The contract's evidence, cheapest first: (kind, target, command, environment)."""
    build, scratch, contract = build_of(worker), scratch_of(worker), contract_of(worker)
    return [
        # --gtest_fail_fast: a kill needs one failing test, not the rest of the binary run after it.
        ("test", f"{contract}_test", [os.path.join(build, f"{contract}_test"), "--gtest_fail_fast"], {}),
        ("props", f"{contract}_props", [os.path.join(build, "properties", f"{contract}_props"), "--gtest_fail_fast"],
         {"RC_PARAMS": f"seed={seed} max_success={cases} noshrink=1"}),
        ("replay", f"{contract}_fuzzer_replay", [os.path.join(build, f"{contract}_fuzzer_replay"),
                                                 os.path.join(scratch, "fuzz", "corpus", f"{contract}_fuzzer")], {}),
    ]


def compile_time_kill(build_output):
    """'static_assert FILE:LINE' when every compile error is a failed static_assert in an evidence file
    (tests/, properties/, fuzz/): the library compiled and the evidence rejected the mutant. Else None."""
    errors = re.findall(r"^(\S+?):(\d+):\d+: error: (.*)$", build_output, re.M)
    asserts = [(path, line) for path, line, what in errors if what.startswith("static assertion failed")]
    in_evidence = [re.search(r"/scratch/[^/]+/((tests|properties|fuzz)/[^/]+)$", path) for path, _ in asserts]
    if not errors or len(asserts) != len(errors) or not all(in_evidence):
        return None
    return f"static_assert {in_evidence[0].group(1)}:{asserts[0][1]}" + (
        f" (+{len(asserts) - 1} more)" if len(asserts) > 1 else "")


def evidence(worker, cases, seed, jobs, log, first_kill):
    """Builds and runs the tiers in turn; returns (built, failures). With first_kill, stops at the first tier
    that fails: its target is all a killed mutant needs built (the properties are the slowest to compile)."""
    failed = []
    for kind, target, cmd, env in tiers(worker, cases, seed):
        log.flush()
        at = log.tell()
        r = subprocess.run(["cmake", "--build", build_of(worker), "-j", str(jobs), "--target", target],
                           stdout=log, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            # The library compiled but a static_assert of the evidence rejects the mutant: a kill at compile
            # time (tests/decompose_test.cc pins split() at the int64 extremes this way).
            log.flush()
            with open(log.name, encoding="utf-8", errors="replace") as f:
                f.seek(at)
                kill = compile_time_kill(f.read())
            if kill:
                failed.append(f"{kind}:{kill}")
                if first_kill:
                    break
                continue
            return False, failed
        log.write(f"\n$ {' '.join(f'{k}={v}' for k, v in env.items())} {' '.join(cmd)}\n")
        log.flush()
        try:
            r = subprocess.run(cmd, env={**os.environ, **env}, cwd=scratch_of(worker), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=TIMEOUT)
            out = r.stdout.decode(errors="replace")
            code = r.returncode
        except subprocess.TimeoutExpired as e:
            out, code = (e.stdout or b"").decode(errors="replace"), None
        log.write(out)
        if code is None:
            failed.append(f"{kind}:timeout")
        elif code != 0:
            names = sorted(set(FAILED.findall(out)))
            if names:
                failed += [f"{kind}:{n}" for n in names]
            else:
                # A crash (abort, UBSan trap, LWC_CHECK) ends a run before gtest names the failure: the last
                # test started is the one that crashed.
                started = re.findall(r"^\[ RUN      \] (\S+)", out, re.M)
                check = re.search(r"(LWC_CHECK\([^)]*\) failed|runtime error: [^\n]{0,60})", out)
                what = started[-1] if started else f"exit {code}"
                failed.append(f"{kind}:{what}" + (f" ({check.group(1)})" if check else f" (exit {code})"))
        if failed and first_kill:
            break
    return True, failed


def run_worker(w, mutants, args, logs, record):
    """Baseline, then each of `mutants` in worker w's scratch tree; record(row) takes each result."""
    c = contract_of(w)
    # The baseline runs in the contract's first tree only: every shard holds the same unmutated tree, and a
    # further shard builds each tier when a mutant first needs it.
    built, failed = True, []
    if w == c and not args.no_baseline:
        with open(os.path.join(logs, f"{w}__baseline.log"), "w") as log:
            built, failed = evidence(w, args.cases, args.seed, args.jobs, log, first_kill=False)
    if not built or failed:
        print(f"{w}: the UNMUTATED tree fails its evidence ({'no build' if not built else ' '.join(failed)}), "
              f"see {log.name}; its mutants are skipped", flush=True)
        return False
    for m in mutants:
        t0 = time.monotonic()
        with open(os.path.join(logs, f"{c}__{m['id']}.log"), "w") as log:
            originals = apply_edits(scratch_of(w), m)
            try:
                built, failed = evidence(w, args.cases, args.seed, args.jobs, log, first_kill=not args.all_tiers)
            finally:
                restore(scratch_of(w), originals)
        if not built:
            status, ev = "no-build", "does not compile"
        else:
            status = "killed" if failed else "survived"
            ev = " ".join(failed[:6]) + (f" (+{len(failed) - 6} more)" if len(failed) > 6 else "")
            ev = ev or "every test, property and corpus replay passed"
        record((c, m["id"], " ".join(m["clauses"]), status, ev))
        print(f"{c:10} {m['id']:44} {status:8} {time.monotonic() - t0:5.0f}s  {ev}", flush=True)
    # Leave the scratch build unmutated (the next run then starts from a clean incremental state).
    with open(os.path.join(logs, f"{w}__restore.log"), "w") as log:
        for _, target, _, _ in tiers(w, args.cases, args.seed):
            subprocess.run(["cmake", "--build", build_of(w), "-j", str(args.jobs), "--target", target],
                           stdout=log, stderr=subprocess.STDOUT)
    return True


def main():
    ap = argparse.ArgumentParser(description="Run the mutant catalogs of tests/mutants/ in a scratch copy.")
    ap.add_argument("--contract", action="append", choices=CONTRACTS, help="only this contract (repeatable)")
    ap.add_argument("--only", default="", help="only the mutants whose id starts with this")
    ap.add_argument("--cases", type=int, default=300, help="RapidCheck max_success per property (default 300)")
    ap.add_argument("--seed", default="20261129", help="RapidCheck seed (default 20261129)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="build jobs per contract")
    ap.add_argument("--parallel", type=int, default=1, help="contracts run at once (each in its own scratch tree)")
    ap.add_argument("--all-tiers", action="store_true",
                    help="run tests, properties and replay even after a kill (evidence names every killer)")
    ap.add_argument("--shards", action="append", default=[], metavar="CONTRACT=N",
                    help="split a contract's mutants over N scratch trees run in parallel (with --parallel)")
    ap.add_argument("--skip-killed", action="store_true",
                    help="leave out the mutants results.tsv already has as killed (resume an interrupted run)")
    ap.add_argument("--no-baseline", action="store_true",
                    help="do not first check that the unmutated tree passes (when a run just did)")
    ap.add_argument("--reclassify", action="store_true",
                    help="re-read the build logs of no-build rows for compile-time kills (builds nothing)")
    ap.add_argument("--list", action="store_true", help="check the catalogs against the tree and list them")
    ap.add_argument("--record", action="store_true",
                    help="after the run, copy results.tsv to tests/mutants/recorded.tsv (tracked: the audit's "
                         "mutants column where build/mutants/results.tsv is absent, as in CI), headed by the commit")
    args = ap.parse_args()
    contracts = args.contract or CONTRACTS

    try:
        catalogs = {c: parse_catalog(c) for c in contracts}
        # Every edit must apply to the current tree before anything is built: check them on a copy in memory.
        for c, mutants in catalogs.items():
            for m in mutants:
                texts = {}
                for file, search, replace in m["edits"]:
                    if file not in texts:
                        with open(os.path.join(ROOT, file), encoding="utf-8") as f:
                            texts[file] = f.read()
                    n = texts[file].count(search)
                    if n != 1:
                        raise CatalogError(f"{c}: mutant {m['id']}: the text to replace occurs {n} times in "
                                           f"{file} (must be exactly once):\n{search}")
                    texts[file] = texts[file].replace(search, replace)
    except CatalogError as e:
        print(f"mutants: stale or malformed catalog: {e}", file=sys.stderr)
        return 2
    if args.reclassify:
        # Re-reads the logs of no-build rows with compile_time_kill() (no build): for rows recorded before
        # the runner knew compile-time kills.
        results = os.path.join(OUT, "results.tsv")
        with open(results, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for i, line in enumerate(lines[1:], 1):
            cols = line.split("\t")
            if len(cols) == 5 and cols[3] == "no-build":
                with open(os.path.join(OUT, "logs", f"{cols[0]}__{cols[1]}.log"), encoding="utf-8",
                          errors="replace") as f:
                    kill = compile_time_kill(f.read())
                if kill:
                    kind = {"tests": "test", "properties": "props", "fuzz": "replay"}[kill.split()[1].split("/")[0]]
                    cols[3], cols[4] = "killed", f"{kind}:{kill}"
                    lines[i] = "\t".join(cols)
                    print(f"{cols[0]:10} {cols[1]:44} {cols[3]:8} {cols[4]}")
        with open(results, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return 0
    if args.list:
        for c, mutants in catalogs.items():
            for m in mutants:
                print(f"{c}\t{m['id']}\t{' '.join(m['clauses'])}\t{m['why']}")
        return 0

    shards = {}
    for spec in args.shards:
        name, _, n = spec.partition("=")
        if name not in CONTRACTS or not n.isdigit() or int(n) < 1:
            print(f"mutants: --shards wants CONTRACT=N, got {spec!r}", file=sys.stderr)
            return 2
        shards[name] = int(n)
    done = set()
    results = os.path.join(OUT, "results.tsv")
    if args.skip_killed and os.path.isfile(results):
        with open(results, encoding="utf-8") as f:
            done = {tuple(l.split("\t")[:2]) for l in f.read().splitlines()[1:] if l.split("\t")[3:4] == ["killed"]}
    work = []  # (worker, its mutants)
    for c in contracts:
        chosen = [m for m in catalogs[c] if m["id"].startswith(args.only) and (c, m["id"]) not in done]
        n = shards.get(c, 1)
        for k in range(n):
            if chosen[k::n]:
                work.append((c if k == 0 else f"{c}~{k}", chosen[k::n]))

    logs = os.path.join(OUT, "logs")
    os.makedirs(logs, exist_ok=True)
    for w, _ in work:
        os.makedirs(scratch_of(w), exist_ok=True)
        sync_scratch(w)
        with open(os.path.join(logs, f"{w}__configure.log"), "w") as log:
            if not os.path.isfile(os.path.join(build_of(w), "build.ninja")):
                r = subprocess.run(["cmake", "--preset", PRESET], cwd=scratch_of(w), stdout=log,
                                   stderr=subprocess.STDOUT)
                if r.returncode != 0:
                    print(f"mutants: configure failed, see {log.name}", file=sys.stderr)
                    return 2

    # results.tsv keeps the rows of mutants this run does not run (a partial run replaces only its own),
    # dropping rows of mutants no longer in their catalog, and is rewritten after every mutant.
    running = {(contract_of(w), m["id"]) for w, ms in work for m in ms}
    kept = []
    if os.path.isfile(results):
        with open(results, encoding="utf-8") as f:
            for line in f.read().splitlines()[1:]:
                cols = line.split("\t")
                if len(cols) != 5 or cols[0] not in CONTRACTS or (cols[0], cols[1]) in running:
                    continue
                try:
                    ids = {m["id"] for m in (catalogs.get(cols[0]) or parse_catalog(cols[0]))}
                except (OSError, CatalogError):
                    continue
                if cols[1] in ids:
                    kept.append(tuple(cols))
    rows = []
    lock = threading.Lock()
    order = {c: i for i, c in enumerate(CONTRACTS)}
    catalog_order = {}

    def write():
        # Re-read: another run may have recorded rows since this one started (its rows win over `kept`).
        if os.path.isfile(results):
            with open(results, encoding="utf-8") as f:
                now = {tuple(l.split("\t")[:2]): tuple(l.split("\t")) for l in f.read().splitlines()[1:]}
            for i, r in enumerate(kept):
                if len(now.get(r[:2], ())) == 5:
                    kept[i] = now[r[:2]]
            # ... and rows of mutants neither kept nor run here (a concurrent run's results, recorded after
            # this run started), as long as the mutant is still in its catalog.
            have = {r[:2] for r in kept} | running
            for key, r in now.items():
                if key not in have and len(r) == 5 and r[0] in CONTRACTS:
                    try:
                        ids = {m["id"] for m in (catalogs.get(r[0]) or parse_catalog(r[0]))}
                    except (OSError, CatalogError):
                        continue
                    if r[1] in ids:
                        kept.append(r)
        all_rows = sorted(kept + rows, key=lambda r: (order[r[0]], catalog_order.get((r[0], r[1]), 1 << 30)))
        with open(results + ".tmp", "w", encoding="utf-8") as f:
            f.write("contract\tmutant_id\tclauses\tstatus\tevidence\n")
            for r in all_rows:
                f.write("\t".join(x.replace("\t", " ").replace("\n", " ") for x in r) + "\n")
        os.replace(results + ".tmp", results)
        return all_rows

    for c, ms in catalogs.items():
        for i, m in enumerate(ms):
            catalog_order[(c, m["id"])] = i

    def record(row):
        with lock:
            rows.append(row)
            write()

    start = os.times()
    baseline_bad = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        futures = [(w, pool.submit(run_worker, w, ms, args, logs, record)) for w, ms in work]
        for w, f in futures:
            if not f.result():
                baseline_bad.append(w)
    end = os.times()
    with lock:
        all_rows = write()

    print(f"\n{'contract':10} {'mutants':>7} {'killed':>6} {'survived':>8} {'no-build':>8}")
    for c in CONTRACTS:
        mine = [r for r in all_rows if r[0] == c]
        if mine:
            n = lambda s: sum(r[3] == s for r in mine)
            print(f"{c:10} {len(mine):7} {n('killed'):6} {n('survived'):8} {n('no-build'):8}")
    total = len(all_rows)
    killed = sum(r[3] == "killed" for r in all_rows)
    cpu = (end.children_user + end.children_system) - (start.children_user + start.children_system)
    print(f"{'total':10} {total:7} {killed:6}   this run: {len(rows)} mutants, {cpu:.0f} s CPU (user+sys of "
          f"builds and runs), {end.elapsed - start.elapsed:.0f} s wall; results in {os.path.relpath(results, ROOT)}")
    if baseline_bad:
        return 2
    if args.record:
        record_results(results, args)
    return 0 if all(r[3] == "killed" for r in all_rows) else 1


RECORDED = os.path.join(CATALOGS, "recorded.tsv")


def record_results(results, args):
    """tests/mutants/recorded.tsv: results.tsv under a comment naming the commit the run was made on (with
    "+modified" when the tracked tree differed from it), the date and the RapidCheck parameters."""
    def git(*a):
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    commit = git("rev-parse", "--short=12", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!tests/mutants/recorded.tsv")
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with open(results, encoding="utf-8") as f:
        body = f.read()
    with open(RECORDED, "w", encoding="utf-8") as f:
        f.write(f"# SPDX-License-Identifier: MIT\n# recorded by ./lwc mutants --record: commit {commit}"
                f"{'+modified' if dirty else ''}, {when}, seed {args.seed}, {args.cases} cases per property\n")
        f.write(body)
    print(f"recorded in {os.path.relpath(RECORDED, ROOT)} (commit {commit}{'+modified' if dirty else ''})")


if __name__ == "__main__":
    sys.exit(main())
