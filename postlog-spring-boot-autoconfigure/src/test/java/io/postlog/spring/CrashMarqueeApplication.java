package io.postlog.spring;

import io.postlog.Row;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The Boot application {@link CheckpointCrashIntegrationTests} runs in a child JVM and
 * kills: one {@code @Transactional} listener inserts every change of the published table
 * into a sink table that has no unique constraint, so a duplicate delivery would show as
 * a second row (or, in a sink table with a primary key, as a failed insert). Takes Spring
 * Boot arguments ({@code --postlog.*}, {@code --spring.datasource.*},
 * {@code --marquee.sink=table}, and {@code --marquee.pause-every=N} to sleep a
 * millisecond every N rows); closes its context cleanly when its standard input closes.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class CrashMarqueeApplication {

	/**
	 * Runs the application until standard input closes.
	 * @param args Spring Boot arguments
	 * @throws Exception if it cannot start
	 */
	public static void main(String[] args) throws Exception {
		try (ConfigurableApplicationContext context = SpringApplication.run(CrashMarqueeApplication.class, args)) {
			System.out.println("started");
			System.out.flush();
			while (System.in.read() != -1) {
				// Wait for the parent to close standard input.
			}
		}
	}

	@Bean
	SinkWriter sinkWriter(JdbcTemplate jdbc, @Value("${marquee.sink}") String sink,
			@Value("${marquee.pause-every:0}") int pauseEvery) {
		return new SinkWriter(jdbc, sink, pauseEvery);
	}

	/**
	 * Writes each change into the sink.
	 */
	public static class SinkWriter {

		private final JdbcTemplate jdbc;

		private final String insert;

		private final int pauseEvery;

		private long rows;

		SinkWriter(JdbcTemplate jdbc, String sink, int pauseEvery) {
			this.jdbc = jdbc;
			this.insert = "INSERT INTO " + sink + " (k, tx) VALUES (?, ?)";
			this.pauseEvery = pauseEvery;
		}

		@PgChangeListener(id = "sink")
		@Transactional
		public void onRow(Row row) {
			this.jdbc.update(this.insert, row.get("k"), row.get("tx"));
			if (this.pauseEvery > 0 && ++this.rows % this.pauseEvery == 0) {
				try {
					Thread.sleep(1);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

	}

}
