package io.postlog.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.postlog.Operation;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method that receives committed changes of PostgreSQL tables, in commit
 * order and within a transaction in WAL order.
 * <p>
 * The method takes one payload parameter:
 * <ul>
 * <li>{@link io.postlog.Change} — every matching change, truncates included;</li>
 * <li>{@link io.postlog.Transaction} or {@code List<Change>} — one call per commit with
 * at least one matching change, holding only the matching changes, truncates
 * included;</li>
 * <li>{@link io.postlog.Row} or {@code Map<String, Object>} — the after-row (the
 * before-row for deletes); truncates are not delivered to these shapes;</li>
 * <li>any record or JavaBean — bound from that row by column name, {@code snake_case}
 * columns to {@code camelCase} names, through Spring's conversion service; truncates are
 * not delivered. Binding is strict: a record component that matches no column, or a
 * primitive component whose column can be {@code NULL} or is absent from the rows the
 * listener receives (non-key columns of a key-only {@code DELETE} image), fails start-up
 * naming the listener, the table and the component.</li>
 * </ul>
 * It may also take an {@link io.postlog.Lsn} (the commit LSN), an
 * {@link io.postlog.Operation} (change-shaped listeners) and an
 * {@link io.postlog.Acknowledgment}: a listener that takes one owns the acknowledgement
 * of what it was given, and the slot moves past a transaction only once it was
 * acknowledged.
 * <p>
 * An exception is logged once per attempt with the listener's id, the table, operation,
 * commit LSN and change id and the exception's stack trace, and the listener is called
 * again for the same change with the back-off of {@code postlog.retry.*}, alone: the
 * other listeners are not called again. When attempts run out the listener's error
 * handler ({@link #errorHandler()}, else {@code postlog.listener.error-handler}) decides
 * whether to skip the change or to stop the listener alone: a stopped listener holds its
 * group's slot at the change it failed on while the group's other listeners go on, and
 * {@link PostlogListenerRegistry#start(String)} (or the actuator endpoint) starts it
 * again from there.
 * <p>
 * {@link #tables()}, {@link #id()}, {@link #concurrency()}, {@link #group()} and
 * {@link #autoStartup()} resolve {@code ${...}} placeholders.
 */
@Target(ElementType.METHOD)
@Reflective(PgListenerReflectiveProcessor.class)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PgChangeListener {

	/**
	 * Tables to receive changes of, as {@code schema.table} or {@code table} (meaning
	 * {@code public.table}); empty for every published table. An element may be a
	 * placeholder that resolves to a comma-separated list.
	 * @return the tables
	 */
	String[] tables() default {};

	/**
	 * Operations to receive; empty for all.
	 * @return the operations
	 */
	Operation[] operations() default {};

	/**
	 * An id for this listener, unique in the application, shown by the actuator endpoint,
	 * in log lines and in errors; defaults to {@code BeanClass.method}.
	 * @return the id
	 */
	String id() default "";

	/**
	 * How many lanes call the listener at once (a positive integer, {@code "1"} by
	 * default). Changes are routed to lanes by table and replica-identity key, so each
	 * key keeps its order; the slot is still acknowledged in commit order. Only for
	 * {@code Change}, {@code Row}, {@code Map} and record listeners.
	 * @return the number of lanes
	 */
	String concurrency() default "1";

	/**
	 * The consumer group: listeners of one group share a replication slot and publication
	 * ({@code postlog.groups.<name>.slot.name} and {@code .publication.name}, by default
	 * {@code postlog_<name>}), so one group's failure or slowness does not hold another's
	 * slot. Empty for the default group ({@code postlog.slot.name}).
	 * @return the group
	 */
	String group() default "";

	/**
	 * The name of a {@link PgListenerErrorHandler} bean deciding what happens when this
	 * listener's retries run out; empty for {@code postlog.listener.error-handler}.
	 * @return the bean name
	 */
	String errorHandler() default "";

	/**
	 * Whether the listener starts with its group ({@code "true"}, the default) or stays
	 * stopped until {@link PostlogListenerRegistry#start(String)} or the actuator
	 * endpoint starts it. A listener that is not started holds its group's slot at the
	 * first transaction it was not given, so it receives everything from there once
	 * started; meanwhile its slot retains WAL. Rows of an initial snapshot or a backfill
	 * delivered while it is not running are not kept for it.
	 * @return {@code "true"} or {@code "false"}
	 */
	String autoStartup() default "true";

	/**
	 * What the listener receives for a TOASTed column an {@code UPDATE} left unchanged:
	 * the {@link io.postlog.UnchangedToast} marker (the default), the value from a
	 * {@code REPLICA IDENTITY FULL} before image, the value read again by key, or the
	 * values of a {@link ToastResolver}. For change-shaped listeners ({@code Change},
	 * {@code Row}, {@code Map}, records).
	 * @return the policy
	 */
	ToastPolicy toast() default ToastPolicy.MARKER;

	/**
	 * The name of the {@link ToastResolver} bean of {@link ToastPolicy#RESOLVER}; empty
	 * for the application's only one.
	 * @return the bean name
	 */
	String toastResolver() default "";

}
