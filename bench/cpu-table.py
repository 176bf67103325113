#!/usr/bin/env python3
"""bench/cpu.sh's table: the medians over rounds of each case (and jar), from its results.tsv.

CPU columns are µs of CPU time per request: the proxy (all its threads), the upstream nginx
worker, redis-server (Redis cases only), and the proxy's work after the load stopped (deferred),
summed as the whole system; x nginx divides that by nginx's whole-system figure (nginx passing
the same POST through to the same upstream); x nginx req/s is the median over rounds of each round's
requests/s over nginx's in the same round (the machine's pace moves between rounds, and the
rounds are interleaved). store thr µs: the store's own threads (inside proxy µs). Redis cmds/req: the commands Redis ran per request
(INFO commandstats); an EVALSHA counts once, its script's own commands apart."""
import csv
import statistics
import sys
from collections import defaultdict

rows = defaultdict(list)
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f, delimiter="\t"):
        rows[(r["case"], r["jar"])].append(r)

def med(rs, col):
    return statistics.median(float(r[col]) for r in rs)

unit = rows.get(("nginx", "A"))
unit_total = med(unit, "total_us") if unit else None
unit_rps = {r["round"]: float(r["rps"]) for r in unit} if unit else {}
jars = sorted({j for _, j in rows})
print("| case | jar | req/s | x nginx req/s | proxy µs | store thr µs | upstream µs | Redis µs | deferred µs | whole µs/req | x nginx | RSS MiB | disk B/req | alloc B/req | max GC pause ms | full GCs | Redis cmds/req |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
order = []
for (c, j) in rows:
    if c not in order:
        order.append(c)
for c in order:
    for j in jars:
        rs = rows.get((c, j))
        if not rs:
            continue
        total = med(rs, "total_us")
        rps = med(rs, "rps")
        ratio = f"{total / unit_total:.2f}" if unit_total else "-"
        ratios = [float(r["rps"]) / unit_rps[r["round"]] for r in rs if unit_rps.get(r["round"])]
        rratio = f"{statistics.median(ratios):.2f}" if ratios else "-"
        full = sum(int(r["full_gcs"]) for r in rs)
        store = f"{med(rs, 'store_us'):.1f}" if 'store_us' in rs[0] else "-"
        print(f"| {c} | {'-' if c == 'nginx' else j} | {rps:,.0f} | {rratio} | {med(rs, 'proxy_us'):.1f} | {store} | {med(rs, 'upstream_us'):.1f} | "
              f"{med(rs, 'redis_us'):.1f} | {med(rs, 'deferred_us'):.1f} | {total:.1f} | {ratio} | {med(rs, 'rss_mib'):.0f} | "
              f"{med(rs, 'disk_b'):.0f} | {med(rs, 'alloc_b'):.0f} | {max(float(r['max_pause_ms']) for r in rs):.1f} | {full} | "
              f"{med(rs, 'redis_cmds') if 'redis_cmds' in rs[0] else 0:.2f} |")
