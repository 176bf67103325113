{{/*
Helpers of the idemproxy chart. The sidecar helpers (idemproxy.sidecar, idemproxy.volumes,
idemproxy.terminationGracePeriodSeconds, idemproxy.podLabels, idemproxy.podAnnotations) read only
.Values and .Release, so a parent chart can call them with
  (dict "Values" .Values.idemproxy "Release" .Release)
*/}}

{{- define "idemproxy.name" -}}
{{- default "idemproxy" .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "idemproxy.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default "idemproxy" .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels of the chart's own resources. */}}
{{- define "idemproxy.labels" -}}
app.kubernetes.io/name: {{ include "idemproxy.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Values.image.tag | quote }}
{{- if .Chart }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}
{{- end }}

{{/* Put these on every pod that carries the sidecar: the metrics Service selects them. */}}
{{- define "idemproxy.podLabels" -}}
idemproxy.dev/sidecar: {{ include "idemproxy.fullname" . }}
{{- end }}

{{/*
Restarts the pods when the route policy changes (the proxy also reloads a changed file); with
metrics.scrapeAnnotations, tells an annotation-driven Prometheus where the token-less /metrics is.
*/}}
{{- define "idemproxy.podAnnotations" -}}
checksum/idemproxy-config: {{ include "idemproxy.config" . | sha256sum }}
{{- if and .Values.metrics.scrapeAnnotations (gt (int .Values.metrics.port) 0) }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .Values.metrics.port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- end }}

{{- define "idemproxy.secretName" -}}
{{- include "idemproxy.fullname" . }}
{{- end }}

{{- define "idemproxy.adminSecretName" -}}
{{- default (include "idemproxy.secretName" .) .Values.admin.existingSecret }}
{{- end }}

{{- define "idemproxy.redisSecretName" -}}
{{- default (include "idemproxy.secretName" .) .Values.store.redis.existingSecret }}
{{- end }}

{{/* True when the sidecar gets REDIS_PASSWORD. */}}
{{- define "idemproxy.redisAuth" -}}
{{- if and (eq .Values.store.type "redis") (or .Values.store.redis.password .Values.store.redis.existingSecret) }}true{{ end }}
{{- end }}

{{- define "idemproxy.image" -}}
{{- printf "%s:%s" .Values.image.repository .Values.image.tag }}
{{- end }}

{{/*
The preStop sleep in seconds: sidecar.preStopSleepSeconds for a classic sidecar, which gets
SIGTERM together with the app; 0 (no hook) for a native one, which Kubernetes stops after the app.
*/}}
{{- define "idemproxy.preStopSeconds" -}}
{{- if eq .Values.sidecar.mode "classic" }}{{ int .Values.sidecar.preStopSleepSeconds }}{{ else }}0{{ end }}
{{- end }}

{{/* terminationGracePeriodSeconds: the preStop sleep (classic), then shutdown.grace, then 5 s of slack. */}}
{{- define "idemproxy.terminationGracePeriodSeconds" -}}
{{- add (include "idemproxy.preStopSeconds" . | int) .Values.shutdown.graceSeconds 5 }}
{{- end }}

{{/* idemproxy.yaml: the chart's listen/shutdown/admin/store, then values.config. */}}
{{- define "idemproxy.config" -}}
listen: {{ printf "%s:%d" .Values.proxy.bindAddress (int .Values.proxy.port) | quote }}
shutdown:
  grace: {{ printf "%ds" (int .Values.shutdown.graceSeconds) }}
admin:
  listen: {{ printf "0.0.0.0:%d" (int .Values.admin.port) | quote }}
  token: ${IDEMPROXY_ADMIN_TOKEN}
{{- if gt (int .Values.metrics.port) 0 }}
  metricsListen: {{ printf "0.0.0.0:%d" (int .Values.metrics.port) | quote }}
{{- end }}
store:
  type: {{ .Values.store.type }}
  onUnavailable: {{ .Values.store.onUnavailable }}
{{- if eq .Values.store.type "embedded" }}
  embedded:
    path: /data
{{- else if eq .Values.store.type "memory" }}
  memory:
    maxEntries: {{ int .Values.store.memory.maxEntries }}
{{- with .Values.store.memory.maxBytes }}
    maxBytes: {{ . | quote }}
{{- end }}
{{- else if eq .Values.store.type "redis" }}
  redis:
{{- if include "idemproxy.redisAuth" . }}
    uri: {{ .Values.store.redis.uri | replace "://" (printf "://%s:${REDIS_PASSWORD}@" .Values.store.redis.username) | quote }}
{{- else }}
    uri: {{ .Values.store.redis.uri | quote }}
{{- end }}
    mode: {{ .Values.store.redis.mode }}
    keyPrefix: {{ .Values.store.redis.keyPrefix | quote }}
{{- end }}
{{- if .Values.forwardProxy.enabled }}
forwardProxy:
  connect: {{ .Values.forwardProxy.connect }}
  ca:
    cert: {{ printf "/etc/idemproxy-ca/%s" .Values.forwardProxy.ca.certKey | quote }}
    key: {{ printf "/etc/idemproxy-ca/%s" .Values.forwardProxy.ca.keyKey | quote }}
{{- end }}
{{- with .Values.config }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The pod volumes the sidecar needs: its config, its data directory, a writable /tmp, and with forwardProxy its CA. */}}
{{- define "idemproxy.volumes" -}}
- name: idemproxy-config
  configMap:
    name: {{ include "idemproxy.fullname" . }}
- name: idemproxy-data
  emptyDir:
    {{- with .Values.store.embedded.medium }}
    medium: {{ . }}
    {{- end }}
    sizeLimit: {{ .Values.store.embedded.sizeLimit }}
- name: idemproxy-tmp
  emptyDir:
    sizeLimit: 64Mi
{{- if .Values.forwardProxy.enabled }}
- name: idemproxy-ca
  secret:
    secretName: {{ required "forwardProxy.ca.existingSecret: name the Secret that holds the CA (docs/deployment.md)" .Values.forwardProxy.ca.existingSecret }}
    # Read by the sidecar's group (the pod's fsGroup); never mounted into the app.
    defaultMode: 0440
{{- end }}
{{- end }}
