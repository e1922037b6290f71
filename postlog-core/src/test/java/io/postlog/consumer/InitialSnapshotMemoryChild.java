package io.postlog.consumer;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Operation;
import io.postlog.TableId;

/**
 * A process for {@link InitialSnapshotMemoryIntegrationTests}, run with a small heap: a
 * {@link ReplicationConsumer} takes the initial snapshot of one table through a change
 * handler that counts the rows and sums a column, then prints
 * {@code count=... sum=... ms=...} with the heap's peak and the process's peak resident
 * set, and exits.
 */
final class InitialSnapshotMemoryChild {

	private InitialSnapshotMemoryChild() {
	}

	/**
	 * Runs the snapshot.
	 * @param args JDBC URL, user, table, parallelism
	 * @throws Exception if it fails
	 */
	public static void main(String[] args) throws Exception {
		AtomicLong count = new AtomicLong();
		AtomicLong sum = new AtomicLong();
		CountDownLatch completed = new CountDownLatch(1);
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(args[0], args[1], null)
			.slotName("memory_slot")
			.slotLifecycle(io.postlog.admin.SlotLifecycle.OWNED)
			.publicationName("memory_pub")
			.tables(List.of(TableId.parse(args[2])))
			.initialSnapshot(Integer.parseInt(args[3]), 100_000)
			.listener(new ConsumerListener() {

				@Override
				public void snapshotCompleted(SnapshotProgress progress) {
					completed.countDown();
				}

			})
			.changeHandler((change) -> {
				if (change.operation() == Operation.SNAPSHOT) {
					count.incrementAndGet();
					sum.addAndGet(change.after().get("n", Integer.class));
				}
			})
			.build();
		long start = System.nanoTime();
		consumer.start();
		boolean done = completed.await(10, TimeUnit.MINUTES);
		long millis = (System.nanoTime() - start) / 1_000_000;
		consumer.stop();
		System.out.println("count=" + count.get() + " sum=" + sum.get() + " ms=" + millis + " heap_max_mb="
				+ Runtime.getRuntime().maxMemory() / (1024 * 1024) + " heap_peak_mb=" + peakHeap() + " "
				+ peakResidentSet() + " state=" + consumer.state());
		System.out.flush();
		System.exit(done ? 0 : 1);
	}

	private static long peakHeap() {
		long bytes = 0;
		for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
			if (pool.getType() == MemoryType.HEAP) {
				bytes += pool.getPeakUsage().getUsed();
			}
		}
		return bytes / (1024 * 1024);
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
