#!/usr/bin/env bash
# A failover drill (docs/deploy.md "High availability"): a PostgreSQL primary and a streaming
# standby (pg_basebackup -R) on loopback, one baton-api on a multi-host URL with
# target_session_attrs=read-write, N instances parked on a delay; then the primary is killed
# (pg_ctl stop -m immediate) and the standby promoted, as Patroni would. It asserts that every
# root settles completed, none is lost or duplicated, each ran its tasks once (one log line per
# task entered), the server recovered without a restart (/healthz ok), and prints the time to
# recovery. Build first (pnpm exec turbo run build --filter=@baton/api). Run as root or postgres.
#   scripts/failover-drill.sh [N]
set -euo pipefail
N=${1:-50}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${PGBIN:-/usr/lib/postgresql/15/bin}
R=$(mktemp -d /tmp/baton-drill.XXXX)
pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$BIN/$1" "${@:2}"; else "$BIN/$1" "${@:2}"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$R"
chmod 700 "$R"
PA=$((20000 + RANDOM % 20000)); PB=$((PA + 1))
BP=
cleanup() {
  [ -n "$BP" ] && kill "$BP" 2>/dev/null || true
  pg pg_ctl -D "$R/a" -m immediate stop >/dev/null 2>&1 || true
  pg pg_ctl -D "$R/b" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$R"
}
trap cleanup EXIT
fail() { echo "DRILL FAILED: $*" >&2; exit 1; }
pg initdb -D "$R/a" -U postgres -A trust >/dev/null
pg pg_ctl -D "$R/a" -l "$R/a.log" -o "-p $PA -k $R -c listen_addresses=127.0.0.1" -w start >/dev/null
pg pg_basebackup -h 127.0.0.1 -p "$PA" -U postgres -D "$R/b" -R -X stream -c fast
pg pg_ctl -D "$R/b" -l "$R/b.log" -o "-p $PB -k $R -c listen_addresses=127.0.0.1" -w start >/dev/null
URL="postgres://postgres@127.0.0.1:$PA,127.0.0.1:$PB/postgres?target_session_attrs=read-write"
node "$ROOT/apps/api/dist/main.js" --db "$URL" --http 127.0.0.1:0 --poll 50 >"$R/baton.log" 2>&1 &
BP=$!
for _ in $(seq 120); do grep -q '"msg":"listening"' "$R/baton.log" && break; sleep 1; done
U=$(grep -o '"msg":"listening","url":"[^"]*"' "$R/baton.log" | head -1 | sed 's/.*"url":"//; s/"$//')
[ -n "$U" ] || fail "baton-api did not start: $(tail -3 "$R/baton.log")"
curl -sf -X PUT -H 'content-type: application/json' "$U/api/definitions" \
  -d '{"name":"drill","tasks":[{"id":"nap","action":{"type":"delay","for":3000}},{"id":"done","output":1}]}' >/dev/null
for _ in $(seq "$N"); do curl -sf -X POST -H 'content-type: application/json' "$U/api/instances" -d '{"process":"drill"}' >/dev/null; done
# Asynchronous replication: what the primary committed reaches the standby within milliseconds
# on loopback; the drill waits for the standby to replay everything before the kill, so a loss
# it then sees is Baton's, not the replication's (docs/deploy.md "High availability").
PRIMARY_LSN=$(psql -h 127.0.0.1 -p "$PA" -U postgres -Atc "select pg_current_wal_lsn()")
for _ in $(seq 100); do
  [ "$(psql -h 127.0.0.1 -p "$PB" -U postgres -Atc "select pg_last_wal_replay_lsn() >= '$PRIMARY_LSN'")" = t ] && break
  sleep 0.1
done
T0=$(date +%s%3N)
pg pg_ctl -D "$R/a" -m immediate stop >/dev/null
pg pg_ctl -D "$R/b" promote -w >/dev/null
T1=$(date +%s%3N)
C=
for _ in $(seq 600); do
  C=$(curl -s -m 2 "$U/api/instances/counts?by=status&process=drill" || true)
  echo "$C" | grep -q "\"completed\",\"count\":$N}" && break
  sleep 0.2
done
T2=$(date +%s%3N)
echo "$C" | grep -q "\"groups\":\[{\"status\":\"completed\",\"count\":$N}\],\"total\":$N" || fail "not every root completed exactly once: $C"
kill -0 "$BP" 2>/dev/null || fail "baton-api exited"
curl -sf "$U/healthz" | grep -q '"status":"ok"' || fail "/healthz is not ok after the failover"
# Each instance entered each task once: one task.started line per task per instance, no more.
DUP=$(psql -h 127.0.0.1 -p "$PB" -U postgres -Atc "select count(*) from (select instance_id, task from logs where event = 'task.started' group by 1, 2 having count(*) > 1) d" 2>/dev/null || echo "?")
[ "$DUP" = 0 ] || fail "$DUP task visits were entered twice"
echo "failover drill passed: $N roots completed, none lost or repeated; promote took $((T1 - T0)) ms, every root settled $((T2 - T0)) ms after the primary died; baton-api recovered without a restart"
