#!/usr/bin/env bash
# Read-your-writes benchmark: the latency of ReplicationConsumer.awaitDelivered (the core of
# PostlogFence) after each single-row commit, p50 and p99, against the listener's own time
# per change, for listeners that sleep 0, 1 and 5 ms. Starts its own PostgreSQL 15 (Debian's
# postgresql-15) on a loopback port in a temp dir and prints the FENCE lines. See
# benchmarks/README.md.
#
#   benchmarks/run-fence.sh [--writes N] [--sleep-micros 0,1000,5000]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WRITES=2000
SLEEPS=0,1000,5000
# bench-table.sh loads bench_rows; this benchmark does not read it.
ROWS=1
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

while [ $# -gt 0 ]; do
	case "$1" in
		--writes) WRITES=$2; shift 2 ;;
		--sleep-micros) SLEEPS=$2; shift 2 ;;
		-h|--help) sed -n 2,8p "$0"; exit 0 ;;
		*) echo "unknown argument: $1" >&2; exit 2 ;;
	esac
done

# shellcheck source=bench-table.sh
source "$ROOT/benchmarks/bench-table.sh" fence

build_classpath

for sleep in ${SLEEPS//,/ }; do
	log "fence: $WRITES writes, each awaited, listener sleeping $sleep us per change"
	java -cp "$CP" io.postlog.benchmarks.e2e.FenceLatencyRun url="$URL" user=postgres writes="$WRITES" \
		sleepMicros="$sleep" | grep '^FENCE'
done
echo "PostgreSQL: $PG_VERSION; load before: $LOAD_BEFORE"
