#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Ratios of medians between two builds of lwc's benchmarks (e.g. a commit and its parent, each built with
# the release preset): the two trees' binaries run alternately, ROUNDS times, each run 3 interleaved
# repetitions, so a slow phase of a shared machine hits both alike; prints the median of every benchmark
# over all runs of each tree and now / before.
#   scripts/compare_builds.py BEFORE_BENCH_DIR NOW_BENCH_DIR decompose,cover,broadphase,rebase ROUNDS [FILTER]
import collections
import json
import statistics
import subprocess
import sys
import tempfile

before_dir, now_dir, benches, rounds = sys.argv[1], sys.argv[2], sys.argv[3].split(','), int(sys.argv[4])
filt = sys.argv[5] if len(sys.argv) > 5 else ''
dirs = {'before': before_dir, 'now': now_dir}
times = collections.defaultdict(list)
with tempfile.TemporaryDirectory() as tmp:
    for r in range(rounds):
        for b in benches:
            for which in (['before', 'now'] if r % 2 == 0 else ['now', 'before']):
                out = f'{tmp}/{which}_{b}.json'
                cmd = [f'{dirs[which]}/{b}_bench', '--benchmark_repetitions=3', '--benchmark_min_time=0.05',
                       '--benchmark_enable_random_interleaving=true', f'--benchmark_out={out}',
                       '--benchmark_out_format=json'] + ([f'--benchmark_filter={filt}'] if filt else [])
                subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                for x in json.load(open(out))['benchmarks']:
                    if x.get('run_type') == 'iteration':
                        times[(x['run_name'], which)].append(x['real_time'])
print(f'{"benchmark":60s} {"before":>12s} {"now":>12s} {"now/before":>10s}  (medians of {rounds}x3 runs)')
for name in sorted({k[0] for k in times}):
    a, b = times.get((name, 'before')), times.get((name, 'now'))
    if a and b:
        ma, mb = statistics.median(a), statistics.median(b)
        print(f'{name:60s} {ma:12.1f} {mb:12.1f} {mb / ma:10.3f}')
