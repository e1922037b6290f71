package io.postlog.consumer;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.postlog.Change;
import io.postlog.TableId;
import io.postlog.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * A streaming consumer in a JVM of its own, for the real-server tests that need a small
 * heap or a SIGKILL: counts the changes of the first transaction with any, checks that
 * they arrive in order (index {@code n} is the row with id {@code n + 1}), prints its
 * progress every 10,000 changes, then the count, whether they were in order, the first
 * change's id, its state, the bytes it spilled and its peak heap, and exits 0 only when
 * the count is the expected one, in order, and the consumer did not fail.
 */
final class StreamingConsumerChild {

	static final String STARTED = "started";

	private StreamingConsumerChild() {
	}

	/**
	 * Runs the consumer.
	 * @param args JDBC URL, user, slot, publication, table, expected change count, spill
	 * directory, memory budget, spill limit (bytes), and how many changes to deliver
	 * between 1 ms pauses (0 for none)
	 * @throws Exception if the consumer cannot start
	 */
	public static void main(String[] args) throws Exception {
		long expected = Long.parseLong(args[5]);
		int pauseEvery = Integer.parseInt(args[9]);
		AtomicLong count = new AtomicLong();
		AtomicBoolean ordered = new AtomicBoolean(true);
		String[] firstId = new String[1];
		CountDownLatch done = new CountDownLatch(1);
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(args[0], args[1], null)
			.slotName(args[2])
			.publicationName(args[3])
			.tables(List.of(new TableId("public", args[4])))
			.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), 1))
			.streaming(Long.parseLong(args[7]), Path.of(args[6]), Long.parseLong(args[8]))
			.changeHandler((change) -> {
				long seen = count.getAndIncrement();
				check(change, seen, ordered);
				if (seen == 0) {
					firstId[0] = change.id();
					say("first=" + change.id());
				}
				if ((seen + 1) % 10_000 == 0) {
					say("delivered=" + (seen + 1));
				}
				if (pauseEvery > 0 && seen % pauseEvery == 0) {
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
				}
			})
			.listener(new ConsumerListener() {

				@Override
				public void transactionDelivered(Transaction transaction, Duration handlerTime) {
					if (count.get() > 0) {
						done.countDown();
					}
				}

				@Override
				public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
					if (current == ConsumerState.FAILED) {
						say("failed=" + cause);
						done.countDown();
					}
				}

			})
			.build();
		consumer.start();
		say(STARTED);
		boolean finished = done.await(10, TimeUnit.MINUTES);
		ConsumerState state = consumer.state();
		say("count=" + count.get() + " ordered=" + ordered.get() + " state=" + state + " finished=" + finished
				+ " spilled=" + consumer.spilledBytesTotal() + " peakHeap=" + peakHeap() + " first=" + firstId[0]);
		consumer.stop();
		System.exit((finished && count.get() == expected && ordered.get() && state != ConsumerState.FAILED) ? 0 : 1);
	}

	private static void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

	private static void check(Change change, long seen, AtomicBoolean ordered) {
		Object id = (change.after() != null) ? change.after().get("id") : null;
		if (change.index() != seen || !(id instanceof Integer value) || value != seen + 1) {
			ordered.set(false);
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
