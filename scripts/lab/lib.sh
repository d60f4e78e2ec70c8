# shellcheck shell=bash disable=SC2034 # the variables are the sourcing scripts'
# Sourced by scripts/lab/up.sh and scripts/lab/down.sh: where the production-shaped lab lives, its names,
# addresses and ports, and the helpers both scripts time their parts and run their daemons with.

LAB_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB_DIR=${MESH_LAB_DIR:-$HOME/.local/state/mesh/lab}
LAB_CACHE=${MESH_LAB_CACHE:-$HOME/.cache/mesh/lab}
LAB_LOG=$LAB_DIR/lab.log
LAB_LOGS=$LAB_DIR/log
LAB_PIDS=$LAB_DIR/run

# The versions docker-compose.yml pins (the defaults of its ${VAR:-default}), never typed twice.
compose_default() {
  sed -n "s/.*\${$1:-\([^}]*\)}.*/\1/p" "$LAB_REPO/docker-compose.yml" | head -n 1
}
TEMPORAL_VERSION=$(compose_default TEMPORAL_VERSION)
TEMPORAL_UI_VERSION=$(compose_default TEMPORAL_UI_VERSION)
TEMPORAL_DIR=$LAB_CACHE/temporal-$TEMPORAL_VERSION
UI_SERVER_DIR=$LAB_CACHE/ui-server-$TEMPORAL_UI_VERSION

LAB_BRIDGE=mlab0
LAB_GATEWAY=10.87.0.1
LAB_HOSTS=(novox forge1 edge3)
declare -A LAB_HOST_IP=([novox]=10.87.0.11 [forge1]=10.87.0.12 [edge3]=10.87.0.13)
LAB_HOSTS_BEGIN='# mesh lab: begin (scripts/lab/up.sh writes this block, scripts/lab/down.sh removes it)'
LAB_HOSTS_END='# mesh lab: end'
# Tags the lab's iptables rules in the root namespace, so down.sh deletes exactly those.
LAB_RULE_TAG=mesh-lab

LAB_NAMESPACE=mesh
TEMPORAL_SERVICES=(history matching frontend worker)
declare -A TEMPORAL_GRPC_PORT=([frontend]=17233 [history]=17234 [matching]=17235 [worker]=17239)
declare -A TEMPORAL_MEMBERSHIP_PORT=([frontend]=16933 [history]=16934 [matching]=16935 [worker]=16939)
declare -A TEMPORAL_METRICS_PORT=([frontend]=19090 [history]=19091 [matching]=19092 [worker]=19093)
TEMPORAL_HTTP_PORT=17243
LAB_FRONTEND=$LAB_GATEWAY:${TEMPORAL_GRPC_PORT[frontend]}
LAB_UI_PORT=18233
LAB_UI_URL=http://127.0.0.1:$LAB_UI_PORT

LAB_PG_PORT=15432
LAB_PG_BIN=/usr/lib/postgresql/15/bin
LAB_PG_DIR=$LAB_DIR/postgresql
# The postgres user cannot traverse a home directory like /root (0700): the cluster's directory is
# bind-mounted here, and postgres only ever sees this path.
LAB_PG_MOUNT=/run/mesh-lab/postgresql
LAB_PG_DATA=$LAB_PG_MOUNT/data
LAB_PG_SOCKETS=$LAB_PG_MOUNT/run
LAB_PG_LOG=$LAB_PG_MOUNT/postgresql.log
LAB_PG_PASSWORD_FILE=$LAB_DIR/temporal-postgres.password

# The lab's block in an /etc/hosts file, and the file without it.
lab_hosts_block_in() { awk -v b="$LAB_HOSTS_BEGIN" -v e="$LAB_HOSTS_END" '$0 == b { f = 1 } f { print } $0 == e { f = 0 }' "$1"; }
lab_hosts_without_block() {
  awk -v b="$LAB_HOSTS_BEGIN" -v e="$LAB_HOSTS_END" '$0 == b { f = 1; next } $0 == e { f = 0; next } !f' "$1"
}

lab_host_dir() { echo "$LAB_DIR/hosts/$1"; }
lab_host_socket() { echo "$LAB_DIR/hosts/$1/docker.sock"; }
lab_containerd_socket() { echo "$LAB_DIR/hosts/$1/run/containerd/containerd.sock"; }

shopt -s inherit_errexit

