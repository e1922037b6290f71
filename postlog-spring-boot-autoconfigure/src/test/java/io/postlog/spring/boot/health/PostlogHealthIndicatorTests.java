package io.postlog.spring.boot.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.admin.ReplicationSettings;
import io.postlog.admin.SlotInfo;
import io.postlog.consumer.ConsumerState;
import io.postlog.spring.PostlogSlotMonitor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

class PostlogHealthIndicatorTests {

	private static final Lsn CONFIRMED = Lsn.parse("0/1000");

	private static final Lsn CURRENT = Lsn.parse("0/1400");

	/** A PostgreSQL 16 without max_slot_wal_keep_size: no retained-WAL limit applies. */
	private static final ReplicationSettings SETTINGS = new ReplicationSettings(160000, false, "logical", 10, 1, 10, 1,
			null, 1024L * 1024 * 1024, Duration.ofSeconds(60), null, null, null, false);

	@Test
	void runningConsumerWithItsSlotIsUpWithEveryDetail() {
		Instant commit = Instant.parse("2024-01-01T00:00:00Z");
		Health health = health(ConsumerState.RUNNING, commit, null, slot("reserved"), null);
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails())
			.containsAllEntriesOf(Map.of("slot", "orders", "state", "RUNNING", "confirmedFlushLsn", "0/1000",
					"walStatus", "reserved", "lagBytes", 1024L, "lastCommitTime", "2024-01-01T00:00:00Z"))
			.doesNotContainKeys("reasons", "lastError");
	}

	@Test
	void failedOrStoppedConsumerIsDownWithTheLastError() {
		for (ConsumerState state : new ConsumerState[] { ConsumerState.FAILED, ConsumerState.STOPPED }) {
			Health health = health(state, null, new PostlogException("Listener 'x' failed"), slot("reserved"), null);
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("state", state.name())
				.containsEntry("lastError", "Listener 'x' failed");
		}
	}

	@Test
	void aFailureThatIsNotPostlogsShowsItsClassAndSqlStateNeverItsMessage() {
		Health health = health(ConsumerState.FAILED, null, new IllegalStateException("card declined for PLANTED-41"),
				slot("reserved"), null);
		assertThat(health.getDetails()).containsEntry("lastError", IllegalStateException.class.getName());
		Health sql = health(ConsumerState.RETRYING, null,
				new java.sql.SQLException("duplicate key: PLANTED-42", "23505"), slot("reserved"), null);
		assertThat(sql.getDetails()).containsEntry("lastError", "java.sql.SQLException (SQLState 23505)");
	}

	@Test
	void missingSlotOfAStartedConsumerIsDown() {
		Health health = health(ConsumerState.RUNNING, null, null, null, null);
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsKeys("slot", "state", "reasons")
			.doesNotContainKeys("confirmedFlushLsn", "walStatus");
	}

	@Test
	void lostSlotIsDown() {
		assertThat(health(ConsumerState.RUNNING, null, null, slot("lost"), null).getStatus()).isEqualTo(Status.DOWN);
	}

	@Test
	void lagAboveTheLimitIsDownAndAtTheLimitIsUp() {
		assertThat(health(ConsumerState.RUNNING, null, null, slot("reserved"), DataSize.ofBytes(1023)).getStatus())
			.isEqualTo(Status.DOWN);
		assertThat(health(ConsumerState.RUNNING, null, null, slot("reserved"), DataSize.ofBytes(1024)).getStatus())
			.isEqualTo(Status.UP);
	}

	@Test
	void startingStandbyAndRetryingAreUnknownWithTheCause() {
		for (ConsumerState state : new ConsumerState[] { ConsumerState.STARTING, ConsumerState.STANDBY,
				ConsumerState.RETRYING }) {
			Health health = health(state, null, new PostlogException("Connection refused"), slot("reserved"), null);
			assertThat(health.getStatus()).as(state.name()).isEqualTo(Status.UNKNOWN);
			assertThat(health.getDetails()).containsEntry("lastError", "Connection refused");
		}
	}

	@Test
	void noConsumerIsUnknownWhetherOrNotTheSlotExists() {
		assertThat(health(null, null, null, null, null).getStatus()).isEqualTo(Status.UNKNOWN);
		Health health = health(null, null, null, slot("reserved"), null);
		assertThat(health.getStatus()).isEqualTo(Status.UNKNOWN);
		assertThat(health.getDetails()).containsEntry("state", "NOT_STARTED");
	}

	@Test
	void aRunningConsumerShowsNoStaleError() {
		Health health = health(ConsumerState.RUNNING, null, new PostlogException("old"), slot("reserved"), null);
		assertThat(health.getDetails()).doesNotContainKey("lastError");
	}

	@Test
	void slotWithoutConfirmedPositionOrWalStatusLeavesThoseOut() {
		SlotInfo slot = new SlotInfo("orders", "pgoutput", "logical", "app", false, false, null, null, null, null, null,
				null, null, null, null, null);
		Health health = health(ConsumerState.RUNNING, null, null, slot, null);
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).doesNotContainKeys("confirmedFlushLsn", "walStatus", "reasons");
	}

	@Test
	void unreadableSlotIsDownWithTheError() {
		PostlogHealthIndicator indicator = new PostlogHealthIndicator(() -> ConsumerState.RUNNING, () -> null,
				() -> null, () -> {
					throw new PostlogException("Could not read replication slot 'orders'");
				}, null, null, 0.5, null);
		Health health = indicator.health(true);
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().toString()).contains("Could not read replication slot 'orders'");
	}

	private static Health health(@Nullable ConsumerState state, @Nullable Instant lastCommit,
			@Nullable Throwable failure, @Nullable SlotInfo slot, @Nullable DataSize maxLag) {
		PostlogSlotMonitor.SlotStatus status = new PostlogSlotMonitor.SlotStatus("orders", slot, CURRENT, SETTINGS);
		return new PostlogHealthIndicator(() -> state, () -> lastCommit, () -> failure, () -> status, maxLag, null, 0.5,
				null)
			.health(true);
	}

	private static SlotInfo slot(String walStatus) {
		return new SlotInfo("orders", "pgoutput", "logical", "app", false, true, 42, CONFIRMED, CONFIRMED, walStatus,
				null, null, null, null, null, null);
	}

}
