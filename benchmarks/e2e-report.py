#!/usr/bin/env python3
"""Turns run-e2e.sh's measurements into benchmarks/RESULTS.md (printed to stdout)."""
import datetime
import os
import statistics
import sys

results_tsv, latency_tsv, footprint_tsv = sys.argv[1:4]
slow_tsv = sys.argv[4] if len(sys.argv) > 4 else None
big_tsv = sys.argv[5] if len(sys.argv) > 5 else None
outbox_tsv = sys.argv[6] if len(sys.argv) > 6 else None
env = os.environ
expected = int(env['EXPECTED'])


def rows(path):
    with open(path) as f:
        return [line.rstrip('\n').split('\t') for line in f if line.strip()]


runs = {}
for leg, run, changes, f2l, wall, cpu, rss, alloc in rows(results_tsv):
    runs.setdefault(leg, []).append(dict(f2l=float(f2l), wall=float(wall), cpu=float(cpu), rss=int(rss),
                                         alloc=None if alloc == '-' else int(alloc)))

floor = None
if 'recvlogical' in runs:
    floor = statistics.median(expected / r['f2l'] for r in runs['recvlogical'])

out = []
w = out.append
w('# postlog end-to-end benchmark results')
w('')
w(f'Generated {datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")} by `{env["COMMAND"]}`.')
w('')
w('## Machine')
w('')
w(f'- CPU: {env["CPU_MODEL"]}, `nproc` = {env["NPROC"]}, memory {env["MEMORY"]} (`free -h`)')
w(f'- Java: {env["JAVA_VERSION"].strip()}')
w(f'- PostgreSQL: {env["PG_VERSION"]}')
w(f'- Load average (1, 5, 15 min) before the run: {env["LOAD_BEFORE"]}; after: {env["LOAD_AFTER"]}')
load1 = float(env['LOAD_BEFORE'].split()[0])
if load1 >= 1.5:
    w(f'- **The machine was loaded** (1-minute load {load1} at the start, other work was running on its 2 cores): '
      'absolute numbers are low and noisy; the ratios are more telling than the rates.')
w('')
w('## Throughput')
w('')
w(f'Workload: {int(env["ROWS"]):,} inserts, then {int(env["ROWS"]) // 5:,} updates and {int(env["ROWS"]) // 10:,} deletes '
  f'in 1,000-row transactions: {expected:,} changes, {int(env["WAL_BYTES"]) / 1048576:.0f} MiB of WAL. Every leg read '
  f'the same WAL from its own slot, {env["RUNS"]} run(s) each; every leg checked it received exactly {expected:,} changes'
  + (' (the filtered leg: the changes its filter selects)' if 'spring-change-filtered' in runs else '') + '.')
w('')
w('| leg | changes/s first→last (best) | (median) | changes/s wall incl. start-up (median) | × pg_recvlogical (median) '
  '| client CPU s (median) | CPU µs/change | peak RSS MB (median) | allocated B/change (median) |')
