#!/usr/bin/env bash
# Runs the deterministic simulation (docs/testing.md, "The deterministic simulation"):
#   tools/simulate.sh                 20,000 schedules (what CI runs), seeds 1..20000
#   tools/simulate.sh --seeds N       N schedules
#   tools/simulate.sh --first S       start at seed S (with --seeds)
#   tools/simulate.sh --long          1,000,000 schedules, going on past failures (each listed)
#   tools/simulate.sh --seed S        replay one schedule, its whole trace printed
#   tools/simulate.sh --plant M[,M]   with mistakes planted (RELEASE_UNKNOWN_OUTCOME, SKIP_FENCING_ON_COMPLETE,
#                                     ANSWER_TWICE, EMBEDDED_ANSWER_BEFORE_WRITE), as a replay asks
# Prints, last, "N schedules, 0 violations", or the first failing seed and the line that replays it.
# Maven runs offline (-o) unless MVN_FLAGS says otherwise; it compiles proxy-core first.
set -euo pipefail
cd "$(dirname "$0")/.."

seeds=20000
first=1
seed=""
plant=""
keep=false
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --first) first="$2"; shift 2 ;;
    --long) seeds=1000000; keep=true; shift ;;
    --seed) seed="$2"; shift 2 ;;
    --plant) plant="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "simulate.sh: unknown argument $1 (expected: --seeds N, --first S, --long, --seed S, --plant M)" >&2; exit 2 ;;
  esac
done

flags=(${MVN_FLAGS:--o} -q -pl proxy-core -Dsurefire.failIfNoSpecifiedTests=false -Dsim.plant="$plant")
out=$(mktemp)
trap 'rm -f "$out"' EXIT

if [ -n "$seed" ]; then
  set +e
  mvn "${flags[@]}" test -Dtest='SimulationTest#replayOneSeed' -Dsim.seed="$seed" >"$out" 2>&1
  rc=$?
  set -e
  # the trace and the verdict; Maven's own lines and stack traces left out
  grep -v -E '^\[|^\s+at |^$' "$out" | awk 'd && !/^VIOLATION/ {exit} {print} /^seed [0-9]+: digest/ {d = 1}' || true
  exit $rc
fi

set +e
mvn "${flags[@]}" test -Dtest='SimulationTest#everyScheduleHoldsEveryInvariant' -Dsim.seeds="$seeds" -Dsim.first="$first" \
  -Dsim.progress=true -Dsim.keepGoing="$keep" >"$out" 2>&1
rc=$?
set -e
grep -E '^(known bug|progress:|embedded store:)' "$out" | sort -u || true
if [ $rc -eq 0 ]; then
  grep -E '^[0-9]+ schedules, 0 violations' "$out" | sed -E 's/ \([0-9]+ ms\)$//' | tail -1
  exit 0
fi
if grep -q -E '^seed [0-9]+ broke' "$out"; then
  awk '/^[0-9]+ failing seeds:$/ || /^seed [0-9]+ broke/ {p = 1} p {print} p && /^replay: / {exit}' "$out"
  exit 1
fi
cat "$out" >&2
echo "simulate.sh: the simulation did not run (see Maven's output above)" >&2
exit 2
