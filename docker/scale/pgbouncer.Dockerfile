# PgBouncer from Debian (1.18 on bookworm: no prepared statements in transaction mode, so the
# API instances run with DATABASE_PREPARED_STATEMENTS=false).
FROM debian:12.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends pgbouncer && rm -rf /var/lib/apt/lists/*
COPY pgbouncer.ini /etc/pgbouncer/pgbouncer.ini
COPY pgbouncer-entrypoint.sh /usr/local/bin/pgbouncer-entrypoint.sh
USER postgres
ENTRYPOINT ["/bin/sh", "/usr/local/bin/pgbouncer-entrypoint.sh"]
