package io.postlog.spring.boot.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.consumer.ConsumerState;
import io.postlog.spring.PostlogConsumerGroup;
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
	 * this call: reads the server's current WAL position once, then waits until every
	 * consumer group has acknowledged at least that position.
	 * @param context the application context
	 * @param timeout the longest wait
	 * @throws IllegalStateException if a group failed or stopped, no group runs, or the
	 * wait timed out (the message gives each group's state and positions)
	 */
	public static void awaitCaughtUp(ApplicationContext context, Duration timeout) {
		PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
		Lsn target = context.getBean(PostlogSlotMonitor.class).currentLsn();
		Instant deadline = Instant.now().plus(timeout);
		while (true) {
			List<PostlogConsumerGroup> groups = registry.groups();
			boolean caughtUp = !groups.isEmpty();
			for (PostlogConsumerGroup group : groups) {
				ConsumerState state = group.state();
				Lsn acked = group.ackedLsn();
				if (state == ConsumerState.FAILED || state == ConsumerState.STOPPED || state == null) {
					throw new IllegalStateException("postlog group '" + group.displayName() + "' is " + state
							+ " (acknowledged " + acked + ", waiting for " + target + ")", group.lastFailure());
				}
				caughtUp &= acked != null && acked.compareTo(target) >= 0;
			}
			if (caughtUp) {
				return;
			}
			if (groups.isEmpty()) {
				throw new IllegalStateException(
						"No postlog consumer runs: the application has no listeners, " + "or postlog has not started");
			}
			if (Instant.now().isAfter(deadline)) {
				throw new IllegalStateException("postlog did not catch up within " + timeout + " (waiting for " + target
						+ "): " + describe(groups));
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

	private static String describe(List<PostlogConsumerGroup> groups) {
		List<String> states = new ArrayList<>();
		for (PostlogConsumerGroup group : groups) {
			states.add("group '" + group.displayName() + "' " + group.state() + ", acknowledged " + group.ackedLsn());
		}
		return String.join("; ", states);
	}

}