# shellcheck source=scripts/lib/step.sh
source "$LAB_REPO/scripts/lib/step.sh"

# One part of up.sh or down.sh: one timed line, its progress in the lab's log.
lab_step() {
  local prefix=$1
  shift
  timed_step "$prefix" "$LAB_LOG" 64 "$@"
}

# The pid in a pidfile when that process runs and its command line still contains the marker (a pid can be
# reused by another program after a crash).
lab_running_pid() {
  local pidfile=$1 marker=$2 pid
  [ -s "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  [[ $(lab_cmdline "$pid") == *"$marker"* ]] || return 1
  echo "$pid"
}

# A process's command line as one line. While a process execs (setsid, then nohup, then the daemon) the
# kernel shows an empty command line for a moment (measured: in 16 of 30 starts of temporal-server); a
# live process is read again then, so a daemon that is starting is never called dead.
lab_cmdline() {
  local pid=$1 line tries=0
  while :; do
    line=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 0
    [ -z "$line" ] && lab_alive "$pid" && [ $tries -lt 100 ] || break
    sleep 0.01
    tries=$((tries + 1))
  done
  echo "$line"
}

# Whether the process exists and is not a zombie (a killed daemon whose parent has not reaped it yet).
lab_alive() {
  local state
  state=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# Starts a daemon in its own session, detached from this script, its output appended to its log; sets
# LAB_STARTED_PID to it. Returns once the process runs the daemon itself, past the wrappers that start it
# (setsid, nohup, nsenter): before that it wears this script's or a wrapper's command line, and a check of
# its pid file that soon would call a daemon that is starting dead (seen when the machine is busy).
lab_start() {
  local name=$1 pid tries=0
  shift
  mkdir -p "$LAB_LOGS" "$LAB_PIDS"
  # No descriptor of its starter stays open in it: a daemon that kept a caller's lock file (fd 3 of `flock
  # /work/lab-coord.lock bash -c 'up.sh ...'`) or pipe open would hold that lock, or that caller's output, for
  # as long as it runs.
  (
    for fd in /proc/"$BASHPID"/fd/*; do
      fd=${fd##*/}
      if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    exec setsid nohup "$@" >>"$LAB_LOGS/$name.log" 2>&1 </dev/null
  ) &
  pid=$!
  echo "$pid" >"$LAB_PIDS/$name.pid"
  LAB_STARTED_PID=$pid
  while lab_alive "$pid" && [[ $(basename "$(readlink "/proc/$pid/exe" 2>/dev/null)") =~ ^(bash|setsid|nohup|nsenter)$ ]]; do
    [ $tries -lt 600 ] || break # 30 s
    sleep 0.05
    tries=$((tries + 1))
  done
}

# SIGTERM to every pid at once, SIGKILL to those still running after the grace period (seconds).
lab_stop_pids() {
  local grace=$1 tries=0 pid alive
  shift
  kill -TERM "$@" 2>/dev/null || true
  while :; do
    alive=()
    for pid in "$@"; do
      if kill -0 "$pid" 2>/dev/null; then alive+=("$pid"); fi
    done
    [ ${#alive[@]} -gt 0 ] || return 0
    if [ "$tries" -ge $((grace * 10)) ]; then
      echo "killed after ${grace}s: ${alive[*]}" >&2
      kill -KILL "${alive[@]}" 2>/dev/null || true
      sleep 0.2
      return 0
    fi
    sleep 0.1
    tries=$((tries + 1))
  done
}

# Its arguments as one line, separated by commas.
join_said() {
  local said
  said=$(printf '%s, ' "$@")
  echo "${said%, }"
}

# Unmounts whatever is mounted on or under a directory, deepest first: a stopped dockerd leaves its network
# namespace's bind mount in its exec root, a killed one its data root's mounts too.
lab_unmount_under() {
  local mountpoint
  awk -v dir="$1" '$2 == dir || index($2, dir "/") == 1 { print $2 }' /proc/mounts | sort -r | while read -r mountpoint; do
    umount "$mountpoint"
  done
}

lab_pg() {
  runuser -u postgres -- "$LAB_PG_BIN/$1" "${@:2}"
}

lab_pg_running() {
  [ -d "$LAB_PG_DATA" ] && lab_pg pg_ctl status -D "$LAB_PG_DATA" >/dev/null 2>&1
}
