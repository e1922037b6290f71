package io.postlog.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PublicationNotFoundException;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.TableFilter;
import io.postlog.admin.ReplicationSettings;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotStatistics;
import io.postlog.snapshot.SnapshotHandOff;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the slot's state and the server's position over the application's
 * {@link DataSource}, for health, metrics and the actuator endpoint. With a
 * {@link PostlogServerPoller}, {@link #reading()} answers from the latest reading the
 * poller's thread took and never waits on the server for more than {@value #WAIT_MILLIS}
 * ms, so that health answers while the database is down (a reading unanswered for two
 * seconds counts as failed); the other methods read the server on the caller's thread.
 * Thread-safe.
 */
public final class PostlogSlotMonitor {

	/** A reading older than this is taken again when a caller asks for it. */
	static final Duration FRESH = Duration.ofSeconds(1);

	/** The longest a caller waits for a reading it asked for. */
	static final long WAIT_MILLIS = 250;

	/**
	 * A reading still unanswered after this long counts as failed: a pool such as
	 * Hikari's waits out its connection timeout (30 s by default) before it gives up.
	 */
	static final Duration UNANSWERED = Duration.ofSeconds(2);

	private static final Logger logger = LoggerFactory.getLogger(PostlogSlotMonitor.class);

	private final DataSource dataSource;

	private final String slotName;

	private final String publicationName;

	private final @Nullable PostlogServerPoller poller;

	private final AtomicBoolean refreshing = new AtomicBoolean();

	private final AtomicLong failures = new AtomicLong();

	/**
	 * When the pending reading was asked for ({@link System#nanoTime()}), 0 if none is.
	 */
	private volatile long requested;

	private final Object lock = new Object();

	private volatile Reading reading;

	/** The publication's row filters and column lists, as of the last good reading. */
	private volatile Map<TableId, TableFilter> publicationFilters = Map.of();

	/** Whether the slot or publication changed since the last reading was asked for. */
	private volatile boolean changed;

	/**
	 * Creates a monitor that reads the server on the caller's thread.
	 * @param dataSource the application's data source
	 * @param slotName the slot to watch
	 * @param publicationName the publication to describe
	 */
	public PostlogSlotMonitor(DataSource dataSource, String slotName, String publicationName) {
		this(dataSource, slotName, publicationName, null);
	}

	/**
	 * Creates a monitor.
	 * @param dataSource the application's data source
	 * @param slotName the slot to watch
	 * @param publicationName the publication to describe
	 * @param poller takes the readings on its own thread, or {@code null} to read on the
	 * caller's thread
	 */
	public PostlogSlotMonitor(DataSource dataSource, String slotName, String publicationName,
			@Nullable PostlogServerPoller poller) {
		this.dataSource = dataSource;
		this.slotName = slotName;
		this.publicationName = publicationName;
		this.poller = poller;
		this.reading = new Reading(slotName, null, null, List.of(), null, null, null, null);
		if (poller != null) {
			poller.watch(this);
		}
	}

	/**
	 * Returns the slot name.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns the publication name.
	 * @return the publication name
	 */
	public String publicationName() {
		return this.publicationName;
	}

	/**
	 * Returns the latest reading of the slot, the server and the publication. With a
	 * running poller, a reading older than a second is asked for again and waited for at
	 * most {@value #WAIT_MILLIS} ms; while the server cannot be reached, the answer is
	 * the reading that failed, with the last good one's values. Without a running poller,
	 * reads on the caller's thread. Never throws.
	 * @return the reading
	 */
	public Reading reading() {
		PostlogServerPoller poller = this.poller;
		if (poller == null || !poller.isRunning()) {
			return refresh();
		}
		Reading current = this.reading;
		if (this.changed || current.attemptedAt() == null
				|| current.attemptedAt().plus(FRESH).isBefore(Instant.now())) {
			if (poller.request(this)) {
				this.changed = false;
				current = awaitAfter(current);
			}
		}
		long requested = this.requested;
		long waited = System.nanoTime() - requested;
		if (requested != 0 && waited > UNANSWERED.toNanos() && current.failure() == null) {
			return current.failed(new PostlogException("Could not read replication slot '" + this.slotName
					+ "' (no answer for " + TimeUnit.NANOSECONDS.toSeconds(waited) + " s)"));
		}
		return current;
	}

	/**
	 * Marks the latest reading out of date: the slot or the publication was just set up
	 * (a group started), so the next caller asks for a fresh reading instead of one taken
	 * before.
	 */
	void changed() {
		this.changed = true;
	}

	/**
	 * Returns how many readings failed since the monitor was created.
	 * @return the count
	 */
	public long readFailures() {
		return this.failures.get();
	}

	private Reading awaitAfter(Reading previous) {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
		synchronized (this.lock) {
			while (this.reading == previous) {
				long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
				if (left <= 0) {
					break;
				}
				try {
					this.lock.wait(left);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
			return this.reading;
		}
	}

	/**
	 * Reads the server now, on the calling thread, and keeps the reading.
	 */
	Reading refresh() {
		Instant now = Instant.now();
		Reading previous = this.reading;
		Reading next;
		try (Connection connection = this.dataSource.getConnection()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			next = new Reading(this.slotName, status(admin), server(admin), tables(admin),
					SlotStatistics.read(connection, this.slotName).orElse(null), now, now, null);
			this.publicationFilters = filters(admin);
		}
		catch (SQLException | RuntimeException ex) {
			long failed = this.failures.incrementAndGet();
			PostlogException failure = new PostlogException(
					"Could not read replication slot '" + this.slotName + "' (" + describe(ex) + ")", ex);
			if (previous.failure() == null) {
				logger.warn("{}; health, the endpoint and the meters show the reading of {} meanwhile",
						failure.getMessage(), (previous.lastContact() != null) ? previous.lastContact() : "(none)");
			}
			else {
				logger.debug("{} ({} failed readings)", failure.getMessage(), failed);
			}
			next = new Reading(this.slotName, previous.slot(), previous.server(), previous.publicationTables(),
					previous.statistics(), previous.lastContact(), now, failure);
		}
		if (previous.failure() != null && next.failure() == null) {
			logger.info("Replication slot '{}' read again", this.slotName);
		}
		synchronized (this.lock) {
			this.reading = next;
			this.lock.notifyAll();
		}
		return next;
	}

	/**
	 * A failure without another library's message, which might quote a value.
	 */
	private static String describe(Exception ex) {
		if (ex instanceof PostlogException) {
			return ex.getClass().getSimpleName() + ": " + ex.getMessage();
		}
		if (ex instanceof SQLException sql && PgErrors.sqlState(sql) != null) {
			return ex.getClass().getName() + ", SQLState " + PgErrors.sqlState(sql);
		}
		return ex.getClass().getName();
	}

	boolean claimRefresh() {
		if (!this.refreshing.compareAndSet(false, true)) {
			return false;
		}
		this.requested = System.nanoTime();
		return true;
	}

	void releaseRefresh() {
		this.requested = 0;
		this.refreshing.set(false);
	}

	/**
	 * Reads the slot, the server's WAL position and its replication settings.
	 * @return the status
	 * @throws PostlogException if the database cannot be reached
	 */
	public SlotStatus status() {
		try (Connection connection = this.dataSource.getConnection()) {
			return status(new ReplicationAdmin(connection));
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read replication slot '" + this.slotName + "'", ex);
		}
	}

	/**
	 * Reads every logical slot on the server, with the settings and position to judge
	 * them by.
	 * @return the server's slots
	 * @throws PostlogException if the database cannot be reached
	 */
	public ServerStatus server() {
		try (Connection connection = this.dataSource.getConnection()) {
			return server(new ReplicationAdmin(connection));
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the server's replication slots", ex);
		}
	}

	private SlotStatus status(ReplicationAdmin admin) {
		SlotInfo slot = admin.slot(this.slotName).orElse(null);
		// While an initial snapshot runs on PostgreSQL 12+, only its temporary slot
		// exists.
		SlotInfo snapshotSlot = (slot == null)
				? admin.slot(SnapshotHandOff.snapshotSlotName(this.slotName)).orElse(null) : null;
		return new SlotStatus(this.slotName, slot, admin.walPosition(), admin.replicationSettings(), snapshotSlot);
	}

	private static ServerStatus server(ReplicationAdmin admin) {
		return new ServerStatus(admin.currentDatabase(), admin.walPosition(), admin.replicationSettings(),
				admin.logicalSlots());
	}

	private List<TableId> tables(ReplicationAdmin admin) {
		try {
			return admin.publicationTables(this.publicationName);
		}
		catch (PublicationNotFoundException ex) {
			// A group that never started (an application with a relay and no
			// listeners): its slot shows as missing too.
			return List.of();
		}
	}

	private Map<TableId, TableFilter> filters(ReplicationAdmin admin) {
		return admin.publicationExists(this.publicationName) ? admin.publicationFilters(this.publicationName)
				: Map.of();
	}

	/**
	 * Returns the row filters and column lists the publication held at the last good
	 * reading, as the server holds them: what the stream, snapshots and backfills apply.
	 * @return the filters by table, only tables published with one
	 */
	public Map<TableId, TableFilter> publicationFilters() {
		return this.publicationFilters;
	}

	/**
	 * Reads the publication's tables.
	 * @return the tables, empty if the publication does not exist
	 * @throws PostlogException if the database cannot be reached
	 */
	public List<TableId> publicationTables() {
		try (Connection connection = this.dataSource.getConnection()) {
			return new ReplicationAdmin(connection).publicationTables(this.publicationName);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read publication '" + this.publicationName + "'", ex);
		}
	}

	/**
	 * Reads the server's current WAL position ({@code pg_current_wal_lsn()}).
	 * @return the position
	 */
	public Lsn currentLsn() {
		try (Connection connection = this.dataSource.getConnection()) {
			return new ReplicationAdmin(connection).currentLsn();
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the server's WAL position", ex);
		}
	}

	/**
	 * What the monitor last read of the slot, the server and the publication. When the
	 * latest attempt failed, {@code failure} says why and the values are those of the
	 * last good reading, taken at {@code lastContact}.
	 *
	 * @param slotName the slot's name
	 * @param slot the slot's status, or {@code null} if never read
	 * @param server every logical slot of the server, or {@code null} if never read
	 * @param publicationTables the publication's tables (empty if it does not exist or
	 * was never read)
	 * @param statistics what the server spilled and streamed for the slot, or
	 * {@code null} before PostgreSQL 14, for a slot the server does not list, or if never
	 * read
	 * @param lastContact when the server was last read, or {@code null} if never
	 * @param attemptedAt when the latest reading was attempted, or {@code null} if never
	 * @param failure why the latest attempt failed (value-free: postlog's message naming
	 * the slot and the exception class), or {@code null} if it succeeded
	 */
	public record Reading(String slotName, @Nullable SlotStatus slot, @Nullable ServerStatus server,
			List<TableId> publicationTables, @Nullable SlotStatistics statistics, @Nullable Instant lastContact,
			@Nullable Instant attemptedAt, @Nullable PostlogException failure) {

		/**
		 * Creates a reading.
		 * @param slotName the slot's name
		 * @param slot the slot's status
		 * @param server the server's slots
		 * @param publicationTables the publication's tables
		 * @param statistics the slot's statistics
		 * @param lastContact the last good reading's time
		 * @param attemptedAt the latest attempt's time
		 * @param failure why the latest attempt failed
		 */
		public Reading {
			publicationTables = List.copyOf(publicationTables);
		}

		/**
		 * Returns whether the latest attempt succeeded.
		 * @return {@code true} if the values are current
		 */
		public boolean available() {
			return this.failure == null && this.slot != null;
		}

		/**
		 * Returns a reading of a slot status taken now.
		 * @param status the slot's status
		 * @return the reading, without the server's other slots
		 */
		public static Reading of(SlotStatus status) {
			Instant now = Instant.now();
			return new Reading(status.slotName(), status, null, List.of(), null, now, now, null);
		}

		Reading failed(PostlogException failure) {
			return new Reading(this.slotName, this.slot, this.server, this.publicationTables, this.statistics,
					this.lastContact, this.attemptedAt, failure);
		}

		/**
		 * Returns why the values are not current.
		 * @return the reason, value-free
		 */
		public String unavailableReason() {
			PostlogException failure = this.failure;
			return (failure != null) ? failure.getMessage() : "not read yet";
		}

		/**
		 * Returns how old the values are.
		 * @param now the time to measure to
		 * @return the age, or {@code null} if never read
		 */
		public @Nullable Duration age(Instant now) {
			return (this.lastContact != null) ? Duration.between(this.lastContact, now) : null;
		}

	}

	/**
	 * The slot as the server reports it.
	 *
	 * @param slotName the slot's name
	 * @param slot the slot, or {@code null} if it does not exist
	 * @param currentLsn the server's WAL position (on a standby, the replayed one)
	 * @param settings the server's replication settings
	 * @param snapshotSlot when the slot does not exist, the temporary slot of an initial
	 * snapshot being taken for it (by this instance or another), else {@code null}
	 */
	public record SlotStatus(String slotName, @Nullable SlotInfo slot, Lsn currentLsn, ReplicationSettings settings,
			@Nullable SlotInfo snapshotSlot) {

		/**
		 * Creates the status of a slot without a snapshot being taken for it.
		 * @param slotName the slot's name
		 * @param slot the slot, or {@code null}
		 * @param currentLsn the server's WAL position
		 * @param settings the server's replication settings
		 */
		public SlotStatus(String slotName, @Nullable SlotInfo slot, Lsn currentLsn, ReplicationSettings settings) {
			this(slotName, slot, currentLsn, settings, null);
		}

		/**
		 * Returns the WAL the slot retains beyond its confirmed position.
		 * @return the bytes, or {@code null} if the slot or its position is missing
		 */
		public @Nullable Long lagBytes() {
			Lsn confirmed = (this.slot != null) ? this.slot.confirmedFlushLsn() : null;
			return (confirmed != null && confirmed.isValid()) ? Math.max(0, this.currentLsn.minus(confirmed)) : null;
		}

		/**
		 * Returns the WAL the slot makes the server keep, from its {@code restart_lsn}.
		 * @return the bytes, or {@code null} if the slot is missing or reserves none
		 */
		public @Nullable Long retainedBytes() {
			return (this.slot != null) ? this.slot.retainedBytes(this.currentLsn) : null;
		}

	}

	/**
	 * Every logical slot on the server.
	 *
	 * @param database the database the application is connected to
	 * @param position the server's WAL position
	 * @param settings the server's replication settings
	 * @param slots the logical slots of every database
	 */
	public record ServerStatus(String database, Lsn position, ReplicationSettings settings, List<SlotInfo> slots) {

		/**
		 * Creates a server status.
		 * @param database the database
		 * @param position the position
		 * @param settings the settings
		 * @param slots the slots
		 */
		public ServerStatus {
			slots = List.copyOf(slots);
		}

	}

}
