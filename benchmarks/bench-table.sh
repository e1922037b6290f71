# Sourced by run-snapshot.sh, run-backfill.sh, run-fence.sh and run-tracing.sh: starts a
# PostgreSQL 15 (Debian's postgresql-15) of its own on a loopback port in a temp dir, stopped
# when the script exits, and loads the end-to-end benchmark's table bench_rows with $ROWS
# rows, read from memory. Needs ROOT, ROWS, PGBIN and a name ($1: the temp dir's and the
# saved server log's); sets WORK, PORT, PSQL, URL, PG_VERSION, SIZE and LOAD_BEFORE, and
# defines die, log and build_classpath.
# shellcheck shell=bash

BENCH_NAME=$1
die() { echo "run-$BENCH_NAME: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# Builds the benchmarks module with its dependencies (extra Maven arguments, such as a
# profile, pass through) and sets CP to its runtime class path.
build_classpath() {
	log "build (./mvnw -pl benchmarks -am package $*)"
	(cd "$ROOT" && ./mvnw -q -B -pl benchmarks -am package "$@" -DskipTests -Dspring-javaformat.skip=true \
		dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -DincludeScope=runtime) \
		>"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; die "build failed"; }
	CP="$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")"
}

[ "$ROWS" -gt 0 ] || die "--rows must be positive"
[ -x "$PGBIN/initdb" ] || die "no $PGBIN/initdb: apt-get install -y postgresql-15"
command -v psql >/dev/null || die "no psql: apt-get install -y postgresql-client-15"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
WORK=$(mktemp -d "/tmp/postlog-$BENCH_NAME.XXXXXX")
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
	cp "$WORK/pg/log" "$ROOT/benchmarks/target/$BENCH_NAME-postgres.log" 2>/dev/null || true
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
