#!/bin/sh
# One-shot (temporalio/admin-tools): creates Temporal's two PostgreSQL databases and brings their schemas
# to the version this admin-tools image ships. Safe to run on every `docker compose up`: an existing
# database is kept, setup-schema only adds the version table, update-schema applies what is missing.
# The password comes from SQL_PASSWORD in the environment, never from the command line. scripts/lab/up.sh
# runs it too, with its own temporal-sql-tool on PATH and TEMPORAL_SCHEMA_ROOT at the schema it built with.
set -eu

: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
DB_PORT=${DB_PORT:-5432}
SCHEMA_ROOT=${TEMPORAL_SCHEMA_ROOT:-/etc/temporal/schema/postgresql/v12}

sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"; }

for db in temporal:temporal temporal_visibility:visibility; do
  name=${db%%:*}
  schema=${db#*:}
  echo "temporal-schema: $name"
  sql --db "$name" create 2>&1 | grep -v -i 'already exists' || true
  sql --db "$name" setup-schema -v 0.0
  sql --db "$name" update-schema -d "$SCHEMA_ROOT/$schema/versioned"
done
echo "temporal-schema: done"
