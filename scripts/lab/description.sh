# shellcheck shell=bash
# Sourced by scripts/lab/up.sh: lab.json and lab.env, what tests and scripts read about the running lab.

# lab.json, schema "mesh-lab/1" (docs/lab.md: "A production-shaped lab"). Fields are only ever added to it.
lab_description() {
  local host dir service hosts='[]' services='[]'
  for service in "${TEMPORAL_SERVICES[@]}"; do
    services=$(jq --arg name "$service" --arg address "$LAB_GATEWAY:${TEMPORAL_GRPC_PORT[$service]}" \
      --argjson membershipPort "${TEMPORAL_MEMBERSHIP_PORT[$service]}" \
      --arg metrics "http://127.0.0.1:${TEMPORAL_METRICS_PORT[$service]}/metrics" \
      --arg pidFile "$LAB_PIDS/temporal-$service.pid" --arg log "$LAB_LOGS/temporal-$service.log" \
      '. + [{name: $name, address: $address, membershipPort: $membershipPort, metrics: $metrics,
             pidFile: $pidFile, log: $log}]' <<<"$services")
  done
  for host in "${LAB_HOSTS[@]}"; do
    dir=$(lab_host_dir "$host")
    hosts=$(jq --arg name "$host" --arg ip "${LAB_HOST_IP[$host]}" --arg dir "$dir" --arg pids "$LAB_PIDS" \
      --arg logs "$LAB_LOGS" --arg machineId "$(cat "$dir/root/etc/machine-id")" '. + [{
      name: $name, netns: "mlab-\($name)", veth: "mlab-\($name)", ip: $ip, hostname: "\($name).lab",
      dockerSocket: "\($dir)/docker.sock", dockerHost: "unix://\($dir)/docker.sock",
      root: "\($dir)/root", machineId: $machineId,
      dockerdPidFile: "\($pids)/dockerd-\($name).pid", dockerdLog: "\($logs)/dockerd-\($name).log",
      containerdPidFile: "\($pids)/containerd-\($name).pid", containerdLog: "\($logs)/containerd-\($name).log",
      dockerDataRoot: "\($dir)/docker"
    }]' <<<"$hosts")
  done
  jq -n --arg dir "$LAB_DIR" --arg frontend "$LAB_FRONTEND" --arg namespace "$LAB_NAMESPACE" \
    --arg version "$TEMPORAL_VERSION" --arg uiVersion "$TEMPORAL_UI_VERSION" --arg uiUrl "$LAB_UI_URL" \
    --arg config "$LAB_DIR/temporal/config/lab.yaml" --arg dynamic "$LAB_REPO/deploy/temporal/dynamicconfig/mesh.yaml" \
    --arg uiPid "$LAB_PIDS/ui-server.pid" --arg uiLog "$LAB_LOGS/ui-server.log" \
    --argjson pgPort "$LAB_PG_PORT" --arg pgSockets "$LAB_PG_SOCKETS" --arg pgPassword "$LAB_PG_PASSWORD_FILE" \
    --arg pgBin "$LAB_PG_BIN" --arg pgData "$LAB_PG_DATA" --arg pgLog "$LAB_PG_LOG" \
    --arg bridge "$LAB_BRIDGE" --arg gateway "$LAB_GATEWAY" --argjson services "$services" --argjson hosts "$hosts" '{
    schema: "mesh-lab/1",
    dir: $dir,
    temporal: {
      address: $frontend, namespace: $namespace, version: $version, config: $config, dynamicConfig: $dynamic,
      services: $services
    },
    ui: { url: $uiUrl, version: $uiVersion, pidFile: $uiPid, log: $uiLog },
    postgres: {
      host: "127.0.0.1", port: $pgPort, socketDir: $pgSockets, user: "temporal", passwordFile: $pgPassword,
      databases: ["temporal", "temporal_visibility"], superuser: "postgres", bin: $pgBin, data: $pgData,
      log: $pgLog
    },
    network: { bridge: $bridge, gateway: $gateway, prefix: 24 },
    hosts: $hosts
  }' | jq --argjson mesh "$(lab_mesh_description)" '. + {mesh: $mesh}'
}

lab_env() {
  local host upper
  cat <<EOF
# Written by scripts/lab/up.sh; source it. The same facts as lab.json.
MESH_LAB_DIR='$LAB_DIR'
MESH_LAB_TEMPORAL_ADDRESS='$LAB_FRONTEND'
MESH_LAB_TEMPORAL_NAMESPACE='$LAB_NAMESPACE'
MESH_LAB_UI_URL='$LAB_UI_URL'
MESH_LAB_PG_HOST='127.0.0.1'
MESH_LAB_PG_PORT='$LAB_PG_PORT'
MESH_LAB_PG_SOCKET_DIR='$LAB_PG_SOCKETS'
MESH_LAB_PG_USER='temporal'
MESH_LAB_PG_PASSWORD_FILE='$LAB_PG_PASSWORD_FILE'
MESH_LAB_HOSTS='${LAB_HOSTS[*]}'
EOF
  for host in "${LAB_HOSTS[@]}"; do
    upper=$(tr '[:lower:]' '[:upper:]' <<<"$host")
    cat <<EOF
MESH_LAB_${upper}_NETNS='mlab-$host'
MESH_LAB_${upper}_IP='${LAB_HOST_IP[$host]}'
MESH_LAB_${upper}_HOSTNAME='$host.lab'
MESH_LAB_${upper}_DOCKER_HOST='unix://$(lab_host_socket "$host")'
MESH_LAB_${upper}_ROOT='$(lab_host_dir "$host")/root'
MESH_LAB_${upper}_MACHINE_ID='$(cat "$(lab_host_dir "$host")/root/etc/machine-id")'
EOF
  done
}
