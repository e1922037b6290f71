package io.postlog.benchmarks.e2e;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.postlog.Change;
import io.postlog.spring.PgChangeListener;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A sink-writing Spring Boot application: one {@code @PgChangeListener} inserts a row per
 * change into another table ({@code sink=}) with {@link JdbcTemplate}, under
 * {@code postlog.checkpoint.store=slot} (each insert commits on its own) or {@code jdbc}
 * ({@code batch=} source transactions per sink transaction, with the checkpoint). After
 * the last change it checks that the sink holds exactly one row per change. Arguments:
 * {@code url= user= slot= publication= expected= sink= store=slot|jdbc batch=100
 * timeout=600}.
 */
public final class SinkLeg {

	static @Nullable Tally tally;

	private SinkLeg() {
	}

	public static void main(String[] args) throws Exception {
		String store = Tally.arg(args, "store", "slot");
		long expected = Long.parseLong(Tally.arg(args, "expected", null));
		tally = new Tally(Tally.arg(args, "leg", "spring-sink-" + store), expected, false);
		Map<String, Object> properties = new HashMap<>();
		properties.put("spring.datasource.url", Tally.arg(args, "url", null));
		properties.put("spring.datasource.username", Tally.arg(args, "user", "postgres"));
		properties.put("postlog.slot.name", Tally.arg(args, "slot", null));
		properties.put("postlog.slot.lifecycle", "existing");
		properties.put("postlog.publication.name", Tally.arg(args, "publication", null));
		properties.put("postlog.publication.mode", "existing");
		properties.put("postlog.checkpoint.store", store);
		properties.put("postlog.checkpoint.batch-transactions", Tally.arg(args, "batch", "100"));
		properties.put("sink.table", Tally.arg(args, "sink", null));
		properties.put("spring.main.banner-mode", "off");
		SpringApplication application = new SpringApplication(SinkApp.class);
		application.setDefaultProperties(properties);
		ConfigurableApplicationContext context = application.run();
		Ready.signal(args);
		int status = tally.awaitAndReport(Duration.ofSeconds(Long.parseLong(Tally.arg(args, "timeout", "600"))));
		Long rows = context.getBean(JdbcTemplate.class)
			.queryForObject("SELECT count(*) FROM " + Tally.arg(args, "sink", null), Long.class);
		if (rows == null || rows != expected) {
			System.out.println("FAILED sink holds " + rows + " rows, expected " + expected);
			status = 1;
		}
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

	/** The application. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class SinkApp {

		@Bean
		SinkListener sinkListener(JdbcTemplate jdbc, @Value("${sink.table}") String table) {
			return new SinkListener(jdbc, table);
		}

	}

	static class SinkListener {

		private final JdbcTemplate jdbc;

		private final String insert;

		SinkListener(JdbcTemplate jdbc, String table) {
			this.jdbc = jdbc;
			this.insert = "INSERT INTO " + table + " (id, op) VALUES (?, ?)";
		}

		@PgChangeListener(tables = "bench_rows")
		void onChange(Change change) {
			this.jdbc.update(this.insert, change.row().get("id"), change.operation().name());
			tally().record(change.commitTime(), 1);
		}

	}

}
