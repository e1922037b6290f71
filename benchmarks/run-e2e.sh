#!/usr/bin/env bash
# End-to-end benchmark of postlog against pg_recvlogical, raw pgjdbc and Debezium embedded.
# Starts its own PostgreSQL 15 (Debian's postgresql-15) on a loopback port in a temp dir,
# writes one workload, reads it back through every leg from its own slot, runs a latency
# test, and writes benchmarks/RESULTS.md. See benchmarks/README.md.
#
#   benchmarks/run-e2e.sh [--rows N] [--runs K] [--legs a,b,c] [--latency-seconds S]
#                         [--rate TX_PER_S] [--slow-changes N] [--no-footprint] [--big-rows N]
#                         [--outbox-seconds S] [--outbox-rate N] [--latency-runs K]
#                         [--backfill-runs K] [--backfill-rate R] [--backfill-seconds S]
#                         [--kafka-broker process|jvm] [--latency-together] [--out FILE]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ALL_LEGS=recvlogical,pgjdbc-raw,pgjdbc-handoff,core-binary,core-text,core-streaming,core-wal2json,core-pglogical,spring-change,spring-change-filtered,spring-change-schema,spring-change-64m,spring-record,spring-sink-slot,spring-sink-jdbc,kafka-relay,kafka-relay-debezium,kafka-relay-cloudevents,kafka-producer,kafka-listener-producer,debezium-connect,debezium-json
ROWS=1000000
RUNS=3
LEGS=$ALL_LEGS
LATENCY_SECONDS=60
RATE=5000
WRITER_CONNECTIONS=4
# Seconds at the start of the latency run that the steady-state percentiles leave out.
LATENCY_WARMUP=10
FOOTPRINT=1
# Changes of the slow-listener run (2 ms per change, 1 lane and 8); 0 skips it.
SLOW_CHANGES=100000
# Rows of the one large transaction timed from commit to its last change, streaming off and
# on (0 skips it).
BIG_ROWS=0
# The outbox latency run: single-row outbox transactions per second, for how long; 0 s skips it.
OUTBOX_SECONDS=60
# Issue 33's outbox row is at 100 events/s.
OUTBOX_RATE=100
# Runs of the latency and outbox sections (default: --runs); the report gives their medians.
LATENCY_RUNS=
# Runs of the backfill section (BackfillLeg on bench_rows as the workload left it, against
# this server; default: --runs, 0 skips it), its writer's rate and measured seconds.
BACKFILL_RUNS=
BACKFILL_RATE=1000
BACKFILL_SECONDS=10
# Where the Kafka legs' broker runs: "process", a process of its own started and warmed up
# before each run of a leg, as a deployed broker is (BenchBrokerProcess); "jvm", inside the
# leg's JVM, cold, as runs before 2026-12-06 17:00 UTC had it.
KAFKA_BROKER=process
# How the latency legs share a run: "turns", one after the other, each with a writer of its
# own; "together" (--latency-together), all at once on one writer, each from a slot of its
# own, so that every hiccup of the machine reaches every leg alike.
LATENCY_MODE=turns
OUT=$ROOT/benchmarks/RESULTS.md
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift 2 ;;
		--runs) RUNS=$2; shift 2 ;;
		--legs) LEGS=$2; shift 2 ;;
		--latency-seconds) LATENCY_SECONDS=$2; shift 2 ;;
		--rate) RATE=$2; shift 2 ;;
		--no-footprint) FOOTPRINT=0; shift ;;
		--slow-changes) SLOW_CHANGES=$2; shift 2 ;;
		--big-rows) BIG_ROWS=$2; shift 2 ;;
		--outbox-seconds) OUTBOX_SECONDS=$2; shift 2 ;;
		--outbox-rate) OUTBOX_RATE=$2; shift 2 ;;
		--latency-runs) LATENCY_RUNS=$2; shift 2 ;;
		--backfill-runs) BACKFILL_RUNS=$2; shift 2 ;;
		--backfill-rate) BACKFILL_RATE=$2; shift 2 ;;
		--backfill-seconds) BACKFILL_SECONDS=$2; shift 2 ;;
		--kafka-broker) KAFKA_BROKER=$2; shift 2 ;;
		--latency-together) LATENCY_MODE=together; shift ;;
		--out) OUT=$2; shift 2 ;;
		-h|--help) sed -n 2,11p "$0"; exit 0 ;;
		*) echo "unknown argument: $1" >&2; exit 2 ;;
	esac
done

die() { echo "run-e2e: $*" >&2; exit 1; }
# The value of NAME= in a line of NAME=VALUE fields (a leg's RESULT line, the writer's).
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ $((ROWS % 10000)) -eq 0 ] && [ "$ROWS" -gt 0 ] || die "--rows must be a positive multiple of 10000"
[ "$RUNS" -ge 1 ] || die "--runs must be at least 1"
LATENCY_RUNS=${LATENCY_RUNS:-$RUNS}
BACKFILL_RUNS=${BACKFILL_RUNS:-$RUNS}
[ "$LATENCY_RUNS" -ge 1 ] || die "--latency-runs must be at least 1"
case "$KAFKA_BROKER" in process | jvm) ;; *) die "--kafka-broker must be process or jvm" ;; esac
IFS=, read -r -a LEG_LIST <<<"$LEGS"
for leg in "${LEG_LIST[@]}"; do
	case ",$ALL_LEGS," in *",$leg,"*) ;; *) die "unknown leg '$leg' (known: $ALL_LEGS)" ;; esac
