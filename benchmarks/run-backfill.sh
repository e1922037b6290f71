#!/usr/bin/env bash
# Backfill benchmark: a backfill of the end-to-end benchmark's table while a writer commits
# --rate single-row transactions a second to another table, against the initial snapshot's
# reader on the same table; and the p50/p99 latency of the streamed changes with and without
# the backfill. Starts its own PostgreSQL 15 (Debian's postgresql-15) on a loopback port in a
# temp dir. See benchmarks/README.md.
#
#   benchmarks/run-backfill.sh [--rows N] [--runs K] [--rate R] [--seconds S] [--chunk C]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROWS=1000000
RUNS=3
RATE=1000
SECONDS_=10
CHUNK=10000

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift 2 ;;
		--runs) RUNS=$2; shift 2 ;;
		--rate) RATE=$2; shift 2 ;;
		--seconds) SECONDS_=$2; shift 2 ;;
		--chunk) CHUNK=$2; shift 2 ;;
		-h|--help) sed -n 2,8p "$0"; exit 0 ;;
		*) echo "unknown argument: $1" >&2; exit 2 ;;
	esac
done

die() { echo "run-snapshot: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ "$ROWS" -gt 0 ] || die "--rows must be positive"
[ -x "$PGBIN/initdb" ] || die "no $PGBIN/initdb: apt-get install -y postgresql-15"
command -v psql >/dev/null || die "no psql: apt-get install -y postgresql-client-15"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
WORK=$(mktemp -d /tmp/postlog-backfill.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/pg"
as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" -eq 0 ] && chown postgres "$WORK/pg"
PORT=55532
while (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do PORT=$((PORT + 1)); done

cleanup() {
	status=$?
	as_postgres "$PGBIN/pg_ctl" -D "$WORK/pg/data" -m immediate stop >/dev/null 2>&1 || true
	mkdir -p "$ROOT/benchmarks/target"
	cp "$WORK/pg/log" "$ROOT/benchmarks/target/backfill-postgres.log" 2>/dev/null || true
	rm -rf "$WORK"
	exit $status
}
trap cleanup EXIT INT TERM

log "initdb and start PostgreSQL on 127.0.0.1:$PORT ($WORK)"
as_postgres "$PGBIN/initdb" -D "$WORK/pg/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
# The table (about 150 MB) fits in shared_buffers, so every leg reads it from memory.
as_postgres "$PGBIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w -t 60 -o "-p $PORT \
	-c listen_addresses=127.0.0.1 -c unix_socket_directories=$WORK/pg -c wal_level=logical \
	-c max_replication_slots=20 -c max_wal_senders=20 -c fsync=off -c full_page_writes=off \
	-c shared_buffers=512MB -c max_wal_size=4GB -c checkpoint_timeout=1h" start >/dev/null
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres)
"${PSQL[@]}" -d postgres -c "CREATE DATABASE bench"
PSQL+=(-d bench)
URL="jdbc:postgresql://127.0.0.1:$PORT/bench"
PG_VERSION=$("${PSQL[@]}" -tA -c "SELECT version()")

log "load bench_rows: $ROWS rows (the end-to-end benchmark's table and values)"
"${PSQL[@]}" -c "CREATE TABLE bench_rows(id bigint PRIMARY KEY, a int, b text, c timestamptz, d numeric(12,2), e jsonb)"
"${PSQL[@]}" -c "INSERT INTO bench_rows SELECT g, (g % 100000)::int, 'row ' || g || ' please deliver to the back door',
	timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second', ((g % 1000000) / 100.0)::numeric(12,2),
	jsonb_build_object('qty', g % 10, 'sku', 'A-' || g) FROM generate_series(1, $ROWS) g"
"${PSQL[@]}" -c "VACUUM ANALYZE bench_rows"
SIZE=$("${PSQL[@]}" -tA -c "SELECT pg_size_pretty(pg_relation_size('bench_rows'))")

log "build (./mvnw -pl benchmarks -am package)"
(cd "$ROOT" && ./mvnw -q -B -pl benchmarks -am package -DskipTests -Dspring-javaformat.skip=true \
	dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -DincludeScope=runtime) \
	>"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; die "build failed"; }
CP="$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")"

log "run: $RUNS run(s), $RATE tx/s, $SECONDS_ s, chunks of $CHUNK"
java ${BACKFILL_JAVA_OPTS:-} -cp "$CP" io.postlog.benchmarks.e2e.BackfillLeg url="$URL" user=postgres table=bench_rows rows="$ROWS" \
	runs="$RUNS" rate="$RATE" seconds="$SECONDS_" chunk="$CHUNK" | tee "$WORK/results.txt" | grep '^RESULT\|^FAILED' >&2
grep -q '^FAILED' "$WORK/results.txt" && die "a leg failed"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') by \`benchmarks/run-backfill.sh --rows $ROWS --runs $RUNS --rate $RATE --seconds $SECONDS_ --chunk $CHUNK\`"
echo "on $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $PG_VERSION;"
echo "table bench_rows: $ROWS rows, $SIZE; load average before $LOAD_BEFORE, after $LOAD_AFTER (a shared machine)."
echo
grep '^RESULT' "$WORK/results.txt"
