package io.postlog.consumer.delivery;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PositionWaiters}: a reached target returns at once, a waiter wakes when the
 * position moves past its target (LSNs compare unsigned), and a wait times out.
 */
class PositionWaitersTests {

	@Test
	void reachedTargetReturnsAtOnceAndAnUnreachedOneTimesOut() throws Exception {
		AtomicLong position = new AtomicLong(100);
		PositionWaiters waiters = new PositionWaiters(position::get);
		assertThat(waiters.await(100, 0)).isTrue();
		long start = System.nanoTime();
		assertThat(waiters.await(101, TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
		assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
	}

	@Test
	void waiterWakesWhenThePositionMovesPastItsTarget() throws Exception {
		AtomicLong position = new AtomicLong(100);
		PositionWaiters waiters = new PositionWaiters(position::get);
		CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
			try {
				return waiters.await(0x8000_0000_0000_0000L, TimeUnit.SECONDS.toNanos(30));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		});
		position.set(200);
		waiters.moved();
		Thread.sleep(20);
		assertThat(waiting).isNotDone();
		position.set(0x8000_0000_0000_0001L);
		waiters.moved();
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
	}

}
