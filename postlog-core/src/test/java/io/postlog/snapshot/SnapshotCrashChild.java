package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotLifecycle;
import io.postlog.snapshot.SnapshotHandOff.Action;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGProperty;

/**
 * A process for {@link SnapshotCrashIntegrationTests} to kill: takes the crash-safe
 * hand-off of a slot, applies a new snapshot (when the hand-off asks for one) to a sink
 * table as a listener building a read model would (starting it over, since a snapshot
 * taken again is a new state), hands the slot over, then applies the slot's stream,
 * confirming each transaction after it was applied, until it sees the sentinel row.
 * Prints {@code handed-over} and {@code done}; exits 0 when done.
 */
final class SnapshotCrashChild {

	static final long SENTINEL = -1;

	private SnapshotCrashChild() {
	}

	/**
	 * Runs the child.
	 * @param args JDBC URL, user, slot, publication, source table, sink table
	 * @throws Exception on any failure
	 */
	public static void main(String[] args) throws Exception {
		String url = args[0];
		String user = args[1];
		String slot = args[2];
		String publication = args[3];
		TableId source = TableId.parse(args[4]);
		String sink = args[5];
		try (Connection admin = connect(url, user, false); Connection sinkConnection = connect(url, user, false)) {
			sinkConnection.setAutoCommit(false);
			Applier applier = new Applier(sinkConnection, sink);
			try (SnapshotHandOff handOff = openHandOff(url, user, slot)) {
				if (handOff.decide(admin).action() == Action.SNAPSHOT) {
					ExportedSnapshot snapshot = handOff.exportSnapshot(admin);
					applier.startOver();
					AtomicLong rows = new AtomicLong();
					new SnapshotReader(SnapshotConnections.of(url, user, null), ValueDecoders.standard()).read(snapshot,
							List.of(source), SnapshotOptions.defaults().withChunkSize(20_000), (change) -> {
								applier.apply(change.operation(), change.after(), null);
								if (rows.incrementAndGet() % 500 == 0) {
									applier.commit();
									sleep(2);
								}
							});
					applier.commit();
					System.out.println("snapshot rows=" + rows.get() + " at " + snapshot.consistentPoint());
					handOff.complete(admin);
				}
			}
			System.out.println("handed-over");
			System.out.flush();
			boolean binary = SnapshotCrashChild.serverVersion(admin) >= 140000;
			try (StreamedChanges stream = StreamedChanges.open(connect(url, user, true), slot, publication, binary,
					ValueDecoders.standard())) {
				stream.applyUntil((change) -> {
					applier.apply(change.operation(), change.after(), change.before());
					return change.operation() == Operation.INSERT
							&& Long.valueOf(SENTINEL).equals(change.after().get("id"));
				}, applier::commit, Duration.ofMinutes(3));
			}
		}
		System.out.println("done");
		System.out.flush();
		System.exit(0);
	}

	private static SnapshotHandOff openHandOff(String url, String user, String slot) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (true) {
			try {
				return SnapshotHandOff.open(connect(url, user, true), slot, SlotLifecycle.CREATE_IF_MISSING,
						TableId.parse("postlog_snapshot"));
			}
			catch (SlotInUseException ex) {
				// The killed process's backend has not let go of the lock yet.
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				sleep(100);
			}
		}
	}

	private static Connection connect(String url, String user, boolean replication) throws SQLException {
		Properties properties = new Properties();
		PGProperty.USER.set(properties, user);
		if (replication) {
			PGProperty.REPLICATION.set(properties, "database");
			PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
			PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
		}
		return DriverManager.getConnection(url, properties);
	}

	private static int serverVersion(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				var row = statement.executeQuery("SHOW server_version_num")) {
			row.next();
			return Integer.parseInt(row.getString(1));
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Applies snapshot rows and streamed changes to the sink table: upsert by key, delete
	 * by key.
	 */
	private static final class Applier {

		private final Connection connection;

		private final String sink;

		private final PreparedStatement upsert;

		private final PreparedStatement delete;

		Applier(Connection connection, String sink) throws SQLException {
			this.connection = connection;
			this.sink = sink;
			this.upsert = connection.prepareStatement("INSERT INTO " + sink + " (id, a, b) VALUES (?, ?, ?)"
					+ " ON CONFLICT (id) DO UPDATE SET a = EXCLUDED.a, b = EXCLUDED.b");
			this.delete = connection.prepareStatement("DELETE FROM " + sink + " WHERE id = ?");
		}

		void startOver() throws SQLException {
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("TRUNCATE " + this.sink);
			}
			this.connection.commit();
		}

		void apply(Operation operation, @Nullable Row after, @Nullable Row before) {
			try {
				if (operation == Operation.DELETE) {
					this.delete.setLong(1, before.get("id", Long.class));
					this.delete.executeUpdate();
					return;
				}
				this.upsert.setLong(1, after.get("id", Long.class));
				this.upsert.setInt(2, after.get("a", Integer.class));
				this.upsert.setString(3, after.get("b", String.class));
				this.upsert.executeUpdate();
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

		void commit() {
			try {
				this.connection.commit();
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
