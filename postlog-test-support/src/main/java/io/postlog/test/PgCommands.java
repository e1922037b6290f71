package io.postlog.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Runs one installation's programs ({@code initdb}, {@code pg_ctl}) for an
 * {@link EmbeddedPostgresServer} as a user PostgreSQL accepts: as root in a user
 * namespace ({@code unshare --user}), or as a given operating system user; a failure
 * throws with the program's output and the server log. Thread-safe.
 */
final class PgCommands {

	private final Path installation;

	private final Path workDirectory;

	private final @Nullable String osUser;

	private final Duration timeout;

	PgCommands(Path installation, Path workDirectory, @Nullable String osUser, Duration timeout) {
		this.installation = installation;
		this.workDirectory = workDirectory;
		this.osUser = osUser;
		this.timeout = timeout;
	}

	/**
	 * Returns the server's log file.
	 * @return {@code server.log} in the work directory
	 */
	Path logFile() {
		return this.workDirectory.resolve("server.log");
	}

	/**
	 * Creates a cluster: superuser {@code postgres}, trust authentication, UTF8, locale
	 * C.
	 * @param dataDirectory the cluster's directory
	 */
	void initdb(Path dataDirectory) {
		run(List.of(bin("initdb"), "-D", dataDirectory.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8",
				"--locale=C", "--no-sync"));
	}

	/**
	 * Runs {@code pg_ctl} on a cluster.
	 * @param dataDirectory the cluster's directory
	 * @param arguments what follows {@code -D directory}
	 */
	void pgCtl(Path dataDirectory, String... arguments) {
		List<String> command = new ArrayList<>(List.of(bin("pg_ctl"), "-D", dataDirectory.toString()));
		command.addAll(List.of(arguments));
		run(command);
	}

	private String bin(String name) {
		return this.installation.resolve("bin").resolve(name).toString();
	}

	private void run(List<String> command) {
		List<String> full = new ArrayList<>();
		if (this.osUser != null) {
			full.addAll(List.of("runuser", "-u", this.osUser, "--"));
		}
		else if (RootDetection.isRoot()) {
			full.addAll(List.of("unshare", "--user"));
		}
		full.addAll(command);
		Path output = this.workDirectory.resolve("command.log");
		try {
			Process process = new ProcessBuilder(full).redirectErrorStream(true)
				.redirectOutput(output.toFile())
				.start();
			if (!process.waitFor(this.timeout.toSeconds() + 30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("Timed out: " + String.join(" ", command));
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException("Failed (exit " + process.exitValue() + "): "
						+ String.join(" ", command) + "\n" + readQuietly(output) + "\n" + readQuietly(logFile()));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted: " + String.join(" ", command), ex);
		}
	}

	private static String readQuietly(Path file) {
		try {
			return Files.exists(file) ? Files.readString(file) : "";
		}
		catch (IOException ex) {
			return "";
		}
	}

	/**
	 * Returns a loopback port free right now.
	 * @return the port
	 */
	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
