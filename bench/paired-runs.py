#!/usr/bin/env python3
"""Pairs idemproxy's pass-through runs with nginx's across bench/run.sh runs.

bench/run.sh interleaves its targets: run N of nginx and run N of idemproxy of one scenario are
measured back to back, so they saw the same machine. Both modes below keep the last kept attempt
of every run (a discarded run is redone) and pair idemproxy's route without idempotency with
nginx, run by run and scenario by scenario.

    bench/paired-runs.py LOG [LOG ...]
        LOG: what run.sh printed (its standard output: one line per measured run). Prints per
        scenario the number of pairs, the median throughput ratio, the median of the pairs' p99
        differences with a 90% bootstrap interval for it (pairs resampled with replacement,
        1,000 times, seeded), then every pair's p99 difference.

    bench/paired-runs.py --hist DIR [DIR ...]
        DIR: the wrk logs of a run (run.sh copies them next to its results, RESULTS.wrk/), whose
        BENCH_HIST lines hold every latency wrk recorded. Pools the requests of all pairs: prints
        per scenario and target the percentiles of all the pairs' requests taken together, the
        pooled p99 difference, and a 90% bootstrap interval for it (pairs resampled with
        replacement, 1,000 times, seeded: the same DIRs in the same order print the same figures).
"""
import glob
import os
import random
import re
import statistics
import sys

RUN = re.compile(r"\] (\S+)\s+(get|post|post16k)\s+run (\d+):\s+(\d+) req/s\s+p50\s+[\d.]+ ms"
                 r"\s+p99\s+([\d.]+) ms")
WRK_LOG = re.compile(r"^wrk-(nginx|idemproxy-pass)-(get|post|post16k)-(\d+)(?:-a(\d+))?\.log$")
PERCENTILES = (50.0, 90.0, 95.0, 99.0, 99.9)
RESAMPLES = 1000


def log_pairs(path):
    kept = {}
    with open(path, encoding="utf-8") as log:
        for line in log:
            match = RUN.search(line)
            if match is None or "discarded" in line:
                continue
            target, scenario, run, rps, p99 = match.groups()
            kept[(target, scenario, int(run))] = (int(rps), float(p99))
    for scenario, _, (rps, p99), ours in paired(kept, "idemproxy@pass"):
        yield scenario, ours[0] / rps, ours[1] - p99


def paired(kept, ours):
    """(scenario, run, nginx's, ours) for every run of kept {(target, scenario, run): value} that
    both nginx and the target named ours kept, in scenario and run order."""
    for (target, scenario, run), theirs in sorted(kept.items()):
        mine = kept.get((ours, scenario, run))
        if target == "nginx" and mine is not None:
            yield scenario, run, theirs, mine


def interval(samples):
    """The 5th and 95th percentiles of RESAMPLES bootstrap samples: a 90% interval."""
    ordered = sorted(samples)
    return ordered[int(0.05 * RESAMPLES)], ordered[int(0.95 * RESAMPLES) - 1]


def by_scenario(rows):
    """Rows (scenario, *values) grouped as {scenario: [values, ...]}, in the order first seen."""
    groups = {}
    for scenario, *values in rows:
        groups.setdefault(scenario, []).append(tuple(values))
    return groups


def from_logs(paths):
    rng = random.Random(1)
    for scenario, found in by_scenario(row for path in paths for row in log_pairs(path)).items():
        ratios = [ratio for ratio, _ in found]
        diffs = [diff for _, diff in found]
        lo, hi = interval(statistics.median(rng.choices(diffs, k=len(diffs))) for _ in range(RESAMPLES))
        print(f"{scenario}: {len(found)} pairs, median req/s ratio {statistics.median(ratios):.2f}x,"
              f" median p99 difference {statistics.median(diffs):+.2f} ms"
              f" (90% interval {lo:+.2f} to {hi:+.2f})"
              f" (pairs: {' '.join(f'{d:+.2f}' for d in diffs)})")


def histogram(path):
    """The BENCH_HIST line of one wrk log as {latency_us: count}, or None without one."""
    with open(path, encoding="utf-8") as log:
        for line in log:
            if line.startswith("BENCH_HIST"):
                return {int(v): int(c) for v, c in (p.split(":") for p in line.split()[1:])}
    return None


