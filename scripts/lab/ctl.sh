#!/usr/bin/env bash
# Faults and repairs on the running lab, for its tests and the chaos suite (`npm run chaos -- --lab`):
#   ctl.sh kill <daemon>      SIGKILL: meshd, mesh-host-<host>, runbook-worker, node-worker-<host>,
#                             temporal-<frontend|history|matching|worker>, dockerd-<host>, containerd-<host>
#   ctl.sh stop <daemon>      SIGTERM, and wait until it is gone (a worker drains first)
#   ctl.sh restart-postgres   PostgreSQL stopped (fast) and started again on the same cluster
#   ctl.sh cut <host>         the host's link to the lab bridge down: it reaches nothing, nothing reaches it
#   ctl.sh mend <host>        that link up again
#   ctl.sh up                 scripts/lab/up.sh: starts again whatever is not running
# Prints one line saying what it did; exit 2 for a daemon or host the lab does not have.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/mesh.sh"

# What the daemon's command line contains besides its pidfile, so a reused pid is never signalled.
marker() {
  case $1 in
    temporal-*) echo "--service ${1#temporal-}" ;;
    dockerd-*) echo "$(lab_host_dir "${1#dockerd-}")/daemon.json" ;;
    containerd-*) echo "$(lab_host_dir "${1#containerd-}")/containerd.toml" ;;
    *) lab_mesh_marker "$1" ;;
  esac
}

known_daemon() {
  [ -n "$(marker "$1")" ] && [[ " $(lab_mesh_daemons | tr '\n' ' ') " == *" $1 "* || $1 =~ ^(temporal|dockerd|containerd)- ]] && return
  echo "the lab has no daemon $1" >&2
  exit 2
}

running_pid() { lab_running_pid "$LAB_PIDS/$1.pid" "$(marker "$1")"; }

known_host() {
  [[ " ${LAB_HOSTS[*]} " == *" $1 "* ]] && return
  echo "the lab has no host $1 (it has ${LAB_HOSTS[*]})" >&2
  exit 2
}

case "${1:-}" in
  kill)
    known_daemon "$2"
    pid=$(running_pid "$2") || { echo "$2 is not running"; exit 0; }
    kill -KILL "$pid"
    echo "killed $2 (pid $pid)"
    ;;
  stop)
    known_daemon "$2"
    pid=$(running_pid "$2") || { echo "$2 is not running"; exit 0; }
    lab_stop_pids 60 "$pid"
    echo "stopped $2 (pid $pid)"
    ;;
  restart-postgres)
    runuser -u postgres -- setsid "$LAB_PG_BIN/pg_ctl" restart -D "$LAB_PG_DATA" -m fast -w -l "$LAB_PG_LOG" >/dev/null
    echo "restarted PostgreSQL"
    ;;
  cut | mend)
    known_host "$2"
    ip link set "mlab-$2" "$([ "$1" = cut ] && echo down || echo up)"
    echo "$([ "$1" = cut ] && echo cut || echo mended) the link of $2"
    ;;
  up)
    exec bash "$(dirname "$0")/up.sh"
    ;;
  *)
    sed -n '2,10p' "$0" >&2
    exit 2
    ;;
esac
