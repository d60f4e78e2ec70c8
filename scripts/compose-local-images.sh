#!/usr/bin/env bash
# The images the local compose proof (deploy/local/compose.yml) needs that no registry can give here:
# - BASE_IMAGE: the worker's base (scripts/compose-base-image.sh) with the production dependencies of
#   package-lock.json already in /opt/mesh-runbook/node_modules, installed by this machine's npm. (npm ci
#   inside `docker build` timed out here, connect ETIMEDOUT to the registry after 9 minutes, while npm on
#   the host reaches it; the Dockerfile skips its npm ci when the base holds this lockfile's modules.)
# - TEMPORAL_IMAGE: a Temporal dev-server image made from this machine's `temporal` CLI (a static Go
#   binary) on the same base.
# Idempotent (tags carry the lockfile hash and the CLI version); prints KEY=value lines.
set -euo pipefail
cd "$(dirname "$0")/.."

base=$(bash scripts/compose-base-image.sh)

lock=$(sha256sum package-lock.json | cut -d' ' -f1)
deps=mesh-local/runbook-deps:${lock:0:12}
if ! docker image inspect "$deps" >/dev/null 2>&1; then
  started=$SECONDS
  context=$(mktemp -d)
  cp package.json package-lock.json "$context/"
  (cd "$context" && npm ci --omit=dev --no-audit --no-fund --loglevel=error >&2)
  echo "$lock" >"$context/node_modules/.lock.sha256"
  cat >"$context/Dockerfile" <<DOCKERFILE
FROM $base
COPY node_modules /opt/mesh-runbook/node_modules
DOCKERFILE
  DOCKER_BUILDKIT=0 docker build -q -t "$deps" "$context" >/dev/null 2>&1
  rm -rf "$context"
  echo "compose-local-images: built $deps in $((SECONDS - started))s" >&2
fi

# `temporal` on PATH may be a pyenv shim (a shell script); the image needs the binary itself.
cli=${TEMPORAL_CLI_PATH:-$(command -v temporal)}
if [ "$(head -c 4 "$cli" | tr -d '\0')" != $'\x7fELF' ] && command -v pyenv >/dev/null 2>&1; then
  cli=$(pyenv which temporal)
fi
cli=$(readlink -f "$cli")
version=$("$cli" --version | awk '{print $3}')
image=mesh-local/temporal-dev:$version

if ! docker image inspect "$image" >/dev/null 2>&1; then
  started=$SECONDS
  context=$(mktemp -d)
  trap 'rm -rf "$context"' EXIT
  cp "$cli" "$context/temporal"
  cat >"$context/Dockerfile" <<DOCKERFILE
FROM $base
COPY temporal /usr/local/bin/temporal
ENTRYPOINT ["temporal"]
DOCKERFILE
  DOCKER_BUILDKIT=0 docker build -q -t "$image" "$context" >/dev/null
  echo "compose-local-images: built $image in $((SECONDS - started))s" >&2
fi
echo "BASE_IMAGE=$deps"
echo "TEMPORAL_IMAGE=$image"