done
has_leg() { case ",$LEGS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
[ -x "$PGBIN/initdb" ] || die "no $PGBIN/initdb: apt-get install -y postgresql-15"
[ -x /usr/bin/time ] || die "no /usr/bin/time: apt-get install -y time"
command -v python3 >/dev/null || die "python3 is needed for the report"
command -v psql >/dev/null || die "no psql: apt-get install -y postgresql-client-15"

EXPECTED=$((ROWS + ROWS / 5 + ROWS / 10))
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# --- PostgreSQL ---------------------------------------------------------------------------
WORK=$(mktemp -d /tmp/postlog-e2e.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/pg" "$WORK/legs"
as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" -eq 0 ] && chown postgres "$WORK/pg"
PORT=55432
while (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do PORT=$((PORT + 1)); done

cleanup() {
	status=$?
	jobs -p | xargs -r kill 2>/dev/null || true
	as_postgres "$PGBIN/pg_ctl" -D "$WORK/pg/data" -m immediate stop >/dev/null 2>&1 || true
	mkdir -p "$ROOT/benchmarks/target/e2e-logs"
	cp -r "$WORK/legs/." "$ROOT/benchmarks/target/e2e-logs/" 2>/dev/null || true
	cp "$WORK/pg/log" "$ROOT/benchmarks/target/e2e-logs/postgres.log" 2>/dev/null || true
	rm -rf "$WORK"
	exit $status
}
trap cleanup EXIT INT TERM

log "initdb and start PostgreSQL on 127.0.0.1:$PORT ($WORK)"
# pglogical's extension runs workers that must be preloaded (its output plugin is a library
# like wal2json's, loaded by the walsender).
PGLOGICAL_OPTS=""
has_leg core-pglogical && PGLOGICAL_OPTS="-c shared_preload_libraries=pglogical -c max_worker_processes=16"
as_postgres "$PGBIN/initdb" -D "$WORK/pg/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
# fsync off: a throwaway server on a shared disk; commits still go through the WAL flush
# path, so walsenders see them as soon as they are written (synchronous_commit stays on).
as_postgres "$PGBIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w -t 60 -o "-p $PORT \
	-c listen_addresses=127.0.0.1 -c unix_socket_directories=$WORK/pg -c wal_level=logical \
	-c max_replication_slots=100 -c max_wal_senders=20 -c fsync=off -c full_page_writes=off \
	-c shared_buffers=512MB -c max_wal_size=16GB -c checkpoint_timeout=1h -c wal_sender_timeout=5min $PGLOGICAL_OPTS" \
	start >/dev/null
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres)
"${PSQL[@]}" -d postgres -c "CREATE DATABASE bench"
PSQL+=(-d bench)
sql() { "${PSQL[@]}" -tA -c "$1"; }
URL="jdbc:postgresql://127.0.0.1:$PORT/bench"
PG_VERSION=$(sql "SELECT version()")

sql "CREATE TABLE bench_rows(id bigint PRIMARY KEY, a int, b text, c timestamptz, d numeric(12,2), e jsonb)"
sql "CREATE PUBLICATION bench_pub FOR TABLE bench_rows"
# The filtered leg's publication: the same table with a row filter (PostgreSQL 15+) over the
# key, so that bench_rows keeps its replica identity and every leg decodes the same WAL.
FILTER_WHERE="id%2=0"
if has_leg spring-change-filtered; then
	sql "CREATE PUBLICATION bench_pub_filtered FOR TABLE bench_rows WHERE ($FILTER_WHERE)"
fi
if has_leg core-pglogical; then
	# pglogical_output streams the tables of the local node's replication sets.
	sql "CREATE EXTENSION pglogical"
	sql "SELECT 1 FROM pglogical.create_node(node_name := 'bench', dsn := 'host=127.0.0.1 port=$PORT dbname=bench')" >/dev/null
	sql "SELECT 1 FROM pglogical.replication_set_add_table('default', 'bench_rows')" >/dev/null
fi

# --- build --------------------------------------------------------------------------------
PROFILE=()
if has_leg debezium-connect || has_leg debezium-json || [ "$FOOTPRINT" -eq 1 ]; then PROFILE=(-Pdebezium); fi
if has_leg kafka-relay || has_leg kafka-relay-debezium || has_leg kafka-relay-cloudevents || has_leg kafka-producer \
	|| has_leg kafka-listener-producer || [ "$OUTBOX_SECONDS" -gt 0 ]; then
	PROFILE+=(-Pkafka)
fi
log "build (./mvnw -pl benchmarks -am ${PROFILE[*]} package)"
(cd "$ROOT" && ./mvnw -q -B -pl benchmarks -am "${PROFILE[@]}" package -DskipTests -Dspring-javaformat.skip=true \
	dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -DincludeScope=runtime) \
	>"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; die "build failed"; }
CP="$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")"
# E2E_JAVA_OPTS: extra JVM flags for the Java legs, e.g. -XX:StartFlightRecording=filename=/tmp/%p.jfr;
# E2E_BROKER_JAVA_OPTS: the same for the Kafka broker's process (--kafka-broker process).
read -r -a JAVA_OPTS <<<"${E2E_JAVA_OPTS:-}"
read -r -a BROKER_JAVA_OPTS <<<"${E2E_BROKER_JAVA_OPTS:-}"
JAVA=(java "${JAVA_OPTS[@]}" -cp "$CP")

# --- workload -----------------------------------------------------------------------------
slot_name() { echo "s_${1//-/_}_$2"; }
slot_plugin() {
	case "$1" in core-wal2json) echo wal2json ;; core-pglogical) echo pglogical_output ;; *) echo pgoutput ;; esac
}
log "create $((RUNS * ${#LEG_LIST[@]})) slots"
for run in $(seq 1 "$RUNS"); do
	for leg in "${LEG_LIST[@]}"; do
		sql "SELECT 1 FROM pg_create_logical_replication_slot('$(slot_name "$leg" "$run")', '$(slot_plugin "$leg")')" >/dev/null
	done