def hist_pairs(directory):
    """(scenario, nginx histogram, idemproxy histogram) for every run both targets kept."""
    kept = {}
    for path in glob.glob(os.path.join(directory, "wrk-*.log")):
        match = WRK_LOG.match(os.path.basename(path))
        if match is None:
            continue
        target, scenario, run, attempt = match.groups()
        key = (target, scenario, int(run))
        attempt = int(attempt or 0)
        if key not in kept or kept[key][0] < attempt:
            kept[key] = (attempt, path)
    for scenario, run, (_, their_path), (_, our_path) in paired(kept, "idemproxy-pass"):
        theirs = histogram(their_path)
        ours = histogram(our_path)
        if theirs is None or ours is None:
            sys.exit(f"{directory}: run {run} of {scenario} has no BENCH_HIST line (a run from before it existed?)")
        yield scenario, theirs, ours


def merged(histograms):
    total = {}
    for h in histograms:
        for value, count in h.items():
            total[value] = total.get(value, 0) + count
    return sorted(total.items())


def percentile(items, p):
    """The smallest recorded latency with at least p% of the requests at or below it (wrk's rule)."""
    wanted = sum(count for _, count in items) * p / 100.0
    seen = 0
    for value, count in items:
        seen += count
        if seen >= wanted:
            return value
    return items[-1][0]


def tail_counts(h, grid):
    """How many requests of h lie above each grid value: enough to find a pooled p99 quickly."""
    items = sorted(h.items())
    above, i, remaining = [], 0, sum(h.values())
    for g in grid:
        while i < len(items) and items[i][0] <= g:
            remaining -= items[i][1]
            i += 1
        above.append(remaining)
    return above


def pooled_p99(rows, totals, grid):
    """The pooled p99 on the grid from the runs' tail counts (rows) and request counts (totals)."""
    limit = sum(totals) / 100.0
    for j, g in enumerate(grid):
        if sum(row[j] for row in rows) <= limit:
            return g
    return grid[-1]


def from_histograms(directories):
    rng = random.Random(1)
    for scenario, pairs in by_scenario(row for d in directories for row in hist_pairs(d)).items():
        nginx = merged(t for t, _ in pairs)
        idem = merged(o for _, o in pairs)
        cells = []
        for p in PERCENTILES:
            a, b = percentile(nginx, p), percentile(idem, p)
            cells.append(f"p{p:g} {b / 1000:.3f} / {a / 1000:.3f} ms ({(b - a) / 1000:+.3f})")
        # the bootstrap works on a 10 µs grid from the pooled p90 to the largest latency seen
        low = min(percentile(nginx, 90.0), percentile(idem, 90.0))
        high = max(nginx[-1][0], idem[-1][0])
        grid = list(range(low - low % 10, high + 10, 10))[:20000]
        rows = [(tail_counts(t, grid), sum(t.values()), tail_counts(o, grid), sum(o.values()))
                for t, o in pairs]
        diffs = []
        for _ in range(RESAMPLES):
            pick = [rows[rng.randrange(len(rows))] for _ in rows]
            ours = pooled_p99([r[2] for r in pick], [r[3] for r in pick], grid)
            theirs = pooled_p99([r[0] for r in pick], [r[1] for r in pick], grid)
            diffs.append(ours - theirs)
        lo, hi = interval(diffs)
        n_req = sum(c for _, c in idem), sum(c for _, c in nginx)
        print(f"{scenario}: {len(pairs)} pairs ({n_req[0]:,} / {n_req[1]:,} requests), idemproxy / nginx:"
              f" {'; '.join(cells)}; pooled p99 difference 90% interval"
              f" {lo / 1000:+.2f} to {hi / 1000:+.2f} ms")


def main(args):
    if not args or args == ["--hist"]:
        sys.exit(__doc__)
    if args[0] == "--hist":
        from_histograms(args[1:])
    else:
        from_logs(args)


if __name__ == "__main__":
    main(sys.argv[1:])
