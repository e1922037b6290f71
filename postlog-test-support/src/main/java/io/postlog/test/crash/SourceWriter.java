package io.postlog.test.crash;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.postlog.test.PostgresDatabase;
import org.jspecify.annotations.Nullable;

/**
 * A background thread committing numbered transactions into a source table while a crash
 * proof kills its consumers: transaction {@code n} (from 1) is written by a
 * {@link Transaction} on one connection and committed before {@code n + 1} starts. Its
 * counts cover committed transactions only, so after {@link #stop()} they are exactly
 * what the table received. The accessors are thread-safe; {@link #stop()} belongs to the
 * test thread.
 */
public final class SourceWriter implements AutoCloseable {

	private final PostgresDatabase database;

	private final Transaction transaction;

	private final Random random;

	private final Duration pause;

	private final long periodNanos;

	private final long limit;

	private final long firstKey;

	private final Thread thread;

	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	private volatile boolean running = true;

	private volatile long transactions;

	private volatile long inserted;

	private volatile long updated;

	private volatile long startedNanos;

	private volatile long stoppedNanos;

	private SourceWriter(Builder builder, Transaction transaction) {
		this.database = builder.database;
		this.transaction = transaction;
		this.random = builder.random;
		this.pause = builder.pause;
		this.periodNanos = builder.period.toNanos();
		this.limit = builder.limit;
		this.firstKey = builder.firstKey;
		this.thread = new Thread(this::run, builder.name);
		this.thread.setDaemon(true);
	}

	/**
	 * Starts describing a writer into a database.
	 * @param database the database holding the source table
	 * @return a builder
	 */
	public static Builder on(PostgresDatabase database) {
		return new Builder(database);
	}

	/**
	 * Returns how many transactions have committed: the number of the last one.
	 * @return the last committed transaction's number, {@code 0} before the first
	 */
	public long transactions() {
		return this.transactions;
	}

	/**
	 * Returns the rows the committed transactions reported as inserted.
	 * @return the count
	 */
	public long inserted() {
		return this.inserted;
	}

	/**
	 * Returns the rows the committed transactions reported as updated.
	 * @return the count
	 */
	public long updated() {
		return this.updated;
	}

	/**
	 * Returns the last key the committed transactions inserted, when they take their keys
	 * from {@link Tally#nextKey()}.
	 * @return the first key plus the inserted rows, less one
	 */
	public long lastKey() {
		return this.firstKey + this.inserted - 1;
	}

	/**
	 * Returns the commit rate from the start to the stop (or to now while it runs).
	 * @return committed transactions a second
	 */
	public long rate() {
		long end = (this.stoppedNanos != 0) ? this.stoppedNanos : System.nanoTime();
		long nanos = end - this.startedNanos;
		return (nanos > 0) ? this.transactions * 1_000_000_000L / nanos : 0;
	}

