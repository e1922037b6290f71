package io.postlog.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin lane: a PostgreSQL 15 server started from Debian's packages
 * ({@code postgresql-15}, {@code postgresql-15-wal2json}, {@code postgresql-15-pglogical}
 * in {@code /usr/lib/postgresql/15}), with {@code shared_preload_libraries=pglogical}, as
 * the {@code postgres} operating system user when the build runs as root. Tests on it are
 * annotated {@link PluginLaneTest}; where the packages are absent they are skipped,
 * loudly, unless {@code -Dpostlog.plugin-lane.required=true} (as CI sets) makes that a
 * failure. One server per JVM, stopped when the JVM exits. Thread-safe.
 */
public final class PluginLane {

	/** The system property that turns absent packages from a skip into a failure. */
	public static final String REQUIRED_PROPERTY = "postlog.plugin-lane.required";

	/**
	 * The installation: Debian's PostgreSQL 15, or another given as
	 * {@code -Dpostlog.plugin-lane.installation=...}.
	 */
	public static final Path INSTALLATION = Path
		.of(System.getProperty("postlog.plugin-lane.installation", "/usr/lib/postgresql/15"));

	private static final Logger logger = LoggerFactory.getLogger(PluginLane.class);

	private static final String OS_USER = "postgres";

	private static final String OUTPUT_PLUGINS = "output_plugin_libraries";

	/** A list of quoted names: one quoted string with commas would be one name. */
	private static final String ALLOWED_PLUGINS = "'pgoutput', 'test_decoding', 'wal2json', 'pglogical_output'";

	private static @Nullable EmbeddedPostgresServer server;

	private PluginLane() {
	}

	/**
	 * Returns what the lane needs and this machine lacks.
	 * @return the missing pieces, empty when the lane can run
	 */
	public static List<String> missing() {
		List<String> missing = new ArrayList<>();
		for (String file : new String[] { "bin/initdb", "bin/pg_ctl", "bin/postgres", "lib/wal2json.so",
				"lib/pglogical.so", "lib/pglogical_output.so" }) {
			if (!Files.isRegularFile(INSTALLATION.resolve(file))) {
				missing.add(INSTALLATION.resolve(file).toString());
			}
		}
		if (RootDetection.isRoot() && !osUserExists()) {
			missing.add("the operating system user '" + OS_USER + "' (PostgreSQL does not run as root)");
		}
		return missing;
	}

	/**
	 * Returns whether absent packages must fail the lane rather than skip it.
	 * @return the value of {@value #REQUIRED_PROPERTY}
	 */
	public static boolean required() {
		return Boolean.getBoolean(REQUIRED_PROPERTY);
	}

	/**
	 * Returns the lane's server, starting it on first use.
	 * @return the running server
	 */
	public static synchronized EmbeddedPostgresServer server() {
		if (server == null) {
			EmbeddedPostgresServer.Builder builder = EmbeddedPostgresServer.builder()
				.installation(INSTALLATION)
				.setting("shared_preload_libraries", "pglogical")
				.setting("max_worker_processes", "16");
			if (RootDetection.isRoot()) {
				builder.osUser(OS_USER);
			}
			server = builder.start();
			allowOutputPlugins(server);
			logger.info("Plugin lane: PostgreSQL {} from {}", server.setting("server_version"), INSTALLATION);
		}
		return server;
	}

	/**
	 * Lets replication users name the plugins of the lane where the server restricts
	 * output plugins ({@code output_plugin_libraries}, which minor releases from 2026 on
	 * add, by default {@code pgoutput, test_decoding}); older minor releases have no such
	 * setting and allow every plugin.
	 */
	private static void allowOutputPlugins(EmbeddedPostgresServer server) {
		try (Connection connection = server.connect("postgres"); Statement statement = connection.createStatement()) {
			try (ResultSet known = statement
				.executeQuery("SELECT 1 FROM pg_settings WHERE name = '" + OUTPUT_PLUGINS + "'")) {
				if (!known.next()) {
					return;
				}
			}
			statement.execute("ALTER SYSTEM SET " + OUTPUT_PLUGINS + " = " + ALLOWED_PLUGINS);
			statement.execute("SELECT pg_reload_conf()");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Plugin lane: could not allow its output plugins", ex);
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!server.setting(OUTPUT_PLUGINS).contains("wal2json")) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Plugin lane: the server did not take " + OUTPUT_PLUGINS + " = "
						+ ALLOWED_PLUGINS + " within 10 s");
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
		logger.info("Plugin lane: {} = {}", OUTPUT_PLUGINS, ALLOWED_PLUGINS);
	}

	private static boolean osUserExists() {
		try {
			return Files.readAllLines(Path.of("/etc/passwd"))
				.stream()
				.anyMatch((line) -> line.startsWith(OS_USER + ":"));
		}
		catch (IOException ex) {
			return false;
		}
	}

}