done
sql "SELECT 1 FROM pg_create_logical_replication_slot('s_check', 'pgoutput')" >/dev/null

log "write $ROWS inserts, $((ROWS / 5)) updates, $((ROWS / 10)) deletes in 1000-row transactions"
{
	for ((lo = 1; lo <= ROWS; lo += 1000)); do
		echo "INSERT INTO bench_rows SELECT g, (g % 100000)::int, 'row ' || g || ' please deliver to the back door',"\
			"timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second', ((g % 1000000) / 100.0)::numeric(12,2),"\
			"jsonb_build_object('qty', g % 10, 'sku', 'A-' || g) FROM generate_series($lo, $((lo + 999))) g;"
	done
	for ((lo = 1; lo <= ROWS / 5; lo += 1000)); do
		echo "UPDATE bench_rows SET a = a + 1, b = b || ' (updated)' WHERE id BETWEEN $lo AND $((lo + 999));"
	done
	for ((lo = ROWS - ROWS / 10 + 1; lo <= ROWS; lo += 1000)); do
		echo "DELETE FROM bench_rows WHERE id BETWEEN $lo AND $((lo + 999));"
	done
} >"$WORK/workload.sql"
write_start=$(date +%s.%N)
"${PSQL[@]}" -f "$WORK/workload.sql"
write_end=$(date +%s.%N)
END_LSN=$(sql "SELECT pg_current_wal_lsn()")
WAL_BYTES=$(sql "SELECT pg_current_wal_lsn() - confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 's_check'")
log "written in $(python3 -c "print(round($write_end - $write_start, 1))") s; WAL to decode: $((WAL_BYTES / 1048576)) MiB"

# The WAL must hold exactly the expected changes as pgoutput sends them; the last commit's
# position is where pg_recvlogical stops.
read -r WAL_CHANGES LAST_LSN < <(sql "SELECT count(*) FILTER (WHERE get_byte(data, 0) IN (73, 85, 68)), max(lsn)
	FROM pg_logical_slot_peek_binary_changes('s_check', '$END_LSN', NULL,
	'proto_version', '1', 'publication_names', 'bench_pub')" | tr '|' ' ')
FILTERED_EXPECTED=0
if has_leg spring-change-filtered; then
	# The changes the row filter lets through, from the workload's ids in SQL, checked against
	# what the server sends for the filtered publication.
	FILTERED_EXPECTED=$(sql "SELECT count(*) FROM (SELECT g FROM generate_series(1, $ROWS) g
		UNION ALL SELECT g FROM generate_series(1, $((ROWS / 5))) g
		UNION ALL SELECT g FROM generate_series($((ROWS - ROWS / 10 + 1)), $ROWS) g) w (id) WHERE $FILTER_WHERE")
	FILTERED_WAL=$(sql "SELECT count(*) FILTER (WHERE get_byte(data, 0) IN (73, 85, 68))
		FROM pg_logical_slot_peek_binary_changes('s_check', '$END_LSN', NULL,
		'proto_version', '1', 'publication_names', 'bench_pub_filtered')")
	[ "$FILTERED_WAL" -eq "$FILTERED_EXPECTED" ] \
		|| die "the filtered publication sends $FILTERED_WAL changes, the SQL count is $FILTERED_EXPECTED"
	log "the filtered publication ($FILTER_WHERE) sends $FILTERED_EXPECTED of the $EXPECTED changes"
fi
sql "SELECT 1 FROM pg_drop_replication_slot('s_check')" >/dev/null
[ "$WAL_CHANGES" -eq "$EXPECTED" ] || die "the WAL holds $WAL_CHANGES changes, expected $EXPECTED"
log "WAL holds $WAL_CHANGES changes, last commit at $LAST_LSN"

# --- legs ---------------------------------------------------------------------------------
leg_command() { # leg slot expected latency ready
	local leg=$1 slot=$2 expected=$3 latency=$4 ready=$5
	local common=(url="$URL" user=postgres slot="$slot" publication=bench_pub expected="$expected"
		latency="$latency" ready="$ready" timeout=900)
	case "$leg" in
		recvlogical) echo "$PGBIN/pg_recvlogical" -h 127.0.0.1 -p "$PORT" -U postgres -d bench --slot "$slot" --start \
			-o proto_version=1 -o publication_names=bench_pub --endpos "$LAST_LSN" --no-loop -f /dev/null ;;
		pgjdbc-raw) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.RawPgjdbcLeg "${common[@]}" ;;
		pgjdbc-handoff) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.RawPgjdbcLeg "${common[@]}" handoff=true ;;
		core-binary) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.CoreLeg "${common[@]}" binary=true ;;
		core-text) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.CoreLeg "${common[@]}" binary=false ;;
		core-wal2json) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.CoreLeg "${common[@]}" decoder=wal2json table=bench_rows ;;
		core-pglogical) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.CoreLeg "${common[@]}" decoder=pglogical sets=default ;;
		core-streaming) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.CoreLeg "${common[@]}" binary=true streaming=true \
			spill="$WORK/spill" ;;
		spring-change) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.SpringLeg "${common[@]}" listener=change ;;
		# The same listener with a @PgSchemaListener of bench_rows beside it: schema tracking on,
		# on a table with no DDL.
		spring-change-schema) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.SpringLeg "${common[@]}" \
			listener=change-schema leg=spring-change-schema ;;
		# The same listener on the filtered publication, the filter named in postlog.filters.
		spring-change-filtered) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.SpringLeg \
			"${common[@]/publication=bench_pub/publication=bench_pub_filtered}" listener=change \
			leg=spring-change-filtered where="$FILTER_WHERE" ;;
		# The same application in a small container's heap.
		spring-change-64m) echo java -Xmx64m "${JAVA_OPTS[@]}" -cp "$CP" io.postlog.benchmarks.e2e.SpringLeg "${common[@]}" \
			listener=change ;;
		spring-record) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.SpringLeg "${common[@]}" listener=record ;;
		kafka-relay) echo "${JAVA[@]}" io.postlog.benchmarks.kafka.KafkaRelayLeg "${common[@]}" format=postlog leg="$leg" ;;
		# The same relay writing Debezium's envelope, or binary-mode CloudEvents.
		kafka-relay-debezium | kafka-relay-cloudevents) echo "${JAVA[@]}" io.postlog.benchmarks.kafka.KafkaRelayLeg \
			"${common[@]}" format="${leg#kafka-relay-}" leg="$leg" ;;
		# The Kafka relay's floor: raw pgjdbc, the relay's producers and broker, no decoding.
		kafka-producer) echo "${JAVA[@]}" io.postlog.benchmarks.kafka.KafkaProducerLeg "${common[@]}" ;;
		# The relay's floor with decoding: the Change listener sending what kafka-producer sends.
		kafka-listener-producer) echo "${JAVA[@]}" io.postlog.benchmarks.kafka.ListenerProducerLeg "${common[@]}" ;;
		spring-sink-slot | spring-sink-jdbc) echo "${JAVA[@]}" io.postlog.benchmarks.e2e.SinkLeg "${common[@]}" \
			store="${leg#spring-sink-}" batch=100 sink="sink_$slot" ;;
		debezium-connect | debezium-json) echo "${JAVA[@]}" io.postlog.benchmarks.debezium.DebeziumLeg "${common[@]}" \
			host=127.0.0.1 port="$PORT" database=bench format="${leg#debezium-}" leg="$leg" ;;
	esac
}

