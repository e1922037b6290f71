package io.postlog.consumer;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.consumer.spill.StreamingOptions;
import io.postlog.stream.ReplicationConnectionFactory;

/**
 * Reads one streamed transaction through {@link StreamedTransactions} and
 * {@link PgOutputAssembler} in a JVM of its own with a small heap, for
 * {@link StreamedTransactionsMemoryIntegrationTests}: counts the changes of the first
 * non-empty transaction, then prints the count, the bytes it spilled and the peak heap.
 */
final class StreamedTransactionsChild {

	static final String READY = "ready";

	private StreamedTransactionsChild() {
	}

	/**
	 * Runs the reader.
	 * @param args JDBC URL, user, slot, publication, spill directory, heap budget in
	 * bytes
	 * @throws Exception if reading fails
	 */
	public static void main(String[] args) throws Exception {
		long[] changes = new long[1];
		boolean[] done = new boolean[1];
		StreamedTransactions streams = new StreamedTransactions(
				new StreamingOptions(Long.parseLong(args[5]), Path.of(args[4]), 4L << 30), args[2]);
		RawPgOutputStream stream = new RawPgOutputStream(
				ReplicationConnectionFactory.of(args[0], args[1], null).connect(), args[2], args[3],
				List.of("proto_version", "2", "streaming", "on", "binary", "true"));
		try (StreamedEventsReader reader = new StreamedEventsReader(stream, streams, (event) -> {
			if (event instanceof Event.ChangeArrived) {
				changes[0]++;
			}
			else if (event instanceof Event.Commit && changes[0] > 0) {
				done[0] = true;
			}
		})) {
			System.out.println(READY);
			System.out.flush();
			reader.readWhile(() -> !done[0], Duration.ofMinutes(10));
			System.out.println("count=" + changes[0] + " spilled=" + streams.spilledBytesTotal() + " peakHeap="
					+ peakHeap() + " blocks=" + reader.control().size());
		}
	}

	private static long peakHeap() {
		long peak = 0;
		for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
			if (pool.getType() == MemoryType.HEAP) {
				peak += pool.getPeakUsage().getUsed();
			}
		}
		return peak;
	}

}
