#!/usr/bin/env python3
"""Turns run-e2e.sh's measurements into benchmarks/RESULTS.md (printed to stdout)."""
import datetime
import os
import statistics
import sys



def rows(path):
    with open(path) as f:
        return [line.rstrip('\n').split('\t') for line in f if line.strip()]


def backfill_runs(path):
    """BackfillLeg's RESULT lines, by run: {run: {leg: {field: value}}}."""
    by_run = {}
    with open(path) as f:
        for line in f:
            if not line.startswith('RESULT '):
                continue
            fields = dict(part.split('=', 1) for part in line.split()[1:])
            by_run.setdefault(int(fields['run']), {})[fields['leg']] = fields
    return by_run


def backfill_ratios(path):
    """Per run: backfill rows/s over the consumer's initial snapshot's, and the streamed p99
    during the backfill over the p99 during the paced copy (the reference)."""
    rate, p99 = [], []
    for legs in backfill_runs(path).values():
        snapshot = legs.get('consumer-initial-snapshot')
        backfill = legs.get('stream-during-backfill')
        copy = legs.get('stream-during-copy')
        if snapshot and backfill:
            rate.append((float(backfill['backfill_rows_per_s']), float(snapshot['rows_per_s'])))
        if backfill and copy and float(copy['p99_ms']) > 0:
            p99.append((float(backfill['p99_ms']), float(copy['p99_ms'])))
    return rate, p99


def backfill_loaded_p99(path):
    """Per run that has it: the streamed p99 during the backfill, during the paced copy with the
    backfill's extra client cores burnt beside it (the floor with the backfill's CPU), and those
    cores."""
    loaded = []
    for legs in backfill_runs(path).values():
        backfill = legs.get('stream-during-backfill')
        copy = legs.get('stream-during-copy-with-load')
        if backfill and copy and float(copy['p99_ms']) > 0:
            loaded.append((float(backfill['p99_ms']), float(copy['p99_ms']), float(copy['load_cores'])))
    return loaded


def backfill_cpu(path):
    """Per leg that read the table and logged CPU: the medians of rows/s, of this JVM's and the
    server's CPU microseconds per row, and of the cores the two kept busy (their CPU seconds over
    the leg's seconds). Two cores busy on this 2-core machine: the leg was bound by the CPU."""
    by_leg = {}
    for legs in backfill_runs(path).values():
        for leg, f in legs.items():
            if 'client_cpu_s' not in f:
                continue
            rows_ = float(f.get('rows') or f['backfill_rows'])
            seconds = float(f.get('seconds') or f['backfill_seconds'])
            client, server = float(f['client_cpu_s']), float(f['server_cpu_s'])
            name = {'stream-during-backfill': 'backfill (with the stream)',
                    'stream-during-copy': 'copy-by-key paced to the backfill (with the stream)',
                    'stream-during-copy-with-load': 'the same with the backfill\'s extra client cores burnt beside it'
                    }.get(leg, leg)
            by_leg.setdefault(name, []).append((rows_ / seconds, client * 1e6 / rows_, server * 1e6 / rows_,
                                                (client + server) / seconds))
    return {leg: tuple(statistics.median(v[i] for v in values) for i in range(4)) for leg, values in by_leg.items()}


def backfill_waits(path, stream_seconds):
    """Per streaming leg that logged it: the medians of how long the stream's reader and delivery
    threads waited on a run queue for a core, in ms per second of the leg, and per time they ran,
    in µs."""
    by_leg = {}
    for legs in backfill_runs(path).values():
        for leg, f in legs.items():
            if 'stream_wait_ms' not in f:
                continue
            seconds = float(f.get('backfill_seconds') or 0) or stream_seconds
            by_leg.setdefault(leg, []).append((float(f['stream_wait_ms']) / seconds,
                                               float(f['stream_wait_us_per_run'])))
    return {leg: tuple(statistics.median(v[i] for v in values) for i in range(2)) for leg, values in by_leg.items()}


def single_reader_ratios(path, prefix='consumer-initial-snapshot-1x'):
    """Per run: backfill rows/s over the rows/s of the leg so named (a name ending in -1x: the
    leg starting with it; by default the initial snapshot with one reader in the backfill's
    chunks), where the run has it."""
    ratios = []
    for legs in backfill_runs(path).values():
        backfill = legs.get('stream-during-backfill')
        single = next((f for leg, f in legs.items() if leg == prefix or (prefix.endswith('-1x') and leg.startswith(prefix))), None)
        if backfill and single:
            ratios.append(float(backfill['backfill_rows_per_s']) / float(single['rows_per_s']))
    return ratios


