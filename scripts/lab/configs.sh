# shellcheck shell=bash
# Sourced by scripts/lab/up.sh: the files it writes for the lab's daemons, each printed on stdout (up.sh
# compares them with what is on disk and restarts a daemon whose file changed).

temporal_config() {
  local service
  cat <<EOF
# enable-template
# Written by scripts/lab/up.sh: Temporal Server $TEMPORAL_VERSION for the lab, one process per service. The
# PostgreSQL password and each process's metrics port come from its environment.
log:
  stdout: true
  level: info
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
      sql:
        pluginName: postgres12
        databaseName: temporal
        connectAddr: "127.0.0.1:$LAB_PG_PORT"
        connectProtocol: tcp
        user: temporal
        password: '{{ env "MESH_LAB_PG_PASSWORD" }}'
        maxConns: 20
        maxIdleConns: 20
        maxConnLifetime: 1h
    postgres-visibility:
      sql:
        pluginName: postgres12
        databaseName: temporal_visibility
        connectAddr: "127.0.0.1:$LAB_PG_PORT"
        connectProtocol: tcp
        user: temporal
        password: '{{ env "MESH_LAB_PG_PASSWORD" }}'
        maxConns: 10
        maxIdleConns: 10
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "$LAB_GATEWAY"
  metrics:
    prometheus:
      framework: tally
      timerType: histogram
      listenAddress: '127.0.0.1:{{ env "MESH_LAB_METRICS_PORT" }}'
services:
EOF
  for service in "${TEMPORAL_SERVICES[@]}"; do
    printf '  %s:\n    rpc:\n      grpcPort: %s\n      membershipPort: %s\n      bindOnIP: "%s"\n' \
      "$service" "${TEMPORAL_GRPC_PORT[$service]}" "${TEMPORAL_MEMBERSHIP_PORT[$service]}" "$LAB_GATEWAY"
    [ "$service" != frontend ] || printf '      httpPort: %s\n' "$TEMPORAL_HTTP_PORT"
  done
  cat <<EOF
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "$LAB_FRONTEND"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "$LAB_REPO/deploy/temporal/dynamicconfig/mesh.yaml"
  pollInterval: 10s
EOF
}

ui_config() {
  cat <<EOF
# Written by scripts/lab/up.sh: the Web UI $TEMPORAL_UI_VERSION for the lab's frontend, over plain HTTP.
# Its CSRF cookie is not Secure, as the dev server's: a browser keeps a Secure one on loopback only, and
# reached at any other address the UI would lose it and every Query, Signal and Update it sends is refused.
temporalGrpcAddress: "$LAB_FRONTEND"
host: 127.0.0.1
port: $LAB_UI_PORT
enableUi: true
defaultNamespace: $LAB_NAMESPACE
disableWriteActions: false
workflowSignalDisabled: false
workflowUpdateDisabled: false
workflowCancelDisabled: false
workflowTerminateDisabled: false
cors:
  cookieInsecure: true
  allowOrigins:
    - "http://127.0.0.1:$LAB_UI_PORT"
    - "http://localhost:$LAB_UI_PORT"
EOF
}

hosts_block() {
  local host
  echo "$LAB_HOSTS_BEGIN"
  for host in "${LAB_HOSTS[@]}"; do echo "${LAB_HOST_IP[$host]} $host.lab"; done
  echo "$LAB_HOSTS_END"
}

containerd_config() {
  local dir
  dir=$(lab_host_dir "$1")
  cat <<EOF
# Written by scripts/lab/up.sh: host $1's own containerd, inside its network namespace.
version = 2
root = "$dir/containerd"
state = "$dir/run/containerd/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$dir/run/containerd/containerd.sock"
[ttrpc]
  address = "$dir/run/containerd/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/containerd/opt"
EOF
}

dockerd_config() {
  local dir
  dir=$(lab_host_dir "$1")
  # The engine ID comes from this key: the default, /etc/docker/key.json, is the main engine's.
  jq -n --arg dir "$dir" --arg host "$1" '{
    "data-root": "\($dir)/docker",
    "exec-root": "\($dir)/run/docker",
    pidfile: "\($dir)/run/docker.pid",
    hosts: ["unix://\($dir)/docker.sock"],
    containerd: "\($dir)/run/containerd/containerd.sock",
    "cgroup-parent": "mlab-\($host)",
    "deprecated-key-path": "\($dir)/key.json"
  }'
}
