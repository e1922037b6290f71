package io.postlog.spring;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Change;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Writes only in another database of the server, 1 GB as fast as the machine goes
 * (override with {@code -Dpostlog.test.other-database-wal=256MB}), with the heartbeat off
 * and on. The consumer keeps its confirmed position close (it confirms the server's
 * position between transactions), but {@code restart_lsn} only moves at the server's
 * running-transactions records (every 15 s from the background writer, and at
 * checkpoints), so while the writes go on the slot retains up to that much WAL whether or
 * not heartbeats are written. What postlog guarantees, and this test checks, is that the
 * retained WAL drains below 16 MB once the writes stop. The figures are logged, and on
 * PostgreSQL 16+ also with {@code pg_log_standby_snapshot()} called every second and
 * every ten seconds during the writes (what the heartbeat could do, and does not: see the
 * operations guide), which logs a running-transactions record whenever it is called.
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
			Retention off = measure(app, other, "idle_off", null);
			Retention on = measure(app, other, "idle_on", null, "postlog.heartbeat.interval=1s");
			logger.info("{} MB written in another database: heartbeat off: {}; heartbeat on: {}", VOLUME / MB, off, on);
			assertThat(on.afterMb()).isLessThan(16);
			assertThat(off.afterMb()).isLessThan(16);
			if (server.serverVersion() >= 160000) {
				Retention everySecond = measure(app, other, "idle_snap1", Duration.ofSeconds(1),
						"postlog.heartbeat.interval=1s");
				Retention everyTenSeconds = measure(app, other, "idle_snap10", Duration.ofSeconds(10),
						"postlog.heartbeat.interval=10s");
				logger.info("{} MB written in another database: heartbeat on and pg_log_standby_snapshot() every "
						+ "second: {}; every ten seconds: {}", VOLUME / MB, everySecond, everyTenSeconds);
				assertThat(everySecond.afterMb()).isLessThan(16);
				assertThat(everyTenSeconds.afterMb()).isLessThan(16);
			}
		}
	}

	@Test
	void pgLogStandbySnapshotIsForSuperusersByDefault() throws Exception {
		PostgresDatabase database = EmbeddedPostgresServer.shared().createDatabase();
		try {
			assumeTrue(database.serverVersion() >= 160000, "pg_log_standby_snapshot() needs PostgreSQL 16");
			database.execute("DROP ROLE IF EXISTS plain_writer", "CREATE ROLE plain_writer LOGIN");
			try (Connection connection = DriverManager.getConnection(database.jdbcUrl(), "plain_writer", null);
					Statement statement = connection.createStatement()) {
				assertThatExceptionOfType(SQLException.class)
					.isThrownBy(() -> statement.execute("SELECT pg_log_standby_snapshot()"))
					.satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("42501"));
			}
		}
		finally {
			database.drop();
		}
	}

	private Retention measure(PostgresDatabase app, PostgresDatabase other, String slot,
			@Nullable Duration snapshotEvery, String... properties) throws Exception {
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
			Thread snapshots = (snapshotEvery != null) ? snapshots(app, snapshotEvery) : null;
			try (Statement writes = otherConnection.createStatement()) {
				while (position(otherConnection) - start < VOLUME) {
					writes.execute("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 10000)");
					max.accumulateAndGet(retained(appConnection, slot), Math::max);
					maxLag.accumulateAndGet(lag(appConnection, slot), Math::max);
				}
				writes.execute("TRUNCATE filler");
			}
			finally {
				if (snapshots != null) {
					snapshots.interrupt();
					snapshots.join(10_000);
				}
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

	private static Thread snapshots(PostgresDatabase database, Duration every) {
		Thread thread = new Thread(() -> {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				while (!Thread.currentThread().isInterrupted()) {
					statement.execute("SELECT pg_log_standby_snapshot()");
					Thread.sleep(every.toMillis());
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (SQLException ex) {
				logger.warn("pg_log_standby_snapshot() failed: SQLState {}", ex.getSQLState());
			}
		}, "standby-snapshots");
		thread.setDaemon(true);
		thread.start();
		return thread;
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
