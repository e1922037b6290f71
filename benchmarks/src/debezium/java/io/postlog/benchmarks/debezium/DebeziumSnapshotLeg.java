package io.postlog.benchmarks.debezium;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.sun.management.OperatingSystemMXBean;
import io.debezium.embedded.Connect;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.postlog.benchmarks.e2e.Tally;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.jspecify.annotations.Nullable;

/**
 * Debezium embedded's initial snapshot of one table, for {@code run-snapshot.sh}: the
 * PostgreSQL connector with {@code snapshot.mode=initial} creates a new slot (pgoutput,
 * the existing publication, offsets in memory) and reads the table; the handler reads
 * every value of every Kafka Connect record of the snapshot ({@code op=r}). Timed from
 * the engine's start to the last snapshot record, slot creation included, as postlog's
 * consumer leg is. Prints a {@code RESULT} line in {@code SnapshotLeg}'s format.
 * Arguments: {@code host= port= user= database= slot= publication= table=public.bench_rows
 * rows= run=1 timeout=1800}.
 */
public final class DebeziumSnapshotLeg {

	private DebeziumSnapshotLeg() {
	}

	public static void main(String[] args) throws Exception {
		long rows = Long.parseLong(Tally.arg(args, "rows", null));
		Properties props = ConnectorProperties.of(args, "bench-snapshot", "60000");
		props.setProperty("slot.drop.on.stop", "true");
		props.setProperty("snapshot.mode", "initial");
		props.setProperty("table.include.list", Tally.arg(args, "table", "public.bench_rows"));
		long[] count = new long[1];
		long[] touched = new long[1];
		CountDownLatch done = new CountDownLatch(1);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		DebeziumEngine<ChangeEvent<SourceRecord, SourceRecord>> engine = DebeziumEngine.create(Connect.class)
			.using(props)
			.notifying((ChangeEvent<SourceRecord, SourceRecord> event) -> {
				SourceRecord record = event.value();
				if (record == null || !(record.value() instanceof Struct envelope)
						|| envelope.schema().field("op") == null || !"r".equals(envelope.getString("op"))) {
					return;
				}
				touched[0] += touch(envelope.getStruct("after"));
				if (++count[0] == rows) {
					done.countDown();
				}
			})
			.build();
		long cpu = cpuNanos();
		long start = System.nanoTime();
		executor.execute(engine);
		boolean finished = done.await(Long.parseLong(Tally.arg(args, "timeout", "1800")), TimeUnit.SECONDS);
		long elapsed = System.nanoTime() - start;
		long cpuUsed = cpuNanos() - cpu;
		engine.close();
		executor.shutdown();
		executor.awaitTermination(30, TimeUnit.SECONDS);
		if (!finished) {
			System.out.println("FAILED leg=debezium-snapshot expected=" + rows + " received=" + count[0]);
			System.exit(1);
		}
		double seconds = elapsed / 1e9;
		System.out.println(String.format(Locale.ROOT,
				"RESULT leg=debezium-snapshot run=%s parallelism=1 rows=%d seconds=%.3f rows_per_s=%.0f "
						+ "client_cpu_s=%.2f",
				Tally.arg(args, "run", "1"), count[0], seconds, count[0] / seconds, cpuUsed / 1e9));
		System.exit(0);
	}

	private static long touch(@Nullable Struct row) {
		if (row == null) {
			return 0;
		}
		long sum = 0;
		for (Field field : row.schema().fields()) {
			Object value = row.get(field);
			sum += (value != null) ? value.hashCode() : 0;
		}
		return sum;
	}

	private static long cpuNanos() {
		return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
	}


}
