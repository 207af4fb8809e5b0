#!/bin/sh
# The streaming replica. It streams through a physical replication slot on the primary, so the
# primary keeps the WAL it has not received yet, up to the primary's max_slot_wal_keep_size.
# Past that the primary gives the slot up ("lost") and the replica can never catch up; this
# entrypoint then clones the replica again from a fresh base backup, both at start and, while it
# runs, at its next look (every REPLICA_WATCH_SECONDS). Extra arguments go to postgres.
#
#   PGDATA                 the replica's data folder
#   PRIMARY_HOST / _PORT   the primary (postgres-primary, 5432)
#   REPLICATION_USER       the REPLICATION role (replicator); REPLICATION_PASSWORD its password
#   REPLICATION_SLOT       this replica's slot (replica_1); one slot per replica
#   REPLICA_WATCH_SECONDS  how often the running replica's slot is looked at (30)
set -eu
PRIMARY_HOST=${PRIMARY_HOST:-postgres-primary}
PRIMARY_PORT=${PRIMARY_PORT:-5432}
REPLICATION_USER=${REPLICATION_USER:-replicator}
REPLICATION_SLOT=${REPLICATION_SLOT:-replica_1}
REPLICA_WATCH_SECONDS=${REPLICA_WATCH_SECONDS:-30}
export PGPASSWORD="${REPLICATION_PASSWORD:-}"
replication="host=$PRIMARY_HOST port=$PRIMARY_PORT user=$REPLICATION_USER replication=true connect_timeout=5"

say() { echo "replica-entrypoint: $*" >&2; }

# The slot as the primary has it: "kept" (it holds the WAL from the replica's position on),
# "lost" (given up, or gone), or "unknown" (the primary does not answer).
slot_state() {
  if ! answer=$(psql "$replication" -XAtc "READ_REPLICATION_SLOT $REPLICATION_SLOT" 2>/dev/null); then
    echo unknown
    return
  fi
  # slot_type|restart_lsn|restart_tli: an absent slot has no type, a lost one no restart position.
  case "$answer" in
    physical\|?*/*) echo kept ;;
    *) echo lost ;;
  esac
}

clone() {
  say "cloning from $PRIMARY_HOST:$PRIMARY_PORT through slot $REPLICATION_SLOT"
  rm -rf "${PGDATA:?}"/*
  # A lost slot cannot be used again: it is dropped (nothing to drop the first time) and made anew.
  psql "$replication" -XAtc "DROP_REPLICATION_SLOT $REPLICATION_SLOT" >/dev/null 2>&1 || true
  until pg_basebackup -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U "$REPLICATION_USER" \
      -D "$PGDATA" -R -X stream -c fast -C -S "$REPLICATION_SLOT"; do
    say 'waiting for the primary...'
    rm -rf "${PGDATA:?}"/*
    psql "$replication" -XAtc "DROP_REPLICATION_SLOT $REPLICATION_SLOT" >/dev/null 2>&1 || true
    sleep 2
  done
  chmod 700 "$PGDATA"
}

mkdir -p "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  clone
else
  # A primary that does not answer is waited for: only its own word that the slot is lost
  # throws the replica's data away.
  until state=$(slot_state) && [ "$state" != unknown ]; do
    say 'waiting for the primary to say whether it kept the WAL of this replica...'
    sleep 2
  done
  if [ "$state" = lost ]; then
    say "slot $REPLICATION_SLOT is lost (the primary removed WAL this replica had not received): cloning again"
    clone
  fi
fi

while :; do
  postgres -c hot_standby=on -c hot_standby_feedback=on "$@" &
  server=$!
  # docker stop's SIGTERM becomes PostgreSQL's fast shutdown (a smart one waits for every client).
  trap 'kill -INT "$server" 2>/dev/null; wait "$server"; exit 0' TERM INT
  while sleep "$REPLICA_WATCH_SECONDS" & wait $!; do
    if ! kill -0 "$server" 2>/dev/null; then
      wait "$server" || exit $?
      exit 0
    fi
    if [ "$(slot_state)" = lost ]; then
      say "slot $REPLICATION_SLOT is lost or gone while the replica runs: stopping it to clone again"
      kill -INT "$server"
      wait "$server" || true
      clone
      continue 2
    fi
  done
done