	/**
	 * Waits until the writer has written its {@link Builder#limit(long) limit} and
	 * stopped by itself.
	 * @param timeout how long to wait at most
	 * @return {@code true} if it is done
	 */
	public boolean awaitDone(Duration timeout) {
		try {
			this.thread.join(timeout.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		return !this.thread.isAlive();
	}

	/**
	 * Stops the writer after its current transaction and waits for it.
	 * @throws AssertionError if it failed, or has not stopped within 30 seconds
	 */
	public void stop() {
		this.running = false;
		if (!awaitDone(Duration.ofSeconds(30))) {
			throw new AssertionError("Writer " + this.thread.getName() + " still running 30 s after it was stopped");
		}
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw new AssertionError("Writer " + this.thread.getName() + " failed after " + this.transactions
					+ " transactions: " + failed, failed);
		}
	}

	/**
	 * Stops the writer, as {@link #stop()} does.
	 */
	@Override
	public void close() {
		stop();
	}

	private SourceWriter start() {
		this.thread.start();
		return this;
	}

	private void run() {
		this.startedNanos = System.nanoTime();
		long next = this.startedNanos;
		try (Connection connection = this.database.connect(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			while (this.running && this.transactions < this.limit) {
				Tally tally = new Tally(this.transactions + 1, this.random, this.firstKey + this.inserted);
				this.transaction.write(statement, tally);
				connection.commit();
				this.inserted += tally.inserted;
				this.updated += tally.updated;
				this.transactions = tally.number;
				if (this.periodNanos > 0) {
					// On a schedule: a late commit is made up for, a stall of the machine
					// is not.
					next += this.periodNanos;
					long wait = next - System.nanoTime();
					if (wait > 0) {
						LockSupport.parkNanos(wait);
					}
					else if (wait < -this.periodNanos * 50) {
						next = System.nanoTime();
					}
				}
				else if (!this.pause.isZero()) {
					TimeUnit.NANOSECONDS.sleep(this.pause.toNanos());
				}
			}
		}
		catch (Throwable ex) {
			this.failure.set(ex);
		}
		finally {
			this.stoppedNanos = System.nanoTime();
		}
	}

	/**
	 * Writes one transaction of a {@link SourceWriter}; the writer commits it.
	 */
	@FunctionalInterface
	public interface Transaction {

		/**
		 * Writes one transaction's statements.
		 * @param statement a statement on the writer's connection, in a transaction
		 * @param tally the transaction's number, the writer's random stream, and where to
		 * report what it wrote
		 * @throws SQLException if a statement fails (the writer stops and
		 * {@link SourceWriter#stop()} reports it)
		 */
		void write(Statement statement, Tally tally) throws SQLException;

	}

	/**
	 * One transaction's number and counts; only used on the writer's thread.
	 */
	public static final class Tally {

		private final long number;

		private final Random random;

		private final long firstKey;

		private long inserted;

		private long updated;

		Tally(long number, Random random, long firstKey) {
			this.number = number;
			this.random = random;
			this.firstKey = firstKey;
		}

		/**
		 * Returns the transaction's number.
		 * @return 1 for the first transaction
		 */
		public long number() {
			return this.number;
		}

		/**
		 * Returns the writer's random stream.
		 * @return the stream, seeded as the builder said
		 */
		public Random random() {
			return this.random;
		}

		/**
		 * Returns the next unused key: the writer's first key plus every row inserted
		 * before, this transaction's included.
		 * @return the key
		 */
		public long nextKey() {
			return this.firstKey + this.inserted;
		}

		/**
		 * Reports rows inserted, with consecutive keys from {@link #nextKey()}.
		 * @param rows how many
		 */
		public void inserted(long rows) {
			this.inserted += rows;
		}

		/**
		 * Reports rows updated.
		 * @param rows how many
		 */
		public void updated(long rows) {
			this.updated += rows;
		}

	}

	/**
	 * What a {@link SourceWriter} does; not thread-safe.
	 */
	public static final class Builder {

		private final PostgresDatabase database;

		private String name = "source-writer";

		private Random random = new Random(0);

		private Duration pause = Duration.ZERO;

		private Duration period = Duration.ZERO;

		private long limit = Long.MAX_VALUE;

		private long firstKey = 1;

		private Builder(PostgresDatabase database) {
			this.database = database;
		}

		/**
		 * Names the writer's thread.
		 * @param name the name
		 * @return this builder
		 */
		public Builder name(String name) {
			this.name = name;
			return this;
		}

		/**
		 * Sets the random stream the transactions draw from, for example
		 * {@code killLoop.random("writer")}.
		 * @param random the stream
		 * @return this builder
		 */
		public Builder random(Random random) {
			this.random = random;
			return this;
		}

		/**
		 * Sleeps this long after each commit.
		 * @param pause the pause
		 * @return this builder
		 */
		public Builder pause(Duration pause) {
			this.pause = pause;
			return this;
		}

		/**
		 * Commits on a schedule instead, one transaction per period.
		 * @param period the time between two commits
		 * @return this builder
		 */
		public Builder period(Duration period) {
			this.period = period;
			return this;
		}

		/**
		 * Stops by itself after this many transactions.
		 * @param transactions the number of transactions
		 * @return this builder
		 */
		public Builder limit(long transactions) {
			this.limit = transactions;
			return this;
		}

		/**
		 * Sets the first key {@link Tally#nextKey()} hands out, 1 by default.
		 * @param key the first key
		 * @return this builder
		 */
		public Builder firstKey(long key) {
			this.firstKey = key;
			return this;
		}

		/**
		 * Starts the writer's thread.
		 * @param transaction what each transaction writes
		 * @return the running writer
		 */
		public SourceWriter start(Transaction transaction) {
			return new SourceWriter(this, transaction).start();
		}

	}

}
