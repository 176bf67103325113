# syntax=docker/dockerfile:1
#
# idemproxy container image: a Maven build stage (the jar, built for Java 17), a trimmed Java 25
# runtime (jlink), and a slim runtime stage that carries an AOT cache made at build time.
#
#   docker build -t idemproxy:0.1.0 .
#   docker run --rm --read-only --tmpfs /tmp:exec -v idemproxy-data:/data --memory 320m -p 8080:8080 idemproxy:0.1.0
#
# docs/deployment.md explains the defaults (config/docker.yaml, config/jvm.options), the admin
# listener, the read-only root file system (/tmp needs exec: Netty loads its native transport
# from there), the memory limit, why Java 25 and the measured footprint. DockerfileBuildIT runs
# the build stage's Maven command in a copy of the repository holding only what the build stage
# copies, so a missing COPY fails the project's own build, without a Docker engine; then the jre
# stage's jlink, the AOT cache's training run and the ENTRYPOINT. tools/image-smoke.sh builds
# and runs the image with a real Docker engine (docs/testing.md).

############################ build ############################
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# The POMs first, so a source-only change reuses the dependency layer. The reactor lists every
# module, so each module's POM is needed; only the app and what it depends on are built.
COPY pom.xml ./
COPY proxy-core/pom.xml proxy-core/
COPY proxy-app/pom.xml proxy-app/
COPY proxy-bench/pom.xml proxy-bench/
COPY proxy-core/src proxy-core/src
COPY proxy-app/src proxy-app/src
# The cache mount keeps ~/.m2 between builds (BuildKit); nothing of it ends up in the image.
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -q -pl proxy-app -am package -DskipTests \
 && cp proxy-app/target/idemproxy.jar /idemproxy.jar

############################ java runtime ############################
# Java 25 (LTS) runs the jar (built with --release 17, so `java -jar` works on 17 and later): with
# its AOT cache (JEP 483/514/515) the proxy was ready in 1970 ms against 2467 with Java 17 and its
# class-data archive (medians of 7 interleaved starts in a 256 MiB memory group, on a machine
# loaded several times over; docs/deployment.md); its compact object headers (JEP 519) make every
# object 4 bytes smaller.
# Only the modules the proxy uses (jdeps --print-module-deps on the jar, plus the EC provider for
# TLS): about a third of a full JRE. --generate-cds-archive gives it the JDK's base class-data
# archive, for the JVMs started without the AOT cache (the idemproxy command's other verbs).
FROM eclipse-temurin:25-jdk AS jre
RUN jlink --add-modules java.base,java.compiler,java.desktop,java.management,java.naming,java.net.http,java.sql,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.unsupported \
          --strip-debug --no-man-pages --no-header-files --compress=zip-6 --generate-cds-archive --output /jre

############################ runtime ############################
FROM debian:bookworm-slim

# curl serves the HEALTHCHECK.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# A fixed non-root user, so Kubernetes' runAsNonRoot can check the numeric uid.
RUN groupadd --system --gid 10001 idemproxy \
 && useradd --system --uid 10001 --gid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin idemproxy \
 && mkdir -p /app /data /etc/idemproxy \
 && chown 10001:10001 /data && chmod 0700 /data

COPY --from=jre /jre /opt/java
ENV PATH=/opt/java/bin:$PATH
WORKDIR /app
COPY --from=build /idemproxy.jar /app/idemproxy.jar
COPY config/jvm.options /etc/idemproxy/jvm.options
COPY config/docker.yaml /etc/idemproxy/idemproxy.yaml
# The idemproxy command (docs write `idemproxy ...`): it finds /app/idemproxy.jar and
# /etc/idemproxy/jvm.options and execs java, e.g. `docker exec CONTAINER idemproxy dlq list`.
COPY bin/idemproxy /usr/local/bin/idemproxy

# The AOT cache: a training run of `idemproxy demo` (it starts a proxy, an upstream and an agent,
# and ends by itself) records the classes the proxy loads and links, and the methods' profiles;
# every start then maps them, already loaded and linked, instead of loading, verifying and
# profiling them again. Made with the JVM, jar path and options the entrypoint uses, as the cache
# requires (compact object headers included).
RUN java -XX:AOTCacheOutput=/app/idemproxy.aot -XX:+UseCompactObjectHeaders @/etc/idemproxy/jvm.options -jar /app/idemproxy.jar demo > /dev/null \
 && chmod 0444 /app/idemproxy.aot

# The embedded store lives here: mount a volume (docker -v, a Kubernetes emptyDir or PVC).
# Nothing else is written outside /tmp, so the root file system can be read-only.
VOLUME /data

# 8080: the proxy (listen). 9901: the admin API (admin.listen) — on 127.0.0.1 inside the
# container unless IDEMPROXY_ADMIN_LISTEN and IDEMPROXY_ADMIN_TOKEN are set (see config/docker.yaml).
EXPOSE 8080 9901

USER 10001:10001

# Runs inside the container, so it reaches the admin listener on 127.0.0.1 too. /healthz never
# needs the admin token. IDEMPROXY_HEALTH_URL follows a moved admin listener.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD curl -fsS "${IDEMPROXY_HEALTH_URL:-http://127.0.0.1:9901/healthz}" > /dev/null || exit 1

# exec form: java is PID 1 and receives SIGTERM itself (graceful stop within shutdown.grace).
# config/jvm.options sizes the heap from the container's memory limit; compact object headers
# (Java 25; config/jvm.options stays valid on 17) shrink every object by 4 bytes; a cache that
# does not match this JVM is ignored with a warning (AOTMode auto), never fatal. MALLOC_ARENA_MAX
# keeps glibc from giving every thread its own arena.
ENV MALLOC_ARENA_MAX=2
ENTRYPOINT ["java", "-XX:AOTCache=/app/idemproxy.aot", "-XX:+UseCompactObjectHeaders", "@/etc/idemproxy/jvm.options", "-Djava.io.tmpdir=/tmp", "-jar", "/app/idemproxy.jar"]
CMD ["run", "--config", "/etc/idemproxy/idemproxy.yaml"]
