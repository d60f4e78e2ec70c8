#!/usr/bin/env bash
# The production-shaped lab on this machine (docs/lab.md: "A production-shaped lab"): Temporal Server built from
# the Go module proxy, four processes on Debian's PostgreSQL, its Web UI, and three hosts (novox, forge1,
# edge3), each a network namespace with its own containerd and dockerd. Idempotent: each part is built,
# installed or started only when missing, and says in one line what it did. Run as root.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/base-image.sh
source "$LAB_REPO/scripts/lib/base-image.sh"
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/configs.sh"
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/description.sh"
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/mesh.sh"

step() { lab_step lab "$@"; }

# --- helpers ---------------------------------------------------------------------------------------------

# Writes stdin to the file when it differs; true when it did.
write_if_changed() {
  local content
  content=$(cat)
  [ "$content" != "$(cat "$1" 2>/dev/null)" ] || return 1
  printf '%s\n' "$content" >"$1"
}

# Stops a daemon of the lab if it runs.
stop_daemon() {
  local pid
  if pid=$(lab_running_pid "$LAB_PIDS/$1.pid" "$2"); then lab_stop_pids "$3" "$pid"; fi
}

# Polls a check every half second; fails with the message after that many seconds.
wait_until() {
  local seconds=$1 message=$2 tries=0
  shift 2
  until "$@"; do
    if [ "$tries" -ge $((seconds * 2)) ]; then
      echo "$message (waited ${seconds}s)" >&2
      return 1
    fi
    sleep 0.5
    tries=$((tries + 1))
  done
}

# --- parts -----------------------------------------------------------------------------------------------

tools() {
  local missing=() cmd
  for cmd in ip:iproute2 iptables:iptables nsenter:util-linux curl:curl jq:jq dockerd:docker.io containerd:containerd; do
    command -v "${cmd%%:*}" >/dev/null 2>&1 || missing+=("${cmd#*:}")
  done
  command -v go >/dev/null 2>&1 || { echo "Go is not on PATH: Temporal is built with it (Debian's golang-go is too old)" >&2; return 1; }
  command -v temporal >/dev/null 2>&1 || { echo "the temporal CLI is not on PATH: run scripts/bootstrap.sh first" >&2; return 1; }
  local socket
  for socket in "$(lab_host_socket forge1)" "$(lab_containerd_socket forge1).ttrpc"; do
    if [ "${#socket}" -gt 107 ]; then
      echo "MESH_LAB_DIR is too long for a unix socket ($socket has ${#socket} bytes, at most 107): choose a shorter one" >&2
      return 1
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}"
    echo "installed ${missing[*]}"
    return
  fi
  echo "present ($(go version | cut -d' ' -f3), temporal CLI $(temporal --version | cut -d' ' -f3))"
}

# go install into a scratch GOBIN (both main packages are called `server`), then moved into place whole, so
# an interrupted build leaves no half cache.
go_install_as() {
  local package=$1 name=$2 into=$3 gobin
  gobin=$(mktemp -d "$into/.gobin.XXXXXX")
  CGO_ENABLED=0 GOBIN=$gobin go install "$package" >&2
  mv "$gobin/$(basename "${package%@*}")" "$into/$name"
  rmdir "$gobin"
}

temporal_build() {
  local bin=$TEMPORAL_DIR/bin schema=$TEMPORAL_DIR/schema/postgresql/v12
  if [ -x "$bin/temporal-server" ] && [ -x "$bin/temporal-sql-tool" ] && [ -f "$schema/version.go" ]; then
    echo "cached $TEMPORAL_VERSION ($TEMPORAL_DIR)"
    return
  fi
  mkdir -p "$LAB_CACHE"
  local scratch
  scratch=$(mktemp -d "$LAB_CACHE/.temporal-$TEMPORAL_VERSION.XXXXXX")
  mkdir -p "$scratch/bin" "$scratch/schema/postgresql"
  go_install_as "go.temporal.io/server/cmd/server@v$TEMPORAL_VERSION" temporal-server "$scratch/bin"
  go_install_as "go.temporal.io/server/cmd/tools/sql@v$TEMPORAL_VERSION" temporal-sql-tool "$scratch/bin"
  cp -r "$(go env GOMODCACHE)/go.temporal.io/server@v$TEMPORAL_VERSION/schema/postgresql/v12" "$scratch/schema/postgresql/"
  chmod -R u+w "$scratch/schema"
  rm -rf "$TEMPORAL_DIR"
  mv "$scratch" "$TEMPORAL_DIR"
  echo "built $TEMPORAL_VERSION with $(go version | cut -d' ' -f3)"
}

