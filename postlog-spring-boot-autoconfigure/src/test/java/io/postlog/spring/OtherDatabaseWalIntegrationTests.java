package io.postlog.spring;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Change;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes only in another database of the server: the slot of an idle database must not
 * retain that WAL. Measured with the heartbeat on and off, 1 GB each (override with
 * {@code -Dpostlog.test.other-database-wal=256MB}).
 */
class OtherDatabaseWalIntegrationTests {

	private static final Logger logger = LoggerFactory.getLogger(OtherDatabaseWalIntegrationTests.class);

	private static final long MB = 1024 * 1024;

	private static final long VOLUME = org.springframework.util.unit.DataSize
		.parse(System.getProperty("postlog.test.other-database-wal", "1GB"))
		.toBytes();

	@Test
	void anIdleDatabasesSlotRetainsLittleOfTheWalWrittenElsewhere() throws Exception {
		try (EmbeddedPostgresServer server = EmbeddedPostgresServer.builder().start()) {
			PostgresDatabase app = server.createDatabase();
			PostgresDatabase other = server.createDatabase();
			app.execute("CREATE TABLE orders (id int PRIMARY KEY)");
			other.execute("CREATE TABLE filler (v text)");
			Retention off = measure(app, other, "idle_off");
			Retention on = measure(app, other, "idle_on", "postlog.heartbeat.interval=1s");
			logger.info(
					"{} written in another database: heartbeat off: retained at most {} MB, {} MB after; "
							+ "heartbeat on: at most {} MB, {} MB after",
					VOLUME / MB, off.max() / MB, off.after() / MB, on.max() / MB, on.after() / MB);
			assertThat(on.after()).isLessThan(16 * MB);
			assertThat(off.after()).isLessThan(16 * MB);
		}
	}

	private Retention measure(PostgresDatabase app, PostgresDatabase other, String slot, String... properties)
			throws Exception {
		String[] all = new String[properties.length + 3];
		all[0] = "postlog.slot.name=" + slot;
		all[1] = "postlog.tables=orders";
		all[2] = "postlog.status-interval=1s";
		System.arraycopy(properties, 0, all, 3, properties.length);
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(IdleApplication.class, app,
				all); Connection appConnection = app.connect(); Connection otherConnection = other.connect()) {
			AtomicLong max = new AtomicLong();
			long start = position(otherConnection);
			try (Statement writes = otherConnection.createStatement()) {
				while (position(otherConnection) - start < VOLUME) {
					writes.execute("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 10000)");
					max.accumulateAndGet(retained(appConnection, slot), Math::max);
				}
				writes.execute("TRUNCATE filler");
			}
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			long after = retained(appConnection, slot);
			while (after >= 16 * MB && System.nanoTime() < deadline) {
				Thread.sleep(500);
				after = retained(appConnection, slot);
			}
			return new Retention(max.get(), after);
		}
	}

	private static long position(Connection connection) throws Exception {
		try (Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
			row.next();
			return row.getLong(1);
		}
	}

	private static long retained(Connection connection, String slot) throws Exception {
		try (Statement statement = connection.createStatement();
				ResultSet row = statement
					.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint"
							+ " FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
			return row.next() ? row.getLong(1) : -1;
		}
	}

	record Retention(long max, long after) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class IdleApplication {

		@Bean
		Idle idle() {
			return new Idle();
		}

	}

	static class Idle {

		@PgChangeListener(tables = "orders")
		void onOrder(Change change) {
		}

	}

}