# The user and system CPU seconds a process has used so far (/proc/PID/stat, clock ticks).
process_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"
}

# Starts a Kafka broker in a process of its own and waits until it has warmed up
# (BenchBrokerProcess); sets BROKER_PID and BROKER_SERVERS. Its log: $1.log.
start_broker() {
	local base=$1
	java "${BROKER_JAVA_OPTS[@]}" -cp "$CP" io.postlog.benchmarks.kafka.BenchBrokerProcess ready="$base.ready" >"$base.log" 2>&1 &
	BROKER_PID=$!
	local waited=0
	until [ -s "$base.ready" ]; do
		kill -0 "$BROKER_PID" 2>/dev/null || { tail -20 "$base.log" >&2; die "the Kafka broker process failed"; }
		[ "$waited" -lt 1800 ] || die "the Kafka broker process was not ready in 180 s"
		sleep 0.1
		waited=$((waited + 1))
	done
	BROKER_SERVERS=$(cat "$base.ready")
	log "Kafka broker process $BROKER_PID at $BROKER_SERVERS: $(grep '^BROKER ' "$base.log")"
}

# Appends one line to results.tsv: leg run changes first_to_last_s wall_s cpu_s rss_kb alloc
# second_half_s jit_s window_cpu_s second_half_cpu_s (those five '-' for pg_recvlogical)
# server_cpu_s broker_cpu_s (the server's and the Kafka broker process's CPU over the
# first-to-last window, as the leg's Tally read them; '-' without them)
run_leg() {
	local leg=$1 run=$2 slot expected=$EXPECTED
	slot=$(slot_name "$leg" "$run")
	# The filtered leg receives only the changes its row filter selects; its rate still
	# divides the whole WAL's changes by its first-to-last time, as every leg's does.
	if [ "$leg" = spring-change-filtered ]; then expected=$FILTERED_EXPECTED; fi
	local out="$WORK/legs/$leg-$run.log" timing="$WORK/legs/$leg-$run.time"
	local cmd
	# A sink leg writes one row per change into a table of its own.
	case "$leg" in spring-sink-*) sql "CREATE TABLE sink_$slot (id bigint, op text)" ;; esac
	read -r -a cmd <<<"$(leg_command "$leg" "$slot" "$expected" false "")"
	local broker_pid= broker_cpu_before
	case "$leg" in kafka-*) if [ "$KAFKA_BROKER" = process ]; then
		start_broker "$WORK/legs/broker-$leg-$run"
		cmd+=(kafka="$BROKER_SERVERS")
		broker_cpu_before=$(process_cpu "$BROKER_PID")
		broker_pid=$BROKER_PID
	fi ;; esac
	local start end
	start=$(date +%s.%N)
	# The leg's Tally reads the server's and the broker's CPU at its first change and its last.
	BENCH_SERVER_PID=$(head -1 "$WORK/pg/data/postmaster.pid") BENCH_BROKER_PID=$broker_pid \
		/usr/bin/time -v -o "$timing" "${cmd[@]}" >"$out" 2>&1 || { tail -20 "$out" >&2; die "leg $leg (run $run) failed"; }
	end=$(date +%s.%N)
	if [ -n "$broker_pid" ]; then
		log "$leg run $run: the broker's process used $(python3 -c \
			"print(round($(process_cpu "$broker_pid") - $broker_cpu_before, 2))") s of CPU during the leg"
		kill "$broker_pid" && wait "$broker_pid" 2>/dev/null || true
	fi
	local cpu rss
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$timing")
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$timing")
	local changes f2l wall alloc=- half=- jit=- window_cpu=- half_cpu=- server_cpu=- broker_cpu=-
	if [ "$leg" = recvlogical ]; then
		# pg_recvlogical decodes nothing it could count: it must have confirmed the last commit.
		local confirmed
		confirmed=$(sql "SELECT confirmed_flush_lsn >= '$LAST_LSN' FROM pg_replication_slots WHERE slot_name = '$slot'")
		[ "$confirmed" = t ] || die "pg_recvlogical (run $run) stopped before the last commit"
		changes=$EXPECTED
		wall=$(python3 -c "print(round($end - $start, 3))")
		f2l=$wall
	else
		local line
		line=$(grep '^RESULT ' "$out" || true)
		[ -n "$line" ] || { tail -20 "$out" >&2; die "leg $leg (run $run) printed no RESULT"; }
		changes=$(field changes "$line")
		f2l=$(field first_to_last_s "$line")
		wall=$(field wall_s "$line")
		[ "$changes" -eq "$expected" ] || die "leg $leg (run $run) received $changes changes, expected $expected"
		alloc=$(field alloc_bytes_per_change "$line")
		half=$(field second_half_s "$line")
		jit=$(field jit_s "$line")
		window_cpu=$(field window_cpu_s "$line")
		half_cpu=$(field second_half_cpu_s "$line")
		server_cpu=$(field server_window_cpu_s "$line")
		broker_cpu=$(field broker_window_cpu_s "$line")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$leg" "$run" "$changes" "$f2l" "$wall" "$cpu" \
		"$rss" "${alloc:--}" "${half:--}" "${jit:--}" "${window_cpu:--}" "${half_cpu:--}" "${server_cpu:--}" "${broker_cpu:--}" \
		>>"$WORK/results.tsv"
	log "$leg run $run: $changes changes, $f2l s first to last, $wall s wall, $cpu s CPU, $((rss / 1024)) MB RSS"
}

