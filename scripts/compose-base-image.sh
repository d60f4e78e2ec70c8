#!/usr/bin/env bash
# Builds the worker image's base without a container registry: a Debian bookworm root made by mmdebstrap
# from the Debian mirror, plus this machine's Node 20 (binary and npm) and its CA bundle, imported with
# `docker import`. It stands in for node:20-bookworm-slim (same Debian release, Node at /usr/local/bin),
# the Dockerfile's default BASE_IMAGE on a machine with registry access.
#
# Usage: scripts/compose-base-image.sh [--force]   (prints the image name; idempotent without --force)
# MESH_COMPOSE_BASE_IMAGE overrides the tag (default mesh-local/node:20-bookworm).
set -euo pipefail

IMAGE=${MESH_COMPOSE_BASE_IMAGE:-mesh-local/node:20-bookworm}
MIRROR=${MESH_DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ "${1:-}" != "--force" ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "$IMAGE"
  exit 0
fi

node_bin=$(readlink -f "$(command -v node)")
node_version=$("$node_bin" --version)
case "$node_version" in
  v20.*) ;;
  *)
    echo "compose-base-image: this machine's node is $node_version; the worker image needs Node 20" >&2
    exit 1
    ;;
esac
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
[ -f "$npm_dir/package.json" ] || {
  echo "compose-base-image: cannot find npm's package dir (looked at $npm_dir)" >&2
  exit 1
}
ca_bundle=/etc/ssl/certs/ca-certificates.crt

if ! command -v mmdebstrap >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >&2
fi

started=$SECONDS
# Node links only libc, libstdc++ and libgcc_s (ldd); minbase has them, ca-certificates makes the bundle
# that this machine's own bundle then replaces (it also trusts this workplace's TLS-intercepting egress,
# which npm inside `docker build` goes through).
mmdebstrap --quiet --variant=minbase --include=ca-certificates,libstdc++6 \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="copy-in $node_bin /usr/local/bin" \
  --customize-hook='mkdir -p "$1/usr/local/lib/node_modules"' \
  --customize-hook="copy-in $npm_dir /usr/local/lib/node_modules" \
  --customize-hook='ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
  --customize-hook='ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  --customize-hook="copy-in $ca_bundle /etc/ssl/certs" \
  --customize-hook='rm -rf "$1/var/lib/apt/lists/"* "$1/var/cache/apt/"*' \
  bookworm - "$MIRROR" |
  docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c "ENV NODE_VERSION=${node_version#v}" \
    -c "ENV NODE_EXTRA_CA_CERTS=$ca_bundle" \
    -c 'CMD ["node"]' \
    -m "Debian bookworm minbase + this machine's node $node_version (scripts/compose-base-image.sh)" \
    - "$IMAGE" >/dev/null
echo "compose-base-image: built $IMAGE (node $node_version) in $((SECONDS - started))s" >&2
echo "$IMAGE"
