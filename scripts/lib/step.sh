# shellcheck shell=bash
# Sourced by scripts/bootstrap.sh and scripts/lab/lib.sh: one timed line per part of a set-up script.

# `timed_step <prefix> <log> <width> <name> <command...>`: runs the part with its progress (stderr) in the
# log and prints one line: what it did (its stdout) and how long it took. A part that fails stops the
# script with the log's last lines.
timed_step() {
  local prefix=$1 log=$2 width=$3 name=$4 started=$SECONDS said rc
  shift 4
  printf '\n=== %s: %s (%s)\n' "$prefix" "$name" "$(date -Is)" >>"$log"
  set +e
  said=$(
    set -e
    "$@" 2>>"$log"
  )
  rc=$?
  set -e
  if [ "$rc" != 0 ]; then
    printf '%s: %-16s FAILED after %ss (exit %s); the log: %s\n' "$prefix" "$name" "$((SECONDS - started))" "$rc" "$log" >&2
    tail -n 15 "$log" | sed 's/^/  | /' >&2
    exit 1
  fi
  printf "%s: %-16s %-${width}s %4ss\n" "$prefix" "$name" "$said" "$((SECONDS - started))"
}
