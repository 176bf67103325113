#!/usr/bin/env bash
# image-smoke.sh - build the project's Docker image for real on a machine with no container
# registry, run it as the README says, and check it: non-root, read-only root, a memory limit,
# /data private, a protected call replayed, the idemproxy command on PATH, the HEALTHCHECK
# healthy, SIGTERM drained.
#
#   tools/image-smoke.sh [--keep]        (from the project's root, after `mvn package`)
#
# How: Debian's docker.io (dockerd + a BuildKit-capable 20.10 CLI at /usr/bin/docker) and
# debootstrap are installed if missing; dockerd is started if none answers (vfs storage, no
# iptables, no bridge) and stopped at the end by its PID (--keep leaves it running). The FROM
# images cannot be pulled here, so local stand-ins take the names the Dockerfile's FROM lines
# give, each made once and kept by the engine:
#   debian:bookworm-slim          debootstrap's bookworm (minbase)
#   eclipse-temurin:17-jdk,       Debian's OpenJDK 17 JDK with Maven and binutils (jlink
#   maven:*-eclipse-temurin-17    --strip-debug needs objcopy, as in Temurin's images)
#   eclipse-temurin:N-jdk (N≠17)  debian:bookworm-slim with binutils and a JDK N found on this
#                                 machine at /opt/java/openjdk (JAVA_HOME, as in Temurin's images):
#                                 $IMAGE_SMOKE_JDK if set, else the first JDK N under /usr/lib/jvm
# The Maven stage runs nothing: its RUN is replaced, in a temporary copy of the tree, by a COPY of
# proxy-app/target/idemproxy.jar (the same `mvn package`, already run on this machine); the
# `# syntax=` line is dropped (its frontend image cannot be pulled). Every other line of the
# Dockerfile runs as written. Ports: 127.0.0.1:18080 (proxy), 19901 (admin), 18081 (upstream).
# Prints "image-smoke: N passed, M failed" last; exit 0 only when all passed.
set -uo pipefail
KEEP=0; [[ ${1:-} == --keep ]] && KEEP=1
ROOT=$(pwd)
JAR=$ROOT/proxy-app/target/idemproxy.jar
[[ -f $ROOT/Dockerfile && -f $JAR ]] || { echo "run from the project's root after mvn package (need Dockerfile and $JAR)"; exit 2; }
DOCKER=/usr/bin/docker
WORK=$(mktemp -d /tmp/image-smoke.XXXXXX)
pass=0; fail=0
ok() { echo "PASS $*"; pass=$((pass+1)); }
ko() { echo "FAIL $*"; fail=$((fail+1)); }
DOCKERD_PID=""; UP_PID=""
cleanup() {
  $DOCKER rm -f idemproxy-smoke >/dev/null 2>&1
  [[ -n $UP_PID ]] && kill "$UP_PID" 2>/dev/null
  if [[ -n $DOCKERD_PID && $KEEP == 0 ]]; then kill "$DOCKERD_PID" 2>/dev/null; wait "$DOCKERD_PID" 2>/dev/null; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

if [[ ! -x /usr/sbin/dockerd || ! -x $DOCKER ]] || ! command -v debootstrap >/dev/null; then
  echo "installing docker.io and debootstrap (Debian)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io debootstrap) >"$WORK/apt.log" 2>&1 \
    || { tail -5 "$WORK/apt.log"; echo "image-smoke: 0 passed, 1 failed"; exit 1; }
fi
if ! $DOCKER info >/dev/null 2>&1; then
  setsid /usr/sbin/dockerd --iptables=false --bridge=none --storage-driver=vfs >"$WORK/dockerd.log" 2>&1 &
  DOCKERD_PID=$!
  for _ in $(seq 1 100); do $DOCKER info >/dev/null 2>&1 && break; sleep 0.2; done
  $DOCKER info >/dev/null 2>&1 || { tail -5 "$WORK/dockerd.log"; echo "image-smoke: 0 passed, 1 failed (dockerd did not start)"; exit 1; }
fi
export DOCKER_BUILDKIT=1

if ! $DOCKER image inspect debian:bookworm-slim >/dev/null 2>&1; then
  echo "making debian:bookworm-slim with debootstrap (about 30 s)"
  debootstrap --variant=minbase bookworm "$WORK/rootfs" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1 \
    || { tail -5 "$WORK/debootstrap.log"; echo "image-smoke: 0 passed, 1 failed"; exit 1; }
  tar -C "$WORK/rootfs" -c . | $DOCKER import - debian:bookworm-slim >/dev/null
  rm -rf "$WORK/rootfs"
fi
standin_jdk17() { # tag...: Debian's OpenJDK 17 with Maven and binutils, once, under each tag
  if ! $DOCKER image inspect local/jdk17-standin >/dev/null 2>&1; then
    echo "making the JDK 17 stand-in image (about 30 s)"
    mkdir -p "$WORK/jdk17"
    printf '%s\n' 'FROM debian:bookworm-slim' \
      'RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jdk-headless maven ca-certificates binutils && rm -rf /var/lib/apt/lists/*' \
      >"$WORK/jdk17/Dockerfile"
    $DOCKER build --network host -t local/jdk17-standin "$WORK/jdk17" >"$WORK/jdk17.log" 2>&1 || { tail -5 "$WORK/jdk17.log"; return 1; }
  fi
  for tag in "$@"; do $DOCKER tag local/jdk17-standin "$tag"; done
}
find_jdk() { # major -> the home of a JDK of that major version on this machine
  local home
  for home in ${IMAGE_SMOKE_JDK:-} /usr/lib/jvm/*; do
    [[ -x $home/bin/jlink && -f $home/release ]] && grep -q "^JAVA_VERSION=\"$1[.\"]" "$home/release" && { echo "$home"; return 0; }
  done
  return 1
}
standin_jdk() { # major: local/jdkN-standin, debian:bookworm-slim with binutils and this machine's JDK N at /opt/java/openjdk
  local home
  if ! $DOCKER image inspect "local/jdk$1-standin" >/dev/null 2>&1; then
    home=$(find_jdk "$1") || { echo "no JDK $1 on this machine (set IMAGE_SMOKE_JDK to one)"; return 1; }
    echo "making the JDK $1 stand-in image from $home (about 30 s)"
    mkdir -p "$WORK/jdk$1"
    cp -aL "$home" "$WORK/jdk$1/jdk"   # links resolved (a Debian-installed JDK links cacerts to /etc)
    printf '%s\n' 'FROM debian:bookworm-slim' \
      'RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends binutils ca-certificates && rm -rf /var/lib/apt/lists/*' \
      'COPY jdk /opt/java/openjdk' 'ENV JAVA_HOME=/opt/java/openjdk PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      >"$WORK/jdk$1/Dockerfile"
    $DOCKER build --network host -t "local/jdk$1-standin" "$WORK/jdk$1" >"$WORK/jdk$1.log" 2>&1 || { tail -5 "$WORK/jdk$1.log"; return 1; }
    rm -rf "$WORK/jdk$1"
  fi
}
# Every base image the Dockerfile names, made as above if the engine does not have it yet.
for base in $(awk 'toupper($1) == "FROM" {print $2}' "$ROOT/Dockerfile" | sort -u); do
  $DOCKER image inspect "$base" >/dev/null 2>&1 && continue
  case $base in
    debian:bookworm-slim) ;;  # made above
    eclipse-temurin:17-jdk*|maven:*-eclipse-temurin-17*) standin_jdk17 "$base" || { echo "image-smoke: 0 passed, 1 failed"; exit 1; } ;;
    eclipse-temurin:*-jdk*|maven:*-eclipse-temurin-*)
      major=${base#*temurin}; major=${major#:}; major=${major#-}; major=${major%%[!0-9]*}
      standin_jdk "$major" || { echo "image-smoke: 0 passed, 1 failed"; exit 1; }
      $DOCKER tag "local/jdk$major-standin" "$base" ;;
    *) echo "no stand-in for the base image $base"; echo "image-smoke: 0 passed, 1 failed"; exit 1 ;;
  esac
done

# The tree as the image build sees it, with the Maven stage's RUN replaced by the built jar.
mkdir -p "$WORK/ctx"; (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$WORK/ctx")
cp "$JAR" "$WORK/ctx/prebuilt.jar"
python3 - "$WORK/ctx/Dockerfile" <<'PY' || { echo "image-smoke: 0 passed, 1 failed (could not find the Maven stage's RUN mvn ... package)"; exit 1; }
import re, sys
p = sys.argv[1]; s = open(p).read()
s = re.sub(r"\A# syntax=[^\n]*\n", "", s)
new, n = re.subn(r"RUN (?:--mount=\S+\s+\\\n\s*)*mvn [^\n]*package[^\n]*(?:\\\n[^\n]*?)*?cp (\S+/idemproxy\.jar) (\S+)\n",
                 r"COPY prebuilt.jar \2\n", s)
if n != 1: sys.exit(1)
open(p, "w").write(new)
PY
t0=$(date +%s)
if $DOCKER build --network host -t idemproxy:smoke "$WORK/ctx" >"$WORK/build.log" 2>&1; then
  ok "image builds ($(( $(date +%s) - t0 )) s; $($DOCKER image inspect --format '{{.Size}}' idemproxy:smoke | awk '{printf "%.0f MB with a debootstrap base", $1/1e6}'))"
  base=$(awk 'toupper($1) == "FROM" {b = $2} END {print b}' "$ROOT/Dockerfile")
  echo "info layers above $base: $(( ($($DOCKER image inspect --format '{{.Size}}' idemproxy:smoke) - $($DOCKER image inspect --format '{{.Size}}' "$base")) / 1000000 )) MB (uncompressed)"
else
  grep -E 'ERROR|error' "$WORK/build.log" | tail -5; ko "image build"; echo "image-smoke: $pass passed, $fail failed"; exit 1
fi

curl -fs http://127.0.0.1:18081/ >/dev/null 2>&1 && { echo "something already listens on 127.0.0.1:18081"; echo "image-smoke: $pass passed, 1 failed"; exit 1; }
setsid java -jar "$JAR" demo serve --listen 127.0.0.1:18081 >"$WORK/upstream.log" 2>&1 &
UP_PID=$!
for _ in $(seq 1 100); do curl -fs http://127.0.0.1:18081/tickets >/dev/null 2>&1 && break; sleep 0.1; done
$DOCKER volume rm -f idemproxy-smoke-data >/dev/null 2>&1
start=$(date +%s%N)
$DOCKER run -d --name idemproxy-smoke --read-only --tmpfs /tmp:exec -v idemproxy-smoke-data:/data --memory 320m \
  --network host -e IDEMPROXY_LISTEN=127.0.0.1:18080 -e IDEMPROXY_ADMIN_LISTEN=127.0.0.1:19901 \
  -e IDEMPROXY_UPSTREAM=http://127.0.0.1:18081 -e IDEMPROXY_HEALTH_URL=http://127.0.0.1:19901/healthz idemproxy:smoke >/dev/null
ready=""
for _ in $(seq 1 300); do curl -fs http://127.0.0.1:19901/readyz >/dev/null 2>&1 && { ready=$(( ($(date +%s%N) - start) / 1000000 )); break; }; sleep 0.05; done
if [[ -n $ready ]]; then
  # docker run itself (vfs storage copies the image's layers) takes seconds here: time the JVM's
  # start from the moment the container's process started, as Docker recorded it.
  ready_ns=$(date +%s%N)
  started=$($DOCKER inspect --format '{{.State.StartedAt}}' idemproxy-smoke)
  started_ns=$(date -d "$started" +%s%N)
  ok "ready in $(( (ready_ns - started_ns) / 1000000 )) ms after the container's process started (${ready} ms after docker run; read-only root, --memory 320m)"
else
  $DOCKER logs idemproxy-smoke 2>&1 | tail -5; ko "not ready in 15 s"
fi
uid=$($DOCKER exec idemproxy-smoke id -u 2>/dev/null)
[[ $uid == 10001 ]] && ok "runs as uid 10001" || ko "runs as uid '$uid'"
if grep -q '^COPY bin/idemproxy ' "$ROOT/Dockerfile"; then
  # the command the docs write, found on PATH, finding the jar and the JVM profile by itself
  v=$($DOCKER exec idemproxy-smoke sh -c 'command -v idemproxy && idemproxy --version' 2>&1)
  [[ $? == 0 && $v == /*idemproxy*[0-9]* ]] && ok "idemproxy on PATH: $(echo $v | tr '\n' ' ')" || ko "idemproxy --version in the container: $v"
else
  echo "info the Dockerfile copies no bin/idemproxy: the command is not checked"
fi
modes=$($DOCKER exec idemproxy-smoke sh -c 'stat -c "%a %n" /data /data/*' 2>/dev/null)
echo "$modes" | awk '$1 !~ /^[67]00$/ {bad=1} END {exit bad}' && ok "/data private: $(echo $modes | tr '\n' ' ')" || ko "/data modes: $modes"
body='{"title":"image smoke"}'
a=$(curl -s -D - -o /dev/null http://127.0.0.1:18080/tickets -H 'Content-Type: application/json' -d "$body")
b=$(curl -s -D - -o /dev/null http://127.0.0.1:18080/tickets -H 'Content-Type: application/json' -d "$body")
n=$(curl -s http://127.0.0.1:18081/tickets)
if [[ $a == *" 201"* && $b == *"Idempotent-Replayed: true"* && $n == *'"ticketsCreated":1'* ]]; then ok "protected POST executed once, its duplicate replayed"; else ko "replay: first '${a%%$'\r'*}', second replayed? $(echo "$b" | grep -ci replayed), upstream $n"; fi
rss=$($DOCKER stats --no-stream --format '{{.MemUsage}}' idemproxy-smoke)
echo "info memory after two calls: $rss"
for _ in $(seq 1 30); do h=$($DOCKER inspect --format '{{.State.Health.Status}}' idemproxy-smoke); [[ $h == healthy ]] && break; sleep 1; done
[[ $h == healthy ]] && ok "HEALTHCHECK healthy" || ko "HEALTHCHECK $h"
$DOCKER stop -t 30 idemproxy-smoke >/dev/null
code=$($DOCKER inspect --format '{{.State.ExitCode}}' idemproxy-smoke)
$DOCKER logs idemproxy-smoke 2>&1 | grep -q "drain ended" && ok "SIGTERM drained (exit $code)" || ko "no drain on SIGTERM (exit $code)"
$DOCKER volume rm -f idemproxy-smoke-data >/dev/null 2>&1
echo "image-smoke: $pass passed, $fail failed"
((fail == 0))
