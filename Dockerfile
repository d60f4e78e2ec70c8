# The runbook worker (and the CLI, as `mesh-runbook`): `docker compose up` builds it from this file.
# BASE_IMAGE: a Node 20 image on Debian. Without a registry, build one locally with
# scripts/compose-base-image.sh and pass it: --build-arg BASE_IMAGE=mesh-local/node:20-bookworm.
ARG BASE_IMAGE=node:20-bookworm-slim
FROM ${BASE_IMAGE}

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
WORKDIR /opt/mesh-runbook

# Dependencies first, from the lockfile and without dev tools, so a source change reuses this layer.
# A base that already holds them for this very lockfile (node_modules/.lock.sha256, as the local proof's
# base does, scripts/compose-local-images.sh) is used as it is.
COPY package.json package-lock.json ./
RUN if [ "$(cat node_modules/.lock.sha256 2>/dev/null)" = "$(sha256sum package-lock.json | cut -d' ' -f1)" ]; \
    then echo "dependencies: from the base image"; \
    else npm ci --omit=dev --loglevel=error && npm cache clean --force; fi

# The TypeScript sources run as they are (tsx); the worker bundles the workflows when it starts.
COPY . .
# Installed as mesh-runbook only: `mesh` stays free for the operator's controller (the command adapter's).
RUN ln -s /opt/mesh-runbook/bin/mesh.js /usr/local/bin/mesh-runbook && mesh-runbook --help >/dev/null

# Root: the worker talks to the Docker socket(s) it is given and copies data keeping owners and modes.
# Per-node settings come from MESH_CONFIG (a file under /etc/mesh) and the environment.
ENV MESH_LOCAL_STATE=/var/lib/mesh/local \
    MESH_STATE_DIR=/var/lib/mesh/worker
HEALTHCHECK --interval=30s --timeout=15s --start-period=90s --retries=3 \
  CMD ["node", "--import", "tsx", "/opt/mesh-runbook/scripts/compose-worker-healthcheck.ts"]
ENTRYPOINT ["mesh-runbook"]
CMD ["runbook", "worker"]