if len(sys.argv) == 3 and sys.argv[1] == '--backfill-summary':
    # run-backfill.sh's and run-e2e.sh's summary of a backfill run: the medians of issue 33's two rows.
    rate, p99 = backfill_ratios(sys.argv[2])
    if rate:
        ratios = [b / c for b, c in rate]
        print(f'backfill rate / consumer initial snapshot, per run: {", ".join(f"{r:.2f}" for r in ratios)}; '
              f'median {statistics.median(ratios):.2f}x (target >= 0.6x)')
    single = single_reader_ratios(sys.argv[2])
    if single:
        print(f'backfill rate / the consumer\'s initial snapshot with one reader in the backfill\'s chunks, per run: '
              f'{", ".join(f"{r:.2f}" for r in single)}; median {statistics.median(single):.2f}x')
    by_key = single_reader_ratios(sys.argv[2], 'copy-by-key')
    if by_key:
        print(f'backfill rate / a plain session\'s binary COPY in key order in the same chunks, unpaced, per run: '
              f'{", ".join(f"{r:.2f}" for r in by_key)}; median {statistics.median(by_key):.2f}x')
    streaming = single_reader_ratios(sys.argv[2], 'copy-by-key-while-streaming')
    if streaming:
        print(f'backfill rate / the same COPY while the stream runs, per run: '
              f'{", ".join(f"{r:.2f}" for r in streaming)}; median {statistics.median(streaming):.2f}x')
    if p99:
        ratios = [b / c for b, c in p99]
        print(f'streamed p99 during the backfill / during the copy paced to its rate, per run: '
              f'{", ".join(f"{b:.1f}/{c:.1f} ms" for b, c in p99)}; median {statistics.median(ratios):.2f}x '
              f'(target <= 1.5x)')
    loaded = backfill_loaded_p99(sys.argv[2])
    if loaded:
        print(f'streamed p99 during the backfill / during the paced copy with the backfill\'s extra client cores '
              f'burnt beside it, per run: {", ".join(f"{b:.1f}/{c:.1f} ms ({n:.2f} cores)" for b, c, n in loaded)}; '
              f'median {statistics.median(b / c for b, c, _ in loaded):.2f}x')
    waits = backfill_waits(sys.argv[2], float(os.environ.get('BACKFILL_SECONDS', '10')))
    if waits:
        print()
        print('| leg (medians) | stream threads\' run-queue wait, ms per s | per time they ran, µs |')
        print('|---|---:|---:|')
        for leg, (per_second, per_run) in waits.items():
            print(f'| {leg} | {per_second:.1f} | {per_run:.1f} |')
    cpu = backfill_cpu(sys.argv[2])
    if cpu:
        print()
        print('| leg (medians) | rows/s | client CPU µs/row | server CPU µs/row | cores busy |')
        print('|---|---:|---:|---:|---:|')
        for leg, (rate_, client, server, cores) in cpu.items():
            print(f'| {leg} | {rate_:,.0f} | {client:.2f} | {server:.2f} | {cores:.2f} |')
    sys.exit(0)

results_tsv, latency_tsv, footprint_tsv = sys.argv[1:4]
slow_tsv = sys.argv[4] if len(sys.argv) > 4 else None
big_tsv = sys.argv[5] if len(sys.argv) > 5 else None
outbox_tsv = sys.argv[6] if len(sys.argv) > 6 else None
backfill_txt = sys.argv[7] if len(sys.argv) > 7 else None
env = os.environ
expected = int(env['EXPECTED'])


