package io.postlog.benchmarks.e2e;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;

import io.postlog.Change;
import io.postlog.SchemaChange;
import io.postlog.spring.PgChangeListener;
import io.postlog.spring.PgSchemaListener;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * postlog through a Spring Boot application: the auto-configured consumer on an existing
 * slot and publication, with one {@code @PgChangeListener} taking either {@link Change}
 * ({@code listener=change}), the same with a {@code @PgSchemaListener} of the table
 * beside it ({@code listener=change-schema}: the table's shape is tracked) or a record
 * bound from the row ({@code listener=record}). Arguments:
 * {@code url= user= slot= publication= expected= listener=change|change-schema|record
 * binary=true latency=false timeout=600 leg= where=}; {@code where} is a row filter of
 * {@code bench_rows} ({@code postlog.filters.bench_rows.where}) that the publication
 * already holds.
 */
public final class SpringLeg {

	static @Nullable Tally tally;

	private SpringLeg() {
	}

	public static void main(String[] args) throws Exception {
		String listener = Tally.arg(args, "listener", "change");
		boolean record = "record".equals(listener);
		boolean latency = Boolean.parseBoolean(Tally.arg(args, "latency", "false"));
		tally = new Tally(Tally.arg(args, "leg", record ? "spring-record" : "spring-change"),
				Long.parseLong(Tally.arg(args, "expected", null)), latency)
			.warmup(Long.parseLong(Tally.arg(args, "warmup", "0")));
		Map<String, Object> properties = new HashMap<>();
		properties.put("spring.datasource.url", Tally.arg(args, "url", null));
		properties.put("spring.datasource.username", Tally.arg(args, "user", "postgres"));
		properties.put("postlog.slot.name", Tally.arg(args, "slot", null));
		properties.put("postlog.slot.lifecycle", "existing");
		properties.put("postlog.publication.name", Tally.arg(args, "publication", null));
		properties.put("postlog.publication.mode", "existing");
		properties.put("postlog.binary", Tally.arg(args, "binary", "true"));
		properties.put("spring.main.banner-mode", "off");
		String where = Tally.arg(args, "where", "");
		if (!where.isEmpty()) {
			// Pushed into the (existing) publication, which must hold the same row
			// filter.
			properties.put("postlog.filters.bench_rows.where", where);
		}
		Class<?> app = record ? RecordApp.class
				: "change-schema".equals(listener) ? SchemaTrackingApp.class : ChangeApp.class;
		SpringApplication application = new SpringApplication(app);
		application.setDefaultProperties(properties);
		ConfigurableApplicationContext context = application.run();
		Ready.signal(args);
		int status = tally.awaitAndReport(Duration.ofSeconds(Long.parseLong(Tally.arg(args, "timeout", "600"))));
		context.close();
		System.exit(status);
	}

	static Tally tally() {
		Tally current = tally;
		if (current == null) {
			throw new IllegalStateException("No tally");
		}
		return current;
	}

	/** The application with a {@link Change} listener. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ChangeApp {

		@Bean
		ChangeListener changeListener() {
			return new ChangeListener();
		}

	}

	/**
	 * The application with the {@link Change} listener and a schema listener of the same
	 * table beside it, so that the consumer tracks the table's shape: on a table with no
	 * DDL the difference to {@link ChangeApp} is what schema tracking costs.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class SchemaTrackingApp {

		@Bean
		ChangeListener changeListener() {
			return new ChangeListener();
		}

		@Bean
		SchemaListener schemaListener() {
			return new SchemaListener();
		}

	}

	/** The application with a record listener. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class RecordApp {

		@Bean
		RecordListener recordListener() {
			return new RecordListener();
		}

	}

	static class ChangeListener {

		@PgChangeListener(tables = "bench_rows")
		void onChange(Change change) {
			tally().record(change.commitTime(), Touch.change(change));
		}

	}

	static class SchemaListener {

		@PgSchemaListener(tables = "bench_rows")
		void onSchemaChange(SchemaChange change) {
			// The workload has no DDL: a schema change here makes the run worthless, so
			// the
			// leg ends at once with a failure (a stop through the context could wait on
			// this very thread).
			System.err.println("Unexpected schema change " + change.kind() + " on " + change.table());
			Runtime.getRuntime().halt(3);
		}

	}

	static class RecordListener {

		@PgChangeListener(tables = "bench_rows")
		void onRow(BenchRow row) {
			tally().record(0L, row.hashCode());
		}

	}

	/**
	 * A row of {@code bench_rows}; deletes carry only the key.
	 *
	 * @param id the key
	 * @param a an int
	 * @param b a text
	 * @param c a timestamptz
	 * @param d a numeric(12,2)
	 * @param e a jsonb document
	 */
	record BenchRow(long id, @Nullable Integer a, @Nullable String b, @Nullable OffsetDateTime c,
			@Nullable BigDecimal d, @Nullable String e) {

	}

}
