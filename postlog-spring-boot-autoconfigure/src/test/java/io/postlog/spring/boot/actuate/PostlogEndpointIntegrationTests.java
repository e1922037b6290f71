package io.postlog.spring.boot.actuate;

import java.util.List;

import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint before its registry runs, reading a real server: the default group, not
 * started, with the slot and publication as the server has them.
 */
@PostgresTest
class PostlogEndpointIntegrationTests {

	@Test
	void describesTheDefaultGroupAsNotStartedWithTheServersSlotAndPublication(PostgresDatabase database) {
		database.execute("CREATE TABLE IF NOT EXISTS things (id int PRIMARY KEY)",
				"CREATE PUBLICATION endpoint_pub FOR TABLE things",
				"SELECT pg_create_logical_replication_slot('endpoint_slot', 'pgoutput')");
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.postgresql.Driver(), database.jdbcUrl(),
				database.username(), "");
		PostlogListenerRegistry registry = new PostlogListenerRegistry((group, tables) -> {
			throw new IllegalStateException("not started");
		}, List.of());
		PostlogEndpoint endpoint = new PostlogEndpoint(registry,
				new PostlogSlotMonitor(dataSource, "endpoint_slot", "endpoint_pub"));
		PostlogEndpoint.ConsumerDescriptor consumer = endpoint.postlog().consumers().get(0);
		assertThat(endpoint.postlog().consumers()).hasSize(1);
		assertThat(consumer.group()).isEqualTo("default");
		assertThat(consumer.state()).isEqualTo("NOT_STARTED");
		assertThat(consumer.ackedLsn()).isNull();
		assertThat(consumer.lastError()).isNull();
		assertThat(consumer.listeners()).isEmpty();
		assertThat(slot(consumer).name()).isEqualTo("endpoint_slot");
		assertThat(slot(consumer).exists()).isTrue();
		assertThat(slot(consumer).active()).isFalse();
		assertThat(slot(consumer).confirmedFlushLsn()).isNotNull();
		assertThat(publication(consumer).name()).isEqualTo("endpoint_pub");
		assertThat(publication(consumer).tables()).containsExactly("public.things");
		assertThat(consumer.serverLsn()).isNotNull();
		assertThat(consumer.lagBytes()).isNotNull().isGreaterThanOrEqualTo(0L);
	}

	@Test
	void describesAMissingSlotAsNotExisting(PostgresDatabase database) {
		database.execute("CREATE PUBLICATION empty_pub");
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.postgresql.Driver(), database.jdbcUrl(),
				database.username(), "");
		PostlogEndpoint endpoint = new PostlogEndpoint(new PostlogListenerRegistry((group, tables) -> {
			throw new IllegalStateException("not started");
		}, List.of()), new PostlogSlotMonitor(dataSource, "absent_slot", "empty_pub"));
		PostlogEndpoint.ConsumerDescriptor consumer = endpoint.postlog().consumers().get(0);
		assertThat(slot(consumer).exists()).isFalse();
		assertThat(slot(consumer).confirmedFlushLsn()).isNull();
		assertThat(publication(consumer).tables()).isEmpty();
		assertThat(consumer.lagBytes()).isNull();
	}

	static PostlogEndpoint.SlotDescriptor slot(PostlogEndpoint.ConsumerDescriptor consumer) {
		assertThat(consumer.slot()).isInstanceOf(PostlogEndpoint.SlotDescriptor.class);
		return (PostlogEndpoint.SlotDescriptor) consumer.slot();
	}

	static PostlogEndpoint.PublicationDescriptor publication(PostlogEndpoint.ConsumerDescriptor consumer) {
		assertThat(consumer.publication()).isInstanceOf(PostlogEndpoint.PublicationDescriptor.class);
		return (PostlogEndpoint.PublicationDescriptor) consumer.publication();
	}

}
