package io.postlog.consumer;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.admin.PgErrors;
import io.postlog.consumer.checkpoint.CheckpointStoreException;
import io.postlog.consumer.checkpoint.CheckpointTable;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.checkpoint.ChunkTable;
import io.postlog.consumer.checkpoint.ShapeTable;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An effect-once {@link CheckpointStore} over plain JDBC: each sink transaction is one
 * transaction on a connection borrowed from a {@link DataSource}, handlers do their
 * sink's work on {@link #connection()}, and the checkpoint row of the slot (in a
 * {@link CheckpointTable}, {@code postlog_checkpoint} by default) is written in the same
 * transaction just before it commits. What the handlers wrote and the checkpoint
 * therefore commit together or not at all, and after a crash the consumer skips exactly
 * what was committed. The chunks of snapshots and backfills are marked in the
 * {@link ChunkTable} beside it ({@code postlog_checkpoint_chunks}), created when first
 * needed, in the sink transaction of their rows. The tables' last known shapes, for
 * schema changes, are kept in the {@link ShapeTable} beside it
 * ({@code postlog_checkpoint_shapes}), created when first written, in the sink
 * transaction that moves the checkpoint.
 * <p>
 * The data source may point at another database than the slot's (the sink's own): only
 * the checkpoint and the handlers' work live there. Use a pooled data source: one
 * connection is borrowed per sink transaction. The consumer calls the store on its
 * delivery thread; {@link #connection()} is for handlers on that thread, and
 * {@link #initialize()} may be called from any thread before the consumer starts.
 *
 * <pre class="code">
 * JdbcCheckpointStore store = JdbcCheckpointStore.of(sinkDataSource, "orders_cdc");
 * ReplicationConsumer consumer = ReplicationConsumer.builder()
 * 	.slotName("orders_cdc")
 * 	// ...
 * 	.checkpointStore(store)
 * 	.changeHandler((change) -&gt; {
 * 		try (PreparedStatement insert = store.connection().prepareStatement("INSERT ...")) {
 * 			// ...
 * 		}
 * 	})
 * 	.build();
 * </pre>
 */
public final class JdbcCheckpointStore implements CheckpointStore {

	private static final Logger logger = LoggerFactory.getLogger(JdbcCheckpointStore.class);

	private final DataSource dataSource;

	private final CheckpointTable table;

	private final boolean createTable;

	private final ChunkTable chunkTable;

	private final ShapeTable shapeTable;

	private volatile boolean initialized;

	private volatile boolean chunksInitialized;

	private volatile boolean shapesInitialized;

	/** Whether the open sink transaction made sure the shape table exists. */
	private boolean shapesEnsured;

	private @Nullable Connection connection;

	private @Nullable Connection guarded;

	private Lsn expected = Lsn.INVALID;

	private JdbcCheckpointStore(DataSource dataSource, CheckpointTable table, boolean createTable) {
		this.dataSource = dataSource;
		this.table = table;
		this.createTable = createTable;
		this.chunkTable = ChunkTable.beside(table);
		this.shapeTable = ShapeTable.beside(table);
	}

	/**
	 * Returns a store with the default table, {@code postlog_checkpoint}, created when
	 * missing.
	 * @param dataSource where the sink's transactions and the checkpoint live
	 * @param slotName the consumer's slot, whose row the store keeps
	 * @return the store
	 * @throws io.postlog.admin.InvalidIdentifierException if the slot name is not valid
	 */
	public static JdbcCheckpointStore of(DataSource dataSource, String slotName) {
		return builder(dataSource, slotName).build();
	}

	/**
	 * Returns a builder.
	 * @param dataSource where the sink's transactions and the checkpoint live
	 * @param slotName the consumer's slot, whose row the store keeps
	 * @return the builder
	 */
	public static Builder builder(DataSource dataSource, String slotName) {
		return new Builder(dataSource, slotName);
	}

	/**
	 * Makes sure the checkpoint table exists, creating it when missing if allowed. Called
	 * by the first {@link #load()} or {@link #begin()} if not before; call it before
	 * starting the consumer to find a missing table or privilege at once.
	 * @throws CheckpointStoreException if the table is missing and may not or could not
	 * be created
	 */
	public void initialize() {
		if (this.initialized) {
			return;
		}
		try (Connection borrowed = this.dataSource.getConnection()) {
			this.table.ensure(borrowed, this.createTable);
		}
		catch (SQLException ex) {
			throw failure("Opening a connection for the checkpoint table", ex);
		}
		this.initialized = true;
	}

	/**
	 * Returns the checkpoint table.
	 * @return the table
	 */
	public CheckpointTable table() {
		return this.table;
	}

	/**
	 * Returns the connection of the open sink transaction, for handlers: their work on it
	 * commits with the checkpoint. Its {@code commit}, {@code rollback()} and
	 * {@code setAutoCommit} are refused, since the transaction is the consumer's, and
	 * {@code close} does nothing.
	 * @return the connection
	 * @throws IllegalStateException outside a sink transaction (off the delivery thread,
	 * or outside a handler call)
	 */
	public Connection connection() {
		Connection current = this.guarded;
		if (current == null) {
			throw new IllegalStateException("No sink transaction is open: the connection of " + this.table
					+ " is only for handlers, on the consumer's delivery thread");
		}
		return current;
	}

	@Override
	public Lsn load() {
		initialize();
		try (Connection borrowed = this.dataSource.getConnection()) {
			this.expected = this.table.read(borrowed);
			return this.expected;
		}
		catch (SQLException ex) {
			throw failure("Opening a connection to read the checkpoint", ex);
		}
	}

	@Override
	public void begin() {
		if (this.connection != null) {
			throw new IllegalStateException("A sink transaction is already open on " + this.table);
		}
		initialize();
		Connection opened = null;
		try {
			opened = this.dataSource.getConnection();
			opened.setAutoCommit(false);
		}
		catch (SQLException ex) {
			close(opened);
			throw failure("Opening the sink transaction", ex);
		}
		this.connection = opened;
		this.guarded = guard(opened);
	}

	@Override
	public void commit(Lsn commitLsn) {
		Connection current = this.connection;
		if (current == null) {
			throw new IllegalStateException("No sink transaction is open on " + this.table);
		}
		try {
			this.table.write(current, this.expected, commitLsn);
			current.commit();
			this.expected = commitLsn;
			this.shapesInitialized |= this.shapesEnsured;
		}
		catch (SQLException ex) {
			throw failure("Committing the sink transaction", ex);
		}
		finally {
			// Whatever happened, the transaction is over: a failed commit is not tried
			// again on this connection.
			end(current);
		}
	}

	@Override
	public boolean recordsChunks() {
		return true;
	}

	@Override
	public void recordChunk(ChunkMark mark) {
		Connection current = this.connection;
		if (current == null) {
			throw new IllegalStateException("No sink transaction is open on " + this.table);
		}
		initializeChunks();
		this.chunkTable.write(current, mark);
	}

	@Override
	public Map<Integer, ChunkMark> chunks(String backfillId) {
		initializeChunks();
		try (Connection borrowed = this.dataSource.getConnection()) {
			return this.chunkTable.read(borrowed, backfillId);
		}
		catch (SQLException ex) {
			throw failure("Opening a connection to read the chunk marks", ex);
		}
	}

	@Override
	public void forgetChunks(String backfillId) {
		initializeChunks();
		try (Connection borrowed = this.dataSource.getConnection()) {
			this.chunkTable.delete(borrowed, backfillId);
		}
		catch (SQLException ex) {
			throw failure("Opening a connection to delete the chunk marks", ex);
		}
	}

	@Override
	public boolean recordsShapes() {
		return true;
	}

	@Override
	public void recordShapes(Map<Long, @Nullable String> shapes) {
		Connection current = this.connection;
		if (current == null) {
			throw new IllegalStateException("No sink transaction is open on " + this.table);
		}
		if (!this.shapesInitialized) {
			// On the sink transaction's own connection: a table created here commits with
			// its first shapes, or is gone with them.
			this.shapeTable.ensure(current, this.createTable);
			this.shapesEnsured = true;
		}
		this.shapeTable.write(current, shapes);
	}

	@Override
	public Map<Long, String> shapes() {
		initialize();
		try (Connection borrowed = this.dataSource.getConnection()) {
			return this.shapeTable.read(borrowed);
		}
		catch (SQLException ex) {
			throw failure("Opening a connection to read the table shapes", ex);
		}
	}

	private void initializeChunks() {
		if (this.chunksInitialized) {
			return;
		}
		try (Connection borrowed = this.dataSource.getConnection()) {
			this.chunkTable.ensure(borrowed, this.createTable);
		}
		catch (SQLException ex) {
			throw failure("Opening a connection for the chunk table", ex);
		}
		this.chunksInitialized = true;
	}

	@Override
	public void rollback() {
		Connection current = this.connection;
		if (current != null) {
			end(current);
		}
	}

	private void end(Connection current) {
		this.connection = null;
		this.shapesEnsured = false;
		this.guarded = null;
		try {
			if (!current.getAutoCommit()) {
				current.rollback();
				current.setAutoCommit(true);
			}
		}
		catch (SQLException ex) {
			// The connection is likely gone with its transaction; closing it is all that
			// is left to do.
			logger.debug("Rolling back the sink transaction on {} failed ({})", this.table, PgErrors.describe(ex));
		}
		close(current);
	}

	private static void close(@Nullable Connection connection) {
		if (connection != null) {
			try {
				connection.close();
			}
			catch (SQLException ex) {
				// Nothing more to release.
				logger.debug("Closing a sink connection failed ({})", PgErrors.describe(ex));
			}
		}
	}

	private PostlogException failure(String what, SQLException ex) {
		return this.table.failure(what, ex);
	}

	private Connection guard(Connection target) {
		return (Connection) Proxy.newProxyInstance(JdbcCheckpointStore.class.getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					switch (method.getName()) {
						case "close":
							return null;
						case "commit", "setAutoCommit":
							throw refused(method.getName());
						case "rollback":
							if (method.getParameterCount() == 0) {
								throw refused(method.getName());
							}
							break;
						case "equals":
							return proxy == args[0];
						case "hashCode":
							return System.identityHashCode(proxy);
						case "toString":
							return "sink connection of " + this.table;
						default:
							break;
					}
					try {
						return method.invoke(target, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
	}

	private SQLException refused(String method) {
		return new SQLException(
				"The sink transaction belongs to the consumer, which commits it with the " + "checkpoint; " + method
						+ " is not allowed on its connection (throw from the handler to roll it " + "back)",
				"25000");
	}

	@Override
	public String toString() {
		return "jdbc (" + this.table + ")";
	}

	/**
	 * Configures a {@link JdbcCheckpointStore}. Not thread-safe.
	 */
	public static final class Builder {

		private final DataSource dataSource;

		private final String slotName;

		private String table = CheckpointTable.DEFAULT_NAME;

		private boolean createTable = true;

		private Builder(DataSource dataSource, String slotName) {
			this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
			this.slotName = slotName;
		}

		/**
		 * Sets the checkpoint table ({@code postlog_checkpoint} by default).
		 * @param table {@code table} or {@code schema.table}, as stored (no quotes)
		 * @return this builder
		 */
		public Builder table(String table) {
			this.table = table;
			return this;
		}

		/**
		 * Sets whether a missing checkpoint table is created (default {@code true}).
		 * @param createTable whether to create it
		 * @return this builder
		 */
		public Builder createTable(boolean createTable) {
			this.createTable = createTable;
			return this;
		}

		/**
		 * Builds the store; touches no database.
		 * @return the store
		 * @throws io.postlog.admin.InvalidIdentifierException if the table or slot name
		 * is not valid
		 */
		public JdbcCheckpointStore build() {
			return new JdbcCheckpointStore(this.dataSource, CheckpointTable.of(this.table, this.slotName),
					this.createTable);
		}

	}

}
