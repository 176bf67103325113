#!/usr/bin/env python3
"""Pairs idemproxy's pass-through runs with nginx's across bench/run.sh logs.

bench/run.sh interleaves its targets: run N of nginx and run N of idemproxy of one scenario are
measured back to back, so they saw the same machine. This reads the logs run.sh printed (its
standard output: one line per measured run, a discarded run marked so and redone), keeps the
last kept attempt of every run, pairs idemproxy's route without idempotency with nginx run by
run and scenario by scenario, and prints per scenario the number of pairs, the median
throughput ratio and the median p99 difference, then every pair's p99 difference.

    bench/paired-runs.py LOG [LOG ...]
"""
import re
import statistics
import sys

RUN = re.compile(r"\] (\S+)\s+(get|post|post16k)\s+run (\d+):\s+(\d+) req/s\s+p50\s+[\d.]+ ms"
                 r"\s+p99\s+([\d.]+) ms")


def pairs(path):
    kept = {}
    with open(path, encoding="utf-8") as log:
        for line in log:
            match = RUN.search(line)
            if match is None or "discarded" in line:
                continue
            target, scenario, run, rps, p99 = match.groups()
            kept[(target, scenario, int(run))] = (int(rps), float(p99))
    for (target, scenario, run), (rps, p99) in sorted(kept.items()):
        if target != "nginx":
            continue
        ours = kept.get(("idemproxy@pass", scenario, run))
        if ours is not None:
            yield scenario, ours[0] / rps, ours[1] - p99


def main(paths):
    if not paths:
        sys.exit(__doc__)
    by_scenario = {}
    for path in paths:
        for scenario, ratio, p99_diff in pairs(path):
            by_scenario.setdefault(scenario, []).append((ratio, p99_diff))
    for scenario, found in by_scenario.items():
        ratios = [ratio for ratio, _ in found]
        diffs = [diff for _, diff in found]
        print(f"{scenario}: {len(found)} pairs, median req/s ratio {statistics.median(ratios):.2f}x,"
              f" median p99 difference {statistics.median(diffs):+.2f} ms"
              f" (pairs: {' '.join(f'{d:+.2f}' for d in diffs)})")


if __name__ == "__main__":
    main(sys.argv[1:])
