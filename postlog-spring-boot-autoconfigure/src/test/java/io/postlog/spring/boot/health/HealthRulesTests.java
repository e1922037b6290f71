package io.postlog.spring.boot.health;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.admin.ReplicationSettings;
import io.postlog.admin.SlotInfo;
import io.postlog.consumer.ConsumerState;
import io.postlog.heartbeat.Heartbeat;
import io.postlog.heartbeat.HeartbeatStatus;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Status;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Every branch of postlog's health, without a server.
 */
class HealthRulesTests {

	private static final long MB = 1024 * 1024;

	private static final Lsn RESTART = Lsn.of(100 * MB);

	private static final HealthRules.Limits NO_LIMITS = new HealthRules.Limits(null, null, 0.5);

	@Test
	void aRunningConsumerWithAHealthySlotIsUp() {
		assertThat(evaluate(ConsumerState.RUNNING, slot("reserved", 1 * MB), settings(64 * MB), null, NO_LIMITS))
			.isEqualTo(new HealthRules.Verdict(Status.UP, List.of()));
	}

	@Test
	void startingStandbyRetryingAndNoConsumerAreUnknown() {
		for (ConsumerState state : new ConsumerState[] { ConsumerState.STARTING, ConsumerState.STANDBY,
				ConsumerState.RETRYING }) {
			assertThat(evaluate(state, slot("reserved", MB), settings(null), null, NO_LIMITS).status())
				.isEqualTo(Status.UNKNOWN);
		}
		assertThat(evaluate(null, null, settings(null), null, NO_LIMITS).status()).isEqualTo(Status.UNKNOWN);
	}

	@Test
	void aFailedOrStoppedConsumerIsDown() {
		assertThat(evaluate(ConsumerState.FAILED, slot("reserved", MB), settings(null), null, NO_LIMITS))
			.isEqualTo(new HealthRules.Verdict(Status.DOWN, List.of("the consumer is FAILED")));
		assertThat(evaluate(ConsumerState.STOPPED, slot("reserved", MB), settings(null), null, NO_LIMITS).reasons())
			.containsExactly("the consumer is STOPPED");
	}

	@Test
	void aMissingSlotIsDownWhileAConsumerRuns() {
		assertThat(evaluate(ConsumerState.RUNNING, null, settings(null), null, NO_LIMITS).reasons())
			.containsExactly("replication slot 'postlog' does not exist");
	}

	@Test
	void aLostSlotIsDownWithItsInvalidationReason() {
		SlotInfo lost = new SlotInfo("postlog", "pgoutput", "logical", "db", false, false, null, null,
				Lsn.parse("0/6400000"), "lost", null, Instant.EPOCH, false, "wal_removed", false, false);
		assertThat(evaluate(ConsumerState.RETRYING, lost, settings(64 * MB), null, NO_LIMITS))
			.isEqualTo(new HealthRules.Verdict(Status.DOWN,
					List.of("replication slot 'postlog' is lost (wal_status=lost, invalidation_reason=wal_removed): "
							+ "changes after 0/6400000 can no longer be streamed")));
	}

	@Test
	void anUnreservedSlotIsDownBeforeTheCheckpointThatLosesIt() {
		List<String> reasons = evaluate(ConsumerState.RUNNING, slot("unreserved", 70 * MB), settings(64 * MB), null,
				new HealthRules.Limits(null, null, 2.0))
			.reasons();
		assertThat(reasons).containsExactly("replication slot 'postlog' is unreserved: it retains more WAL than "
				+ "max_slot_wal_keep_size (64.0 MB) and is lost at the next checkpoint unless it catches up");
	}

	@Test
	void lagAboveMaxLagIsDown() {
		HealthRules.Limits limits = new HealthRules.Limits(DataSize.ofMegabytes(10), null, 0.5);
		assertThat(evaluate(ConsumerState.RUNNING, slot("reserved", 11 * MB), settings(null), null, limits).reasons())
			.containsExactly("replication slot 'postlog' lags 11.0 MB, above postlog.health.max-lag (10.0 MB)");
		assertThat(evaluate(ConsumerState.RUNNING, slot("reserved", 10 * MB), settings(null), null, limits).status())
			.isEqualTo(Status.UP);
	}

