#!/bin/sh
# The one user the API connects as, with its password from the environment (never in a file of
# the repository); PgBouncer logs in to the servers with it.
set -eu
printf '"finance_intake" "%s"\n' "$APP_DB_PASSWORD" > /tmp/userlist.txt
exec pgbouncer /etc/pgbouncer/pgbouncer.ini
