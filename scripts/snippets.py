#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# File: scripts/snippets.py
#
# The README is tested: every fenced code block of README.md, and every marked block of docs/*.md, is
# extracted into a small project and built and run exactly as written against the installed package, by
# `./lwc package` (tests/package/CMakeLists.txt, tests package/snippets/*).
#
# A block says where it goes with an HTML comment on the line before its opening fence (invisible when
# the Markdown is rendered):
#
#   <!-- snippet: modules/CMakeLists.txt -->        the block is that file of project `modules`, verbatim
#   <!-- snippet: c/game.c, make/game.c -->          the same text in two projects
#   <!-- snippet: checkers/check.cc in check.cc -->  a fragment: the block replaces the line `@SNIPPET@` of
#                                                    tests/package/snippets/templates/check.cc (the program
#                                                    around it), and the result is the project's check.cc
#   <!-- snippet: none (why) -->                     not built, and the reason (e.g. a sample of output)
#
# Two file names are special: `run.sh`, the commands of the project (the README's own shell block, run
# with `sh -e` in a fresh copy of the project, with LWC set to the installed package's prefix), and
# `stdout`, what the run must print last. A project may also have fixed files in
# tests/package/snippets/<project>/ (copied first; a block of the same name wins).
#
# Rules, so that a README cannot drift from the code unnoticed: every block of README.md has a marker;
# every project a marker names is one the package tests run (--projects), and each of those exists and
# has a run.sh. docs/*.md blocks are extracted only where marked (the specs' formulas and samples are not
# programs).
#
# usage: scripts/snippets.py extract --out DIR --projects P1,P2,... [FILE.md ...]
#        scripts/snippets.py run PROJECT --dir DIR --prefix PREFIX [--name NAME] [--env K=V ...]
#        scripts/snippets.py list [FILE.md ...]
import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKELETONS = ROOT / "tests" / "package" / "snippets"
TEMPLATES = SKELETONS / "templates"
MARKER = re.compile(r"^<!--\s*snippet:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)(.*)$")
PLACEHOLDER = "@SNIPPET@"


class SnippetError(Exception):
    pass


def blocks(path):
    """[(line, marker or None, info, text)] for every fenced block of the Markdown file `path`."""
    lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i].rstrip("\n"))
        if not m:
            i += 1
            continue
        fence, info, start = m.group(1), m.group(2).strip(), i
        j = i + 1
        while j < len(lines) and not lines[j].rstrip("\n").startswith(fence):
            j += 1
        if j == len(lines):
            raise SnippetError(f"{path}:{start + 1}: code block never closed")
        k = start - 1
        marker = MARKER.match(lines[k].rstrip("\n")) if k >= 0 else None
        out.append((start + 1, marker.group(1) if marker else None, info, "".join(lines[start + 1:j])))
        i = j + 1
    return out


def parse_marker(where, marker):
    """[(project, file, template or None)] of a marker; [] for `none (why)`."""
    if re.fullmatch(r"none\s*\(.+\)", marker):
        return []
    targets = []
    for part in marker.split(","):
        m = re.fullmatch(r"\s*([a-z0-9-]+)/([A-Za-z0-9_.-]+)(?:\s+in\s+([A-Za-z0-9_./-]+))?\s*", part)
        if not m:
            raise SnippetError(f"{where}: marker '{marker}' is neither 'none (why)' nor "
                               "'PROJECT/FILE[ in TEMPLATE], ...'")
        targets.append((m.group(1), m.group(2), m.group(3)))
    return targets


def collect(files):
    """{project: {file: (where, text)}} from the Markdown files; README.md's blocks must all be marked."""
    projects = {}
    for path in files:
        path = Path(path)
        name = path.name if path.parent == ROOT else str(path.relative_to(ROOT))
        for line, marker, _, text in blocks(path):
            where = f"{name}:{line}"
            if marker is None:
                if path.name == "README.md":
                    raise SnippetError(f"{where}: a code block without a snippet marker (scripts/snippets.py "
                                       "says how to mark it, or why not to build it: 'none (why)')")
                continue
            for project, file, template in parse_marker(where, marker):
                if template:
                    source = TEMPLATES / template
                    if not source.is_file():
                        raise SnippetError(f"{where}: template {source.relative_to(ROOT)} does not exist")
                    around = source.read_text(encoding="utf-8")
                    if around.count(PLACEHOLDER) != 1:
                        raise SnippetError(f"{where}: template {template} must hold {PLACEHOLDER} once")
                    text = around.replace(PLACEHOLDER, text.rstrip("\n"))
                files_of = projects.setdefault(project, {})
                if file in files_of:
                    raise SnippetError(f"{where}: {project}/{file} was already given at {files_of[file][0]}")
                files_of[file] = (where, text)
    return projects


