package io.postlog.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server run from zonky's embedded binaries for tests and samples: a fresh
 * cluster in a temporary directory, {@code wal_level=logical}, listening on a free
 * loopback port only, removed again by {@link #close()}.
 * <p>
 * zonky's own launcher cannot start a server as root (PostgreSQL refuses to run as uid 0,
 * and CI runs as root), so this class takes zonky's binaries and runs {@code initdb} and
 * {@code pg_ctl} itself; as root it runs them in a user namespace ({@code unshare
 * --user}), where they see an unprivileged uid, or, for another installation such as
 * Debian's, as an operating system user of its own ({@link Builder#osUser}). Thread-safe.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

	/**
	 * The settings every server starts with; {@link Builder#setting} overrides them.
	 * {@code synchronous_commit} stays on: logical decoding reads only flushed WAL, so a
	 * commit would otherwise reach a slot up to {@code wal_writer_delay} late.
	 */
	private static final Map<String, String> DEFAULT_SETTINGS = Map.ofEntries(Map.entry("wal_level", "logical"),
			Map.entry("max_wal_senders", "40"), Map.entry("max_replication_slots", "40"),
			Map.entry("max_connections", "200"), Map.entry("fsync", "off"), Map.entry("full_page_writes", "off"),
			Map.entry("shared_buffers", "64MB"), Map.entry("max_wal_size", "1GB"), Map.entry("timezone", "UTC"),
			Map.entry("log_timezone", "UTC"));

	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private static final AtomicInteger databaseCounter = new AtomicInteger();

	private static @Nullable EmbeddedPostgresServer shared;

	private final PgCommands commands;

	private final Path workDirectory;

	private final Path dataDirectory;

	private final int port;

	private final Map<String, String> settings;

	private final @Nullable Thread shutdownHook;

	private volatile boolean running;

	private EmbeddedPostgresServer(@Nullable Path installation, @Nullable String osUser, Map<String, String> settings,
			boolean shutdownHook) {
		this.settings = settings;
		try {
			this.workDirectory = Files.createTempDirectory("postlog-pg-");
			if (osUser != null) {
				// initdb and the server, run as that user, write into it.
				Files.setOwner(this.workDirectory,
						this.workDirectory.getFileSystem()
							.getUserPrincipalLookupService()
							.lookupPrincipalByName(osUser));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.commands = new PgCommands((installation != null) ? installation : PostgresBinaries.installation(),
				this.workDirectory, osUser, START_TIMEOUT);
		this.dataDirectory = this.workDirectory.resolve("data");
		this.port = PgCommands.freePort();
		this.shutdownHook = shutdownHook ? new Thread(this::stopQuietly, "postlog-embedded-postgres-shutdown") : null;
	}

	/**
	 * Returns a builder for a server with its own settings.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the server shared by everything in this JVM, starting it on first use. It
	 * stops when the JVM exits.
	 * @return the running shared server
	 */
	public static synchronized EmbeddedPostgresServer shared() {
		if (shared == null || !shared.running) {
			shared = builder().start();
		}
		return shared;
	}

	private void start() {
		start(this.commands::initdb);
	}

	/**
	 * Fills the data directory (initdb, or a copy of another cluster's), appends this
	 * server's settings and starts it.
	 */
	private void start(Consumer<Path> initialize) {
		if (this.shutdownHook != null) {
			Runtime.getRuntime().addShutdownHook(this.shutdownHook);
		}
		initialize.accept(this.dataDirectory);
		writeSettings();
		pgCtlStart();
		this.running = true;
		logger.info("PostgreSQL {} started on port {} in {}", serverVersion(), this.port, this.dataDirectory);
	}

	private void pgCtlStart() {
		this.commands.pgCtl(this.dataDirectory, "-l", this.commands.logFile().toString(), "-w", "-t",
				Long.toString(START_TIMEOUT.toSeconds()), "start");
	}

	/**
	 * Starts a server on a data directory that {@code initialize} fills, for example with
	 * a copy of another cluster's, instead of running initdb.
	 * @param settings the settings to append to the copied configuration
	 * @param initialize fills the (empty, existing) data directory
	 * @return the running server
	 */
	static EmbeddedPostgresServer startFromDataDirectory(Map<String, String> settings, Consumer<Path> initialize) {
		EmbeddedPostgresServer server = new EmbeddedPostgresServer(null, null, Map.copyOf(settings), true);
		try {
			server.start(initialize);
		}
		catch (RuntimeException ex) {
			server.close();
			throw ex;
		}
		return server;
	}

	/**
	 * Returns the cluster's data directory.
	 * @return the directory
	 */
	Path dataDirectory() {
		return this.dataDirectory;
	}

	/**
	 * Stops the server cleanly, runs {@code whileStopped}, and starts it again on the
	 * same port and data directory.
	 * @param whileStopped what to do with the server down, for example copy its files
	 */
	synchronized void restart(Runnable whileStopped) {
		this.commands.pgCtl(this.dataDirectory, "-m", "fast", "-w", "-t", "60", "stop");
		try {
			whileStopped.run();
		}
		finally {
			pgCtlStart();
		}
	}

	/**
	 * Stops the server cleanly ({@code pg_ctl stop -m fast}: connections are ended, a
	 * shutdown checkpoint written) for an outage, waiting at most 60 s;
	 * {@link #startAgain()} ends it. {@link #close()} still removes its files.
	 */
	public void stop() {
		stopFast(Duration.ofSeconds(60));
	}

	/**
	 * Stops the server the way an operator does ({@code pg_ctl stop -m fast}) and waits
	 * until it is down, for at most {@code timeout}; {@link #startAgain()} starts it
	 * again.
	 * @param timeout the longest to wait, in whole seconds (at least one)
	 * @return how long the server took to stop
	 * @throws IllegalStateException if it did not stop within the timeout
	 */
	public synchronized Duration stopFast(Duration timeout) {
		long started = System.nanoTime();
		this.commands.pgCtl(this.dataDirectory, "-m", "fast", "-w", "-t",
				Long.toString(Math.max(1, timeout.toSeconds())), "stop");
		this.running = false;
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		logger.info("PostgreSQL on port {} stopped (fast) in {} ms", this.port, took.toMillis());
		return took;
	}

	/**
	 * Starts a server stopped with {@link #stop()} or {@link #stopFast(Duration)} again,
	 * on the same port and data directory, and returns once it accepts connections.
	 */
	public synchronized void startAgain() {
		pgCtlStart();
		this.running = true;
		logger.info("PostgreSQL on port {} started again", this.port);
	}

	/**
	 * Stops the server the way a crash would ({@code pg_ctl stop -m immediate}): no
	 * shutdown checkpoint, connections cut. {@link #close()} still removes its files.
	 */
	synchronized void crash() {
		this.commands.pgCtl(this.dataDirectory, "-m", "immediate", "-w", "-t", "60", "stop");
		this.running = false;
		logger.info("PostgreSQL on port {} crashed on purpose (immediate stop)", this.port);
	}

	/**
	 * Promotes a standby to primary ({@code pg_ctl promote}) and waits until it accepts
	 * writes.
	 */
	synchronized void promote() {
		this.commands.pgCtl(this.dataDirectory, "-w", "-t", "60", "promote");
		logger.info("PostgreSQL on port {} promoted to primary", this.port);
	}

	private void writeSettings() {
		StringBuilder conf = new StringBuilder("\n# postlog test server\n");
		conf.append("listen_addresses = '127.0.0.1'\n");
		conf.append("port = ").append(this.port).append('\n');
		conf.append("unix_socket_directories = ''\n");
		this.settings.forEach((name, value) -> conf.append(name).append(" = '").append(value).append("'\n"));
		try {
			Files.writeString(this.dataDirectory.resolve("postgresql.conf"), conf, StandardCharsets.UTF_8,
					java.nio.file.StandardOpenOption.APPEND);
			// Replication connections from loopback, for any database.
			Files.writeString(this.dataDirectory.resolve("pg_hba.conf"), "\nhost replication all 127.0.0.1/32 trust\n",
					StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Returns the loopback port the server listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Returns a setting as the server reports it ({@code SHOW}).
	 * @param name the setting's name
	 * @return its value
	 */
	public String setting(String name) {
		if (!name.matches("[a-z_]+")) {
			throw new IllegalArgumentException("Not a setting name: " + name);
		}
		try (Connection connection = connect("postgres");
				Statement statement = connection.createStatement();
				var resultSet = statement.executeQuery("SHOW " + name)) {
			resultSet.next();
			return resultSet.getString(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read setting " + name, ex);
		}
	}

	/**
	 * Returns the server's {@code server_version_num}, for example {@code 170006}.
	 * @return the version number
	 */
	public int serverVersion() {
		return Integer.parseInt(setting("server_version_num"));
	}

	/**
	 * Returns the JDBC URL of a database on this server.
	 * @param database the database name
	 * @return the URL
	 */
	public String jdbcUrl(String database) {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/" + database;
	}

	/**
	 * Opens a connection to a database as the superuser {@code postgres}.
	 * @param database the database name
	 * @return a new connection the caller closes
	 * @throws SQLException if the connection fails
	 */
	public Connection connect(String database) throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", "postgres");
		return DriverManager.getConnection(jdbcUrl(database), properties);
	}

	/**
	 * Creates a fresh, empty database.
	 * @return the new database
	 */
	public PostgresDatabase createDatabase() {
		String name = "test_" + ProcessHandle.current().pid() + "_" + databaseCounter.incrementAndGet();
		try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create database " + name, ex);
		}
		return new PostgresDatabase(this, name);
	}

	/**
	 * Returns whether the server runs (it was started, and not stopped since).
	 * @return {@code true} while it runs
	 */
	boolean isRunning() {
		return this.running;
	}

	/**
	 * Stops the server (fast shutdown) and deletes its files.
	 */
	@Override
	public void close() {
		stopQuietly();
		if (this.shutdownHook == null) {
			return;
		}
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// The JVM is already shutting down; the hook runs or has run.
			logger.debug("Shutdown hook of {} left in place: the JVM is shutting down", this.dataDirectory);
		}
	}

	private synchronized void stopQuietly() {
		if (!Files.exists(this.dataDirectory.resolve("postmaster.pid"))) {
			deleteWorkDirectory();
			return;
		}
		try {
			this.commands.pgCtl(this.dataDirectory, "-m", "fast", "-w", "-t", "60", "stop");
			logger.info("PostgreSQL on port {} stopped", this.port);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not stop PostgreSQL on port {}: {}", this.port, ex.getMessage());
		}
		finally {
			this.running = false;
			deleteWorkDirectory();
		}
	}

	private void deleteWorkDirectory() {
		if (Boolean.getBoolean("postlog.test.keep-data")) {
			return;
		}
		try (var paths = Files.walk(this.workDirectory)) {
			paths.sorted(java.util.Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			logger.debug("Could not delete {}", this.workDirectory, ex);
		}
	}

	/**
	 * Builds a server with settings of its own, for example {@code wal_level=replica} or
	 * a short {@code wal_sender_timeout}.
	 */
	public static final class Builder {

		private final Map<String, String> settings = new LinkedHashMap<>(DEFAULT_SETTINGS);

		private boolean shutdownHook = true;

		private @Nullable Path installation;

		private @Nullable String osUser;

		private Builder() {
		}

		/**
		 * Runs the server from another installation than zonky's, such as Debian's
		 * {@code /usr/lib/postgresql/15}, whose {@code bin} holds {@code initdb},
		 * {@code pg_ctl} and {@code postgres} and which finds its own extensions.
		 * @param installation the installation's directory
		 * @return this builder
		 */
		public Builder installation(Path installation) {
			this.installation = installation;
			return this;
		}

		/**
		 * Runs {@code initdb} and {@code pg_ctl} as this operating system user, through
		 * {@code runuser} (which needs root), instead of in a user namespace when the
		 * build runs as root. For installations whose files only that user may use, such
		 * as a distribution's.
		 * @param osUser the user, such as {@code postgres}
		 * @return this builder
		 */
		public Builder osUser(String osUser) {
			this.osUser = osUser;
			return this;
		}

		/**
		 * Sets whether a JVM shutdown hook stops the server (the default). Turn it off
		 * when something else closes the server in order, such as an application context
		 * whose own shutdown still needs the server.
		 * @param shutdownHook whether to stop the server when the JVM exits
		 * @return this builder
		 */
		public Builder shutdownHook(boolean shutdownHook) {
			this.shutdownHook = shutdownHook;
			return this;
		}

		/**
		 * Sets a server setting ({@code postgresql.conf}).
		 * @param name the setting's name
		 * @param value its value
		 * @return this builder
		 */
		public Builder setting(String name, String value) {
			this.settings.put(name, value);
			return this;
		}

		/**
		 * Sets a setting given as {@code name=value}.
		 * @param assignment the setting
		 * @return this builder
		 */
		public Builder setting(String assignment) {
			int equals = assignment.indexOf('=');
			if (equals < 1) {
				throw new IllegalArgumentException("Expected name=value but got: " + assignment);
			}
			return setting(assignment.substring(0, equals).trim(), assignment.substring(equals + 1).trim());
		}

		/**
		 * Initialises and starts the server.
		 * @return the running server
		 */
		public EmbeddedPostgresServer start() {
			EmbeddedPostgresServer server = new EmbeddedPostgresServer(this.installation, this.osUser,
					Map.copyOf(this.settings), this.shutdownHook);
			try {
				server.start();
			}
			catch (RuntimeException ex) {
				server.close();
				throw ex;
			}
			return server;
		}

	}

}
