package io.postlog.spring;

import java.lang.reflect.Method;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import org.junit.jupiter.api.Test;

import org.springframework.boot.convert.ApplicationConversionService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link PostlogListenerObservations} without a server: the keys of one call, the source
 * read from the change id, the error of a failing call, and no observation at all with
 * the no-op registry.
 */
class PostlogListenerObservationsTests {

	private static final ListenerMethodResolver RESOLVER = new ListenerMethodResolver(null,
			ApplicationConversionService.getSharedInstance());

	@Test
	void callRunsInAnObservationWithItsKeysAndItsError() throws Exception {
		TestObservationRegistry registry = TestObservationRegistry.create();
		List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
		registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				stopped.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		PostlogListenerObservations observations = new PostlogListenerObservations(registry);
		assertThat(observations.observes()).isTrue();
		ListenerEndpoint endpoint = endpoint();
		observations.change(endpoint, change("slot/0/16B374D/2"), () -> {
		});
		observations.change(endpoint, change("slot/0/16B374D/backfill/7"), () -> {
		});
		assertThatIllegalStateException()
			.isThrownBy(() -> observations.change(endpoint, change("slot/0/16B374D/snapshot/16384/0.1"), () -> {
				throw new IllegalStateException("failed");
			}));
		assertThat(stopped).extracting((context) -> context.getLowCardinalityKeyValue("postlog.source").getValue())
			.containsExactly("stream", "backfill", "snapshot");
		assertThat(stopped.get(2).getError()).hasMessage("failed");
		TestObservationRegistryAssert.assertThat(registry)
			.hasObservationWithNameEqualTo("postlog.listener")
			.that()
			.hasLowCardinalityKeyValue("postlog.listener.id", "observed")
			.hasLowCardinalityKeyValue("postlog.group", "default")
			.hasLowCardinalityKeyValue("postlog.table", "public.orders")
			.hasLowCardinalityKeyValue("postlog.operation", "INSERT")
			.hasHighCardinalityKeyValue("postlog.change.id", "slot/0/16B374D/2");
	}

	@Test
	void noopRegistryObservesNothing() {
		assertThat(new PostlogListenerObservations(ObservationRegistry.NOOP).observes()).isFalse();
	}

	private static ListenerEndpoint endpoint() throws Exception {
		Method method = Listeners.class.getDeclaredMethod("onChange", Change.class);
		return RESOLVER.resolve(new Listeners(), method, method.getAnnotation(PgChangeListener.class));
	}

	private static Change change(String id) {
		return new Change(Operation.INSERT, TableId.parse("orders"), null, Row.of(java.util.Map.of("id", 1)), 7L,
				Lsn.parse("0/16B374D"), Instant.EPOCH, 0, id);
	}

	static class Listeners {

		@PgChangeListener(id = "observed", tables = "orders")
		void onChange(Change change) {
		}

	}

}
