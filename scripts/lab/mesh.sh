# shellcheck shell=bash disable=SC2034 # the variables are the sourcing scripts'
# Sourced by scripts/lab/up.sh and scripts/lab/down.sh: the lab's mesh and the runbook's workers.
# - meshd, the outside controller, in the root namespace on the lab bridge; `meshctl` is its CLI, the only
#   way the runbooks reach it (the command adapter, with meshctl's own verbs and labels);
# - mesh-host, the node agent, inside each host's namespace with that host's engine and disk;
# - the runbook worker outside every host (workflows, mesh verbs, probes; no Docker engine at all);
# - a node worker inside each host (`mesh runbook worker --node <host> --nodes-only`), that host's engine
#   and disk only.
# The workers and the controller run the code under test: a part restarts them when dist/ is newer.

LAB_MESHD_PORT=17080
LAB_MESHD_URL=http://$LAB_GATEWAY:$LAB_MESHD_PORT
LAB_AGENT_PORT=17070
LAB_CONFIG=$LAB_DIR/config
LAB_COMMAND_CONFIG=$LAB_CONFIG/mesh-command.json
LAB_RUNBOOK_CONFIG=$LAB_CONFIG/runbook.yaml
LAB_MESHCTL=$LAB_REPO/lab/bin/meshctl
# Nothing listens here: the runbook worker outside the hosts has no Docker engine to reach.
LAB_NO_ENGINE=$LAB_DIR/run/no-engine.sock

lab_node_config() { echo "$LAB_CONFIG/node-$1.yaml"; }
lab_agent_url() { echo "http://${LAB_HOST_IP[$1]}:$LAB_AGENT_PORT"; }

# The lab's daemons that run this repository's code, in the order down.sh stops them.
lab_mesh_daemons() {
  local host
  echo "runbook-worker"
  for host in "${LAB_HOSTS[@]}"; do echo "node-worker-$host"; done
  for host in "${LAB_HOSTS[@]}"; do echo "mesh-host-$host"; done
  echo "meshd"
}

# What each daemon's command line contains, so a reused pid is never taken for it.
lab_mesh_marker() {
  case $1 in
    meshd) echo "lab/bin/meshd" ;;
    mesh-host-*) echo "lab/bin/mesh-host --node ${1#mesh-host-}" ;;
    node-worker-*) echo "runbook worker --node ${1#node-worker-}" ;;
    runbook-worker) echo "runbook worker --json" ;;
  esac
}

# A part of down.sh: stops the workers first (they drain what they hold), then the agents and meshd.
lab_stop_mesh() {
  local name pid stopped=()
  for name in $(lab_mesh_daemons); do
    if pid=$(lab_running_pid "$LAB_PIDS/$name.pid" "$(lab_mesh_marker "$name")"); then
      lab_stop_pids 30 "$pid"
      stopped+=("$name")
    fi
  done
  if [ ${#stopped[@]} -eq 0 ]; then echo "not running"; else echo "stopped ${stopped[*]}"; fi
}

# lab.json's "mesh": how the tests and scripts reach the controller, the agents and the workers' configs.
lab_mesh_description() {
  local host agents='{}' configs='{}'
  for host in "${LAB_HOSTS[@]}"; do
    agents=$(jq --arg h "$host" --arg url "$(lab_agent_url "$host")" '. + {($h): $url}' <<<"$agents")
    configs=$(jq --arg h "$host" --arg file "$(lab_node_config "$host")" '. + {($h): $file}' <<<"$configs")
  done
  jq -n --arg controller "$LAB_MESHD_URL" --arg meshctl "$LAB_MESHCTL" --arg command "$LAB_COMMAND_CONFIG" \
    --arg runbook "$LAB_RUNBOOK_CONFIG" --arg logs "$LAB_LOGS" --arg pids "$LAB_PIDS" \
    --argjson agents "$agents" --argjson nodeConfigs "$configs" '{
    controller: $controller, meshctl: $meshctl, commandConfig: $command, agents: $agents,
    runbookConfig: $runbook, nodeConfigs: $nodeConfigs,
    daemons: "\($pids)/<name>.pid and \($logs)/<name>.log: meshd, mesh-host-<host>, runbook-worker, node-worker-<host>"
  }'
}

# --- parts of up.sh --------------------------------------------------------------------------------------

# dist/ fresh: the lab's daemons run it (built when any source is newer, as the bootstrap does).
lab_code() {
  if (cd "$LAB_REPO" && node -e 'const c = require("./bin/compiled"); process.exit(c.compiledIsFresh() && c.workflowBundleIsFresh() ? 0 : 1)'); then
    echo "dist/ up to date"
    return
  fi
  (cd "$LAB_REPO" && npm run --silent build) >&2
  echo "built dist/ with tsc and bundled the workflows"
}

# Starts one of the daemons that run this repository's code, or restarts it when dist/ is newer than its
# start; prints what it did. Its previous log is kept as <name>.log.1.
lab_code_daemon() {
  local name=$1 pidfile=$LAB_PIDS/$1.pid pid
  shift
  if pid=$(lab_running_pid "$pidfile" "$(lab_mesh_marker "$name")"); then
    if [ "$pidfile" -nt "$LAB_REPO/dist/.stamp" ]; then
      echo "running"
      return
    fi
    lab_stop_pids 30 "$pid"
    echo "restarted on newer code"
  else
    echo "started"
  fi
  mv -f "$LAB_LOGS/$name.log" "$LAB_LOGS/$name.log.1" 2>/dev/null || true
  lab_start "$name" "$@"
}

meshd_answers() { curl -sf -o /dev/null "$LAB_MESHD_URL/health"; }
agent_answers() { curl -sf -o /dev/null "$(lab_agent_url "$1")/health"; }

mesh_controller() {
  mkdir -p "$LAB_DIR/controller"
  local said
  said=$(lab_code_daemon meshd node "$LAB_REPO/lab/bin/meshd" --listen "$LAB_GATEWAY:$LAB_MESHD_PORT" \
    --state "$LAB_DIR/controller/state.json")
  wait_until 30 "meshd did not answer at $LAB_MESHD_URL; see $LAB_LOGS/meshd.log" meshd_answers
  echo "meshd $said at $LAB_MESHD_URL"
}

mesh_agents() {
  local host dir said=()
  for host in "${LAB_HOSTS[@]}"; do
    dir=$(lab_host_dir "$host")
    said+=("$host $(lab_code_daemon "mesh-host-$host" nsenter "--net=/run/netns/mlab-$host" node "$LAB_REPO/lab/bin/mesh-host" \
      --node "$host" --listen "${LAB_HOST_IP[$host]}:$LAB_AGENT_PORT" --state "$dir/agent" \
      --docker "$(lab_host_socket "$host")" --host-root "$dir/root")")
  done
  for host in "${LAB_HOSTS[@]}"; do
    wait_until 30 "mesh-host of $host did not answer; see $LAB_LOGS/mesh-host-$host.log" agent_answers "$host"
  done
  echo "mesh-host $(join_said "${said[@]}")"
}

command_config() {
  jq -n --arg meshctl "$LAB_MESHCTL" --arg server "$LAB_MESHD_URL" '{
    command: $meshctl,
    timeoutMs: 30000,
    env: { MESHCTL_SERVER: $server },
    refusedExitCodes: [3],
    containerLabels: { module: "org.meshctl.module", container: "org.meshctl.unit" },
    verbs: {
      assign: { args: ["assign", "{module}", "--to", "{node}"] },
      unassign: { args: ["unassign", "{module}", "--from", "{node}"] },
      push: { args: ["push", "{node}"] },
      take: { args: ["take", "{module}", "--on", "{node}"] },
      applyReport: { args: ["node", "report", "{node}", "{pushId}"] },
      nodeState: { args: ["node", "get", "{node}"] },
      moduleSpec: { args: ["module", "get", "{module}"] },
      moduleNodes: { args: ["module", "where", "{module}"] },
      setModuleSpec: { args: ["module", "apply", "-f", "{specFile}"] },
      setUpgradePolicy: { args: ["module", "policy", "{module}", "{policy}"] }
    }
  }'
}

