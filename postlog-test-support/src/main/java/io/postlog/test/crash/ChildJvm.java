package io.postlog.test.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A main class running in a child JVM on the test's class path, its standard output and
 * error captured to a log file, killed with SIGKILL ({@link Process#destroyForcibly()})
 * when a test says so and always reaped by {@link #close()}. Every failure it reports
 * ({@link AssertionError}) carries the tail of the child's log. Not thread-safe: one test
 * thread drives one child.
 */
public final class ChildJvm implements AutoCloseable {

	/**
	 * The flags every child gets unless {@link Builder#startupFlags(List)} says
	 * otherwise: they cut a child's start-up (C1 only, class data sharing when available,
	 * the serial collector) without changing what the code does.
	 */
	public static final List<String> FAST_START_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-Xshare:auto",
			"-XX:+UseSerialGC");

	private static final Logger logger = LoggerFactory.getLogger(ChildJvm.class);

	private static final int TAIL_LINES = 60;

	private static final Duration REAP_TIMEOUT = Duration.ofSeconds(30);

	private final String name;

	private final Process process;

	private final Path log;

	private ChildJvm(String name, Process process, Path log) {
		this.name = name;
		this.process = process;
		this.log = log;
	}

	/**
	 * Starts describing a child running the given main class.
	 * @param mainClass the class whose {@code main} the child runs
	 * @return a builder
	 */
	public static Builder of(Class<?> mainClass) {
		return new Builder(mainClass.getName());
	}

	/**
	 * Returns the child's process id.
	 * @return the pid
	 */
	public long pid() {
		return this.process.pid();
	}

	/**
	 * Returns the file the child's standard output and error go to.
	 * @return the log file
	 */
	public Path log() {
		return this.log;
	}

	/**
	 * Returns everything the child has written so far.
	 * @return the log's text, empty before the child wrote anything
	 */
	public String output() {
		try {
			return Files.exists(this.log) ? Files.readString(this.log, StandardCharsets.UTF_8) : "";
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Describes the child for a failure message: its main class, pid, log file and the
	 * last lines of its log.
	 * @return the description
	 */
	public String describe() {
		List<String> lines = output().lines().toList();
		List<String> tail = lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size());
		return this.name + " (pid " + pid() + ", log " + this.log.toAbsolutePath() + "), last " + tail.size()
				+ " lines:\n" + String.join("\n", tail);
	}

	/**
	 * Returns whether the child is still running.
	 * @return {@code true} while it runs
	 */
	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Waits until the child's output contains the given text.
	 * @param text the text to wait for, for example a readiness line the child prints
	 * @param timeout how long to wait at most
	 * @throws AssertionError if the child exits first or the time runs out
	 */
	public void awaitOutput(String text, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!output().contains(text)) {
			if (!this.process.isAlive()) {
				if (output().contains(text)) {
					return;
				}
				throw new AssertionError("Child exited with " + this.process.exitValue() + " before printing '" + text
						+ "': " + describe());
			}
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Child did not print '" + text + "' within " + timeout + ": " + describe());
			}
			pause(50);
		}
	}

	/**
	 * Waits for a complete line (ended by a line break) that starts with the given text.
	 * @param prefix how the line starts, for example a readiness line's first word
	 * @param timeout how long to wait at most
	 * @return the first such line, without its line break
	 * @throws AssertionError if the child exits first or the time runs out
	 */
	public String awaitLine(String prefix, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			boolean alive = this.process.isAlive();
			String output = output();
			int end = output.lastIndexOf('\n');
			if (end >= 0) {
				Optional<String> line = output.substring(0, end)
					.lines()
					.filter((l) -> l.startsWith(prefix))
					.findFirst();
				if (line.isPresent()) {
					return line.get();
				}
			}
			if (!alive) {
				throw new AssertionError("Child exited with " + this.process.exitValue()
						+ " before printing a line starting with '" + prefix + "': " + describe());
			}
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError(
						"Child printed no line starting with '" + prefix + "' within " + timeout + ": " + describe());
			}
			pause(50);
		}
	}

	/**
	 * Lets the child run for the given time, then kills it; it must have lived that long.
	 * @param life how long the child runs before the kill
	 * @throws AssertionError if the child exited by itself before the kill
	 */
	public void killAfter(Duration life) {
		if (waitFor(life)) {
			throw new AssertionError("Child exited with " + this.process.exitValue() + " before it was killed after "
					+ life.toMillis() + " ms: " + describe());
		}
		kill();
	}

	/**
	 * Kills the child with SIGKILL and waits until it is gone.
	 * @throws AssertionError if it is still there after 30 seconds
	 */
	public void kill() {
		this.process.destroyForcibly();
		if (!waitFor(REAP_TIMEOUT)) {
			throw new AssertionError("Child still running 30 s after SIGKILL: " + describe());
		}
	}

	/**
	 * Waits for the child to exit.
	 * @param timeout how long to wait at most
	 * @return {@code true} if it exited
	 */
	public boolean waitFor(Duration timeout) {
		try {
			return this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + this.name, ex);
		}
	}

	/**
	 * Waits for the child to exit by itself and returns its exit code.
	 * @param timeout how long to wait at most
	 * @return the exit code
	 * @throws AssertionError if it is still running when the time runs out
	 */
	public int awaitExit(Duration timeout) {
		if (!waitFor(timeout)) {
			throw new AssertionError("Child still running after " + timeout + ": " + describe());
		}
		return this.process.exitValue();
	}

	/**
	 * Asks the child to stop by closing its standard input (the crash children stop
	 * cleanly when it closes), and kills it if it has not stopped within the timeout.
	 * @param timeout how long the child may take to stop
	 * @return {@code true} if it stopped by itself
	 */
	public boolean stop(Duration timeout) {
		try {
			this.process.getOutputStream().close();
		}
		catch (IOException ex) {
			// Standard input is gone already when the child has exited.
			logger.debug("Closing the standard input of {} failed", this.name, ex);
		}
		if (waitFor(timeout)) {
			return true;
		}
		kill();
		return false;
	}

	/**
	 * Kills the child if it still runs and reaps it; never throws, so that it can close a
	 * child in a {@code finally} block or a try-with-resources statement without hiding
	 * the test's own failure.
	 */
	@Override
	public void close() {
		if (this.process.isAlive()) {
			this.process.destroyForcibly();
			if (!waitFor(REAP_TIMEOUT)) {
				logger.warn("{} pid {} still running 30 s after SIGKILL", this.name, pid());
			}
		}
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	/**
	 * What a {@link ChildJvm} runs with; not thread-safe.
	 */
	public static final class Builder {

		private final String mainClass;

		private String heap = "256m";

		private List<String> startupFlags = FAST_START_FLAGS;

		private final Map<String, String> systemProperties = new LinkedHashMap<>();

		private final List<String> arguments = new ArrayList<>();

		private Builder(String mainClass) {
			this.mainClass = mainClass;
		}

		/**
		 * Sets the child's maximum heap ({@code -Xmx}), {@code 256m} by default.
		 * @param heap the size, for example {@code 128m}
		 * @return this builder
		 */
		public Builder heap(String heap) {
			this.heap = heap;
			return this;
		}

		/**
		 * Replaces the start-up flags, {@link #FAST_START_FLAGS} by default; an empty
		 * list runs the child with the JVM's own defaults (a memory proof whose budget
		 * was measured with them, for example).
		 * @param flags the JVM flags
		 * @return this builder
		 */
		public Builder startupFlags(List<String> flags) {
			this.startupFlags = List.copyOf(flags);
			return this;
		}

		/**
		 * Adds a system property ({@code -Dname=value}).
		 * @param name the property's name
		 * @param value its value
		 * @return this builder
		 */
		public Builder systemProperty(String name, String value) {
			this.systemProperties.put(name, value);
			return this;
		}

		/**
		 * Adds arguments for the main method.
		 * @param arguments the arguments, in order
		 * @return this builder
		 */
		public Builder args(Object... arguments) {
			for (Object argument : arguments) {
				this.arguments.add(String.valueOf(argument));
			}
			return this;
		}

		/**
		 * Starts the child, its standard output and error going to the given file
		 * (replaced if it exists).
		 * @param log the log file; its directory is created if missing
		 * @return the running child
		 */
		public ChildJvm start(Path log) {
			List<String> command = new ArrayList<>();
			command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
			command.add("-Xmx" + this.heap);
			command.addAll(this.startupFlags);
			this.systemProperties.forEach((name, value) -> command.add("-D" + name + "=" + value));
			command.add("-cp");
			command.add(System.getProperty("java.class.path"));
			command.add(this.mainClass);
			command.addAll(this.arguments);
			try {
				Path directory = log.toAbsolutePath().getParent();
				if (directory != null) {
					Files.createDirectories(directory);
				}
				Process process = new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(log.toFile())
					.start();
				String simpleName = this.mainClass.substring(this.mainClass.lastIndexOf('.') + 1);
				return new ChildJvm(simpleName, process, log);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot start a child JVM running " + this.mainClass, ex);
			}
		}

	}

}
