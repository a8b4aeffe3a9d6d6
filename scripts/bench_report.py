# SPDX-License-Identifier: MIT
# File: scripts/bench_report.py
#
# Benchmarks in pictures: one self-contained HTML page with, for every benchmark group of the Google
# Benchmark JSON files given, a plot of each implementation's ratio to each baseline against the
# benchmark's argument (its size), drawn by matplotlib (Debian's python3-matplotlib, Agg backend), and
# the medians in a table. `./lwc bench` writes build/release/bench.html with it; the build draws the
# committed sample (tests/pictures/bench_sample.json) for the browser test.
#
#   bench_report.py --out PAGE.html BENCH.json [BENCH.json ...]
#
# Names follow bench/bench_main.cc: "<group>.<impl>/<args>", an impl starting with "baseline" is a
# baseline, and ratios are of medians measured in the same run (the "median" aggregate when the run has
# repetitions, else the median of the runs of that name). The x axis is the last argument.
#
# The plot's geometry is fixed, so that a reader (or tests/pictures/check_pages.py) can compute where a
# point lands: 640 x 400 pixels (6.4 x 4 inches at 100 dpi), axes at [0.11, 0.13, 0.56, 0.77] of the
# figure, x logarithmic over [min / 2, max * 2] of the arguments, y linear over [0, 1.2 * max(1, largest
# ratio)], series i's points in SERIES_COLOURS[i] (matplotlib's tab10) and its line in tint() of it, in
# the order of `series()`.
import argparse
import base64
import html
import io
import json
import os
import statistics
import sys

FIGURE_INCHES = (6.4, 4.0)
DPI = 100
AXES = (0.11, 0.13, 0.56, 0.77)  # left, bottom, width, height (figure fractions)
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
SERIES_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf"]


def tint(colour):
    """The line of a series: its colour 45% over white, so that its points (in the colour itself) stand out."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(0.45 * c + 0.55 * 255):02x}" for c in rgb)


def medians(bench_json):
    """{(group, impl): {arg: median real time}} of one Google Benchmark JSON document."""
    aggregated, plain = {}, {}
    for b in bench_json.get("benchmarks", []):
        run = b.get("run_name", b["name"])
        family, _, args = run.partition("/")
        group, dot, impl = family.partition(".")
        if not dot or b.get("error_occurred"):
            continue
        arg = float(args.split("/")[-1]) if args else 1.0
        key = (group, impl)
        ns = b["real_time"] * UNIT_NS[b.get("time_unit", "ns")]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                aggregated.setdefault(key, {})[arg] = ns
        else:
            plain.setdefault(key, {}).setdefault(arg, []).append(ns)
    out = {k: dict(v) for k, v in aggregated.items()}
    for key, by_arg in plain.items():
        for arg, times in by_arg.items():
            out.setdefault(key, {}).setdefault(arg, statistics.median(times))
    return out


def series(table):
    """{group: [(impl, baseline, [(arg, ratio), ...]), ...]}: every non-baseline impl against every baseline
    of its group, on the arguments both were run with; groups and series sorted by name."""
    groups = {}
    for (group, impl) in table:
        groups.setdefault(group, []).append(impl)
    out = {}
    for group in sorted(groups):
        impls = sorted(groups[group])
        lines = []
        for base in (i for i in impls if i.startswith("baseline")):
            for impl in (i for i in impls if not i.startswith("baseline")):
                points = [(arg, table[(group, impl)][arg] / table[(group, base)][arg])
                          for arg in sorted(set(table[(group, impl)]) & set(table[(group, base)]))
                          if table[(group, base)][arg] > 0]
                if points:
                    lines.append((impl, base, points))
        if lines:
            out[group] = lines
    return out


def limits(lines):
    """(x_min, x_max, y_max) of a group's plot."""
    args = [a for _, _, pts in lines for a, _ in pts]
    ratios = [r for _, _, pts in lines for _, r in pts]
    return min(args) / 2, max(args) * 2, 1.2 * max(1.0, max(ratios))


