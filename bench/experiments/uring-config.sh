#!/usr/bin/env bash
# Does a setting of Netty's io_uring loop move GET's tail? Rounds of 10 s GET runs through nginx,
# idemproxy as shipped (A) and idemproxy with the JVM options given (B), interleaved, then each
# target's median requests/s and p99 and the medians of the paired p99 differences.
# See docs/benchmarks.md, "The io_uring ring's size and its deferred task work".
#
#   git worktree add ../uring HEAD && (cd ../uring && git apply bench/experiments/uring-config.patch \
#       && mvn -q package -DskipTests)
#   bench/experiments/uring-config.sh ../uring/proxy-app/target/idemproxy.jar ROUNDS "B's JVM options"
#
# JAR is a throw-away build with bench/experiments/uring-config.patch applied, which reads two
# properties (without them the build behaves as shipped):
#   -Dexp.ringSize=N          submission queue of N entries (Netty's default: 4096), so a loop turn
#                             submits its operations every N of them, not once at its end; the
#                             completion queue stays at 4096
#   -Dexp.singleIssuer=false  no IORING_SETUP_SINGLE_ISSUER, hence no DEFER_TASKRUN: the kernel runs
#                             completions' task work as they come, not when the loop next enters
#
# Placement and configs as in bench/run.sh: the proxies on core 0 (nginx's config from
# bench/lib.sh; idemproxy with the memory store, one io thread, io_uring), wrk -t1 -c50 and the
# upstream nginx on core 1; 60 s of warm-up for each idemproxy, 5 s for nginx. Loopback only;
# every load bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR=${1:?JAR}
ROUNDS=${2:-6}
B_OPTS=${3:?"B's JVM options, e.g. -Dexp.ringSize=16"}
source bench/lib.sh
experiment_setup uring-config nginx wrk taskset java
JAR=$(jar_path "$JAR")

UP=$(pick_port)
NGP=$(pick_port)
start_upstream "$WORK/upstream" "$UP" "$GET_BODY"
start_proxy_nginx "$WORK/nginx" "$NGP" "$UP"
A_PORT=$(pick_port)
start_pass_idemproxy "$WORK/A" "$JAR" "$A_PORT" "$(pick_port)" "$UP"
B_PORT=$(pick_port)
start_pass_idemproxy "$WORK/B" "$JAR" "$B_PORT" "$(pick_port)" "$UP" "$B_OPTS"

log "warm-up: 60 s of GETs through each idemproxy, 5 s through nginx; B: $B_OPTS"
get_load "$A_PORT" 60 "$WORK/warmup-A.log"
get_load "$B_PORT" 60 "$WORK/warmup-B.log"
get_load "$NGP" 5 "$WORK/warmup-nginx.log"
for round in $(seq "$ROUNDS"); do
    for target in nginx:"$NGP" A:"$A_PORT" B:"$B_PORT"; do
        log_file=$WORK/wrk-${target%%:*}-$round.log
        get_load "${target#*:}" 10 "$log_file"
        errors=$(grep -o 'err_[a-z]*=[1-9][0-9]*' "$log_file" | paste -sd ' ' || true)
        echo "round $round, ${target%%:*}: $(grep -o 'rps=[0-9.]* p50_us=[0-9]* p99_us=[0-9]*' "$log_file")${errors:+ ERRORS $errors}"
    done
done
python3 - "$WORK" "$ROUNDS" <<'EOF'
import re, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def run(target, i):
    text = open(f"{work}/wrk-{target}-{i}.log").read()
    return float(re.search(r"rps=([0-9.]+)", text).group(1)), int(re.search(r"p99_us=([0-9]+)", text).group(1)) / 1000
runs = {t: [run(t, i) for i in range(1, rounds + 1)] for t in ("nginx", "A", "B")}
for t, rs in runs.items():
    print(f"{t}: median {statistics.median(r for r, _ in rs):,.0f} req/s, median p99 {statistics.median(p for _, p in rs):.2f} ms")
for x, y in (("A", "nginx"), ("B", "nginx"), ("B", "A")):
    diffs = [a[1] - b[1] for a, b in zip(runs[x], runs[y])]
    print(f"p99 {x} - {y}, median of the {rounds} pairs: {statistics.median(diffs):+.2f} ms")
EOF
