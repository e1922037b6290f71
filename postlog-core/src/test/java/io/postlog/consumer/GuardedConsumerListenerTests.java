package io.postlog.consumer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Lsn;
import io.postlog.TableId;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The one guard of observer failures: a throwing observer keeps neither the others nor
 * the caller from going on, is counted, and is logged by class only, at WARN once per
 * observer and callback.
 */
class GuardedConsumerListenerTests {

	private static final String SECRET = "SECRET-guarded";

	@Test
	void throwingObserverIsCountedAndTheNextOneStillHears() {
		Recording after = new Recording();
		GuardedConsumerListener guard = GuardedConsumerListener.of(List.of(new Throwing(), after));
		ByteArrayOutputStream logs = ReplicationConsumerIntegrationTests.captureStdErr();
		try {
			guard.acknowledged(Lsn.parse("0/10"));
			guard.acknowledged(Lsn.parse("0/20"));
			guard.stateChanged(ConsumerState.STARTING, ConsumerState.RUNNING, null);
			guard.retrying(1, Duration.ofMillis(1), new IllegalStateException("x"));
			guard.spilled(1, 2);
		}
		finally {
			ReplicationConsumerIntegrationTests.restoreStdErr();
		}
		assertThat(after.calls).containsExactly("acknowledged", "acknowledged", "stateChanged", "retrying", "spilled");
		assertThat(guard.failures()).isEqualTo(5);
		String log = logs.toString(StandardCharsets.UTF_8);
		assertThat(log).doesNotContain(SECRET);
		assertThat(log.lines().filter((line) -> line.contains("WARN") && line.contains("in acknowledged with")))
			.hasSize(1);
		assertThat(log.lines().filter((line) -> line.contains("WARN") && line.contains("in stateChanged with")))
			.singleElement()
			.satisfies((line) -> assertThat(line).contains(Throwing.class.getName())
				.contains(IllegalArgumentException.class.getName()));
	}

	@Test
	void snapshotStartedFailurePropagatesAsTheContractSays() {
		GuardedConsumerListener guard = GuardedConsumerListener.of(new ConsumerListener() {

			@Override
			public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
				throw new IllegalStateException("not ready");
			}

		});
		assertThatIllegalStateException().isThrownBy(() -> guard.snapshotStarted(Lsn.parse("0/1"), List.of()));
		assertThat(guard.failures()).isZero();
	}

	@Test
	void guardingAGuardKeepsIt() {
		GuardedConsumerListener guard = GuardedConsumerListener.of(new Recording());
		assertThat(GuardedConsumerListener.of(guard)).isSameAs(guard);
	}

	static final class Throwing implements ConsumerListener {

		@Override
		public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
			throw new IllegalArgumentException(SECRET);
		}

		@Override
		public void retrying(int attempt, Duration backOff, Throwable cause) {
			throw new IllegalArgumentException(SECRET);
		}

		@Override
		public void acknowledged(Lsn lsn) {
			throw new IllegalArgumentException(SECRET);
		}

		@Override
		public void spilled(long bytes, long totalBytes) {
			throw new IllegalArgumentException(SECRET);
		}

	}

	static final class Recording implements ConsumerListener {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@Override
		public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
			this.calls.add("stateChanged");
		}

		@Override
		public void retrying(int attempt, Duration backOff, Throwable cause) {
			this.calls.add("retrying");
		}

		@Override
		public void acknowledged(Lsn lsn) {
			this.calls.add("acknowledged");
		}

		@Override
		public void spilled(long bytes, long totalBytes) {
			this.calls.add("spilled");
		}

	}

}
