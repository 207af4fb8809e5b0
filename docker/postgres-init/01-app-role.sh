#!/bin/sh
# Runs once, on a fresh volume (the postgres image runs /docker-entrypoint-initdb.d on its first
# start): the role the service connects as, owner of its database, not a superuser. Its password
# comes from APP_DB_PASSWORD, never from a file in the repository.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v app_password="$APP_DB_PASSWORD" <<'SQL'
CREATE ROLE finance_intake LOGIN PASSWORD :'app_password' NOSUPERUSER NOCREATEDB NOCREATEROLE;
ALTER DATABASE finance_intake OWNER TO finance_intake;
ALTER SCHEMA public OWNER TO finance_intake;
SQL
