package io.postlog.snapshot;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.TableId;
import io.postlog.types.ValueDecoders;
import org.postgresql.PGProperty;

/**
 * Reads one table's snapshot in a child JVM with a small heap for
 * {@link SnapshotMemoryIntegrationTests}: counts the rows and sums a column (so every
 * value is decoded and used), prints the count, the time and the peak resident set size,
 * and exits 0 only when it saw the expected count.
 */
final class SnapshotMemoryChild {

	private SnapshotMemoryChild() {
	}

	/**
	 * Runs the read.
	 * @param args JDBC URL, user, table, expected rows, parallelism
	 * @throws Exception if the read fails
	 */
	public static void main(String[] args) throws Exception {
		String url = args[0];
		String user = args[1];
		long expected = Long.parseLong(args[3]);
		Properties properties = new Properties();
		PGProperty.USER.set(properties, user);
		PGProperty.REPLICATION.set(properties, "database");
		PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
		PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
		Connection replication = DriverManager.getConnection(url, properties);
		AtomicLong count = new AtomicLong();
		AtomicLong sum = new AtomicLong();
		long start = System.nanoTime();
		try (ExportedSnapshot snapshot = ExportedSnapshot.create(replication, "memory_child", true)) {
			new SnapshotReader(SnapshotConnections.of(url, user, null), ValueDecoders.standard()).read(snapshot,
					List.of(TableId.parse(args[2])),
					SnapshotOptions.defaults().withParallelism(Integer.parseInt(args[4])), (change) -> {
						count.incrementAndGet();
						sum.addAndGet(change.after().get("n", Integer.class));
					});
		}
		long millis = (System.nanoTime() - start) / 1_000_000;
		System.out.println("count=" + count.get() + " sum=" + sum.get() + " ms=" + millis + " heap_max_mb="
				+ Runtime.getRuntime().maxMemory() / (1024 * 1024) + " " + peakResidentSet());
		System.out.flush();
		System.exit((count.get() == expected) ? 0 : 1);
	}

	private static String peakResidentSet() {
		try {
			return Files.readAllLines(Path.of("/proc/self/status"))
				.stream()
				.filter((line) -> line.startsWith("VmHWM:"))
				.map((line) -> "VmHWM=" + line.substring(6).trim().replace(" ", ""))
				.findFirst()
				.orElse("VmHWM=unknown");
		}
		catch (Exception ex) {
			return "VmHWM=unknown";
		}
	}

}
