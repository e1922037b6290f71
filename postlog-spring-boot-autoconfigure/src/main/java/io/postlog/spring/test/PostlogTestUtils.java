package io.postlog.spring.test;

import java.time.Duration;
import java.time.Instant;

import io.postlog.Lsn;
import io.postlog.consumer.ConsumerState;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;

import org.springframework.context.ApplicationContext;

/**
 * Helpers for tests of applications that use postlog listeners, so that tests need no
 * sleeps. Thread-safe.
 */
public final class PostlogTestUtils {

	private PostlogTestUtils() {
	}

	/**
	 * Waits until the application's listeners have received everything committed before
	 * this call: reads the server's current WAL position once, then waits until the
	 * consumer has acknowledged at least that position.
	 * @param context the application context
	 * @param timeout the longest wait
	 * @throws IllegalStateException if the consumer failed or the wait timed out (the
	 * message gives the state and positions)
	 */
	public static void awaitCaughtUp(ApplicationContext context, Duration timeout) {
		PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
		Lsn target = context.getBean(PostlogSlotMonitor.class).currentLsn();
		Instant deadline = Instant.now().plus(timeout);
		while (true) {
			ConsumerState state = registry.state();
			Lsn acked = registry.ackedLsn();
			if (acked != null && acked.compareTo(target) >= 0) {
				return;
			}
			if (state == ConsumerState.FAILED || state == ConsumerState.STOPPED || state == null) {
				throw new IllegalStateException(
						"postlog consumer is " + state + " (acknowledged " + acked + ", waiting for " + target + ")",
						registry.lastFailure());
			}
			if (Instant.now().isAfter(deadline)) {
				throw new IllegalStateException("postlog consumer did not catch up within " + timeout + ": state "
						+ state + ", acknowledged " + acked + ", waiting for " + target);
			}
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for postlog", ex);
			}
		}
	}

}