# One worker config: Temporal and mesh as every worker has them, and the engines this one may reach.
worker_config() {
  local engines=$1
  cat <<YAML
# Written by scripts/lab/up.sh.
temporal: { address: '$LAB_FRONTEND', namespace: $LAB_NAMESPACE }
mesh: { adapter: command, command: '$LAB_COMMAND_CONFIG' }
nodes:
$engines  '*': { socket: '$LAB_NO_ENGINE' }
YAML
}

runbook_configs() {
  mkdir -p "$LAB_CONFIG"
  local changed=() host
  command_config | write_if_changed "$LAB_COMMAND_CONFIG" && changed+=("mesh-command.json")
  worker_config "" | write_if_changed "$LAB_RUNBOOK_CONFIG" && changed+=("runbook.yaml")
  for host in "${LAB_HOSTS[@]}"; do
    worker_config "  $host: { socket: '$(lab_host_socket "$host")' }
" | write_if_changed "$(lab_node_config "$host")" && changed+=("node-$host.yaml")
  done
  if [ ${#changed[@]} -eq 0 ]; then echo "up to date ($LAB_CONFIG)"; else echo "wrote $(join_said "${changed[@]}")"; fi
}

worker_ready() { grep -q '"identity"' "$LAB_LOGS/$1.log" 2>/dev/null; }

runbook_workers() {
  local host dir said=()
  local clean=(env -u TEMPORAL_ADDRESS -u TEMPORAL_NAMESPACE -u MESH_TASK_QUEUE -u MESH_ADAPTER MESH_LOG_FORMAT=json)
  said+=("outside: $(lab_code_daemon runbook-worker "${clean[@]}" MESH_CONFIG="$LAB_RUNBOOK_CONFIG" \
    MESH_STATE_DIR="$LAB_DIR/runbook-worker" node "$LAB_REPO/bin/mesh.js" runbook worker --json)")
  for host in "${LAB_HOSTS[@]}"; do
    dir=$(lab_host_dir "$host")
    said+=("$host: $(lab_code_daemon "node-worker-$host" nsenter "--net=/run/netns/mlab-$host" "${clean[@]}" \
      MESH_CONFIG="$(lab_node_config "$host")" MESH_STATE_DIR="$dir/worker-state" \
      node "$LAB_REPO/bin/mesh.js" runbook worker --node "$host" --host-root "$dir/root" --nodes-only --json)")
  done
  for name in runbook-worker $(printf 'node-worker-%s ' "${LAB_HOSTS[@]}"); do
    wait_until 90 "$name did not start polling; see $LAB_LOGS/$name.log" worker_ready "$name"
  done
  echo "$(join_said "${said[@]}")"
}