w('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for leg, measured in runs.items():
    rates = [expected / r['f2l'] for r in measured]
    walls = [expected / r['wall'] for r in measured]
    cpu = statistics.median(r['cpu'] for r in measured)
    rss = statistics.median(r['rss'] for r in measured) / 1024
    ratio = f'{statistics.median(rates) / floor:.2f}×' if floor else 'n/a'
    allocs = [r['alloc'] for r in measured if r['alloc'] is not None]
    alloc = f'{statistics.median(allocs):,.0f}' if allocs else 'n/a'
    w(f'| {leg} | {max(rates):,.0f} | {statistics.median(rates):,.0f} | {statistics.median(walls):,.0f} | {ratio} '
      f'| {cpu:.1f} | {cpu * 1e6 / expected:.2f} | {rss:,.0f} | {alloc} |')
w('')
w('- *first→last*: from the first change the listener saw to the last (for `pg_recvlogical`, which cannot count, '
  'its whole run: it has no start-up to speak of). *wall*: from process start (JVM start) to the last change.')
w('- *× pg_recvlogical*: the leg\'s median first→last rate over pg_recvlogical\'s median rate, the walsender floor.')
w('- *client CPU*: user + system seconds of the client process for the whole run, start-up included '
  '(`/usr/bin/time -v`); *µs/change* divides it by the changes. *peak RSS*: "Maximum resident set size", default JVM flags. '
  '*allocated B/change*: bytes allocated by every live thread of the JVM from the first change to the report, over the '
  'changes (`ThreadMXBean.getThreadAllocatedBytes`).')
w('')

if 'spring-change-64m' in runs and 'spring-change' in runs:
    small = statistics.median(expected / r['f2l'] for r in runs['spring-change-64m'])
    spring = statistics.median(expected / r['f2l'] for r in runs['spring-change'])
    w(f'- *spring-change-64m*: the `spring-change` application started with `-Xmx64m` (all else default); its rate '
      f'is {small / spring:.2f}× the same application\'s under default flags in this run (medians).')
    w('')

if 'spring-change-filtered' in runs and 'spring-change' in runs:
    filtered = statistics.median(expected / r['f2l'] for r in runs['spring-change-filtered'])
    spring = statistics.median(expected / r['f2l'] for r in runs['spring-change'])
    w(f'- *spring-change-filtered*: the `spring-change` application on a publication with the row filter '
      f'`id % 2 = 0` (`postlog.filters.bench_rows.where`, pushed into the publication); it received exactly the '
      f'{int(env["FILTERED_EXPECTED"]):,} changes the filter selects (counted in SQL from the workload\'s ids), and '
      f'its rate, like every leg\'s, is the WAL\'s {expected:,} changes over its first-to-last time: '
      f'{filtered / spring:.2f}× the unfiltered listener\'s in this run (medians).')
    w('')

if 'spring-change-schema' in runs and 'spring-change' in runs:
    tracked = statistics.median(expected / r['f2l'] for r in runs['spring-change-schema'])
    spring = statistics.median(expected / r['f2l'] for r in runs['spring-change'])
    w(f'- *spring-change-schema*: the `spring-change` application with a `@PgSchemaListener` of `bench_rows` '
      f'beside its listener, so that the table\'s shape is tracked (the workload has no DDL, and no schema change '
      f'arrived); its rate is {tracked / spring:.3f}× the untracked application\'s in this run (medians).')
    w('')

if 'kafka-relay' in runs and 'spring-change' in runs:
    relay = statistics.median(expected / r['f2l'] for r in runs['kafka-relay'])
    spring = statistics.median(expected / r['f2l'] for r in runs['spring-change'])
    w(f'- *kafka-relay*: the Kafka relay of a Boot application (`postlog.kafka.enabled=true`) writing every change '
      f'to an embedded KRaft broker in its JVM in Kafka transactions (topic with 3 partitions), counted by a '
      f'`read_committed` consumer in the same JVM; its rate is {relay / spring:.2f}× the Spring `Change` '
      f'listener\'s in this run (medians).')
    w('')

formats = [(leg, name) for leg, name in (('kafka-relay-debezium', 'Debezium\'s envelope (`postlog.kafka.format=debezium`)'),
                                          ('kafka-relay-cloudevents', 'binary-mode CloudEvents '
                                           '(`postlog.kafka.format=cloudevents`)')) if leg in runs]
if formats and 'spring-change' in runs:
    spring = statistics.median(expected / r['f2l'] for r in runs['spring-change'])
    postlog = statistics.median(expected / r['f2l'] for r in runs['kafka-relay']) if 'kafka-relay' in runs else None
    for leg, name in formats:
        rate = statistics.median(expected / r['f2l'] for r in runs[leg])
        versus = f', {rate / postlog:.2f}× the `kafka-relay` leg\'s (postlog\'s JSON)' if postlog else ''
        w(f'- *{leg}*: the same relay writing {name}, each record checked to be in that form by the consumer; '
          f'its rate is {rate / spring:.2f}× the Spring `Change` listener\'s{versus} in this run (medians).')
    w('')

lat = rows(latency_tsv)
if lat:
    w('## Latency')
    w('')
    w(f'A writer commits {env["RATE"]} single-row INSERT transactions per second for {env["LATENCY_SECONDS"]} s '
      f'({env["WRITER_CONNECTIONS"]} connections, each paced to its share); the listener measures commit time '
      '(`Change.commitTime()`, Debezium\'s `source.ts_us`) to its own invocation, for every change.')
    w('')
    warm = env['LATENCY_WARMUP']
    w(f'| leg | changes | p50 ms | p99 ms | max ms | after the first {warm} s: p50 ms | p99 ms | max ms '
      '| writer tx/s achieved | writer max lag behind schedule ms |')
    w('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for leg, total, p50, p99, mx, achieved, behind, sp50, sp99, smax in lat:
        w(f'| {leg} | {int(total):,} | {p50} | {p99} | {mx} | {sp50} | {sp99} | {smax} | {float(achieved):,.0f} | {behind} |')
    w('')

slow = rows(slow_tsv) if slow_tsv else []
if slow:
    w('## Slow listeners')
    w('')
    w('A listener that takes 2 ms per change (it sleeps), over changes on 1,000 keys (inserts, then updates of '
      'random keys, 100 per transaction), read from two slots over the same WAL: once on one lane, once on '
      'eight (`concurrency = 8`). The run checks that every key\'s versions arrived in order.')
    w('')
    w('| lanes | changes | seconds | changes/s | × 1 lane | per-key order |')
    w('|---:|---:|---:|---:|---:|---|')
    base = next((float(r[3]) for r in slow if r[0] == '1'), None)
    for lanes, changes, seconds, rate, order in slow:
        ratio = f'{float(rate) / base:.2f}×' if base else 'n/a'
        w(f'| {lanes} | {int(changes):,} | {float(seconds):.1f} | {float(rate):,.0f} | {ratio} | {order} |')
    w('')

if 'core-streaming' in runs and 'core-binary' in runs:
    on = statistics.median(expected / r['f2l'] for r in runs['core-streaming'])
    off = statistics.median(expected / r['f2l'] for r in runs['core-binary'])
    w(f'Streaming on (`core-streaming`, protocol 2 with `streaming \'on\'`, 16 MB buffer) over streaming off '
      f'(`core-binary`), median first→last rate: **{on / off:.2f}×**. The server\'s `logical_decoding_work_mem` is its '
      'default (64 MB), so 1,000-row transactions are not streamed: this measures what streaming costs a workload '
      'of ordinary transactions.')
    w('')

big = rows(big_tsv) if big_tsv else []
if big:
    w('## One large transaction, streaming off and on')
    w('')
    w(f'One INSERT of {int(env["BIG_ROWS"]):,} `bench_rows`-shaped rows in a single transaction, read by postlog core '
      '(binary, every value read) from a slot created just before it, with the leg streaming while the transaction is '
      'written; server `logical_decoding_work_mem` at its default (64 MB), client buffer 16 MB. *commit → last change*: '
      'from the commit time the server records to the last change reaching the listener. Server bytes from '
      '`pg_stat_replication_slots`.')
    w('')
    w('| streaming | run | commit → last change ms | first→last s | client CPU s | peak RSS MB | server spill_bytes '
      '| server stream_bytes | client spilled bytes |')
    w('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    for mode, run, c2l, f2l, cpu, rss, sspill, sstream, cspill in big:
        w(f'| {mode} | {run} | {int(c2l):,} | {float(f2l):.1f} | {float(cpu):.1f} | {int(rss) / 1024:,.0f} '
          f'| {int(sspill or 0):,} | {int(sstream or 0):,} | {int(cspill):,} |')
    c2l_on = statistics.median(int(r[2]) for r in big if r[0] == 'on')
    c2l_off = statistics.median(int(r[2]) for r in big if r[0] == 'off')
    w('')
    w(f'Median commit → last change: streaming off {c2l_off:,.0f} ms, on {c2l_on:,.0f} ms: '
      f'**{c2l_on / c2l_off:.2f}×** with streaming on.')
    w('')

outbox = rows(outbox_tsv) if outbox_tsv else []
if outbox:
    w('## Outbox latency')
    w('')
    w(f'A writer commits {env["OUTBOX_RATE"]} outbox transactions per second for {env["OUTBOX_SECONDS"]} s, each '
      'inserting one row of an outbox table and deleting it again; the Kafka relay (default batching) sends each '
      'event to an embedded KRaft broker in the same JVM; a `read_committed` consumer (`fetch.max.wait.ms=50`) '
      'notes its arrival. Latency is from the writer\'s `commit()` returning to the consumer\'s `poll` returning '
      'the event.')
    w('')
    w(f'| events | writer tx/s achieved | writer max lag behind schedule ms | p50 ms | p99 ms | max ms '
      f'| after the first {env["LATENCY_WARMUP"]} s: p50 ms | p99 ms | max ms |')
    w('|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for events, achieved, behind, p50, p99, mx, sp50, sp99, smax in outbox:
        w(f'| {int(events):,} | {float(achieved):,.0f} | {behind} | {p50} | {p99} | {mx} | {sp50} | {sp99} | {smax} |')
    w('')

fp = rows(footprint_tsv)
if fp:
    w('## Footprint')
    w('')
    w('Jars added to a plain Boot application (spring-boot-starter, spring-boot-starter-jdbc and the PostgreSQL '
      'driver, versions from the Boot BOM), from `dependency:build-classpath` of each:')
    w('')
    for label, count, size, jars in fp:
        w(f'- **{label}**: {count} jars, {int(size) / 1048576:.1f} MB ({jars.replace(" ", ", ")})'
          if int(count) <= 12 else f'- **{label}**: {count} jars, {int(size) / 1048576:.1f} MB')
    w('')

print('\n'.join(out))
