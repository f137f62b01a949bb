#!/usr/bin/env bash
# The PostgreSQL peer of `npm run bench -- --peer postgres`: installs Debian's PostgreSQL if missing, makes a
# cluster under .tmp/bench/pg (owned by the postgres user: the server refuses to run as root), and starts it
# on 127.0.0.1 only. The harness installs nothing itself; run this once per machine (idempotent):
#
#   bash bench/postgres/setup.sh          # install if needed, initdb if needed, start
#   bash bench/postgres/setup.sh stop     # stop the server
#
# Then: npm run bench -- --peer postgres   (REGDATA_BENCH_PG_URL overrides the URL printed at the end)
#
# Settings are those a competent engineer gives a read-mostly analytical box of this size (2 cores, 24 GiB):
# shared_buffers 4GB, parallel query on both cores, jit off (it adds compile time to every short query),
# random_page_cost 1.1 (everything is cached). Durability is off (fsync, full_page_writes,
# synchronous_commit): the data is a disposable copy of a snapshot, and it makes the load faster only;
# reads are unaffected.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PGDATA="${REGDATA_BENCH_PGDATA:-$ROOT/.tmp/bench/pg/data}"
PORT="${REGDATA_BENCH_PG_PORT:-55432}"
LOG="$(dirname "$PGDATA")/server.log"

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/pg_ctl" ] && { echo "$dir"; return 0; }
  done
  return 1
}

if ! BIN="$(find_bin)"; then
  echo "installing Debian's postgresql package ..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-contrib >/dev/null
  BIN="$(find_bin)"
fi

# The server must not run as root: everything below runs as the postgres system user.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "${1:-start}" = stop ]; then
  as_pg "$BIN/pg_ctl" -D "$PGDATA" -m fast stop || true
  exit 0
fi

if [ ! -f "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$(dirname "$PGDATA")"
  # C.UTF-8: byte-order collation (the same order as DuckDB's) and Unicode-aware pg_trgm word characters.
  as_pg "$BIN/initdb" -D "$PGDATA" --encoding=UTF8 --locale=C.UTF-8 --auth=trust -U postgres >/dev/null
  cat >>"$PGDATA/postgresql.conf" <<CONF
# regdata bench peer (bench/postgres/setup.sh)
listen_addresses = '127.0.0.1'
port = $PORT
max_connections = 50
shared_buffers = 4GB
effective_cache_size = 12GB
work_mem = 64MB
maintenance_work_mem = 2GB
max_worker_processes = 4
max_parallel_workers = 2
max_parallel_workers_per_gather = 2
max_parallel_maintenance_workers = 2
random_page_cost = 1.1
effective_io_concurrency = 200
jit = off
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = minimal
max_wal_senders = 0
max_wal_size = 8GB
checkpoint_timeout = 30min
CONF
fi

if ! as_pg "$BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
  as_pg "$BIN/pg_ctl" -D "$PGDATA" -l "$LOG" -w start >/dev/null
fi
"$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -tAc \
  "SELECT 1 FROM pg_database WHERE datname = 'regdata_bench'" | grep -q 1 ||
  "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qc 'CREATE DATABASE regdata_bench'
echo "PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on postgres://postgres@127.0.0.1:$PORT/regdata_bench"
