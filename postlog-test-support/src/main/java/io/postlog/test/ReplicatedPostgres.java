package io.postlog.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A primary and a physical streaming standby, two local clusters from the same zonky
 * binaries, for failover tests. The standby streams through a physical slot on the
 * primary with {@code hot_standby_feedback = on}; on PostgreSQL 17+ it also runs with
 * {@code sync_replication_slots = on} and the primary with
 * {@code synchronized_standby_slots} naming that slot, so failover slots are copied to
 * the standby and logical readers never get ahead of it. {@link #close()} stops both.
 * <p>
 * zonky ships no {@code pg_basebackup}, so the standby starts from a cold copy of the
 * primary's data directory (the primary is stopped cleanly for the copy, without its
 * slots, as {@code pg_basebackup} leaves them out) and catches up by streaming.
 * Thread-safe.
 */
public final class ReplicatedPostgres implements AutoCloseable {

	/** The physical slot on the primary the standby streams through. */
	public static final String STANDBY_SLOT = "postlog_standby";

	private static final int SLOT_SYNC_VERSION = 170000;

	private static final int STANDBY_SIGNAL_VERSION = 120000;

	private static final Logger logger = LoggerFactory.getLogger(ReplicatedPostgres.class);

	private final EmbeddedPostgresServer primary;

	private final EmbeddedPostgresServer standby;

	private ReplicatedPostgres(EmbeddedPostgresServer primary, EmbeddedPostgresServer standby) {
		this.primary = primary;
		this.standby = standby;
	}

	/**
	 * Returns a builder.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the primary (until {@link #promoteStandby()}, the only writable server).
	 * @return the primary
	 */
	public EmbeddedPostgresServer primary() {
		return this.primary;
	}

	/**
	 * Returns the standby.
	 * @return the standby
	 */
	public EmbeddedPostgresServer standby() {
		return this.standby;
	}

