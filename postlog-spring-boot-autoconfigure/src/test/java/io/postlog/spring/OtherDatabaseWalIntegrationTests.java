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
 * Writes only in another database of the server, 1 GB as fast as the machine goes
 * (override with {@code -Dpostlog.test.other-database-wal=256MB}), with the heartbeat off
 * and on. The consumer keeps its confirmed position close (it confirms the server's
 * position between transactions), but {@code restart_lsn} only moves at the server's
 * running-transactions records (every 15 s from the background writer, and at
 * checkpoints), so while the writes go on the slot retains up to that much WAL whether or
 * not heartbeats are written. What postlog guarantees, and this test checks, is that the
 * retained WAL drains below 16 MB once the writes stop. The figures are logged.
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
			logger.info("{} MB written in another database: heartbeat off: {}; heartbeat on: {}", VOLUME / MB, off, on);
			assertThat(on.afterMb()).isLessThan(16);
			assertThat(off.afterMb()).isLessThan(16);
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
			AtomicLong maxLag = new AtomicLong();
			long start = position(otherConnection);
			long began = System.nanoTime();
			try (Statement writes = otherConnection.createStatement()) {
				while (position(otherConnection) - start < VOLUME) {
					writes.execute("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 10000)");
					max.accumulateAndGet(retained(appConnection, slot), Math::max);
					maxLag.accumulateAndGet(lag(appConnection, slot), Math::max);
				}
				writes.execute("TRUNCATE filler");
			}
			long millis = Math.max(1, Duration.ofNanos(System.nanoTime() - began).toMillis());
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			long after = retained(appConnection, slot);
			while (after >= 16 * MB && System.nanoTime() < deadline) {
				Thread.sleep(500);
				after = retained(appConnection, slot);
			}
			return new Retention(max.get() / MB, maxLag.get() / MB, after / MB, VOLUME / MB * 1000 / millis);
		}
	}

	private static long position(Connection connection) throws Exception {
		try (Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
			row.next();
			return row.getLong(1);
		}
	}

	private static long lag(Connection connection, String slot) throws Exception {
		try (Statement statement = connection.createStatement();
				ResultSet row = statement
					.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint"
							+ " FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
			return row.next() ? row.getLong(1) : -1;
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

	/**
	 * Megabytes retained at most and after the writes, the most lag, and the write rate.
	 */
	record Retention(long maxRetainedMb, long maxLagMb, long afterMb, long writtenMbPerSecond) {
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
