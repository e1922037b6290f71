package io.postlog.spring.boot.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.consumer.ConsumerListener;
import io.postlog.spring.ListenerExecutionFailedException;
import io.postlog.spring.PostlogListenerFailedEvent;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.TestGroups;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;

class PostlogMetricsTests {

	private static final Lsn COMMIT = Lsn.parse("0/16B374D");

	private final MeterRegistry registry = new SimpleMeterRegistry();

	private final PostlogSlotMonitor monitor = new PostlogSlotMonitor(
			new SimpleDriverDataSource(new org.postgresql.Driver(), "jdbc:postgresql://127.0.0.1:1/none"),
			"search_slot", "search_pub");

	@Test
	void groupMetersAreTaggedWithSlotAndGroupAndCountWhatTheConsumerReports() {
		PostlogMetrics metrics = new PostlogMetrics();
		metrics.bindTo(this.registry);
		ConsumerListener meters = metrics.observe(TestGroups.group("search", this.monitor));
		Change insert = change();
		meters.changeDelivered(insert, Duration.ofMillis(1));
		meters.transactionDelivered(new Transaction(7, COMMIT, COMMIT, Instant.now().minusSeconds(1), null, List.of()),
				Duration.ofMillis(3));
		meters.retrying(1, Duration.ofMillis(10), new IllegalStateException());
		assertThat(this.registry.get("postlog.changes")
			.tags("slot", "search_slot", "group", "search", "table", "public.orders", "operation", "INSERT")
			.counter()
			.count()).isEqualTo(1);
		assertThat(this.registry.get("postlog.transactions").tags("group", "search").counter().count()).isEqualTo(1);
		assertThat(this.registry.get("postlog.handler.duration").tags("group", "search").timer().count()).isEqualTo(1);
		assertThat(this.registry.get("postlog.replication.delay")
			.tags("group", "search")
			.timer()
			.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(1000);
		assertThat(this.registry.get("postlog.retries").tags("slot", "search_slot").counter().count()).isEqualTo(1);
	}

	@Test
	void slotLagIsNaNWhenTheServerCannotBeRead() {
		PostlogMetrics metrics = new PostlogMetrics();
		metrics.observe(TestGroups.group("", this.monitor));
		metrics.bindTo(this.registry);
		assertThat(this.registry.get("postlog.slot.lag").tags("group", "default").gauge().value()).isNaN();
	}

	@Test
	void eventsBeforeBindingAreNotCounted() {
		PostlogMetrics metrics = new PostlogMetrics();
		ConsumerListener meters = metrics.observe(TestGroups.group("", this.monitor));
		meters.changeDelivered(change(), Duration.ZERO);
		meters.retrying(1, Duration.ZERO, new IllegalStateException());
		metrics.bindTo(this.registry);
		assertThat(this.registry.find("postlog.changes").counter()).isNull();
		assertThat(this.registry.get("postlog.retries").counter().count()).isZero();
	}

	@Test
	void skippedAndDeadLetteredChangesAreCountedPerListenerButStopsAreNot() {
		PostlogMetrics metrics = new PostlogMetrics();
		metrics.bindTo(this.registry);
		metrics.onApplicationEvent(event(PostlogListenerFailedEvent.Outcome.SKIPPED));
		metrics.onApplicationEvent(event(PostlogListenerFailedEvent.Outcome.DEAD_LETTERED));
		metrics.onApplicationEvent(event(PostlogListenerFailedEvent.Outcome.STOPPED));
		assertThat(this.registry.get("postlog.listener.skipped")
			.tags("slot", "search_slot", "group", "search", "listener", "indexer")
			.counter()
			.count()).isEqualTo(2);
	}

	private PostlogListenerFailedEvent event(PostlogListenerFailedEvent.Outcome outcome) {
		return new PostlogListenerFailedEvent(this, "indexer", "search", "search_slot", change(),
				new ListenerExecutionFailedException("indexer", "search", "INSERT on public.orders", null), 3, outcome);
	}

	private static Change change() {
		return new Change(Operation.INSERT, TableId.parse("orders"), null, Row.of(java.util.Map.of("id", 1)), 7, COMMIT,
				Instant.EPOCH, 0, Change.id("search_slot", COMMIT, 0));
	}

}
