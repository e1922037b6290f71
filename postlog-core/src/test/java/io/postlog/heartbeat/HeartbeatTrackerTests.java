package io.postlog.heartbeat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HeartbeatTrackerTests {

	private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

	private final HeartbeatTracker tracker = new HeartbeatTracker("slot", "me", Duration.ofSeconds(30));

	@BeforeEach
	void startStream() {
		this.tracker.streamStarted(T0.minusSeconds(1));
	}

	@Test
	void nothingIsMissingBeforeTheFirstHeartbeat() {
		HeartbeatStatus status = this.tracker.status(T0);
		assertThat(status.isMissing()).isFalse();
		assertThat(status.missingFor()).isNull();
		assertThat(status.lastEmitted()).isNull();
	}

	@Test
	void aHeartbeatOutLongerThanTheTimeoutIsMissingUntilOneComesBack() {
		Heartbeat first = beat(1, T0);
		this.tracker.emitted(first);
		this.tracker.emitted(beat(2, T0.plusSeconds(10)));
		assertThat(this.tracker.status(T0.plusSeconds(30)).isMissing()).isFalse();
		HeartbeatStatus late = this.tracker.status(T0.plusSeconds(31));
		assertThat(late.isMissing()).isTrue();
		assertThat(late.missingFor()).isEqualTo(Duration.ofSeconds(31));
		this.tracker.received(first, T0.plusSeconds(32));
		HeartbeatStatus firstBack = this.tracker.status(T0.plusSeconds(41));
		assertThat(firstBack.missingFor()).isEqualTo(Duration.ofSeconds(31));
		assertThat(firstBack.isMissing()).isTrue();
		assertThat(firstBack.lastReceived()).isEqualTo(first);
		assertThat(firstBack.lastRoundTrip()).isEqualTo(Duration.ofSeconds(32));
		this.tracker.received(beat(2, T0.plusSeconds(10)), T0.plusSeconds(42));
		assertThat(this.tracker.status(T0.plusSeconds(100)).missingFor()).isNull();
		assertThat(this.tracker.status(T0.plusSeconds(100)).isMissing()).isFalse();
	}

	@Test
	void aLaterHeartbeatCoversTheEarlierOnes() {
		this.tracker.emitted(beat(1, T0));
		this.tracker.emitted(beat(2, T0.plusSeconds(1)));
		this.tracker.emitted(beat(3, T0.plusSeconds(2)));
		this.tracker.received(beat(3, T0.plusSeconds(2)), T0.plusSeconds(3));
		assertThat(this.tracker.status(T0.plusSeconds(600)).missingFor()).isNull();
	}

	@Test
	void heartbeatsOfOtherInstancesAndSlotsAreIgnored() {
		this.tracker.emitted(new Heartbeat("slot", "other", 1, T0));
		this.tracker.emitted(new Heartbeat("other_slot", "me", 1, T0));
		assertThat(this.tracker.status(T0.plusSeconds(600)).lastEmitted()).isNull();
		this.tracker.emitted(beat(1, T0));
		this.tracker.received(new Heartbeat("slot", "other", 1, T0), T0.plusSeconds(1));
		assertThat(this.tracker.status(T0.plusSeconds(600)).isMissing()).isTrue();
	}

	@Test
	void aHeartbeatReadBeforeItsWriteWasReportedIsNotOutstanding() {
		Heartbeat beat = beat(1, T0);
		this.tracker.received(beat, T0.plusMillis(5));
		this.tracker.emitted(beat);
		assertThat(this.tracker.status(T0.plusSeconds(600)).missingFor()).isNull();
	}

	@Test
	void aNewStreamForgetsHeartbeatsThatMayHaveGoneToAnotherReader() {
		this.tracker.emitted(beat(1, T0));
		this.tracker.streamStarted(T0.plusSeconds(60));
		assertThat(this.tracker.status(T0.plusSeconds(120)).isMissing()).isFalse();
		this.tracker.emitted(beat(2, T0.plusSeconds(70)));
		assertThat(this.tracker.status(T0.plusSeconds(101)).isMissing()).isTrue();
	}

	@Test
	void withoutAStreamThatRecognisesHeartbeatsNoneIsEverMissing() {
		HeartbeatTracker idle = new HeartbeatTracker("slot", "me", Duration.ofSeconds(30));
		idle.emitted(beat(1, T0));
		HeartbeatStatus status = idle.status(T0.plusSeconds(600));
		assertThat(status.isMissing()).isFalse();
		assertThat(status.lastEmitted()).isEqualTo(beat(1, T0));
	}

	@Test
	void listenersHearEachRoundTripOfOwnHeartbeats() {
		List<Duration> trips = new ArrayList<>();
		this.tracker.addListener((heartbeat, roundTrip) -> trips.add(roundTrip));
		this.tracker.emitted(beat(1, T0));
		this.tracker.received(beat(1, T0), T0.plusMillis(250));
		this.tracker.received(new Heartbeat("slot", "other", 9, T0), T0.plusMillis(300));
		assertThat(trips).containsExactly(Duration.ofMillis(250));
	}

	@Test
	void atMostSoManyHeartbeatsAreRememberedAndTheOldestStays() {
		for (int i = 1; i <= HeartbeatTracker.MAX_OUTSTANDING + 5; i++) {
			this.tracker.emitted(beat(i, T0.plusSeconds(i)));
		}
		assertThat(this.tracker.status(T0.plusSeconds(1_000_000)).missingFor())
			.isEqualTo(Duration.ofSeconds(1_000_000 - 1));
	}

	private static Heartbeat beat(long sequence, Instant at) {
		return new Heartbeat("slot", "me", sequence, at);
	}

}