	@Test
	void retainedWalAboveMaxRetainedIsDownAndUpAgainOnceItDrains() {
		HealthRules.Limits limits = new HealthRules.Limits(null, DataSize.ofMegabytes(32), 0.5);
		assertThat(evaluate(ConsumerState.RUNNING, slot("reserved", 48 * MB), settings(null), null, limits).reasons())
			.containsExactly(
					"replication slot 'postlog' retains 48.0 MB of WAL, above postlog.health.max-retained (32.0 MB)");
		assertThat(evaluate(ConsumerState.RUNNING, slot("reserved", 1 * MB), settings(null), null, limits).status())
			.isEqualTo(Status.UP);
	}

	@Test
	void retainedWalAboveTheRatioOfMaxSlotWalKeepSizeIsDown() {
		List<String> reasons = evaluate(ConsumerState.RUNNING, slot("reserved", 48 * MB), settings(64 * MB), null,
				NO_LIMITS)
			.reasons();
		assertThat(reasons).containsExactly("replication slot 'postlog' retains 48.0 MB of WAL, 75% of "
				+ "max_slot_wal_keep_size (64.0 MB), above postlog.health.max-retained-ratio (0.5); the server "
				+ "invalidates the slot at 100%");
		assertThat(
				evaluate(ConsumerState.RUNNING, slot("reserved", 32 * MB), settings(64 * MB), null, NO_LIMITS).status())
			.isEqualTo(Status.UP);
	}

	@Test
	void withoutMaxSlotWalKeepSizeTheRatioDoesNotApply() {
		assertThat(
				evaluate(ConsumerState.RUNNING, slot("reserved", 900 * MB), settings(null), null, NO_LIMITS).status())
			.isEqualTo(Status.UP);
	}

	@Test
	void slotRulesApplyInStandbyToo() {
		assertThat(
				evaluate(ConsumerState.STANDBY, slot("reserved", 48 * MB), settings(64 * MB), null, NO_LIMITS).status())
			.isEqualTo(Status.DOWN);
	}

	@Test
	void aMissingHeartbeatIsDownWhileStreamingOnly() {
		HeartbeatStatus missing = new HeartbeatStatus(beat(), null, null, null, Duration.ofSeconds(125),
				Duration.ofMinutes(1));
		assertThat(evaluate(ConsumerState.RUNNING, slot("reserved", MB), settings(null), missing, NO_LIMITS).reasons())
			.containsExactly("heartbeat not seen for 2m5s (postlog.heartbeat.timeout is 1m)");
		assertThat(evaluate(ConsumerState.STANDBY, slot("reserved", MB), settings(null), missing, NO_LIMITS).status())
			.isEqualTo(Status.UNKNOWN);
		HeartbeatStatus back = new HeartbeatStatus(beat(), beat(), Instant.EPOCH, Duration.ofMillis(20), null,
				Duration.ofMinutes(1));
		assertThat(evaluate(ConsumerState.RUNNING, slot("reserved", MB), settings(null), back, NO_LIMITS).status())
			.isEqualTo(Status.UP);
	}

	@Test
	void everyReasonIsReportedAtOnce() {
		HealthRules.Limits limits = new HealthRules.Limits(DataSize.ofMegabytes(1), DataSize.ofMegabytes(1), 0.5);
		assertThat(
				evaluate(ConsumerState.FAILED, slot("unreserved", 70 * MB), settings(64 * MB), null, limits).reasons())
			.hasSize(5);
	}

	@Test
	void sizesAndDurationsReadAsAnOperatorWritesThem() {
		assertThat(HealthRules.bytes(512)).isEqualTo("512 B");
		assertThat(HealthRules.bytes(1536)).isEqualTo("1.5 kB");
		assertThat(HealthRules.bytes(5L * 1024 * MB)).isEqualTo("5.0 GB");
		assertThat(HealthRules.text(Duration.ofMillis(90_500))).isEqualTo("1m30s");
	}

