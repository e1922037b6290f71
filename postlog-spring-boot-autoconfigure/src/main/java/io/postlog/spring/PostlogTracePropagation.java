package io.postlog.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.postlog.admin.ServerVersionException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * {@code postlog.tracing.propagate}: as each new read-write transaction begins while a
 * span is current, writes that span's context into the transaction as a transactional
 * logical message ({@code pg_logical_emit_message(true, 'postlog.trace', ...)}) on the
 * transaction's own connection: the propagator's headers (W3C {@code traceparent} with
 * Boot's default propagation), one {@code name: value} line each, and the transaction's
 * id ({@code xid: <n>}). The message is first in the transaction's WAL, so it reaches
 * each group before the transaction's changes, and the listeners'
 * {@code postlog.listener} observations continue the writer's trace. It commits or rolls
 * back with the transaction; read-only transactions and transactions begun without a
 * current span get nothing (and pay nothing). A transaction that gets a message is given
 * its transaction id at its start, as a write would. Registered on the transaction
 * manager as a {@link TransactionExecutionListener}. Needs PostgreSQL 14+ (refused
 * before, at start-up). Thread-safe.
 */
public final class PostlogTracePropagation implements TransactionExecutionListener, InitializingBean {

	/** The first {@code server_version_num} whose pgoutput streams logical messages. */
	static final int REQUIRED_VERSION = 140000;

	private static final String EMIT = "SELECT pg_logical_emit_message(true, '" + TraceMessages.PREFIX + "', ? || '"
			+ TraceMessages.XID + ": ' || (txid_current() % 4294967296)::text)";

	private final JdbcTemplate jdbc;

	private final Tracer tracer;

	private final Propagator propagator;

	/**
	 * Creates the propagation.
	 * @param dataSource the {@code DataSource} the transaction manager binds its
	 * connections for, on the server postlog streams from
	 * @param tracer the tracer whose current span is propagated
	 * @param propagator the propagator that writes its headers
	 */
	public PostlogTracePropagation(DataSource dataSource, Tracer tracer, Propagator propagator) {
		this.jdbc = new JdbcTemplate(dataSource);
		this.tracer = tracer;
		this.propagator = propagator;
	}

	/**
	 * Refuses a server before PostgreSQL 14.
	 * @throws ServerVersionException if the server is older
	 */
	@Override
	public void afterPropertiesSet() {
		int version = Objects.requireNonNull(this.jdbc.queryForObject("SHOW server_version_num", Integer.class));
		if (version < REQUIRED_VERSION) {
			throw new ServerVersionException("postlog.tracing.propagate (transactional logical messages)",
					REQUIRED_VERSION, version);
		}
	}

	@Override
	public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
		if (beginFailure != null || !transaction.isNewTransaction() || transaction.isReadOnly()) {
			return;
		}
		Span span = this.tracer.currentSpan();
		if (span == null) {
			return;
		}
		Map<String, String> headers = new LinkedHashMap<>();
		this.propagator.inject(span.context(), headers, Map::put);
		if (headers.isEmpty()) {
			return;
		}
		StringBuilder content = new StringBuilder();
		headers.forEach((name, value) -> content.append(name).append(": ").append(value).append('\n'));
		this.jdbc.queryForObject(EMIT, String.class, content.toString());
	}

}
