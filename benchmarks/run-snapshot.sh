#!/usr/bin/env bash
# Initial-snapshot benchmark: postlog's SnapshotReader (reader) and a ReplicationConsumer's
# initial snapshot through a no-op change handler (consumer) against one binary COPY of the
# same table drained by pgjdbc's CopyManager, in the same JVM and run, at several
# parallelisms; with --debezium also Debezium embedded's initial snapshot of the table, in a
# JVM of its own. Starts its own PostgreSQL 15 (Debian's postgresql-15) on a loopback port in
# a temp dir, loads the end-to-end benchmark's table, and prints the RESULT lines and a
# summary table. See benchmarks/README.md.
#
#   benchmarks/run-snapshot.sh [--rows N] [--runs K] [--parallelism 1,2,4] [--legs reader,consumer]
#                              [--text] [--debezium]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROWS=1000000
RUNS=3
PARALLELISM=1,2,4
BINARY=true
LEGS=reader,consumer
DEBEZIUM=0
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift 2 ;;
		--runs) RUNS=$2; shift 2 ;;
		--parallelism) PARALLELISM=$2; shift 2 ;;
		--legs) LEGS=$2; shift 2 ;;
		--text) BINARY=false; shift ;;
		--debezium) DEBEZIUM=1; shift ;;
		-h|--help) sed -n 2,11p "$0"; exit 0 ;;
		*) echo "unknown argument: $1" >&2; exit 2 ;;
	esac
done

# The server, the table and die/log.
# shellcheck source=bench-table.sh
source "$ROOT/benchmarks/bench-table.sh" snapshot

PROFILE=()
if [ "$DEBEZIUM" -eq 1 ]; then
	PROFILE=(-Pdebezium)
	"${PSQL[@]}" -c "CREATE PUBLICATION bench_dbz_pub FOR TABLE bench_rows"
fi

build_classpath "${PROFILE[@]}"

log "run: $RUNS run(s), legs $LEGS, parallelism $PARALLELISM, binary=$BINARY"
# SNAPSHOT_JAVA_OPTS: extra JVM flags for the leg, e.g. -XX:StartFlightRecording=filename=/tmp/snap.jfr
# shellcheck disable=SC2086
java ${SNAPSHOT_JAVA_OPTS:-} -cp "$CP" io.postlog.benchmarks.e2e.SnapshotLeg url="$URL" user=postgres table=bench_rows rows="$ROWS" \
	runs="$RUNS" parallelism="$PARALLELISM" binary="$BINARY" legs="$LEGS" | tee "$WORK/results.txt" \
	| grep '^RESULT\|^FAILED' >&2
grep -q '^FAILED' "$WORK/results.txt" && die "a leg failed"
if [ "$DEBEZIUM" -eq 1 ]; then
	for run in $(seq 1 "$RUNS"); do
		log "debezium-snapshot run $run"
		java -Xmx2g -cp "$CP" io.postlog.benchmarks.debezium.DebeziumSnapshotLeg host=127.0.0.1 port="$PORT" \
			user=postgres database=bench slot="bench_dbz_$run" publication=bench_dbz_pub table=public.bench_rows \
			rows="$ROWS" run="$run" 2>"$WORK/debezium-$run.log" | tee -a "$WORK/results.txt" \
			| grep '^RESULT\|^FAILED' >&2 || { tail -20 "$WORK/debezium-$run.log" >&2; die "the Debezium leg failed"; }
	done
fi
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') by \`benchmarks/run-snapshot.sh --rows $ROWS --runs $RUNS --parallelism $PARALLELISM --legs $LEGS$([ "$BINARY" = true ] || echo ' --text')$([ "$DEBEZIUM" -eq 0 ] || echo ' --debezium')\`"
echo "on $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $PG_VERSION;"
echo "table bench_rows: $ROWS rows, $SIZE; load average before $LOAD_BEFORE, after $LOAD_AFTER."
echo
python3 - "$WORK/results.txt" <<'EOF'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    if not line.startswith('RESULT '):
        continue
    f = dict(kv.split('=', 1) for kv in line.split()[1:])
    rows.setdefault((f['leg'], int(f['parallelism'])), []).append((float(f['rows_per_s']), float(f['client_cpu_s'])))
copy = statistics.median(r for r, _ in rows[('copy-binary', 1)])
print('| leg | parallelism | rows/s (best) | rows/s (median) | × one binary COPY (median) | client CPU s (median) |')
print('|---|---:|---:|---:|---:|---:|')
for (leg, parallelism), values in sorted(rows.items(), key=lambda item: (item[0][0] != 'copy-binary', item[0])):
    rates = [r for r, _ in values]
    median = statistics.median(rates)
    print(f'| {leg} | {parallelism} | {max(rates):,.0f} | {median:,.0f} | {median / copy:.2f}× | {statistics.median(c for _, c in values):.2f} |')
debezium = rows.get(('debezium-snapshot', 1))
if debezium:
    dbz = statistics.median(r for r, _ in debezium)
    print()
    for (leg, parallelism), values in sorted(rows.items()):
        if leg.startswith('consumer'):
            print(f'- {leg} at parallelism {parallelism}: {statistics.median(r for r, _ in values) / dbz:.2f}× '
                  f'Debezium embedded\'s initial snapshot (medians)')
EOF
