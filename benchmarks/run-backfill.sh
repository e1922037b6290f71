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

# The server, the table and die/log.
# shellcheck source=bench-table.sh
source "$ROOT/benchmarks/bench-table.sh" backfill

build_classpath

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
echo
BACKFILL_SECONDS=$SECONDS_ python3 "$ROOT/benchmarks/e2e-report.py" --backfill-summary "$WORK/results.txt"
