package io.postlog.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.consumer.ReplicationConsumer;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Read-your-writes: lets a writer wait until its own write has reached every listener
 * that reads it. Take a {@link WriteToken} with {@link #token()} inside the writing
 * transaction (or {@link #afterCommit()} after it), then {@link #await} it: that returns
 * once every listener of every group that reads a written table has finished the
 * transaction or a later one, and at once when no group reads them or the transaction
 * rolled back.
 * <p>
 * How it knows: {@link #token()} reads, on the transaction's own connection, whether the
 * transaction has a transaction id (a read-only one wrote nothing) and which tables it
 * wrote (those it holds a write lock on in {@code pg_locks}, which an insert, update,
 * delete, merge or truncate takes until the transaction ends, with each partition's
 * ancestors), and registers a transaction synchronization that notes the commit.
 * {@link #await} reads {@code pg_current_wal_insert_lsn()} on the {@code DataSource} (for
 * a token from {@link #afterCommit()}, that was read already): a position after the
 * commit, so the transaction ends at or before it, whatever other writers commit
 * meanwhile. It then waits until each group's acknowledged position reaches it
 * ({@link ReplicationConsumer#awaitDelivered}); the groups acknowledge in commit order,
 * only past what every one of their listeners finished, and carry the position on with
 * the server's keepalives while idle, so a position no published change follows is
 * reached too.
 * <p>
 * Thread-safe. Call {@link #await} outside postlog's listeners (inside one, a group would
 * wait for itself) and after the transaction committed. A group whose consumer is not
 * running, or one of whose listeners is stopped or paused, does not reach the position:
 * the await times out.
 */
public final class PostlogFence {

	// The locks a write takes on a table last until the transaction ends: they name the
	// tables this transaction wrote, and no other (the server's per-transaction table
	// statistics also count earlier transactions of the connection not yet reported).
	// Each written partition counts for its ancestors too: a publication may publish a
	// partitioned table through its root.
	private static final String WRITTEN = """
			WITH RECURSIVE written(relid) AS (
			  SELECT l.relation FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			  WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND l.granted
			    AND l.mode IN ('RowExclusiveLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')
			    AND c.relkind IN ('r', 'p')
			  UNION SELECT i.inhparent FROM pg_inherits i JOIN written w ON i.inhrelid = w.relid)
			SELECT txid_current_if_assigned() IS NOT NULL, n.nspname, c.relname
			FROM (SELECT 1) one
			LEFT JOIN (written w JOIN pg_class c ON c.oid = w.relid
			  JOIN pg_namespace n ON n.oid = c.relnamespace) ON true""";

	private static final String INSERT_LSN = "SELECT pg_current_wal_insert_lsn()::text";

	private final PostlogListenerRegistry registry;

	private final JdbcTemplate jdbc;

	/**
	 * Creates a fence.
	 * @param registry the listener registry, whose groups are awaited
	 * @param dataSource the application's {@code DataSource}: the one its writing
	 * transactions use, on the server postlog streams from
	 */
	public PostlogFence(PostlogListenerRegistry registry, DataSource dataSource) {
		this.registry = registry;
		this.jdbc = new JdbcTemplate(dataSource);
	}

	/**
	 * Returns a token for the current transaction's writes so far; call it after the
	 * writes, inside the transaction. The token is complete when the transaction commits.
	 * @return the token
	 * @throws IllegalStateException outside a transaction with synchronization (use
	 * {@link #afterCommit()} there)
	 */
	public WriteToken token() {
		if (!TransactionSynchronizationManager.isSynchronizationActive()
				|| !TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalStateException(
					"PostlogFence.token() is called inside a writing transaction; after the commit use afterCommit()");
		}
		Set<TableId> tables = new LinkedHashSet<>();
		boolean[] wrote = new boolean[1];
		this.jdbc.query(WRITTEN, (row) -> {
			wrote[0] = row.getBoolean(1);
			String schema = row.getString(2);
			if (schema != null) {
				tables.add(new TableId(schema, Objects.requireNonNull(row.getString(3))));
			}
		});
		if (!wrote[0]) {
			// No transaction id: nothing written, nothing to deliver.
			return new WriteToken(Set.of(), WriteToken.Outcome.PENDING, null);
		}
		WriteToken token = new WriteToken(tables.isEmpty() ? null : tables, WriteToken.Outcome.PENDING, null);
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCompletion(int status) {
				token.completed(
						(status == STATUS_COMMITTED) ? WriteToken.Outcome.COMMITTED : WriteToken.Outcome.ROLLED_BACK);
			}

		});
		return token;
	}

	/**
	 * Returns a token for every write committed so far: call it after the writing
	 * transaction committed (for example after a {@code JdbcTemplate} update in
	 * auto-commit mode). It does not know which tables were written, so every group that
	 * reads any table is waited for.
	 * @return the token
	 * @throws IllegalStateException inside a transaction, whose own writes are not
	 * committed yet (use {@link #token()} there)
	 */
	public WriteToken afterCommit() {
		if (TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalStateException(
					"PostlogFence.afterCommit() is called after the transaction committed; " + "inside it use token()");
		}
		return new WriteToken(null, WriteToken.Outcome.COMMITTED, insertLsn());
	}

	/**
	 * Waits until every listener of every group that reads the token's tables has
	 * finished its transaction or a later one.
	 * @param token the token
	 * @param timeout how long to wait at most, for all groups together
	 * @throws FenceTimeoutException if a group had not finished it within the timeout, or
	 * the thread was interrupted (it stays interrupted)
	 * @throws IllegalStateException if the token's transaction has not completed yet
	 */
	public void await(WriteToken token, Duration timeout) {
		Objects.requireNonNull(token, "token");
		Objects.requireNonNull(timeout, "timeout");
		long deadline = System.nanoTime() + timeout.toNanos();
		Set<TableId> tables = token.tables();
		if (token.outcome() == WriteToken.Outcome.PENDING) {
			if (tables != null && tables.isEmpty()) {
				return;
			}
			throw new IllegalStateException("A WriteToken is awaited after its transaction committed");
		}
		if (token.outcome() == WriteToken.Outcome.ROLLED_BACK) {
			return;
		}
		List<PostlogConsumerGroup> groups = readers(tables);
		if (groups.isEmpty()) {
			return;
		}
		Lsn target = (token.lsn() != null) ? token.lsn() : insertLsn();
		for (PostlogConsumerGroup group : groups) {
			ReplicationConsumer consumer = group.consumer();
			long remaining = deadline - System.nanoTime();
			try {
				if (consumer == null || !consumer.awaitDelivered(target, Duration.ofNanos(Math.max(0, remaining)))) {
					throw new FenceTimeoutException("Group " + group.displayName() + " had not delivered up to "
							+ target + " within " + timeout.toMillis() + " ms"
							+ ((consumer == null) ? " (its consumer was not started)" : ""), null);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new FenceTimeoutException(
						"Interrupted while waiting for group " + group.displayName() + " to deliver up to " + target,
						ex);
			}
		}
	}

	/**
	 * Returns the groups with a change listener that reads one of the tables: one that
	 * names it, or one that takes every published table.
	 */
	private List<PostlogConsumerGroup> readers(@Nullable Set<TableId> tables) {
		List<PostlogConsumerGroup> readers = new ArrayList<>();
		for (PostlogConsumerGroup group : this.registry.groups()) {
			if (reads(group, tables)) {
				readers.add(group);
			}
		}
		return readers;
	}

	private static boolean reads(PostlogConsumerGroup group, @Nullable Set<TableId> tables) {
		for (ListenerEndpoint endpoint : group.endpoints()) {
			if (endpoint.shape() == ListenerEndpoint.Shape.MESSAGE) {
				continue;
			}
			if (tables == null || endpoint.tables().isEmpty()) {
				return true;
			}
			for (TableId table : tables) {
				if (endpoint.tables().contains(table)) {
					return true;
				}
			}
		}
		return false;
	}

	private Lsn insertLsn() {
		return Lsn.parse(Objects.requireNonNull(this.jdbc.queryForObject(INSERT_LSN, String.class)));
	}

}
