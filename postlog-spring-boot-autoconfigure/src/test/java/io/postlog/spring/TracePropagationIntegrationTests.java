package io.postlog.spring;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.propagation.Propagator;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.postlog.Change;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.tracing.propagate} on a real server, with Micrometer Tracing over the
 * OpenTelemetry SDK (W3C propagation, every span kept in memory): 100 writes, each in a
 * writer span of its own; with propagation each of the 100 listener spans has its
 * writer's trace id, without it the 100 listener spans still exist, each in a trace of
 * its own. Before PostgreSQL 14 start-up is refused, naming the version.
 */
@PostgresTest
class TracePropagationIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void listenerSpansContinueTheWritersTraces(PostgresDatabase database) {
		database.execute("DROP TABLE IF EXISTS orders", "CREATE TABLE orders (id int PRIMARY KEY)");
		if (database.serverVersion() < 140000) {
			assertThatException()
				.isThrownBy(() -> PostlogListenersIntegrationTests.run(TracedApplication.class, database,
						"postlog.slot.name=traced", "postlog.tracing.propagate=true"))
				.withStackTraceContaining("postlog.tracing.propagate")
				.withStackTraceContaining("PostgreSQL 14");
			return;
		}
		Map<Integer, String> writers = writeAndCollect(database, true, (context, listener) -> {
			assertThat(listener.traceIds).hasSize(100);
		});
		Traced traced = this.last;
		for (Map.Entry<Integer, String> writer : writers.entrySet()) {
			assertThat(traced.traceIds.get(writer.getKey()))
				.as("trace of the listener span of write %s", writer.getKey())
				.isEqualTo(writer.getValue());
		}
		assertThat(this.listenerSpans).hasSize(100)
			.allSatisfy((span) -> assertThat(writers.values()).contains(span.getTraceId()));
	}

	@Test
	void withoutPropagationEachListenerSpanHasATraceOfItsOwn(PostgresDatabase database) {
		database.execute("DROP TABLE IF EXISTS orders", "CREATE TABLE orders (id int PRIMARY KEY)");
		Map<Integer, String> writers = writeAndCollect(database, false, (context, listener) -> {
		});
		Traced traced = this.last;
		assertThat(traced.traceIds).hasSize(100);
		for (Map.Entry<Integer, String> writer : writers.entrySet()) {
			assertThat(traced.traceIds.get(writer.getKey())).isNotNull().isNotEqualTo(writer.getValue());
		}
		assertThat(new HashSet<>(traced.traceIds.values())).hasSize(100);
		assertThat(this.listenerSpans).hasSize(100);
	}

	private Traced last;

	private List<SpanData> listenerSpans;

	private Map<Integer, String> writeAndCollect(PostgresDatabase database, boolean propagate,
			java.util.function.BiConsumer<ConfigurableApplicationContext, Traced> check) {
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(TracedApplication.class,
				database, "postlog.slot.name=traced_" + propagate, "postlog.publication.name=traced_" + propagate,
				"postlog.tracing.propagate=" + propagate)) {
			CaughtUp.await(context, WAIT);
			Tracer tracer = context.getBean(Tracer.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
			Traced traced = context.getBean(Traced.class);
			Map<Integer, String> writers = new ConcurrentHashMap<>();
			for (int id = 1; id <= 100; id++) {
				int written = id;
				Span writer = tracer.nextSpan().name("writer").start();
				try (Tracer.SpanInScope scope = tracer.withSpan(writer)) {
					transactions
						.executeWithoutResult((status) -> jdbc.update("INSERT INTO orders VALUES (?)", written));
				}
				finally {
					writer.end();
				}
				writers.put(id, writer.context().traceId());
			}
			await().atMost(WAIT).until(() -> traced.traceIds.size() == 100);
			check.accept(context, traced);
			this.last = traced;
			this.listenerSpans = context.getBean(Spans.class).ended.stream()
				.filter((span) -> span.getName().equals("postlog orders"))
				.toList();
			return writers;
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class TracedApplication {

		@Bean
		Spans spans() {
			return new Spans();
		}

		@Bean
		SdkTracerProvider tracerProvider(Spans spans) {
			return SdkTracerProvider.builder().addSpanProcessor(spans).build();
		}

		@Bean
		OtelTracer tracer(SdkTracerProvider provider) {
			OtelCurrentTraceContext current = new OtelCurrentTraceContext();
			return new OtelTracer(provider.get("test"), current, (event) -> {
			}, new OtelBaggageManager(current, List.of(), List.of()));
		}

		@Bean
		OtelPropagator propagator(SdkTracerProvider provider) {
			return new OtelPropagator(ContextPropagators.create(W3CTraceContextPropagator.getInstance()),
					provider.get("test"));
		}

		@Bean
		ObservationRegistry observationRegistry(Tracer tracer, Propagator propagator) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig()
				.observationHandler(new FirstMatchingCompositeObservationHandler(
						new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
						new DefaultTracingObservationHandler(tracer)));
			return registry;
		}

		@Bean
		Traced traced(Tracer tracer) {
			return new Traced(tracer);
		}

	}

	/** Keeps every ended span. */
	static class Spans implements SpanProcessor {

		final List<SpanData> ended = new CopyOnWriteArrayList<>();

		@Override
		public void onStart(Context parentContext, ReadWriteSpan span) {
		}

		@Override
		public boolean isStartRequired() {
			return false;
		}

		@Override
		public void onEnd(ReadableSpan span) {
			this.ended.add(span.toSpanData());
		}

		@Override
		public boolean isEndRequired() {
			return true;
		}

		@Override
		public CompletableResultCode shutdown() {
			return CompletableResultCode.ofSuccess();
		}

	}

	/** Notes the trace the listener runs in, per row. */
	static class Traced {

		final Map<Integer, String> traceIds = new ConcurrentHashMap<>();

		private final Tracer tracer;

		Traced(Tracer tracer) {
			this.tracer = tracer;
		}

		@PgChangeListener(id = "orders", tables = "orders")
		void onOrder(Change change) {
			Span span = this.tracer.currentSpan();
			this.traceIds.put(change.after().get("id", Integer.class),
					(span != null) ? span.context().traceId() : "none");
		}

	}

}
