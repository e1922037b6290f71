package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.TableId;
import io.postlog.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * A consumer for {@link LargeTransactionIntegrationTests} to run in a child JVM with a
 * small heap: counts the changes of the first transaction (sleeping in the handler for
 * each, when asked, to be a slow handler), prints the count, its state and its peak
 * resident set size, and exits 0 only when it saw the expected count and did not fail.
 */
final class LargeTransactionConsumer {

	private LargeTransactionConsumer() {
	}

	/**
	 * Runs the consumer.
	 * @param args JDBC URL, user, slot, publication, table, expected change count, and
	 * optionally the milliseconds the handler sleeps per change
	 * @throws Exception if the consumer cannot start
	 */
	public static void main(String[] args) throws Exception {
		long expected = Long.parseLong(args[5]);
		long sleepMillis = (args.length > 6) ? Long.parseLong(args[6]) : 0;
		AtomicLong count = new AtomicLong();
		CountDownLatch done = new CountDownLatch(1);
		AtomicLong firstChangeNanos = new AtomicLong();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(args[0], args[1], null)
			.slotName(args[2])
			.publicationName(args[3])
			.tables(List.of(new TableId("public", args[4])))
			.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), 1))
			.changeHandler((change) -> {
				if (count.incrementAndGet() == 1) {
					firstChangeNanos.set(System.nanoTime());
				}
				if (sleepMillis > 0) {
					Thread.sleep(sleepMillis);
				}
			})
			.listener(new ConsumerListener() {

				@Override
				public void transactionDelivered(Transaction transaction, Duration handlerTime) {
					done.countDown();
				}

				@Override
				public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
					if (current == ConsumerState.FAILED) {
						done.countDown();
					}
				}

			})
			.build();
		consumer.start();
		System.out.println("started");
		System.out.flush();
		boolean finished = done.await(5, TimeUnit.MINUTES);
		long deliveryMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstChangeNanos.get());
		ConsumerState state = consumer.state();
		String peak = peakResidentSet();
		System.out.println("count=" + count.get() + " state=" + state + " finished=" + finished + " delivery_ms="
				+ deliveryMillis + " heap_max_mb=" + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " " + peak);
		System.out.flush();
		consumer.stop();
		System.exit((finished && count.get() == expected && state != ConsumerState.FAILED) ? 0 : 1);
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