def default_files():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def cmd_extract(args):
    known = [p for p in args.projects.split(",") if p]
    projects = collect(args.files or default_files())
    unknown = sorted(set(projects) - set(known))
    if unknown:
        raise SnippetError(f"snippets name projects the package tests do not run: {', '.join(unknown)} "
                           f"(tests/package/CMakeLists.txt runs {', '.join(known)})")
    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    for project in known:
        skeleton = SKELETONS / project
        if project not in projects and not skeleton.is_dir():
            raise SnippetError(f"no snippet and no tests/package/snippets/{project}/ for project {project}")
        dest = out / project
        if skeleton.is_dir():
            shutil.copytree(skeleton, dest)
        dest.mkdir(parents=True, exist_ok=True)
        for file, (where, text) in projects.get(project, {}).items():
            (dest / file).write_text(text, encoding="utf-8")
        if not (dest / "run.sh").is_file():
            raise SnippetError(f"project {project} has no run.sh (a shell block marked {project}/run.sh)")
        origin = ", ".join(f"{f} ({w})" for f, (w, _) in sorted(projects.get(project, {}).items()))
        print(f"{project}: {origin or 'fixed files only'}")


def cmd_run(args):
    source = Path(args.dir) / args.project
    if not (source / "run.sh").is_file():
        raise SnippetError(f"{source} has no run.sh: run `snippets.py extract` first")
    work = Path(args.dir).parent / "snippets-run" / (args.name or args.project)
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(source, work, ignore=shutil.ignore_patterns("stdout"))
    env = dict(os.environ, LWC=str(Path(args.prefix).resolve()))
    for kv in args.env:
        key, _, value = kv.partition("=")
        env[key] = value
    shown = " ".join(args.env)
    print(f"[snippets] {args.name or args.project}: sh -e run.sh in {work} (LWC={env['LWC']}{' ' + shown if shown else ''})")
    print((work / "run.sh").read_text(encoding="utf-8"), end="")
    run = subprocess.run(["sh", "-e", "run.sh"], cwd=work, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    print(run.stdout, end="")
    if run.returncode != 0:
        raise SnippetError(f"{args.name or args.project}: run.sh failed (exit {run.returncode})")
    expected = source / "stdout"
    if expected.is_file():
        want = expected.read_text(encoding="utf-8").rstrip()
        got = run.stdout.rstrip()
        if not got.endswith(want):
            raise SnippetError(f"{args.name or args.project}: the output does not end with the README's:\n"
                               f"--- expected\n{want}\n--- got (last lines)\n"
                               + "\n".join(got.splitlines()[-len(want.splitlines()) - 3:]))
    print(f"[snippets] {args.name or args.project}: ok")


def cmd_list(args):
    for path in args.files or default_files():
        for line, marker, info, _ in blocks(path):
            if marker is not None or Path(path).name == "README.md":
                print(f"{Path(path).name}:{line}\t{info or '-'}\t{marker or 'UNMARKED'}")


def main():
    parser = argparse.ArgumentParser(description="Extract and run the README's code blocks.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("extract")
    p.add_argument("--out", required=True)
    p.add_argument("--projects", required=True)
    p.add_argument("files", nargs="*")
    p = sub.add_parser("run")
    p.add_argument("project")
    p.add_argument("--dir", required=True)
    p.add_argument("--prefix", required=True)
    p.add_argument("--name")
    p.add_argument("--env", action="append", default=[])
    p = sub.add_parser("list")
    p.add_argument("files", nargs="*")
    args = parser.parse_args()
    try:
        {"extract": cmd_extract, "run": cmd_run, "list": cmd_list}[args.command](args)
    except SnippetError as e:
        print(f"snippets: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