	/**
	 * Waits until the standby has replayed everything the primary had written when the
	 * call began.
	 * @param timeout how long to wait
	 * @throws IllegalStateException if the standby is not there in time
	 */
	public void awaitStandbyCaughtUp(Duration timeout) {
		String target = queryString(this.primary, "SELECT pg_current_wal_lsn()::text");
		long deadline = System.nanoTime() + timeout.toNanos();
		String sql = "SELECT pg_last_wal_replay_lsn() >= '" + target + "'::pg_lsn";
		while (!"t".equals(queryString(this.standby, sql))) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The standby did not replay up to " + target + " within " + timeout
						+ "; it is at " + queryString(this.standby, "SELECT pg_last_wal_replay_lsn()::text"));
			}
			pause();
		}
	}

	/**
	 * Stops the primary as a crash would: immediately, connections cut, no shutdown
	 * checkpoint.
	 */
	public void crashPrimary() {
		this.primary.crash();
	}

	/**
	 * Promotes the standby ({@code pg_ctl promote}) and waits until it accepts writes.
	 */
	public void promoteStandby() {
		this.standby.promote();
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (!"f".equals(queryString(this.standby, "SELECT pg_is_in_recovery()"))) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The standby did not leave recovery after promotion");
			}
			pause();
		}
	}

	/**
	 * Stops the standby and the primary and removes their files.
	 */
	@Override
	public void close() {
		try {
			this.standby.close();
		}
		finally {
			this.primary.close();
		}
	}

	private static String queryString(EmbeddedPostgresServer server, String sql) {
		try (Connection connection = server.connect("postgres");
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery(sql)) {
			row.next();
			return String.valueOf(row.getString(1));
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Query failed on port " + server.port() + ": " + ex.getMessage(), ex);
		}
	}

	private static void execute(EmbeddedPostgresServer server, String... statements) {
		try (Connection connection = server.connect("postgres"); Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("SQL failed on port " + server.port() + ": " + ex.getMessage(), ex);
		}
	}

	private static void pause() {
		try {
			Thread.sleep(100);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	/**
	 * Copies a stopped cluster's data directory, leaving out what a base backup leaves
	 * out: the process id file and the replication slots.
	 */
	private static void copyDataDirectory(Path source, Path target) {
		try (Stream<Path> paths = Files.walk(source)) {
			for (Path path : (Iterable<Path>) paths::iterator) {
				Path relative = source.relativize(path);
				if (excluded(relative)) {
					continue;
				}
				Path destination = target.resolve(relative.toString());
				if (Files.isDirectory(path)) {
					Files.createDirectories(destination);
				}
				else {
					Files.copy(path, destination, StandardCopyOption.COPY_ATTRIBUTES,
							StandardCopyOption.REPLACE_EXISTING);
				}
			}
			// PostgreSQL refuses a data directory others can read.
			Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not copy " + source + " to " + target, ex);
		}
	}

	private static boolean excluded(Path relative) {
		String name = relative.toString();
		return name.equals("postmaster.pid") || name.equals("postmaster.opts")
				|| (name.startsWith("pg_replslot/") && relative.getNameCount() > 1);
	}

	/**
	 * Builds a primary and a standby.
	 */
	public static final class Builder {

		private final Map<String, String> primarySettings = new LinkedHashMap<>();

		private final Map<String, String> standbySettings = new LinkedHashMap<>();

		private Builder() {
		}

		/**
		 * Sets a setting of the primary; the standby starts from a copy of the primary's
		 * configuration, so it has the setting too unless
		 * {@link #standbySetting(String, String)} overrides it.
		 * @param name the setting
		 * @param value its value
		 * @return this builder
		 */
		public Builder setting(String name, String value) {
			this.primarySettings.put(name, value);
			return this;
		}

		/**
		 * Sets a setting of the standby only.
		 * @param name the setting
		 * @param value its value
		 * @return this builder
		 */
		public Builder standbySetting(String name, String value) {
			this.standbySettings.put(name, value);
			return this;
		}

		/**
		 * Starts the primary, copies it, starts the standby and waits until it streams.
		 * @return the running pair
		 */
		public ReplicatedPostgres start() {
			EmbeddedPostgresServer.Builder builder = EmbeddedPostgresServer.builder();
			this.primarySettings.forEach(builder::setting);
			EmbeddedPostgresServer primary = builder.start();
			@Nullable EmbeddedPostgresServer standby = null;
			try {
				int version = primary.serverVersion();
				execute(primary, "SELECT pg_create_physical_replication_slot('" + STANDBY_SLOT + "', true)");
				Path source = primary.dataDirectory();
				Map<String, String> settings = standbySettings(primary, version);
				standby = EmbeddedPostgresServer.startFromDataDirectory(settings, (target) -> {
					primary.restart(() -> copyDataDirectory(source, target));
					writeRecoverySignal(target, primary, version);
				});
				if (version >= SLOT_SYNC_VERSION) {
					execute(primary, "ALTER SYSTEM SET synchronized_standby_slots = '" + STANDBY_SLOT + "'",
							"SELECT pg_reload_conf()");
				}
				ReplicatedPostgres pair = new ReplicatedPostgres(primary, standby);
				pair.awaitStreaming();
				logger.info("Standby on port {} streams from the primary on port {}", standby.port(), primary.port());
				return pair;
			}
			catch (RuntimeException ex) {
				if (standby != null) {
					standby.close();
				}
				primary.close();
				throw ex;
			}
		}

		private Map<String, String> standbySettings(EmbeddedPostgresServer primary, int version) {
			Map<String, String> settings = new LinkedHashMap<>();
			settings.put("hot_standby", "on");
			settings.put("hot_standby_feedback", "on");
			settings.put("wal_receiver_status_interval", "1s");
			if (version >= STANDBY_SIGNAL_VERSION) {
				settings.put("primary_conninfo", conninfo(primary));
				settings.put("primary_slot_name", STANDBY_SLOT);
			}
			if (version >= SLOT_SYNC_VERSION) {
				settings.put("sync_replication_slots", "on");
				settings.put("synchronized_standby_slots", "");
			}
			settings.putAll(this.standbySettings);
			return settings;
		}

		private static String conninfo(EmbeddedPostgresServer primary) {
			// The slot sync worker needs a database in the conninfo.
			return "host=127.0.0.1 port=" + primary.port() + " user=postgres dbname=postgres application_name="
					+ STANDBY_SLOT;
		}

		private static void writeRecoverySignal(Path dataDirectory, EmbeddedPostgresServer primary, int version) {
			try {
				if (version >= STANDBY_SIGNAL_VERSION) {
					Files.writeString(dataDirectory.resolve("standby.signal"), "", StandardCharsets.UTF_8);
				}
				else {
					Files.writeString(
							dataDirectory.resolve("recovery.conf"), "standby_mode = 'on'\nprimary_conninfo = '"
									+ conninfo(primary) + "'\nprimary_slot_name = '" + STANDBY_SLOT + "'\n",
							StandardCharsets.UTF_8);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

	private void awaitStreaming() {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		String sql = "SELECT count(*) FROM pg_stat_replication WHERE application_name = '" + STANDBY_SLOT
				+ "' AND state = 'streaming'";
		while (!"1".equals(queryString(this.primary, sql))) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(
						"The standby on port " + this.standby.port() + " did not start streaming");
			}
			pause();
		}
	}

}