: >"$WORK/results.tsv"
for run in $(seq 1 "$RUNS"); do
	for leg in "${LEG_LIST[@]}"; do
		run_leg "$leg" "$run"
	done
done

# --- latency ------------------------------------------------------------------------------
: >"$WORK/latency.tsv"
# Appends to latency.tsv: leg run total p50 p99 max achieved behind steady_p50 steady_p99
# steady_max mode. Each run of each leg reads a slot of its own, created just before it. In
# turns, the legs take turns within a run, so load drifts over the runs touch every leg
# alike; together, they read at once what one writer commits.
LATENCY_LEGS=()
for leg in pgjdbc-raw pgjdbc-handoff core-binary spring-change debezium-connect; do
	has_leg "$leg" && LATENCY_LEGS+=("$leg")
done
latency_start() { # leg run index: starts the leg on a new slot, in the background
	local leg=$1 lat_run=$2 slot="lat_${1//-/_}_$2" lat_log="$WORK/legs/$1-latency-$2"
	sql "SELECT 1 FROM pg_create_logical_replication_slot('$slot', 'pgoutput')" >/dev/null
	read -r -a cmd <<<"$(leg_command "$leg" "$slot" "$((RATE * LATENCY_SECONDS))" true "$lat_log.ready") warmup=$((RATE * LATENCY_WARMUP))"
	"${cmd[@]}" >"$lat_log.log" 2>&1 &
	LATENCY_PIDS[$leg]=$!
}
latency_await_ready() { # leg run
	local lat_log="$WORK/legs/$1-latency-$2" pid=${LATENCY_PIDS[$1]}
	for _ in $(seq 1 240); do [ -f "$lat_log.ready" ] || ! kill -0 "$pid" 2>/dev/null && break; sleep 0.5; done
	[ -f "$lat_log.ready" ] || { tail -20 "$lat_log.log" >&2; die "leg $1 did not start"; }
}
latency_write() { # index log: one writer, RATE single-row transactions a second
	"${JAVA[@]}" io.postlog.benchmarks.e2e.LatencyWriter url="$URL" user=postgres rate="$RATE" \
		seconds="$LATENCY_SECONDS" connections="$WRITER_CONNECTIONS" firstId=$((100000000 * $1)) \
		>"$2" 2>&1 || { cat "$2" >&2; die "writer failed"; }
}
latency_finish() { # leg run writer-log
	local leg=$1 lat_run=$2 writer_log=$3 lat_log="$WORK/legs/$1-latency-$2"
	wait "${LATENCY_PIDS[$leg]}" || { tail -20 "$lat_log.log" >&2; die "latency leg $leg failed"; }
	local line writer p50 p99 max achieved behind sp50 sp99 smax
	line=$(grep '^RESULT ' "$lat_log.log")
	writer=$(grep '^WRITER ' "$writer_log")
	p50=$(field p50_ms "$line")
	p99=$(field p99_ms "$line")
	max=$(field max_ms "$line")
	achieved=$(field rate "$writer")
	behind=$(field max_behind_ms "$writer")
	sp50=$(field steady_p50_ms "$line")
	sp99=$(field steady_p99_ms "$line")
	smax=$(field steady_max_ms "$line")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$leg" "$lat_run" "$((RATE * LATENCY_SECONDS))" \
		"$p50" "$p99" "$max" "$achieved" "$behind" "$sp50" "$sp99" "$smax" "$LATENCY_MODE" >>"$WORK/latency.tsv"
	log "latency $leg (run $lat_run): p50 $p50 ms, p99 $p99 ms, max $max ms, after warm-up p99 $sp99 ms (writer $achieved tx/s; client CPU s first→last $(field window_cpu_s "$line"))"
	sql "SELECT 1 FROM pg_drop_replication_slot('lat_${leg//-/_}_$lat_run')" >/dev/null
}
declare -A LATENCY_PIDS=()
if [ "$LATENCY_SECONDS" -gt 0 ] && [ "${#LATENCY_LEGS[@]}" -gt 0 ]; then
	lat_index=0
	for lat_run in $(seq 1 "$LATENCY_RUNS"); do
		if [ "$LATENCY_MODE" = together ]; then
			lat_index=$((lat_index + 1))
			for leg in "${LATENCY_LEGS[@]}"; do latency_start "$leg" "$lat_run"; done
			for leg in "${LATENCY_LEGS[@]}"; do latency_await_ready "$leg" "$lat_run"; done
			sleep 2
			log "latency: ${LATENCY_LEGS[*]} together (run $lat_run), $RATE single-row transactions/s for $LATENCY_SECONDS s"
			writer_log="$WORK/legs/together-latency-$lat_run-writer.log"
			latency_write "$lat_index" "$writer_log"
			for leg in "${LATENCY_LEGS[@]}"; do latency_finish "$leg" "$lat_run" "$writer_log"; done
			continue
		fi
		for leg in "${LATENCY_LEGS[@]}"; do
			lat_index=$((lat_index + 1))
			latency_start "$leg" "$lat_run"
			latency_await_ready "$leg" "$lat_run"
			sleep 2
			log "latency: $leg (run $lat_run), $RATE single-row transactions/s for $LATENCY_SECONDS s"
			latency_write "$lat_index" "$WORK/legs/$leg-latency-$lat_run-writer.log"
			latency_finish "$leg" "$lat_run" "$WORK/legs/$leg-latency-$lat_run-writer.log"
		done
	done
