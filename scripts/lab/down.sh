#!/usr/bin/env bash
# Stops everything scripts/lab/up.sh started and removes the lab's network (namespaces, bridge, forward
# rules, the /etc/hosts block). Keeps the built binaries (the cache) and the lab's state (PostgreSQL's
# cluster, each host's images and disk); `--purge` removes the state too. Safe to run twice. Run as root.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/mesh.sh"

purge=0
case "${1:-}" in
  '') ;;
  --purge) purge=1 ;;
  *)
    echo "unknown option '$1': scripts/lab/down.sh takes only --purge (also remove $LAB_DIR)" >&2
    exit 2
    ;;
esac

step() { lab_step lab-down "$@"; }

# Stops the lab's daemons named (each by its pidfile and the marker its command line holds) all at once,
# and says which ran.
stop_daemons() {
  local grace=$1 name marker pid pids=() names=()
  shift
  while [ $# -gt 0 ]; do
    name=$1 marker=$2
    shift 2
    if pid=$(lab_running_pid "$LAB_PIDS/$name.pid" "$marker"); then
      pids+=("$pid")
      names+=("$name")
    fi
    rm -f "$LAB_PIDS/$name.pid"
  done
  if [ ${#pids[@]} -gt 0 ]; then
    lab_stop_pids "$grace" "${pids[@]}"
    echo "stopped ${names[*]}"
  else
    echo "not running"
  fi
}

# dockerd stops its containers first (SIGTERM), then its containerd goes.
host_engines() {
  local host dir dockerds=() containerds=() said
  for host in "${LAB_HOSTS[@]}"; do
    dir=$(lab_host_dir "$host")
    dockerds+=("dockerd-$host" "$dir/daemon.json")
    containerds+=("containerd-$host" "$dir/containerd.toml")
  done
  said=$(stop_daemons 60 "${dockerds[@]}")
  said="$said; $(stop_daemons 30 "${containerds[@]}")"
  for host in "${LAB_HOSTS[@]}"; do
    dir=$(lab_host_dir "$host")
    lab_unmount_under "$dir/run"
    lab_unmount_under "$dir/docker"
    lab_unmount_under "$dir/containerd"
    rm -rf "$dir/run" "$dir/docker.sock"
  done
  if [ "$said" = "not running; not running" ]; then echo "not running"; else echo "$said"; fi
}

web_ui() { stop_daemons 10 ui-server ui-server; }

temporal_server() {
  local service args=()
  for service in "${TEMPORAL_SERVICES[@]}"; do args+=("temporal-$service" "--service $service"); done
  stop_daemons 30 "${args[@]}"
}

postgresql() {
  local did=()
  if lab_pg_running; then
    lab_pg pg_ctl stop -D "$LAB_PG_DATA" -m fast -w >&2
    did+=("stopped")
  fi
  if mountpoint -q "$LAB_PG_MOUNT"; then
    umount "$LAB_PG_MOUNT"
    did+=("unmounted $LAB_PG_MOUNT")
  fi
  rmdir "$LAB_PG_MOUNT" "$(dirname "$LAB_PG_MOUNT")" 2>/dev/null || true
  [ ${#did[@]} -gt 0 ] || did=("not running")
  join_said "${did[@]}"
}

# Whatever still runs inside a host's namespace belongs to the lab (a crashed engine's containers, a part
# added later that its own stop missed): it is ended before the namespace goes.
lab_hosts() {
  local host ns removed=() pids
  for host in "${LAB_HOSTS[@]}"; do
    ns=mlab-$host
    [ -e "/run/netns/$ns" ] || continue
    pids=$(ip netns pids "$ns" | tr '\n' ' ')
    if [ -n "$pids" ]; then
      echo "ending what still ran in $ns: $pids" >&2
      # shellcheck disable=SC2086 # a list of pids
      kill -TERM $pids 2>/dev/null || true
      sleep 2
      # shellcheck disable=SC2046
      kill -KILL $(ip netns pids "$ns") 2>/dev/null || true
    fi
    ip netns del "$ns"
    removed+=("$host")
  done
  local said="${removed[*]}"
  said=${said:+removed $said}
  if [ -n "$(lab_hosts_block_in /etc/hosts)" ]; then
    local rest
    rest=$(lab_hosts_without_block /etc/hosts)
    # Rewritten in place: /etc/hosts may be a bind mount.
    printf '%s\n' "$rest" >/etc/hosts
    said="${said:+$said; }/etc/hosts block removed"
  fi
  echo "${said:-none}"
}

lab_bridge() {
  local did=() rule
  while rule=$(iptables -S FORWARD | grep -F -- "--comment $LAB_RULE_TAG" | head -n 1) && [ -n "$rule" ]; do
    # shellcheck disable=SC2086 # the rule as iptables -S prints it, -A turned into -D
    eval iptables -D "${rule#-A }"
    did+=("rule")
  done
  if ip link show "$LAB_BRIDGE" >/dev/null 2>&1; then
    ip link del "$LAB_BRIDGE"
    did=("removed $LAB_BRIDGE" "${did[@]}")
  fi
  if [ ${#did[@]} -eq 0 ]; then echo "none"; else echo "${did[0]}, $((${#did[@]} - 1)) forward rules removed"; fi
}

state() {
  if [ ! -d "$LAB_DIR" ]; then
    echo "none"
    return
  fi
  if grep -qF " $LAB_DIR/" /proc/mounts; then
    echo "something is still mounted under $LAB_DIR; not removed:" >&2
    grep -F " $LAB_DIR/" /proc/mounts >&2
    return 1
  fi
  rm -rf "$LAB_DIR"
  echo "removed $LAB_DIR"
}

if [ "$(id -u)" != 0 ]; then
  echo "scripts/lab/down.sh needs root" >&2
  exit 2
fi
mkdir -p "$LAB_DIR" "$LAB_PIDS"
started=$SECONDS
echo "lab-down: $LAB_DIR (progress in $LAB_LOG)"

step "workers and mesh" lab_stop_mesh

step "host engines" host_engines
step "web ui" web_ui
step "temporal server" temporal_server
step "postgresql" postgresql
step "hosts" lab_hosts
step "lab bridge" lab_bridge
if [ "$purge" = 1 ]; then
  # Its log goes with it: the part logs to a scratch file instead.
  LAB_LOG=$(mktemp) step "state" state
fi
echo "lab-down: done in $((SECONDS - started))s; kept the cache $LAB_CACHE$([ "$purge" = 1 ] || echo " and the state $LAB_DIR")"
