package io.postlog.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.postlog.Change;
import io.postlog.TableId;
import io.postlog.consumer.Backfill;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code postlog.listener} observation on a real server, with Micrometer's
 * {@link TestObservationRegistry} (which also checks each observation is started and
 * stopped in order): one per listener call, with the listener id, group, table, operation
 * and source as low-cardinality keys and the change id as a high-cardinality one; initial
 * snapshot rows tagged {@code snapshot}, backfilled rows {@code backfill}, streamed ones
 * {@code stream}; a listener's failure recorded as the observation's error.
 */
@PostgresTest
class ListenerObservationIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void eachListenerCallIsObservedWithItsKeysAndErrors(PostgresDatabase database) {
		database.execute("CREATE TABLE orders (id int PRIMARY KEY)", "INSERT INTO orders VALUES (1), (2)");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(ObservedApplication.class,
				database, "postlog.slot.name=observed", "postlog.publication.name=observed",
				"postlog.snapshot.mode=initial", "postlog.listener.error-handler=skip",
				"postlog.retry.max-attempts=1")) {
			Stopped stopped = context.getBean(Stopped.class);
			await().atMost(WAIT).until(() -> byListener(stopped, "orders").size() == 2);
			database.execute("INSERT INTO orders VALUES (3)", "UPDATE orders SET id = 4 WHERE id = 3");
			await().atMost(WAIT).until(() -> byListener(stopped, "orders").size() == 4);
			Backfill backfill = context.getBean(PostlogListenerRegistry.class)
				.group("")
				.backfill(List.of(TableId.parse("orders")));
			await().atMost(WAIT).until(() -> byListener(stopped, "orders").size() == 7);
			assertThat(backfill.tables()).containsExactly(TableId.parse("orders"));

			List<Observation.Context> orders = byListener(stopped, "orders");
			assertThat(orders).extracting((observed) -> low(observed, "postlog.source"))
				.containsExactly("snapshot", "snapshot", "stream", "stream", "backfill", "backfill", "backfill");
			assertThat(orders).extracting((observed) -> low(observed, "postlog.operation"))
				.containsExactly("SNAPSHOT", "SNAPSHOT", "INSERT", "UPDATE", "SNAPSHOT", "SNAPSHOT", "SNAPSHOT");
			assertThat(orders).allSatisfy((observed) -> {
				assertThat(observed.getName()).isEqualTo("postlog.listener");
				assertThat(low(observed, "postlog.listener.id")).isEqualTo("orders");
				assertThat(low(observed, "postlog.group")).isEqualTo("default");
				assertThat(low(observed, "postlog.table")).isEqualTo("public.orders");
				assertThat(observed.getHighCardinalityKeyValue("postlog.change.id").getValue()).startsWith("observed/");
				assertThat(observed.getError()).isNull();
			});
			assertThat(orders.stream().map((observed) -> observed.getHighCardinalityKeyValue("postlog.change.id")))
				.doesNotHaveDuplicates();

			await().atMost(WAIT).until(() -> byListener(stopped, "failing").size() >= 7);
			List<Observation.Context> failing = byListener(stopped, "failing");
			assertThat(failing).filteredOn((observed) -> observed.getError() != null)
				.singleElement()
				.satisfies((observed) -> {
					assertThat(low(observed, "postlog.operation")).isEqualTo("INSERT");
					assertThat(observed.getError()).isInstanceOf(ListenerExecutionFailedException.class)
						.hasRootCauseMessage("listener failure");
				});
			TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
				.hasObservationWithNameEqualTo("postlog.listener")
				.that()
				.hasBeenStarted()
				.hasBeenStopped();
		}
	}

	private static List<Observation.Context> byListener(Stopped stopped, String id) {
		return stopped.contexts.stream()
			.filter((observed) -> id.equals(low(observed, "postlog.listener.id")))
			.collect(Collectors.toList());
	}

	private static String low(Observation.Context context, String key) {
		KeyValue value = context.getLowCardinalityKeyValue(key);
		return (value != null) ? value.getValue() : null;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ObservedApplication {

		@Bean
		Stopped stopped() {
			return new Stopped();
		}

		@Bean
		TestObservationRegistry observationRegistry(Stopped stopped) {
			TestObservationRegistry registry = TestObservationRegistry.create();
			registry.observationConfig().observationHandler(stopped.handler());
			return registry;
		}

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

	/**
	 * Keeps each observation's context when it stops; not a handler bean itself, which
	 * Boot would add to the registry a second time.
	 */
	static class Stopped {

		final List<Observation.Context> contexts = new CopyOnWriteArrayList<>();

		ObservationHandler<Observation.Context> handler() {
			return new ObservationHandler<>() {

				@Override
				public void onStop(Observation.Context context) {
					Stopped.this.contexts.add(context);
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

			};
		}

	}

	static class Listeners {

		@PgChangeListener(id = "orders", tables = "orders")
		void onOrder(Change change) {
		}

		@PgChangeListener(id = "failing", tables = "orders")
		void onOrderFailing(Change change) {
			if (change.operation() == io.postlog.Operation.INSERT) {
				throw new IllegalStateException("listener failure");
			}
		}

	}

}
