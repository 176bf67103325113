# syntax=docker/dockerfile:1
#
# idemproxy container image: a Maven build stage, then a JRE runtime.
#
#   docker build -t idemproxy:0.1.0 .
#   docker run --rm --read-only --tmpfs /tmp -v idemproxy-data:/data -p 8080:8080 idemproxy:0.1.0
#
# docs/deployment.md explains the defaults (config/docker.yaml), the admin listener and the
# read-only root file system.

############################ build ############################
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# The POMs first, so a source-only change reuses the dependency layer.
COPY pom.xml ./
COPY proxy-core/pom.xml proxy-core/
COPY proxy-app/pom.xml proxy-app/
COPY proxy-core/src proxy-core/src
COPY proxy-app/src proxy-app/src
# The cache mount keeps ~/.m2 between builds (BuildKit); nothing of it ends up in the image.
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -q package -DskipTests \
 && cp proxy-app/target/idemproxy.jar /idemproxy.jar

############################ runtime ############################
FROM eclipse-temurin:17-jre

# curl serves the HEALTHCHECK. Recent eclipse-temurin images already ship it; installing it
# here keeps the health check working should the base image drop it (a no-op otherwise).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl \
 && rm -rf /var/lib/apt/lists/*

# A fixed non-root user, so Kubernetes' runAsNonRoot can check the numeric uid.
RUN groupadd --system --gid 10001 idemproxy \
 && useradd --system --uid 10001 --gid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin idemproxy \
 && mkdir -p /app /data /etc/idemproxy \
 && chown 10001:10001 /data

WORKDIR /app
COPY --from=build /idemproxy.jar /app/idemproxy.jar
COPY config/docker.yaml /etc/idemproxy/idemproxy.yaml

# The embedded store lives here: mount a volume (docker -v, a Kubernetes emptyDir or PVC).
# Nothing else is written outside /tmp, so the root file system can be read-only.
VOLUME /data

# Heap from the container's memory limit, not the host's; die (and be restarted) on OOM rather
# than limp on; no hsperfdata files in /tmp.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData -Djava.io.tmpdir=/tmp"

# 8080: the proxy (listen). 9901: the admin API (admin.listen) — on 127.0.0.1 inside the
# container unless IDEMPROXY_ADMIN_LISTEN and IDEMPROXY_ADMIN_TOKEN are set (see config/docker.yaml).
EXPOSE 8080 9901

USER 10001:10001

# Runs inside the container, so it reaches the admin listener on 127.0.0.1 too. /healthz never
# needs the admin token. IDEMPROXY_HEALTH_URL follows a moved admin listener.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD curl -fsS "${IDEMPROXY_HEALTH_URL:-http://127.0.0.1:9901/healthz}" > /dev/null || exit 1

# exec form: java is PID 1 and receives SIGTERM itself (graceful stop within shutdown.grace).
ENTRYPOINT ["java", "-jar", "/app/idemproxy.jar"]
CMD ["run", "--config", "/etc/idemproxy/idemproxy.yaml"]
