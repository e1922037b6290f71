#!/usr/bin/env bash
# Writer cost of postlog.tracing.propagate: single-row transactions at --rate a second, with
# and without the postlog.trace message PostlogTracePropagation emits, in alternating
# one-second slices of one run, then each unpaced. Starts its own PostgreSQL 15 (Debian's
# postgresql-15) on a loopback port in a temp dir and prints the TRACE lines. See
# benchmarks/README.md.
#
#   benchmarks/run-tracing.sh [--rate 1000] [--seconds 20]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RATE=1000
SECONDS_PER_MODE=20
# bench-table.sh loads bench_rows; this benchmark does not read it.
ROWS=1
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

while [ $# -gt 0 ]; do
	case "$1" in
		--rate) RATE=$2; shift 2 ;;
		--seconds) SECONDS_PER_MODE=$2; shift 2 ;;
		-h|--help) sed -n 2,8p "$0"; exit 0 ;;
		*) echo "unknown argument: $1" >&2; exit 2 ;;
	esac
done

# shellcheck source=bench-table.sh
source "$ROOT/benchmarks/bench-table.sh" tracing

build_classpath

log "tracing writer: $RATE tx/s, $SECONDS_PER_MODE s per mode, propagation off and on side by side"
java -cp "$CP" io.postlog.benchmarks.e2e.TracePropagationWriterRun url="$URL" user=postgres rate="$RATE" \
	seconds="$SECONDS_PER_MODE" | grep '^TRACE'
echo "PostgreSQL: $PG_VERSION; load before: $LOAD_BEFORE"
