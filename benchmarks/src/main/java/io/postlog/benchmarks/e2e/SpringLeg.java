package io.postlog.benchmarks.e2e;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;

import io.postlog.Change;
import io.postlog.spring.PgChangeListener;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * postlog through a Spring Boot application: the auto-configured consumer on an existing
 * slot and publication, with one {@code @PgChangeListener} taking either {@link Change}
 * ({@code listener=change}) or a record bound from the row ({@code listener=record}).
 * Arguments: {@code url= user= slot= publication= expected= listener=change|record
 * binary=true latency=false timeout=600}.
 */
public final class SpringLeg {

	static @Nullable Tally tally;

	private SpringLeg() {
	}

	public static void main(String[] args) throws Exception {
		boolean record = "record".equals(Tally.arg(args, "listener", "change"));
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
		SpringApplication application = new SpringApplication(record ? RecordApp.class : ChangeApp.class);
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