ui_build() {
  if [ -x "$UI_SERVER_DIR/bin/ui-server" ]; then
    echo "cached $TEMPORAL_UI_VERSION ($UI_SERVER_DIR)"
    return
  fi
  mkdir -p "$LAB_CACHE"
  local scratch
  scratch=$(mktemp -d "$LAB_CACHE/.ui-server-$TEMPORAL_UI_VERSION.XXXXXX")
  mkdir -p "$scratch/bin"
  go_install_as "github.com/temporalio/ui-server/v2/cmd/server@v$TEMPORAL_UI_VERSION" ui-server "$scratch/bin"
  rm -rf "$UI_SERVER_DIR"
  mv "$scratch" "$UI_SERVER_DIR"
  echo "built $TEMPORAL_UI_VERSION with $(go version | cut -d' ' -f3)"
}

postgresql() {
  local did=()
  if [ ! -x "$LAB_PG_BIN/postgres" ]; then
    apt_install postgresql-15
    did+=("installed postgresql-15")
  fi
  mkdir -p "$LAB_PG_DIR" "$LAB_PG_MOUNT"
  chown postgres:postgres "$LAB_PG_DIR"
  chmod 0700 "$LAB_PG_DIR"
  if ! mountpoint -q "$LAB_PG_MOUNT"; then
    mount --bind "$LAB_PG_DIR" "$LAB_PG_MOUNT"
    did+=("mounted at $LAB_PG_MOUNT")
  fi
  if [ ! -s "$LAB_PG_DATA/PG_VERSION" ]; then
    lab_pg initdb -D "$LAB_PG_DATA" -U postgres -E UTF8 --auth-local=peer --auth-host=scram-sha-256 >&2
    echo "include_if_exists = 'mesh-lab.conf'" >>"$LAB_PG_DATA/postgresql.conf"
    did+=("initdb")
  fi
  runuser -u postgres -- mkdir -p "$LAB_PG_SOCKETS"
  local conf
  conf=$(printf '%s\n' "# Written by scripts/lab/up.sh." "port = $LAB_PG_PORT" "listen_addresses = '127.0.0.1'" \
    "unix_socket_directories = '$LAB_PG_SOCKETS'" "max_connections = 200")
  if [ "$(cat "$LAB_PG_DATA/mesh-lab.conf" 2>/dev/null)" != "$conf" ]; then
    runuser -u postgres -- tee "$LAB_PG_DATA/mesh-lab.conf" <<<"$conf" >/dev/null
    if lab_pg_running; then
      lab_pg pg_ctl restart -D "$LAB_PG_DATA" -l "$LAB_PG_LOG" -w -m fast >&2
      did+=("restarted with its new settings")
    fi
  fi
  if ! lab_pg_running; then
    runuser -u postgres -- setsid "$LAB_PG_BIN/pg_ctl" start -D "$LAB_PG_DATA" -l "$LAB_PG_LOG" -w >&2
    did+=("started on 127.0.0.1:$LAB_PG_PORT")
  fi
  [ ${#did[@]} -gt 0 ] || did=("running on 127.0.0.1:$LAB_PG_PORT")
  join_said "${did[@]}"
}

pg_superuser() { lab_pg psql -X -q -v ON_ERROR_STOP=1 -h "$LAB_PG_SOCKETS" -p "$LAB_PG_PORT" -d postgres "$@"; }

# curr_version of each database's schema_version, as the temporal role sees it over TCP (so the password
# is checked too), e.g. "1.18 1.9"; empty when anything is missing.
schema_versions() {
  local db
  for db in temporal temporal_visibility; do
    PGPASSWORD=$(cat "$LAB_PG_PASSWORD_FILE") psql -X -A -t -h 127.0.0.1 -p "$LAB_PG_PORT" -U temporal -d "$db" \
      -c 'SELECT curr_version FROM schema_version' 2>/dev/null || return 0
  done | tr '\n' ' ' | sed 's/ $//'
}

temporal_schema() {
  local schema=$TEMPORAL_DIR/schema/postgresql/v12 want
  want="$(sed -n 's/^const Version = "\(.*\)"/\1/p' "$schema/version.go") $(sed -n 's/^const VisibilityVersion = "\(.*\)"/\1/p' "$schema/version.go")"
  if [ ! -s "$LAB_PG_PASSWORD_FILE" ]; then
    (umask 077 && od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$LAB_PG_PASSWORD_FILE")
  fi
  if [ "$(schema_versions)" = "$want" ]; then
    echo "up to date (temporal ${want% *}, visibility ${want#* })"
    return
  fi
  # The password travels on stdin, never on a command line.
  if [ -z "$(pg_superuser -A -t -c "SELECT 1 FROM pg_roles WHERE rolname = 'temporal'")" ]; then
    pg_superuser -c 'CREATE ROLE temporal LOGIN CREATEDB'
  fi
  printf "ALTER ROLE temporal PASSWORD '%s';\n" "$(cat "$LAB_PG_PASSWORD_FILE")" | pg_superuser
  PATH=$TEMPORAL_DIR/bin:$PATH POSTGRES_SEEDS=127.0.0.1 DB_PORT=$LAB_PG_PORT POSTGRES_USER=temporal \
    SQL_PASSWORD=$(cat "$LAB_PG_PASSWORD_FILE") TEMPORAL_SCHEMA_ROOT=$schema \
    sh "$LAB_REPO/deploy/temporal/setup-schema.sh" >&2
  [ "$(schema_versions)" = "$want" ] || { echo "the schema versions are '$(schema_versions)', not '$want'" >&2; return 1; }
  echo "temporal ${want% *}, visibility ${want#* } applied with setup-schema.sh"
}

lab_bridge() {
  local did=()
  if ! ip link show "$LAB_BRIDGE" >/dev/null 2>&1; then
    ip link add "$LAB_BRIDGE" type bridge
    did+=("created $LAB_BRIDGE")
  fi
  ip addr replace "$LAB_GATEWAY/24" dev "$LAB_BRIDGE"
  ip link set "$LAB_BRIDGE" up
  # Hosts reach each other and this machine, nothing beyond it; nothing else is forwarded into the lab.
  # (With br_netfilter, bridged frames pass FORWARD, whose policy the main dockerd sets to DROP.)
  local rule
  for rule in "-i $LAB_BRIDGE -o $LAB_BRIDGE -j ACCEPT" "-i $LAB_BRIDGE ! -o $LAB_BRIDGE -j REJECT" \
    "! -i $LAB_BRIDGE -o $LAB_BRIDGE -j REJECT"; do
    # shellcheck disable=SC2086 # each rule is a list of words
    if ! iptables -C FORWARD $rule -m comment --comment "$LAB_RULE_TAG" 2>/dev/null; then
      # shellcheck disable=SC2086
      iptables -I FORWARD 1 $rule -m comment --comment "$LAB_RULE_TAG"
      did+=("forward rule: $rule")
    fi
  done
  if [ ${#did[@]} -gt 0 ]; then
    echo "set up $LAB_BRIDGE $LAB_GATEWAY/24 (${#did[@]} changes)"
  else
    echo "up ($LAB_BRIDGE $LAB_GATEWAY/24)"
  fi
}

temporal_healthy() { [[ $(temporal operator cluster health --address "$LAB_FRONTEND" 2>/dev/null) == *SERVING* ]]; }

# The temporal services this run of up.sh started, by service: their liveness is that process's own.
declare -A TEMPORAL_STARTED=()

# Ends the part when a service has exited, with that service's last words: one this run started is looked
# at by the pid it started, the others by their pid files.
temporal_alive_or_exit() {
  local service alive
  for service in "$@"; do
    if [ -n "${TEMPORAL_STARTED[$service]:-}" ]; then
      alive=$(lab_alive "${TEMPORAL_STARTED[$service]}" && echo yes || true)
    else
      alive=$(lab_running_pid "$LAB_PIDS/temporal-$service.pid" "--service $service" >/dev/null && echo yes || true)
    fi
    if [ "$alive" != yes ]; then
      echo "temporal $service exited: see $LAB_LOGS/temporal-$service.log" >&2
      tail -n 1 "$LAB_LOGS/temporal-$service.log" | cut -c 1-400 >&2
      exit 1
    fi
  done
}

cluster_metadata_written() {
  temporal_alive_or_exit "$1"
  [ "$(PGPASSWORD=$(cat "$LAB_PG_PASSWORD_FILE") psql -X -A -t -h 127.0.0.1 -p "$LAB_PG_PORT" -U temporal \
    -d temporal -c 'SELECT count(*) FROM cluster_metadata_info' 2>/dev/null)" = 1 ]
}

serving_with() {
  temporal_alive_or_exit "$@"
  temporal_healthy
}

temporal_server() {
  local config=$LAB_DIR/temporal/config/lab.yaml changed=0 launched=() service pid
  mkdir -p "$(dirname "$config")"
  if [ "$(temporal_config)" != "$(cat "$config" 2>/dev/null)" ]; then
    temporal_config >"$config"
    changed=1
  fi
  for service in "${TEMPORAL_SERVICES[@]}"; do
    if pid=$(lab_running_pid "$LAB_PIDS/temporal-$service.pid" "--service $service"); then
      [ "$changed" = 1 ] || continue
      lab_stop_pids 30 "$pid"
    fi
    MESH_LAB_PG_PASSWORD=$(cat "$LAB_PG_PASSWORD_FILE") MESH_LAB_METRICS_PORT=${TEMPORAL_METRICS_PORT[$service]} \
      lab_start "temporal-$service" "$TEMPORAL_DIR/bin/temporal-server" --root "$LAB_DIR/temporal" \
      --config config --env lab --allow-no-auth start --service "$service"
    TEMPORAL_STARTED[$service]=$LAB_STARTED_PID
    launched+=("$service")
    # On a new database the services race to write the cluster's metadata and the losers exit ("Failed to
    # apply cluster metadata", seen here): the first one started writes it alone.
    wait_until 30 "temporal $service wrote no cluster metadata" cluster_metadata_written "$service"
  done
  wait_until 60 "the frontend at $LAB_FRONTEND is not SERVING" serving_with "${launched[@]}"
  if [ ${#launched[@]} -gt 0 ]; then
    sleep 1 # a service that failed at its start exits within a moment
    temporal_alive_or_exit "${TEMPORAL_SERVICES[@]}"
  fi
  if [ ${#launched[@]} -eq 0 ]; then
    echo "SERVING at $LAB_FRONTEND (4 services running)"
  else
    echo "started ${launched[*]}; SERVING at $LAB_FRONTEND"
  fi
}

temporal_namespace() {
  local said namespace attributes
  said=$(TEMPORAL_ADDRESS=$LAB_FRONTEND TEMPORAL_NAMESPACE=$LAB_NAMESPACE sh "$LAB_REPO/deploy/temporal/setup-namespace.sh")
  echo "$said" >&2
  namespace=$(grep -c "namespace $LAB_NAMESPACE created" <<<"$said" || true)
  attributes=$(grep -c 'search attribute .* created' <<<"$said" || true)
  if [ "$namespace" = 0 ] && [ "$attributes" = 0 ]; then
    echo "$LAB_NAMESPACE and its search attributes exist"
  elif [ "$namespace" = 0 ]; then
    echo "$attributes search attributes created in $LAB_NAMESPACE (setup-namespace.sh)"
  else
    echo "$LAB_NAMESPACE created with $attributes search attributes (setup-namespace.sh)"
  fi
}

ui_lists_namespace() {
  curl -sf "$LAB_UI_URL/api/v1/namespaces" 2>/dev/null |
    jq -e --arg ns "$LAB_NAMESPACE" 'any(.namespaces[]; .namespaceInfo.name == $ns)' >/dev/null 2>&1
}

web_ui() {
  local config=$LAB_DIR/ui/config/lab.yaml state="running" pid
  mkdir -p "$(dirname "$config")"
  if [ "$(ui_config)" != "$(cat "$config" 2>/dev/null)" ]; then
    ui_config >"$config"
    if pid=$(lab_running_pid "$LAB_PIDS/ui-server.pid" ui-server); then lab_stop_pids 10 "$pid"; fi
  fi
  if ! lab_running_pid "$LAB_PIDS/ui-server.pid" ui-server >/dev/null; then
    lab_start ui-server "$UI_SERVER_DIR/bin/ui-server" --root "$LAB_DIR/ui" --config config --env lab start
    state="started"
  fi
  local waited=0
  until ui_lists_namespace; do
    lab_running_pid "$LAB_PIDS/ui-server.pid" ui-server >/dev/null || {
      echo "the ui-server exited: see $LAB_LOGS/ui-server.log" >&2
      return 1
    }
    [ "$waited" -lt 60 ] || { echo "$LAB_UI_URL/api/v1/namespaces does not list $LAB_NAMESPACE after 30s" >&2; return 1; }
    sleep 0.5
    waited=$((waited + 1))
  done
  [[ $(curl -sf "$LAB_UI_URL/") == *"<html"* ]] || { echo "$LAB_UI_URL/ serves no page" >&2; return 1; }
  echo "$state at $LAB_UI_URL (lists $LAB_NAMESPACE)"
}

etc_hosts() {
  local want
  want=$(hosts_block)
  [ "$(lab_hosts_block_in /etc/hosts)" != "$want" ] || return 1
  local rest
  rest=$(lab_hosts_without_block /etc/hosts)
  # Rewritten in place: /etc/hosts may be a bind mount.
  printf '%s\n%s\n' "$rest" "$want" >/etc/hosts
}

lab_hosts() {
  local host ns ip made=() root
  for host in "${LAB_HOSTS[@]}"; do
    ns=mlab-$host ip=${LAB_HOST_IP[$host]}
    if [ ! -e "/run/netns/$ns" ]; then
      ip netns add "$ns"
      made+=("$host")
    fi
    if ! ip link show "$ns" >/dev/null 2>&1; then
      ip link add "$ns" type veth peer name eth0 netns "$ns"
    fi
    ip link set "$ns" master "$LAB_BRIDGE" up
    ip -n "$ns" addr replace "$ip/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route replace default via "$LAB_GATEWAY"
    root=$(lab_host_dir "$host")/root
    mkdir -p "$root/etc"
    if ! grep -qxE '[0-9a-f]{32}' "$root/etc/machine-id" 2>/dev/null; then
      od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$root/etc/machine-id"
      echo >>"$root/etc/machine-id"
    fi
  done
  local said
  if [ ${#made[@]} -gt 0 ]; then said="created ${made[*]} on $LAB_BRIDGE"; else said="up (${LAB_HOSTS[*]})"; fi
  if etc_hosts; then said="$said; /etc/hosts block written"; fi
  echo "$said"
}

engine_answers() { docker -H "unix://$(lab_host_socket "$1")" version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# Each host: its own containerd, then its own dockerd given that socket, both entered into the host's network
# namespace only (nsenter --net). `ip netns exec` remounts /sys in a private mount namespace, which hides the
# cgroup mounts: dockerd 20.10 then refuses to start ("Devices cgroup isn't mounted"). Left to itself, dockerd
# uses /run/containerd/containerd.sock whenever that socket exists, and engines sharing one containerd share
# its state and events: a host's engine could then not be killed alone.
engines() {
  local host dir fresh launched=()
  for host in "${LAB_HOSTS[@]}"; do
    dir=$(lab_host_dir "$host")
    mkdir -p "$dir/run/containerd"
    fresh=0
    containerd_config "$host" | write_if_changed "$dir/containerd.toml" && fresh=1
    # A new containerd takes a new dockerd: both restart.
    if [ "$fresh" = 1 ]; then stop_daemon "dockerd-$host" "$dir/daemon.json" 60; fi
    dockerd_config "$host" | write_if_changed "$dir/daemon.json" && stop_daemon "dockerd-$host" "$dir/daemon.json" 60
    if [ "$fresh" = 1 ]; then stop_daemon "containerd-$host" "$dir/containerd.toml" 30; fi
    if ! lab_running_pid "$LAB_PIDS/containerd-$host.pid" "$dir/containerd.toml" >/dev/null; then
      lab_start "containerd-$host" nsenter "--net=/run/netns/mlab-$host" containerd --config "$dir/containerd.toml"
      launched+=("containerd-$host")
    fi
  done
  for host in "${LAB_HOSTS[@]}"; do
    dir=$(lab_host_dir "$host")
    wait_until 30 "containerd of $host has no socket: see $LAB_LOGS/containerd-$host.log" \
      test -S "$(lab_containerd_socket "$host")"
    if ! lab_running_pid "$LAB_PIDS/dockerd-$host.pid" "$dir/daemon.json" >/dev/null; then
      # Its own pid file outlives a dockerd that died with the machine, and dockerd refuses to start while
      # any process has that pid (after a reboot, often some other process).
      rm -f "$dir/run/docker.pid"
      lab_start "dockerd-$host" nsenter "--net=/run/netns/mlab-$host" dockerd --config-file "$dir/daemon.json"
      launched+=("dockerd-$host")
    fi
  done
  for host in "${LAB_HOSTS[@]}"; do
    wait_until 60 "dockerd of $host does not answer: see $LAB_LOGS/dockerd-$host.log" engine_answers "$host"
  done
  if [ ${#launched[@]} -eq 0 ]; then
    echo "answering (${LAB_HOSTS[*]}, each its own dockerd and containerd)"
  else
    echo "started ${launched[*]}"
  fi
}

base_images() {
  local host outcome
  declare -A hosts_by_outcome=()
  for host in "${LAB_HOSTS[@]}"; do
    outcome=$(DOCKER_HOST="unix://$(lab_host_socket "$host")" MESH_BASE_IMAGE_PULL=0 base_image)
    hosts_by_outcome[$outcome]+="${hosts_by_outcome[$outcome]:+ }$host"
  done
  for outcome in "${!hosts_by_outcome[@]}"; do printf '%s on %s; ' "$outcome" "${hosts_by_outcome[$outcome]}"; done |
    sed 's/; $//'
}

description() {
  local json env
  json=$(lab_description)
  env=$(lab_env)
  if [ "$json" = "$(cat "$LAB_DIR/lab.json" 2>/dev/null)" ] && [ "$env" = "$(cat "$LAB_DIR/lab.env" 2>/dev/null)" ]; then
    echo "up to date ($LAB_DIR/lab.json, lab.env)"
    return
  fi
  echo "$json" >"$LAB_DIR/lab.json"
  echo "$env" >"$LAB_DIR/lab.env"
  echo "wrote $LAB_DIR/lab.json and lab.env"
}

# --- run -------------------------------------------------------------------------------------------------

if [ "$(id -u)" != 0 ]; then
  echo "scripts/lab/up.sh needs root (network namespaces, dockerd, PostgreSQL as the postgres user)" >&2
  exit 2
fi
mkdir -p "$LAB_DIR" "$LAB_LOGS" "$LAB_PIDS"
started=$SECONDS
echo "lab: $LAB_DIR (progress in $LAB_LOG)"
step "tools" tools
step "temporal build" temporal_build
step "ui-server build" ui_build
step "postgresql" postgresql
step "temporal schema" temporal_schema
step "lab bridge" lab_bridge
step "temporal server" temporal_server
step "namespace" temporal_namespace
step "web ui" web_ui
step "hosts" lab_hosts
step "host engines" engines
step "base image" base_images

# The mesh and the runbook's workers (scripts/lab/mesh.sh); scripts/lab/down.sh stops them first.
step "code" lab_code
step "mesh controller" mesh_controller
step "node agents" mesh_agents
step "worker configs" runbook_configs
step "workers" runbook_workers
step "lab.json" description

echo "lab: ready in $((SECONDS - started))s: Temporal $LAB_FRONTEND (namespace $LAB_NAMESPACE), Web UI $LAB_UI_URL, hosts ${LAB_HOSTS[*]} (lab.json in $LAB_DIR)"
