#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# File: scripts/check_limits.py
#
# The size limits of the library's source (issue 30): no function longer than a screen (60 lines) and no
# file longer than 800 lines. A function's length is counted from the line of its body's opening brace to
# the line of its closing brace, both included; lambdas and local classes count toward the function that
# holds them. Comments and string literals are skipped when braces are matched.
#
# usage: scripts/check_limits.py [--max-function N] [--max-file N] [--report] PATH...
#   PATH: files or directories (searched for *.cppm, *.h, *.cc). Exit 1 when a limit is exceeded, listing
#   every offender as file:line: what; --report lists them and exits 0 (the state of the other modules).
import argparse
import os
import re
import sys

SOURCE = (".cppm", ".h", ".cc")
# A body opens after `)` followed by these (e.g. `) const noexcept {`, `) -> T {`, `) : member_(x) {`).
QUALIFIERS = re.compile(r"\)\s*(?:const|noexcept|override|final|mutable|volatile|&|&&|\s)*"
                        r"(?:->\s*[\w:<>,\s*&]+)?\s*$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|requires)\s*\($")


def strip(text):
    """The text with comments and string/char literals blanked (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
                out.append(c)  # a digit separator (1'000)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def opens_function(before):
    """True when the text before a `{` ends like a function head: `)`, qualifiers, not a control statement."""
    tail = before.rstrip()
    if not QUALIFIERS.search(tail):
        return False
    # Find the `(` matching the last `)` and look at the word before it.
    close = tail.rfind(")")
    depth = 0
    for i in range(close, -1, -1):
        if tail[i] == ")":
            depth += 1
        elif tail[i] == "(":
            depth -= 1
            if depth == 0:
                return not CONTROL.search(tail[: i + 1])
    return False


def functions(text):
    """(first line, last line) of every outermost function body."""
    code = strip(text)
    stack, found, line = [], [], 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            inside = any(kind == "function" for kind, _ in stack)
            kind = "function" if not inside and opens_function(code[max(0, i - 4000):i]) else "other"
            stack.append((kind, line))
        elif c == "}" and stack:
            kind, first = stack.pop()
            if kind == "function":
                found.append((first, line))
    return found


def sources(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in sorted(files):
                    if f.endswith(SOURCE):
                        yield os.path.join(root, f)
        else:
            yield p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-function", type=int, default=60)
    ap.add_argument("--max-file", type=int, default=800)
    ap.add_argument("--report", action="store_true")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    offences = []
    for path in sorted(set(sources(args.paths))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.count("\n")
        if lines > args.max_file:
            offences.append(f"{path}: {lines} lines, more than {args.max_file}")
        for first, last in functions(text):
            if last - first + 1 > args.max_function:
                offences.append(f"{path}:{first}: a function of {last - first + 1} lines, more than {args.max_function}")
    for o in offences:
        print(o)
    if not offences:
        print(f"check_limits: every function within {args.max_function} lines, every file within {args.max_file}")
    return 0 if args.report or not offences else 1


if __name__ == "__main__":
    sys.exit(main())
