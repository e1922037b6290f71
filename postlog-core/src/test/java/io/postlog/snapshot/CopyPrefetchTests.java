package io.postlog.snapshot;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class CopyPrefetchTests {

	@Test
	void everyMessageArrivesOnceInTheSourcesOrderAcrossBatches() throws SQLException {
		int count = CopyPrefetch.BATCH_MESSAGES * 7 + 17;
		Messages source = new Messages(count, -1, 4);
		List<Integer> seen = new ArrayList<>();
		try (CopyPrefetch prefetch = CopyPrefetch.start(source, "test-copy")) {
			for (byte[] message = prefetch.next(); message != null; message = prefetch.next()) {
				seen.add(number(message));
			}
			assertThat(prefetch.next()).as("after the end").isNull();
		}
		assertThat(seen).hasSize(count);
		for (int i = 0; i < count; i++) {
			assertThat(seen.get(i)).isEqualTo(i);
		}
	}

	@Test
	void anEmptyCopyEndsAtOnce() throws SQLException {
		try (CopyPrefetch prefetch = CopyPrefetch.start(new Messages(0, -1, 4), "test-copy")) {
			assertThat(prefetch.next()).isNull();
		}
	}

	@Test
	void theReadingThreadStaysWithinItsBytesAhead() throws Exception {
		Messages source = new Messages(100_000, -1, 1024);
		try (CopyPrefetch prefetch = CopyPrefetch.start(source, "test-copy")) {
			assertThat(number(prefetch.next())).isZero();
			// Nothing takes more: the reading thread reads until the bytes the decoding
			// thread has not finished with pass the limit, then waits.
			int bound = CopyPrefetch.AHEAD_BYTES / 1024 + 1;
			await().atMost(Duration.ofSeconds(10)).until(() -> source.given.get() >= bound);
			Thread.sleep(100);
			assertThat(source.given.get()).isEqualTo(bound);
		}
		assertThat(source.given.get()).as("read to the end on closing").isEqualTo(100_000);
	}

	@Test
	void aLargeMessageIsReadOnlyOnceTheDecodingThreadIsDoneWithTheOneBefore() throws Exception {
		Messages source = new Messages(3, -1, CopyPrefetch.AHEAD_BYTES * 2);
		try (CopyPrefetch prefetch = CopyPrefetch.start(source, "test-copy")) {
			assertThat(number(prefetch.next())).isZero();
			Thread.sleep(200);
			assertThat(source.given.get()).as("read while the first is decoded").isOne();
			assertThat(number(prefetch.next())).isOne();
			Thread.sleep(200);
			assertThat(source.given.get()).as("read while the second is decoded").isEqualTo(2);
			assertThat(number(prefetch.next())).isEqualTo(2);
			assertThat(prefetch.next()).isNull();
		}
	}

	@Test
	void aFailureToReadIsThrownToTheDecodingThreadAfterTheMessagesBeforeIt() throws SQLException {
		Messages source = new Messages(1_000, 600, 4);
		List<Integer> seen = new ArrayList<>();
		try (CopyPrefetch prefetch = CopyPrefetch.start(source, "test-copy")) {
			assertThatExceptionOfType(SQLException.class).isThrownBy(() -> {
				for (byte[] message = prefetch.next(); message != null; message = prefetch.next()) {
					seen.add(number(message));
				}
			}).withMessage("connection lost at 600");
			assertThat(prefetch.next()).as("after the failure").isNull();
		}
		assertThat(seen).hasSize(600).startsWith(0, 1, 2).endsWith(599);
	}

	@Test
	void closingBeforeTheEndReadsTheRestOfTheCopyAndWaitsForIt() throws SQLException {
		Messages source = new Messages(50_000, -1, 4);
		try (CopyPrefetch prefetch = CopyPrefetch.start(source, "test-copy")) {
			assertThat(number(prefetch.next())).isZero();
		}
		assertThat(source.given.get()).as("messages read from the source").isEqualTo(50_000);
		assertThat(source.ends.get()).as("ends read").isOne();
	}

	@Test
	void closingWaitsThroughAnInterruptAndLeavesItSet() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicReference<@Nullable Boolean> interruptedAfterClose = new AtomicReference<>();
		AtomicInteger given = new AtomicInteger();
		CopyInput.Source slow = () -> {
			if (given.getAndIncrement() == 0) {
				return new byte[] { 1 };
			}
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			return null;
		};
		Thread decoding = new Thread(() -> {
			try (CopyPrefetch prefetch = CopyPrefetch.start(slow, "test-copy")) {
				prefetch.next();
				Thread.currentThread().interrupt();
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
			interruptedAfterClose.set(Thread.currentThread().isInterrupted());
		});
		decoding.start();
		Thread.sleep(200);
		assertThat(decoding.isAlive()).as("closing waits for the copy's end").isTrue();
		release.countDown();
		decoding.join(10_000);
		assertThat(interruptedAfterClose.get()).isTrue();
	}

	private static int number(byte @Nullable [] message) {
		assertThat(message).isNotNull();
		return ((message[0] & 0xFF) << 24) | ((message[1] & 0xFF) << 16) | ((message[2] & 0xFF) << 8)
				| (message[3] & 0xFF);
	}

	/** Numbered messages of a size, or a failure at one of them. */
	private static final class Messages implements CopyInput.Source {

		private final int count;

		private final int failAt;

		private final int size;

		final AtomicInteger given = new AtomicInteger();

		final AtomicInteger ends = new AtomicInteger();

		Messages(int count, int failAt, int size) {
			this.count = count;
			this.failAt = failAt;
			this.size = size;
		}

		@Override
		public byte @Nullable [] next() throws SQLException {
			int i = this.given.get();
			if (i == this.failAt) {
				throw new SQLException("connection lost at " + i);
			}
			if (i == this.count) {
				this.ends.incrementAndGet();
				return null;
			}
			this.given.incrementAndGet();
			byte[] message = new byte[this.size];
			message[0] = (byte) (i >>> 24);
			message[1] = (byte) (i >>> 16);
			message[2] = (byte) (i >>> 8);
			message[3] = (byte) i;
			return message;
		}

	}

}
