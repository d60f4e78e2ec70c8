#!/bin/sh
# One-shot (temporalio/admin-tools): the runbooks' namespace and their search attributes as Name=Type
# (workflows/search-attributes.ts; test/integration/compose.test.ts checks that both lists agree).
# Idempotent: creates only what is missing, so it runs on every `docker compose up`.
set -eu

: "${TEMPORAL_ADDRESS:?}"
NAMESPACE=${TEMPORAL_NAMESPACE:-default}
RETENTION=${TEMPORAL_NAMESPACE_RETENTION:-720h}
SEARCH_ATTRIBUTES="MeshNode=Keyword MeshModule=Keyword MeshKind=Keyword MeshPhase=Keyword MeshWaitingOn=Keyword MeshRevision=Int"

until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do
  echo "temporal-setup: waiting for Temporal at $TEMPORAL_ADDRESS"
  sleep 2
done

if temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "temporal-setup: namespace $NAMESPACE exists"
else
  temporal operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --retention "$RETENTION"
  echo "temporal-setup: namespace $NAMESPACE created (retention $RETENTION)"
fi

# A new namespace reaches the frontend's namespace cache some seconds after it is created (10 s refresh).
tries=0
until existing=$(temporal operator search-attribute list --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" \
  --output json 2>&1); do
  tries=$((tries + 1))
  if [ "$tries" -ge 30 ]; then
    echo "temporal-setup: $existing" >&2
    exit 1
  fi
  echo "temporal-setup: waiting for namespace $NAMESPACE to be served"
  sleep 1
done
for pair in $SEARCH_ATTRIBUTES; do
  name=${pair%%=*}
  type=${pair#*=}
  if printf '%s' "$existing" | grep -q "\"$name\""; then
    echo "temporal-setup: search attribute $name exists"
  else
    temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" \
      --name "$name" --type "$type"
    echo "temporal-setup: search attribute $name created ($type)"
  fi
done
