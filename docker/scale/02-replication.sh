#!/bin/sh
# Runs once, on the primary's fresh volume, after 01-app-role.sh: the role the streaming replica
# connects as (REPLICATION only), and its line in pg_hba.conf.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v replication_password="$REPLICATION_PASSWORD" <<'SQL'
CREATE ROLE replicator LOGIN REPLICATION PASSWORD :'replication_password';
SQL
echo 'host replication replicator all scram-sha-256' >> "$PGDATA/pg_hba.conf"
