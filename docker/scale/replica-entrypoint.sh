#!/bin/sh
# The streaming replica: on an empty volume, a base backup of the primary with -R (standby.signal
# and primary_conninfo written for it), then PostgreSQL as a hot standby of it.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup -h postgres-primary -U replicator \
      -D "$PGDATA" -R -X stream -c fast; do
    echo 'waiting for the primary...'
    rm -rf "${PGDATA:?}"/*
    sleep 2
  done
  chmod 700 "$PGDATA"
fi
exec postgres -c hot_standby=on -c hot_standby_feedback=on