fi

# --- slow listener ------------------------------------------------------------------------
: >"$WORK/slow.tsv"
if [ "$SLOW_CHANGES" -gt 0 ]; then
	log "slow listener: $SLOW_CHANGES changes on 1,000 keys, 2 ms each, on 1 lane and on 8"
	"${JAVA[@]}" io.postlog.benchmarks.e2e.SlowListenerRun url="$URL" user=postgres changes="$SLOW_CHANGES" \
		keys=1000 sleepMicros=2000 lanes=1,8 >"$WORK/legs/slow-listener.log" 2>&1 \
		|| { tail -20 "$WORK/legs/slow-listener.log" >&2; die "slow-listener run failed"; }
	grep '^SLOW ' "$WORK/legs/slow-listener.log" | while read -r line; do
		lanes=$(field lanes "$line")
		changes=$(field changes "$line")
		seconds=$(field seconds "$line")
		rate=$(field rate "$line")
		order=$(field order "$line")
		printf '%s\t%s\t%s\t%s\t%s\n' "$lanes" "$changes" "$seconds" "$rate" "$order" >>"$WORK/slow.tsv"
		log "slow listener, $lanes lane(s): $rate changes/s, per-key order $order"
	done
fi

# --- one large transaction ------------------------------------------------------------------
# Commit to last change of one BIG_ROWS-row transaction, read by postlog core with streaming
# off and on, in turn, each from a slot of its own created just before it and with the leg
# already streaming while the transaction is written. Appends to big.tsv: mode run
# commit_to_last_ms first_to_last_s cpu_s rss_kb server_spill_bytes server_stream_bytes
# client_spilled_bytes
: >"$WORK/big.tsv"
if [ "$BIG_ROWS" -gt 0 ]; then
	sql "CREATE TABLE big_rows(id bigint PRIMARY KEY, a int, b text, c timestamptz, d numeric(12,2), e jsonb)"
	sql "CREATE PUBLICATION big_pub FOR TABLE big_rows"
	for run in $(seq 1 "$RUNS"); do
		for mode in off on; do
			slot="big_${mode}_$run"
			sql "SELECT 1 FROM pg_create_logical_replication_slot('$slot', 'pgoutput')" >/dev/null
			ready="$WORK/legs/big-$mode-$run.ready" out="$WORK/legs/big-$mode-$run.log"
			streaming=false
			[ "$mode" = on ] && streaming=true
			/usr/bin/time -v -o "$WORK/legs/big-$mode-$run.time" "${JAVA[@]}" io.postlog.benchmarks.e2e.CoreLeg \
				url="$URL" user=postgres slot="$slot" publication=big_pub expected="$BIG_ROWS" ready="$ready" \
				timeout=900 leg="big-$mode" streaming="$streaming" spill="$WORK/spill" >"$out" 2>&1 &
			pid=$!
			for _ in $(seq 1 240); do [ -f "$ready" ] || ! kill -0 "$pid" 2>/dev/null && break; sleep 0.5; done
			[ -f "$ready" ] || { tail -20 "$out" >&2; die "large-transaction leg $mode did not start"; }
			sleep 2
			log "large transaction, streaming $mode (run $run): $BIG_ROWS rows in one transaction"
			sql "INSERT INTO big_rows SELECT g, (g % 100000)::int, 'row ' || g || ' please deliver to the back door',
				timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second', ((g % 1000000) / 100.0)::numeric(12,2),
				jsonb_build_object('qty', g % 10, 'sku', 'A-' || g) FROM generate_series(1, $BIG_ROWS) g" >/dev/null
			wait "$pid" || { tail -20 "$out" >&2; die "large-transaction leg $mode (run $run) failed"; }
			line=$(grep '^RESULT ' "$out")
			c2l=$(field commit_to_last_ms "$line")
			f2l=$(field first_to_last_s "$line")
			spilled=$(sed -n 's/^SPILLED bytes=\([0-9]*\).*/\1/p' "$out")
			cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$WORK/legs/big-$mode-$run.time")
			rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$WORK/legs/big-$mode-$run.time")
			read -r server_spill server_stream < <(sql "SELECT spill_bytes, stream_bytes FROM pg_stat_replication_slots
				WHERE slot_name = '$slot'" | tr '|' ' ')
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$run" "$c2l" "$f2l" "$cpu" "$rss" \
				"${server_spill:-}" "${server_stream:-}" "${spilled:-0}" >>"$WORK/big.tsv"
			log "large transaction, streaming $mode: commit to last change $c2l ms, server spilled ${server_spill:-?} B, streamed ${server_stream:-?} B, client spilled ${spilled:-0} B"
			sql "SELECT 1 FROM pg_drop_replication_slot('$slot')" >/dev/null
			sql "TRUNCATE big_rows"
		done
	done
fi

# --- outbox latency -----------------------------------------------------------------------
: >"$WORK/outbox.tsv"
# Appends to outbox.tsv: run events achieved behind p50 p99 max steady_p50 steady_p99
# steady_max load1 (the 1-minute load average when the run ended). Each run has a slot, a
# publication and a broker of its own.
if [ "$OUTBOX_SECONDS" -gt 0 ]; then
	for ob_run in $(seq 1 "$LATENCY_RUNS"); do
		log "outbox (run $ob_run): $OUTBOX_RATE single-row outbox transactions/s for $OUTBOX_SECONDS s through the Kafka relay"
		ob_log="$WORK/legs/outbox-latency-$ob_run.log"
		"${JAVA[@]}" io.postlog.benchmarks.kafka.OutboxLatencyRun url="$URL" user=postgres rate="$OUTBOX_RATE" \
			seconds="$OUTBOX_SECONDS" warmup="$LATENCY_WARMUP" slot="outbox_latency_$ob_run" >"$ob_log" 2>&1 \
			|| { tail -20 "$ob_log" >&2; die "outbox latency run failed"; }
		line=$(grep '^OUTBOX ' "$ob_log")
		values=()
		for name in events rate max_behind_ms p50_ms p99_ms max_ms steady_p50_ms steady_p99_ms steady_max_ms; do
			values+=("$(field "$name" "$line")")
		done
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ob_run" "${values[@]}" "$(cut -d' ' -f1 /proc/loadavg)" \
			>>"$WORK/outbox.tsv"
		log "outbox (run $ob_run): p50 $(field p50_ms "$line") ms, p99 $(field p99_ms "$line") ms, after warm-up p99 $(field steady_p99_ms "$line") ms"
	done
fi

# --- backfill -----------------------------------------------------------------------------
# BackfillLeg (as run-backfill.sh runs it) on bench_rows as the workload and the latency runs
# left it, against this server: the consumer's initial snapshot, then a backfill while a
# writer streams, against a plain session reading the table the same way paced to the
# backfill's rate. Its RESULT lines go to backfill.txt.
: >"$WORK/backfill.txt"
if [ "$BACKFILL_RUNS" -gt 0 ]; then
	sql "VACUUM ANALYZE bench_rows"
	bf_rows=$(sql "SELECT count(*) FROM bench_rows")
	log "backfill: $BACKFILL_RUNS run(s) over $bf_rows rows, writer at $BACKFILL_RATE tx/s for $BACKFILL_SECONDS s"
	"${JAVA[@]}" io.postlog.benchmarks.e2e.BackfillLeg url="$URL" user=postgres table=bench_rows rows="$bf_rows" \
		runs="$BACKFILL_RUNS" rate="$BACKFILL_RATE" seconds="$BACKFILL_SECONDS" chunk=10000 \
		>"$WORK/legs/backfill.log" 2>&1 || { tail -20 "$WORK/legs/backfill.log" >&2; die "backfill run failed"; }
	grep -q '^FAILED' "$WORK/legs/backfill.log" && { grep '^FAILED' "$WORK/legs/backfill.log" >&2; die "a backfill leg failed"; }
	grep '^RESULT' "$WORK/legs/backfill.log" >"$WORK/backfill.txt"
	BACKFILL_SECONDS=$BACKFILL_SECONDS python3 "$ROOT/benchmarks/e2e-report.py" --backfill-summary "$WORK/backfill.txt" >&2
fi

# --- footprint ----------------------------------------------------------------------------
: >"$WORK/footprint.tsv"
if [ "$FOOTPRINT" -eq 1 ]; then
	log "footprint"
	boot_version=$(sed -n 's:.*<spring-boot.version>\(.*\)</spring-boot.version>.*:\1:p' "$ROOT/pom.xml")
	dbz_version=$(sed -n 's:.*<debezium.version>\(.*\)</debezium.version>.*:\1:p' "$ROOT/benchmarks/pom.xml")
	footprint_pom() { # dir extra-dependencies
		mkdir -p "$1"
		cat >"$1/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>footprint</groupId><artifactId>$(basename "$1")</artifactId><version>1</version>
<dependencyManagement><dependencies><dependency><groupId>org.springframework.boot</groupId>
<artifactId>spring-boot-dependencies</artifactId><version>$boot_version</version><type>pom</type><scope>import</scope>
</dependency></dependencies></dependencyManagement>
<dependencies>
<dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter</artifactId></dependency>
<dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-jdbc</artifactId></dependency>
<dependency><groupId>org.postgresql</groupId><artifactId>postgresql</artifactId></dependency>
$2
</dependencies></project>
EOF
		(cd "$ROOT" && ./mvnw -q -B -f "$1/pom.xml" dependency:build-classpath -Dmdep.outputFile="$1/cp.txt" \
			-DincludeScope=runtime) >"$1/build.log" 2>&1 || { cat "$1/build.log" >&2; die "footprint build failed"; }
	}
	footprint_pom "$WORK/fp/base" ""
	footprint_pom "$WORK/fp/debezium" "<dependency><groupId>io.debezium</groupId><artifactId>debezium-embedded</artifactId><version>$dbz_version</version></dependency>
<dependency><groupId>io.debezium</groupId><artifactId>debezium-connector-postgres</artifactId><version>$dbz_version</version></dependency>"
	python3 - "$WORK/fp/base/cp.txt" "$ROOT/postlog-spring-boot-starter/target/classpath.txt" \
		"$ROOT/postlog-spring-boot-starter/target" "$WORK/fp/debezium/cp.txt" "$WORK/footprint.tsv" <<'EOF'
import glob, os, sys
base_cp, starter_cp, starter_target, dbz_cp, out = sys.argv[1:]
def entries(path):
    return [p for p in open(path).read().strip().split(os.pathsep) if p]
def name(p):
    # artifact directory in the local repository (group/artifact), version-free
    parts = p.split(os.sep)
    return os.sep.join(parts[-4:-2]) if p.endswith('.jar') and '/.m2/' in p else p
base = {name(p) for p in entries(base_cp)}
starter = entries(starter_cp) + glob.glob(os.path.join(starter_target, 'postlog-spring-boot-starter-*.jar'))
def added(cp):
    jars = [p for p in cp if name(p) not in base]
    return len(jars), sum(os.path.getsize(p) for p in jars if os.path.isfile(p)), sorted(os.path.basename(p) for p in jars)
with open(out, 'w') as f:
    for label, cp in (('postlog-spring-boot-starter', starter), ('debezium-embedded + debezium-connector-postgres', entries(dbz_cp))):
        count, size, jars = added(cp)
        f.write(f"{label}\t{count}\t{size}\t{' '.join(jars)}\n")
EOF
fi

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report -------------------------------------------------------------------------------
export BIG_ROWS ROWS RUNS EXPECTED FILTERED_EXPECTED LEGS LATENCY_SECONDS LATENCY_WARMUP RATE WRITER_CONNECTIONS LOAD_BEFORE LOAD_AFTER PG_VERSION WAL_BYTES
export JAVA_VERSION="$(java -version 2>&1 | head -2 | tr '\n' ' ')"
export CPU_MODEL="$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
export NPROC="$(nproc)" MEMORY="$(free -h | awk '/^Mem:/ { print $2 }')"
LATENCY_FLAG=
[ "$LATENCY_MODE" = together ] && LATENCY_FLAG=' --latency-together'
export OUTBOX_SECONDS OUTBOX_RATE LATENCY_RUNS LATENCY_MODE BACKFILL_RUNS BACKFILL_RATE BACKFILL_SECONDS KAFKA_BROKER
export COMMAND="benchmarks/run-e2e.sh --rows $ROWS --runs $RUNS --legs $LEGS --latency-seconds $LATENCY_SECONDS --rate $RATE --slow-changes $SLOW_CHANGES --big-rows $BIG_ROWS --outbox-seconds $OUTBOX_SECONDS --outbox-rate $OUTBOX_RATE --latency-runs $LATENCY_RUNS --backfill-runs $BACKFILL_RUNS --backfill-rate $BACKFILL_RATE --backfill-seconds $BACKFILL_SECONDS --kafka-broker $KAFKA_BROKER${LATENCY_FLAG}"
python3 "$ROOT/benchmarks/e2e-report.py" "$WORK/results.tsv" "$WORK/latency.tsv" "$WORK/footprint.tsv" \
	"$WORK/slow.tsv" "$WORK/big.tsv" "$WORK/outbox.tsv" "$WORK/backfill.txt" >"$OUT"
log "wrote $OUT"
cat "$OUT"