def plot(group, lines):
    """The PNG bytes of one group's plot."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    fig = pyplot.figure(figsize=FIGURE_INCHES, dpi=DPI)
    ax = fig.add_axes(AXES)
    x_min, x_max, y_max = limits(lines)
    ax.set_xscale("log")
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(0, y_max)
    ax.axhline(1.0, color="#888888", linestyle="--", linewidth=1)
    for i, (impl, base, pts) in enumerate(lines):
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
        ax.plot([a for a, _ in pts], [r for _, r in pts], color=tint(colour), linewidth=2.5, marker="o",
                markersize=8, markerfacecolor=colour, markeredgecolor=colour, label=f"{impl} / {base}")
    ax.set_xlabel("argument (size)")
    ax.set_ylabel("ratio of medians (< 1: faster)")
    ax.set_title(group, fontsize=11)
    ax.grid(True, which="both", color="#e6e6e6", linewidth=0.6)
    fig.legend(loc="center left", bbox_to_anchor=(AXES[0] + AXES[2] + 0.01, 0.5), fontsize=8, frameon=False)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    pyplot.close(fig)
    return buffer.getvalue()


def page(files):
    """The HTML page of the JSON files [(path, document)]."""
    width, height = int(FIGURE_INCHES[0] * DPI), int(FIGURE_INCHES[1] * DPI)
    parts = ["<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>lwc benchmarks</title><style>"
             "body{font-family:sans-serif;margin:24px;color:#1a1a1a}figure{display:inline-block;margin:8px;"
             "vertical-align:top}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
             "padding:2px 6px;text-align:right}td:first-child,th:first-child{text-align:left}</style></head><body>",
             "<h1>lwc benchmarks: ratios to the in-repo baselines</h1>",
             "<p>Each plot: one group, the ratio of each implementation's median to each baseline's median in the "
             "same run, against the benchmark's argument. Below 1 (dashed) is faster than the baseline. Medians "
             "and ratios only: the machines are shared and absolute times vary (docs/performance.md).</p>"]
    for path, doc in files:
        context = doc.get("context", {})
        table = medians(doc)
        parts.append(f"<h2>{html.escape(os.path.basename(path))}</h2><p>{html.escape(context.get('date', ''))}, "
                     f"{context.get('num_cpus', '?')} CPUs, library build {html.escape(str(context.get('library_build_type', '?')))}"
                     "</p>")
        for group, lines in series(table).items():
            png = base64.b64encode(plot(group, lines)).decode()
            parts.append(f"<figure class=\"plot\" data-file=\"{html.escape(os.path.basename(path))}\" "
                         f"data-group=\"{html.escape(group)}\"><img src=\"data:image/png;base64,{png}\" "
                         f"width=\"{width}\" height=\"{height}\" alt=\"{html.escape(group)} ratios\">")
            rows = "".join(f"<tr><td>{html.escape(impl)} / {html.escape(base)}</td><td>{a:g}</td><td>{r:.3f}</td></tr>"
                           for impl, base, pts in lines for a, r in pts)
            parts.append(f"<figcaption><table><tr><th>series</th><th>argument</th><th>ratio</th></tr>{rows}</table>"
                         "</figcaption></figure>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def main(argv):
    parser = argparse.ArgumentParser(description="Benchmarks in pictures: an HTML page of ratio plots")
    parser.add_argument("--out", required=True)
    parser.add_argument("json", nargs="+")
    args = parser.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("bench_report: matplotlib is missing (Debian: apt-get install python3-matplotlib; ./lwc setup "
              "installs it): no plots written", file=sys.stderr)
        return 3
    files = []
    for path in args.json:
        with open(path, encoding="utf-8") as f:
            files.append((path, json.load(f)))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(page(files))
    print(f"bench_report: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
