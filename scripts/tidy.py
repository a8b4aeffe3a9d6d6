#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# File: scripts/tidy.py
#
# clang-tidy-19 (the checks of .clang-tidy) over the C++ files a change touches, for `./lwc tidy` and CI
# (docs/development.md, "Style and static analysis").
#
# The change is what differs between a base commit and the working tree. The base: --base REV, else
# LWC_TIDY_BASE, else on a branch its merge-base with `main`, and on `main` itself (CI's clean clone) the
# first parent of HEAD, i.e. what the last landing brought (a merge: its branch's files; a direct
# commit: its own). The files checked are the translation units of the build's compile_commands.json
# (.cc, .cppm) among the changed ones; headers are judged inside the units that include them. A module
# importer needs the built BMIs, so the build must be current (`./lwc tidy` builds the dev preset first).
# Where no base can be found (a shallow clone), every unit is checked, and this says so.
#
# usage: scripts/tidy.py [--build-dir build/dev] [--base REV] [--jobs N] [FILE ...]
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIDY = "clang-tidy-19"


def git(*args):
    run = subprocess.run(["git", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return run.stdout.strip() if run.returncode == 0 else None


def base_of(explicit):
    """(commit or None, how it was chosen)."""
    if explicit:
        return git("rev-parse", "--verify", f"{explicit}^{{commit}}"), f"--base {explicit}"
    if os.environ.get("LWC_TIDY_BASE"):
        rev = os.environ["LWC_TIDY_BASE"]
        return git("rev-parse", "--verify", f"{rev}^{{commit}}"), f"LWC_TIDY_BASE={rev}"
    head, main = git("rev-parse", "HEAD"), git("rev-parse", "--verify", "main^{commit}")
    if main and head != main:
        return git("merge-base", "HEAD", "main"), "the merge-base of HEAD and main"
    return git("rev-parse", "--verify", "HEAD^1^{commit}"), "the first parent of HEAD (the last landing)"


def main():
    parser = argparse.ArgumentParser(description="clang-tidy over the files a change touches")
    parser.add_argument("--build-dir", default="build/dev")
    parser.add_argument("--base")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()

    database = ROOT / args.build_dir / "compile_commands.json"
    if not database.is_file():
        print(f"tidy: no {database.relative_to(ROOT)}: build the preset first (./lwc tidy does)", file=sys.stderr)
        return 2
    units = {str(Path(e["file"]).resolve()) for e in json.loads(database.read_text())}

    if args.files:
        wanted = {str(Path(f).resolve()) for f in args.files}
        what = "the files given"
    else:
        base, how = base_of(args.base)
        if base is None:
            print(f"tidy: no base commit ({how} does not exist here, e.g. a shallow clone): checking every "
                  "translation unit", file=sys.stderr)
            wanted, what = set(units), "every unit (no base)"
        else:
            changed = git("diff", "--name-only", "--diff-filter=ACMR", base) or ""
            wanted = {str((ROOT / f).resolve()) for f in changed.splitlines() if f}
            what = f"the files changed since {base[:12]} ({how})"
    files = sorted(f for f in wanted if f in units)
    print(f"tidy: {len(files)} translation unit(s) of {what}", file=sys.stderr)

    def tidy(path):
        run = subprocess.run([TIDY, "-p", str(ROOT / args.build_dir), "--quiet", path], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return path, run.returncode, run.stdout

    failed = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for path, rc, out in pool.map(tidy, files):
            rel = os.path.relpath(path, ROOT)
            findings = [line for line in out.splitlines() if ": error: " in line or ": warning: " in line]
            if rc != 0 or findings:
                failed.append(rel)
                print(f"tidy: {rel}: {len(findings)} finding(s)\n{out}", flush=True)
            else:
                print(f"tidy: {rel}: clean", flush=True)
    if failed:
        print(f"tidy: {len(failed)} of {len(files)} unit(s) with findings: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
