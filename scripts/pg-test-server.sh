#!/usr/bin/env bash
# A throwaway PostgreSQL for the tests (the wallet suite runs against it as well as SQLite). Finds Debian's
# server binaries (`npm run test:setup` installs them; this script never does), makes a cluster under
# <dir>, starts it on 127.0.0.1 on a free port, and prints its URL on the last line.
#
#   bash scripts/pg-test-server.sh start <dir>    # prints postgres://postgres@127.0.0.1:<port>/postgres
#   bash scripts/pg-test-server.sh stop <dir>     # stops it and removes <dir>
#
# test/pg-global-setup.ts calls both; each test file then makes its own database in it. Durability is off
# (fsync, synchronous_commit): the cluster lives for one test run. REGDATA_PG_DURABLE=1 keeps PostgreSQL's
# durable defaults instead (bench/wallet-bench.ts: a wallet's commits must reach the disk).
set -euo pipefail

CMD="${1:?usage: pg-test-server.sh start|stop <dir>}"
DIR="${2:?usage: pg-test-server.sh start|stop <dir>}"
PGDATA="$DIR/data"

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/pg_ctl" ] && { echo "$dir"; return 0; }
  done
  return 1
}

# The server refuses to run as root: as root, everything runs as the postgres system user.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "$CMD" = stop ]; then
  if BIN="$(find_bin)" && [ -f "$PGDATA/postmaster.pid" ]; then
    as_pg "$BIN/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$DIR"
  exit 0
fi

if ! BIN="$(find_bin)"; then
  echo "pg-test-server: no PostgreSQL server in /usr/lib/postgresql/*/bin; install it with npm run test:setup" >&2
  exit 1
fi

mkdir -p "$DIR"
[ "$(id -u)" = 0 ] && chown -R postgres:postgres "$DIR"
as_pg "$BIN/initdb" -D "$PGDATA" --encoding=UTF8 --locale=C.UTF-8 --auth=trust -U postgres >/dev/null

# A free port: ask the kernel for one, then let the server bind it (a race with another process taking it
# in between is retried below with a new port).
free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

if [ "${REGDATA_PG_DURABLE:-0}" = 1 ]; then
  DURABILITY="-c fsync=on -c synchronous_commit=on -c full_page_writes=on"
  SHARED_BUFFERS=1GB
else
  DURABILITY="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  SHARED_BUFFERS=128MB
fi

for attempt in 1 2 3 4 5; do
  PORT="$(free_port)"
  if as_pg "$BIN/pg_ctl" -D "$PGDATA" -l "$DIR/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories='$DIR' $DURABILITY \
        -c max_connections=200 -c shared_buffers=$SHARED_BUFFERS" \
    start >/dev/null; then
    echo "postgres://postgres@127.0.0.1:$PORT/postgres"
    exit 0
  fi
  echo "pg-test-server: start on port $PORT failed (attempt $attempt):" >&2
  tail -5 "$DIR/server.log" >&2 || true
done
exit 1