runs = {}
for leg, run, changes, f2l, wall, cpu, rss, alloc, *later in rows(results_tsv):
    half, jit, window_cpu, half_cpu, server_cpu, broker_cpu = (later + ['-'] * 6)[:6]
    runs.setdefault(leg, []).append(dict(f2l=float(f2l), wall=float(wall), cpu=float(cpu), rss=int(rss),
                                         alloc=None if alloc == '-' else int(alloc),
                                         half=None if half == '-' else float(half),
                                         jit=None if jit == '-' else float(jit),
                                         window_cpu=None if window_cpu == '-' else float(window_cpu),
                                         half_cpu=None if half_cpu == '-' else float(half_cpu),
                                         server_cpu=None if server_cpu == '-' else float(server_cpu),
                                         broker_cpu=None if broker_cpu == '-' else float(broker_cpu)))

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
  '| changes/s second half (median) | client CPU s (median) | JIT s (median) | CPU µs/change | peak RSS MB (median) '
  '| allocated B/change (median) |')
w('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for leg, measured in runs.items():
    rates = [expected / r['f2l'] for r in measured]
    walls = [expected / r['wall'] for r in measured]
    cpu = statistics.median(r['cpu'] for r in measured)
    rss = statistics.median(r['rss'] for r in measured) / 1024
    ratio = f'{statistics.median(rates) / floor:.2f}×' if floor else 'n/a'
    allocs = [r['alloc'] for r in measured if r['alloc'] is not None]
    alloc = f'{statistics.median(allocs):,.0f}' if allocs else 'n/a'
    halves = [(expected - expected // 2) / r['half'] for r in measured if r['half']]
    half = f'{statistics.median(halves):,.0f}' if halves else 'n/a'
    jits = [r['jit'] for r in measured if r['jit'] is not None]
    jit = f'{statistics.median(jits):.1f}' if jits else 'n/a'
    w(f'| {leg} | {max(rates):,.0f} | {statistics.median(rates):,.0f} | {statistics.median(walls):,.0f} | {ratio} '
      f'| {half} | {cpu:.1f} | {jit} | {cpu * 1e6 / expected:.2f} | {rss:,.0f} | {alloc} |')
w('')
w('- *first→last*: from the first change the listener saw to the last (for `pg_recvlogical`, which cannot count, '
  'its whole run: it has no start-up to speak of). *wall*: from process start (JVM start) to the last change.')
w('- *× pg_recvlogical*: the leg\'s median first→last rate over pg_recvlogical\'s median rate, the walsender floor.')
w('- *second half*: the last half of the changes over the time they took (from the change at the half to the last): the '
  'sustained rate, once the JVM\'s start is behind the leg. *JIT s*: the JIT compilers\' time in the leg\'s JVM up to its '
  'report (`CompilationMXBean.getTotalCompilationTime`), CPU that two cores share with the walsender and the server.')
w('- *client CPU*: user + system seconds of the client process for the whole run, start-up included '
  '(`/usr/bin/time -v`); *µs/change* divides it by the changes. *peak RSS*: "Maximum resident set size", default JVM flags. '
  '*allocated B/change*: bytes allocated by every live thread of the JVM from the first change to the report, over the '
  'changes (`ThreadMXBean.getThreadAllocatedBytes`).')
w('')

windowed = {leg: measured for leg, measured in runs.items() if all(r['window_cpu'] is not None for r in measured)}
if windowed:
    w('The client\'s CPU while the changes arrive, without its start-up (`OperatingSystemMXBean.getProcessCpuTime` at '
      'the first change, at the half and at the last; medians). *Cores busy*: that CPU over the same time; the server\'s '
      'walsender shares the two cores.')
    w('')
    w('| leg | client CPU µs/change first→last | client CPU µs/change second half | client cores busy first→last '
      '| client cores busy second half |')
    w('|---|---:|---:|---:|---:|')
    for leg, measured in windowed.items():
        half_changes = expected - expected // 2
        w(f'| {leg} | {statistics.median(r["window_cpu"] * 1e6 / expected for r in measured):.2f} '
          f'| {statistics.median(r["half_cpu"] * 1e6 / half_changes for r in measured):.2f} '
          f'| {statistics.median(r["window_cpu"] / r["f2l"] for r in measured):.2f} '
          f'| {statistics.median(r["half_cpu"] / r["half"] for r in measured if r["half"]):.2f} |')
    w('')

machine = {leg: measured for leg, measured in windowed.items()
           if all(r['server_cpu'] is not None for r in measured)}
if machine:
    cores = int(env.get('NPROC', '2'))
    w('The whole machine\'s CPU per change (medians): the client\'s from its first change to its last, as above; the '
      'server\'s (every PostgreSQL process: the walsender decoding for the leg, above all) and the Kafka broker\'s process '
      '(`--kafka-broker process`) over the same window (`/proc`, read by the leg at its first change and its last). *Ceiling*: the rate at which that CPU per change '
      f'fills the {cores} cores; a leg near it is bound by the machine\'s CPU, not by waiting.')
    w('')
    w('| leg | changes/s first→last | client µs/change | server µs/change | broker µs/change | total µs/change '
      f'| ceiling on {cores} cores, changes/s | measured / ceiling |')
    w('|---|---:|---:|---:|---:|---:|---:|---:|')
    for leg, measured in machine.items():
        rate = statistics.median(expected / r['f2l'] for r in measured)
        client = statistics.median(r['window_cpu'] * 1e6 / expected for r in measured)
        server = statistics.median(r['server_cpu'] * 1e6 / expected for r in measured)
        brokers = [r['broker_cpu'] for r in measured if r['broker_cpu'] is not None]
        broker = statistics.median(b * 1e6 / expected for b in brokers) if brokers else None
        total = statistics.median((r['window_cpu'] + r['server_cpu'] + (r['broker_cpu'] or 0)) * 1e6 / expected
                                  for r in measured)
        ceiling = cores * 1e6 / total
        w(f'| {leg} | {rate:,.0f} | {client:.2f} | {server:.2f} | {"" if broker is None else f"{broker:.2f}"} '
          f'| {total:.2f} | {ceiling:,.0f} | {rate / ceiling:.2f} |')
    w('')

if 'kafka-listener-producer' in runs and 'spring-change' in runs:
    both = statistics.median(expected / r['f2l'] for r in runs['kafka-listener-producer'])
    spring = statistics.median(expected / r['f2l'] for r in runs['spring-change'])
    relay = statistics.median(expected / r['f2l'] for r in runs['kafka-relay']) if 'kafka-relay' in runs else None
    w('- *kafka-listener-producer*: the relay\'s floor with decoding: the `spring-change` application whose listener '
      'also sends each change as `kafka-producer` sends it (the relay\'s mean record, fixed bytes, no JSON; a Kafka '
      'transaction per 100 source transactions, its two producers in turn) to the same kind of broker and reader; '
      f'{both / spring:.2f}× the Spring `Change` listener'
      + (f', the relay at {relay / both:.2f}× it' if relay else '') + ' (medians).')
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

# Where the Kafka legs' broker ran (run-e2e.sh --kafka-broker).
BROKER = ('a KRaft broker in a process of its own, started and warmed up (1,000,000 records) before each run of '
          'the leg, as a deployed broker is; a `read_committed` consumer in the leg\'s JVM counts'
          if os.environ.get('KAFKA_BROKER', 'jvm') == 'process' else
          'an embedded KRaft broker in its JVM; a `read_committed` consumer in the same JVM counts')

if 'kafka-relay' in runs and 'spring-change' in runs:
    relay = statistics.median(expected / r['f2l'] for r in runs['kafka-relay'])
    spring = statistics.median(expected / r['f2l'] for r in runs['spring-change'])
    w(f'- *kafka-relay*: the Kafka relay of a Boot application (`postlog.kafka.enabled=true`) writing every change '
      f'in Kafka transactions to {BROKER} (topic with 3 partitions); its rate is {relay / spring:.2f}× the Spring `Change` '
      f'listener\'s in this run (medians).')
    w('')

if 'kafka-producer' in runs:
    producer = statistics.median(expected / r['f2l'] for r in runs['kafka-producer'])
    spring = statistics.median(expected / r['f2l'] for r in runs['spring-change']) if 'spring-change' in runs else None
    relay = statistics.median(expected / r['f2l'] for r in runs['kafka-relay']) if 'kafka-relay' in runs else None
    w('- *kafka-producer*: the Kafka relay\'s floor: raw pgjdbc reads the slot, decoding nothing, and sends one '
      'record per change of the relay\'s mean size, with its headers, through the relay\'s two transactional '
      'producers (same settings) to the same kind of broker and reader, a Kafka transaction per batch of up to 100 '
      'source transactions with its offset record, as the relay commits'
      + (f'; {producer / spring:.2f}× the Spring `Change` listener' if spring else '')
      + (f', the relay at {relay / producer:.2f}× it' if relay else '') + ' (medians).')
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
# Rows from before the mode column took turns.
together = any(len(r) > 11 and r[11] == 'together' for r in lat)


def paired_ratios(leg):
    """Per run, the leg's p99 after warm-up over the hand-off leg's in that run."""
    handoff = {r[1]: float(r[9]) for r in lat if r[0] == 'pgjdbc-handoff'}
    return [float(r[9]) / handoff[r[1]] for r in lat if r[0] == leg and r[1] in handoff]


if lat:
    w('## Latency')
    w('')
    w(f'A writer commits {env["RATE"]} single-row INSERT transactions per second for {env["LATENCY_SECONDS"]} s '
      f'({env["WRITER_CONNECTIONS"]} connections, each paced to its share); the listener measures commit time '
      '(`Change.commitTime()`, Debezium\'s `source.ts_us`) to its own invocation, for every change. '
      f'{env["LATENCY_RUNS"]} run(s), each leg from a slot of its own; '
      + ('in each run the legs read at once what one writer commits (`--latency-together`), so every hiccup of '
         'the machine reaches them alike, and each run gives a ratio of its own.' if together
         else 'in each run the legs take turns, each with the writer to itself.'))
    w('')
    warm = env['LATENCY_WARMUP']
    w(f'| leg | run | changes | p50 ms | p99 ms | max ms | after the first {warm} s: p50 ms | p99 ms | max ms '
      '| writer tx/s achieved | writer max lag behind schedule ms |')
    w('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for leg, run, total, p50, p99, mx, achieved, behind, sp50, sp99, smax in (r[:11] for r in lat):
        w(f'| {leg} | {run} | {int(total):,} | {p50} | {p99} | {mx} | {sp50} | {sp99} | {smax} '
          f'| {float(achieved):,.0f} | {behind} |')
    w('')
    w(f'Medians over the runs (after the first {warm} s):')
    w('')
    w('| leg | p50 ms | p99 ms | max ms |')
    w('|---|---:|---:|---:|')
    for leg in dict.fromkeys(r[0] for r in lat):
        mine = [r for r in lat if r[0] == leg]
        w(f'| {leg} | {statistics.median(float(r[8]) for r in mine):.2f} '
          f'| {statistics.median(float(r[9]) for r in mine):.2f} | {statistics.median(float(r[10]) for r in mine):.2f} |')
    w('')
    if together and 'pgjdbc-handoff' in {r[0] for r in lat}:
        w('Each run\'s p99 after warm-up over the `pgjdbc-handoff` leg\'s in the same run (the same transactions, '
          'at the same moments):')
        w('')
        w('| leg | ' + ' | '.join(f'run {run}' for run in dict.fromkeys(r[1] for r in lat)) + ' | median |')
        w('|---|' + '---:|' * (len(dict.fromkeys(r[1] for r in lat)) + 1))
        for leg in dict.fromkeys(r[0] for r in lat):
            if leg != 'pgjdbc-handoff':
                ratios = paired_ratios(leg)
                w(f'| {leg} | ' + ' | '.join(f'{x:.2f}×' for x in ratios)
                  + f' | {statistics.median(ratios):.2f}× |')
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
    w(f'| run | events | writer tx/s achieved | writer max lag behind schedule ms | p50 ms | p99 ms | max ms '
      f'| after the first {env["LATENCY_WARMUP"]} s: p50 ms | p99 ms | max ms | 1-min load at its end |')
    w('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for run, events, achieved, behind, p50, p99, mx, sp50, sp99, smax, load in outbox:
        w(f'| {run} | {int(events):,} | {float(achieved):,.0f} | {behind} | {p50} | {p99} | {mx} | {sp50} | {sp99} '
          f'| {smax} | {load} |')
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

bf_rate, bf_p99 = backfill_ratios(backfill_txt) if backfill_txt else ([], [])
bf_loaded = backfill_loaded_p99(backfill_txt) if backfill_txt else []
if backfill_txt and backfill_runs(backfill_txt):
    w('## Backfill while streaming')
    w('')
    w(f'`BackfillLeg` (as `run-backfill.sh` runs it) on `bench_rows` as the workload and the latency runs left it, '
      f'{env["BACKFILL_RUNS"]} run(s): the consumer\'s initial snapshot of the table (parallelism 2, rows alone; where '
      'the run has it, also with one reader in the backfill\'s chunks, `consumer-initial-snapshot-1x<chunk>`); then a '
      f'consumer streaming `bench_stream`, into which a writer commits {env["BACKFILL_RATE"]} single-row transactions '
      f'a second, measured for {env["BACKFILL_SECONDS"]} s alone (`stream-only`), during a backfill of the table '
      '(chunks of 10,000) and during a plain session\'s binary `COPY` of the table in the same chunks, paced to the '
      'backfill\'s rate in that run (`stream-during-copy`: the server\'s and the machine\'s share), and the same '
      'with the cores the backfill kept the JVM busy beyond the copy\'s burnt beside it by another process '
      '(`stream-during-copy-with-load`, `load_cores`: the floor with the backfill\'s CPU).')
    w('')
    w('| run | leg | rows/s | streamed changes | p50 ms | p99 ms |')
    w('|---:|---|---:|---:|---:|---:|')
    for run, legs in sorted(backfill_runs(backfill_txt).items()):
        for leg, f in legs.items():
            rate = f.get('rows_per_s') or f.get('backfill_rows_per_s') or ''
            w(f'| {run} | {leg} | {float(rate):,.0f} | {f.get("changes", "")} | {f.get("p50_ms", "")} '
              f'| {f.get("p99_ms", "")} |' if rate and float(rate) > 0 else
              f'| {run} | {leg} | | {f.get("changes", "")} | {f.get("p50_ms", "")} | {f.get("p99_ms", "")} |')
    w('')

# --- Against the floors (issue 33) ---------------------------------------------------------
def median_rate(leg):
    return statistics.median(expected / r['f2l'] for r in runs[leg]) if leg in runs else None


def median_half_rate(leg):
    halves = [(expected - expected // 2) / r['half'] for r in runs.get(leg, []) if r['half']]
    return statistics.median(halves) if halves else None


def lat_p99(leg):
    mine = [float(r[9]) for r in lat if r[0] == leg]
    return statistics.median(mine) if mine else None


floors = []  # figure, measured, reference, ratio, target text, met


def floor_row(figure, measured, reference, ratio, target, met):
    floors.append((figure, measured, reference,
                   'n/a' if ratio is None else f'{ratio:.2f}×', target,
                   'not measured' if met is None else ('met' if met else '**missed**')))


if 'spring-change' in runs and 'pgjdbc-raw' in runs:
    spring = statistics.median(r['rss'] for r in runs['spring-change']) / 1024
    raw = statistics.median(r['rss'] for r in runs['pgjdbc-raw']) / 1024
    floor_row('peak RSS of the Spring leg, default flags', f'spring-change {spring:,.0f} MB',
              f'pgjdbc-raw {raw:,.0f} MB', spring / raw, '≤ 1.2×', spring / raw <= 1.2)
else:
    floor_row('peak RSS of the Spring leg, default flags', 'n/a', 'pgjdbc-raw', None, '≤ 1.2×', None)
if lat_p99('spring-change') is not None and lat_p99('pgjdbc-handoff') is not None:
    a, b = lat_p99('spring-change'), lat_p99('pgjdbc-handoff')
    # Together, each run pairs the two legs over the same transactions: the median of the
    # runs' ratios. In turns, the ratio of the medians.
    ratio = statistics.median(paired_ratios('spring-change')) if together else a / b
    floor_row(f'p99 commit → listener at {env["RATE"]} tx/s, after {env["LATENCY_WARMUP"]} s'
              + (', legs together' if together else ''),
              f'spring-change {a:.2f} ms', f'pgjdbc-handoff {b:.2f} ms', ratio, '≤ 1.5×', ratio <= 1.5)
else:
    floor_row('p99 commit → listener', 'n/a', 'pgjdbc-handoff', None, '≤ 1.5×', None)
if bf_rate:
    r = statistics.median(b / c for b, c in bf_rate)
    single = single_reader_ratios(backfill_txt)
    by_key = single_reader_ratios(backfill_txt, 'copy-by-key')
    streaming = single_reader_ratios(backfill_txt, 'copy-by-key-while-streaming')
    floor_row('backfill rate (ratio: median of the per-run ratios)',
              f'backfill {statistics.median(b for b, _ in bf_rate):,.0f} rows/s (median)',
              f'consumer-initial-snapshot {statistics.median(c for _, c in bf_rate):,.0f} rows/s (median)'
              + (f'; {statistics.median(single):.2f}× the same snapshot with one reader in the backfill\'s chunks'
                 if single else '')
              + (f'; {statistics.median(by_key):.2f}× a plain key-order COPY in those chunks (`copy-by-key`)'
                 if by_key else '')
              + (f'; {statistics.median(streaming):.2f}× that COPY while the stream runs'
                 if streaming else ''),
              r, '≥ 0.6×', r >= 0.6)
else:
    floor_row('backfill rate', 'n/a', 'consumer initial snapshot', None, '≥ 0.6×', None)
if bf_p99:
    r = statistics.median(b / c for b, c in bf_p99)
    floor_row('streamed p99 during a backfill (ratio: median of the per-run ratios)', f'{statistics.median(b for b, _ in bf_p99):.1f} ms (median)',
              f'stream-during-copy {statistics.median(c for _, c in bf_p99):.1f} ms (median)'
              + (f'; floor with the backfill\'s CPU, `stream-during-copy-with-load`: '
                 f'{statistics.median(c for _, c, _ in bf_loaded):.1f} ms (median), '
                 f'{statistics.median(b / c for b, c, _ in bf_loaded):.2f}× of it' if bf_loaded else ''),
              r, '≤ 1.5×', r <= 1.5)
else:
    floor_row('streamed p99 during a backfill', 'n/a', 'stream-during-copy', None, '≤ 1.5×', None)
relay, spring_rate = median_rate('kafka-relay'), median_rate('spring-change')
if relay and spring_rate:
    producer = median_rate('kafka-producer')
    reference = f'spring-change {spring_rate:,.0f}/s'
    if producer:
        reference += (f'; floor kafka-producer {producer:,.0f}/s = {producer / spring_rate:.2f}× the listener, '
                      f'relay {relay / producer:.2f}× its floor')
    both = median_rate('kafka-listener-producer')
    if both:
        reference += (f'; floor with decoding kafka-listener-producer {both:,.0f}/s = {both / spring_rate:.2f}× '
                      f'the listener, relay {relay / both:.2f}× it')
    relay_half, spring_half = median_half_rate('kafka-relay'), median_half_rate('spring-change')
    if relay_half and spring_half:
        reference += (f'; second half of the changes: relay {relay_half:,.0f}/s, listener {spring_half:,.0f}/s = '
                      f'{relay_half / spring_half:.2f}×')
    floor_row('Kafka relay rate', f'kafka-relay {relay:,.0f}/s', reference, relay / spring_rate, '≥ 0.8×',
              relay / spring_rate >= 0.8)
else:
    floor_row('Kafka relay rate', 'n/a', 'spring-change', None, '≥ 0.8×', None)
if outbox:
    p99 = statistics.median(float(r[8]) for r in outbox)
    loads = ', '.join(r[10] for r in outbox)
    floor_row(f'outbox p99 at {env["OUTBOX_RATE"]} events/s, after {env["LATENCY_WARMUP"]} s',
              f'{p99:.1f} ms (median of {len(outbox)})', f'1-min load at each run\'s end: {loads}', None, '< 50 ms',
              p99 < 50)
else:
    floor_row('outbox p99 at 100 events/s', 'n/a', '', None, '< 50 ms', None)
if spring_rate and floor:
    floor_row('Spring `Change` listener rate', f'spring-change {spring_rate:,.0f}/s',
              f'pg_recvlogical {floor:,.0f}/s', spring_rate / floor, '≥ 1.0×', spring_rate / floor >= 1.0)
else:
    floor_row('Spring `Change` listener rate', 'n/a', 'pg_recvlogical', None, '≥ 1.0×', None)

head = out[:out.index('## Throughput')]
body = out[out.index('## Throughput'):]
table = ['## Against the floors (issue 33)', '',
         'Each figure beside its reference leg from this run (medians of the runs; latency and outbox: medians of '
         f'{env.get("LATENCY_RUNS", "1")} run(s); backfill: median of the per-run ratios).', '',
         '| figure | measured | reference leg | ratio | target | |', '|---|---|---|---:|---|---|']
table += [f'| {a} | {b} | {c} | {d} | {e} | {f} |' for a, b, c, d, e, f in floors]
table.append('')
print('\n'.join(head + table + body))
