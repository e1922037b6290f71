package io.postlog.spring.boot.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.function.Function;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.admin.ConnectionLostException;
import io.postlog.admin.PgErrors;
import io.postlog.consumer.CheckpointStore;
import io.postlog.consumer.checkpoint.CheckpointStoreException;
import io.postlog.consumer.checkpoint.CheckpointTable;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.checkpoint.ChunkTable;
import io.postlog.consumer.checkpoint.ShapeTable;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The {@code postlog.checkpoint.store=jdbc} store: each sink transaction is a transaction
 * of the application's {@link PlatformTransactionManager}, begun on the delivery thread
 * before the listeners are called, so that {@code JdbcTemplate}, {@code JdbcClient},
 * Spring Data and JPA work and {@code @Transactional} listeners (with the default
 * propagation) join it; the checkpoint row is written in it through the application's
 * {@link DataSource} just before it commits. The transaction manager must manage that
 * DataSource (a {@code DataSourceTransactionManager} or {@code JpaTransactionManager}
 * over it): that is checked at start and at every commit. Snapshot and backfill chunks
 * are marked in the {@link ChunkTable} beside the checkpoint table, in the sink
 * transaction of their rows; the tables' last known shapes, for schema changes, are kept
 * in the {@link ShapeTable} beside it, in the sink transaction that moves the checkpoint.
 * Called on the delivery thread only, except {@link #initialize()}, which runs at
 * start-up, and {@link #chunks} and {@link #forgetChunks}, which the backfill thread may
 * call.
 */
final class TransactionManagerCheckpointStore implements CheckpointStore {

	private static final Logger logger = LoggerFactory.getLogger(TransactionManagerCheckpointStore.class);

	private final PlatformTransactionManager transactionManager;

	private final DataSource dataSource;

	private final CheckpointTable table;

	private final boolean createTable;

	private final DefaultTransactionDefinition definition;

	private final ChunkTable chunkTable;

	private volatile boolean chunksInitialized;

	private final ShapeTable shapeTable;

	private volatile boolean shapesInitialized;

	private @Nullable TransactionStatus status;

	private Lsn expected = Lsn.INVALID;

	TransactionManagerCheckpointStore(PlatformTransactionManager transactionManager, DataSource dataSource,
			CheckpointTable table, boolean createTable) {
		this.transactionManager = transactionManager;
		this.dataSource = dataSource;
		this.table = table;
		this.createTable = createTable;
		this.definition = new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRED);
		this.definition.setName("postlog sink transaction (slot " + table.slotName() + ")");
		this.chunkTable = ChunkTable.beside(table);
		this.shapeTable = ShapeTable.beside(table);
	}

	/**
	 * Checks, in a transaction of its own, that the transaction manager manages the
	 * DataSource and that the checkpoint table is there, creating it if allowed.
	 * @throws CheckpointStoreException if not
	 */
	void initialize() {
		inOwnTransaction(false, (connection) -> {
			this.table.ensure(connection, this.createTable);
			return null;
		});
	}

	@Override
	public Lsn load() {
		Lsn checkpoint = inOwnTransaction(true, this.table::read);
		this.expected = checkpoint;
		return checkpoint;
	}

	@Override
	public void begin() {
		if (this.status != null || TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalStateException("A transaction is already open on the delivery thread of slot "
					+ this.table.slotName() + "; the sink transaction must be the outermost");
		}
		try {
			this.status = this.transactionManager.getTransaction(this.definition);
		}
		catch (CannotCreateTransactionException ex) {
			throw new ConnectionLostException("Opening the sink transaction of slot " + this.table.slotName()
					+ " failed (" + ex.getClass().getSimpleName() + ")", ex);
		}
	}

	@Override
	public void commit(Lsn commitLsn) {
		TransactionStatus current = this.status;
		if (current == null) {
			throw new IllegalStateException("No sink transaction is open for slot " + this.table.slotName());
		}
		this.status = null;
		try {
			Connection connection = transactionalConnection();
			try {
				this.table.write(connection, this.expected, commitLsn);
			}
			finally {
				DataSourceUtils.releaseConnection(connection, this.dataSource);
			}
		}
		catch (RuntimeException ex) {
			rollback(current);
			throw ex;
		}
		try {
			this.transactionManager.commit(current);
		}
		catch (TransactionException | DataAccessException ex) {
			// An UnexpectedRollbackException, for one, when a listener marked it
			// rollback-only, or a deferred constraint's violation, which the
			// transaction manager translates with the server's text (and its DETAIL,
			// which can quote row values): described by class and SQLState only.
			// Either way nothing of it is committed for sure.
			SQLException server = PgErrors.serverError(ex);
			String message = "Committing the sink transaction of slot " + this.table.slotName() + " up to " + commitLsn
					+ " failed (" + ex.getClass().getSimpleName()
					+ ((server != null) ? ", " + PgErrors.describe(server) : "") + ")";
			if (server != null && PgErrors.isConnectionFailure(server)) {
				throw new ConnectionLostException(message, ex);
			}
			throw new CheckpointStoreException(message, ex);
		}
		this.expected = commitLsn;
	}

	@Override
	public boolean recordsChunks() {
		return true;
	}

	@Override
	public void recordChunk(ChunkMark mark) {
		if (this.status == null) {
			throw new IllegalStateException("No sink transaction is open for slot " + this.table.slotName());
		}
		initializeChunks();
		Connection connection = transactionalConnection();
		try {
			this.chunkTable.write(connection, mark);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	@Override
	public Map<Integer, ChunkMark> chunks(String backfillId) {
		initializeChunks();
		return inOwnTransaction(true, (connection) -> this.chunkTable.read(connection, backfillId));
	}

	@Override
	public void forgetChunks(String backfillId) {
		initializeChunks();
		inOwnTransaction(false, (connection) -> {
			this.chunkTable.delete(connection, backfillId);
			return null;
		});
	}

	@Override
	public boolean recordsShapes() {
		return true;
	}

	@Override
	public void recordShapes(Map<Long, @Nullable String> shapes) {
		if (this.status == null) {
			throw new IllegalStateException("No sink transaction is open for slot " + this.table.slotName());
		}
		if (!this.shapesInitialized) {
			inOwnTransaction(false, (connection) -> {
				this.shapeTable.ensure(connection, this.createTable);
				return null;
			});
			this.shapesInitialized = true;
		}
		Connection connection = transactionalConnection();
		try {
			this.shapeTable.write(connection, shapes);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	@Override
	public Map<Long, String> shapes() {
		return inOwnTransaction(true, this.shapeTable::read);
	}

	/** Creates the chunk table if allowed, in its own transaction, when first needed. */
	private void initializeChunks() {
		if (!this.chunksInitialized) {
			inOwnTransaction(false, (connection) -> {
				this.chunkTable.ensure(connection, this.createTable);
				return null;
			});
			this.chunksInitialized = true;
		}
	}

	@Override
	public void rollback() {
		TransactionStatus current = this.status;
		this.status = null;
		if (current != null) {
			rollback(current);
		}
	}

	private void rollback(TransactionStatus current) {
		if (current.isCompleted()) {
			return;
		}
		try {
			this.transactionManager.rollback(current);
		}
		catch (RuntimeException ex) {
			// The connection is likely gone with its transaction: nothing of it commits.
			logger.debug("Rolling back the sink transaction of slot {} failed ({})", this.table.slotName(),
					ex.getClass().getName());
		}
	}

	private <T> T inOwnTransaction(boolean readOnly, Function<Connection, T> work) {
		TransactionTemplate template = new TransactionTemplate(this.transactionManager);
		template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		template.setReadOnly(readOnly);
		try {
			return template.execute((status) -> {
				Connection connection = transactionalConnection();
				try {
					return work.apply(connection);
				}
				finally {
					DataSourceUtils.releaseConnection(connection, this.dataSource);
				}
			});
		}
		catch (CannotCreateTransactionException | DataAccessResourceFailureException ex) {
			throw new ConnectionLostException("The checkpoint of slot " + this.table.slotName()
					+ " could not be reached (" + ex.getClass().getSimpleName() + ")", ex);
		}
	}

	/**
	 * Returns the connection of the current transaction, refusing one the transaction
	 * manager does not manage: a checkpoint written on it would commit apart from the
	 * listeners' work.
	 */
	private Connection transactionalConnection() {
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		if (!DataSourceUtils.isConnectionTransactional(connection, this.dataSource)) {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
			throw new CheckpointStoreException("The transaction manager " + this.transactionManager.getClass().getName()
					+ " does not manage the application's DataSource, so the checkpoint of slot "
					+ this.table.slotName() + " could not commit with the listeners' work", null);
		}
		return connection;
	}

	@Override
	public String toString() {
		return "jdbc (" + this.table + ", through " + this.transactionManager.getClass().getSimpleName() + ")";
	}

}
