#!/usr/bin/env bash
# Installs Docker Compose v2 as the `docker compose` CLI plugin, built from its Go module (the Go module
# proxy is reachable here; no release download is). Idempotent: does nothing when `docker compose`
# answers. About 4.5 minutes on a fresh machine with 2 cores (module download + build), so it runs where
# it is needed (test/integration/compose.test.ts), not in every bootstrap.
# MESH_COMPOSE_VERSION picks another v2 release.
set -euo pipefail

VERSION=${MESH_COMPOSE_VERSION:-v2.40.3}
MODULE=github.com/docker/compose/v2
PLUGIN_DIR=${MESH_COMPOSE_PLUGIN_DIR:-/usr/local/lib/docker/cli-plugins}

if docker compose version >/dev/null 2>&1; then
  echo "present ($(docker compose version --short))"
  exit 0
fi

go=$(command -v go || true)
[ -n "$go" ] || [ ! -x /usr/local/go/bin/go ] || go=/usr/local/go/bin/go
if [ -z "$go" ]; then
  echo "compose-install: Go is needed to build Docker Compose (apt-get install golang-go, or /usr/local/go)" >&2
  exit 1
fi

started=$SECONDS
# `go install module/cmd@version` refuses modules with exclude directives (Compose has some), so the
# module's source is fetched from the proxy and built as the main module.
dir=$("$go" mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || {
  echo "compose-install: the Go module proxy did not give $MODULE@$VERSION" >&2
  exit 1
}
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cp -r "$dir/." "$src"
chmod -R u+w "$src"
mkdir -p "$PLUGIN_DIR"
(cd "$src" && CGO_ENABLED=0 "$go" build -trimpath \
  -ldflags "-s -w -X $MODULE/internal.Version=$VERSION" -o "$PLUGIN_DIR/docker-compose" ./cmd)
echo "built Compose $VERSION from the Go module proxy in $((SECONDS - started))s"