	@Test
	void anUnreadableSlotIsDownWithTheReasonWhileTheLastGoodReadingIsStillJudged() {
		String failure = "Could not read replication slot 'postlog' (java.net.ConnectException)";
		assertThat(HealthRules.evaluate(new HealthRules.Input(ConsumerState.RETRYING, "postlog", slot("reserved", MB),
				position(), settings(null), null, null, failure), NO_LIMITS))
			.isEqualTo(new HealthRules.Verdict(Status.DOWN, List.of(failure)));
		assertThat(HealthRules
			.evaluate(new HealthRules.Input(ConsumerState.RETRYING, "postlog", slot("lost", MB), position(),
					settings(null), null, null, failure), NO_LIMITS)
			.reasons()).hasSize(2).first().isEqualTo(failure);
	}

	@Test
	void aSlotNeverReadIsNotCalledMissing() {
		assertThat(HealthRules.evaluate(
				new HealthRules.Input(ConsumerState.RUNNING, "postlog", null, Lsn.INVALID, null, null, null, null),
				NO_LIMITS))
			.isEqualTo(new HealthRules.Verdict(Status.UP, List.of()));
		String failure = "Could not read replication slot 'postlog' (java.sql.SQLTransientConnectionException)";
		assertThat(HealthRules.evaluate(
				new HealthRules.Input(ConsumerState.RETRYING, "postlog", null, Lsn.INVALID, null, null, null, failure),
				NO_LIMITS))
			.isEqualTo(new HealthRules.Verdict(Status.DOWN, List.of(failure)));
	}

	@Test
	void aCauseShowsPostlogsOwnMessageButOnlyTheClassOfAnyOther() {
		assertThat(HealthRules.cause(new io.postlog.admin.ConnectionLostException("Replication connection lost", null)))
			.isEqualTo("io.postlog.admin.ConnectionLostException: Replication connection lost");
		assertThat(HealthRules.cause(new IllegalStateException("customer 'Alice' not found")))
			.isEqualTo("java.lang.IllegalStateException");
	}

	@Test
	void theReadingDetailSaysWhetherTheSlotsValuesAreCurrentAndHowOldTheyAre() {
		Instant contact = Instant.parse("2026-01-01T10:00:00Z");
		assertThat(HealthRules.reading(contact, null, contact.plusMillis(1500)))
			.containsExactly(entry("status", "available"), entry("age", "PT1.5S"));
		assertThat(HealthRules.reading(contact, "Could not read replication slot 'postlog'", contact.plusSeconds(20)))
			.containsExactly(entry("status", "unavailable"),
					entry("reason", "Could not read replication slot 'postlog'"), entry("age", "PT20S"));
		assertThat(HealthRules.reading(null, "not read", contact)).containsExactly(entry("status", "unavailable"),
				entry("reason", "not read"));
	}

	private static HealthRules.Verdict evaluate(ConsumerState state, SlotInfo slot, ReplicationSettings settings,
			HeartbeatStatus heartbeat, HealthRules.Limits limits) {
		return HealthRules.evaluate(new HealthRules.Input(state, "postlog", slot, position(), settings, heartbeat),
				limits);
	}

	/** A slot whose restart and confirmed positions lie {@code retained} bytes back. */
	private static SlotInfo slot(String walStatus, long retained) {
		Lsn behind = Lsn.of(position().value() - retained);
		return new SlotInfo("postlog", "pgoutput", "logical", "db", false, true, 42, behind, behind, walStatus, null);
	}

	private static Lsn position() {
		return Lsn.of(RESTART.value() + 200 * MB);
	}

	private static ReplicationSettings settings(Long maxSlotWalKeepSize) {
		return new ReplicationSettings(170000, false, "logical", 10, 1, 10, 1, maxSlotWalKeepSize, 1024 * MB,
				Duration.ofMinutes(1), null, "", false, false);
	}

	private static Heartbeat beat() {
		return new Heartbeat("postlog", "me", 1, Instant.EPOCH);
	}

}
