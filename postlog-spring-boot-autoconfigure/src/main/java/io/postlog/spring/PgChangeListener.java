package io.postlog.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.postlog.Operation;

/**
 * Marks a bean method that receives committed changes of PostgreSQL tables, in commit
 * order and within a transaction in WAL order, on the consumer's one delivery thread.
 * <p>
 * The method takes one payload parameter, and optionally an {@link io.postlog.Lsn} (the
 * transaction's commit LSN):
 * <ul>
 * <li>{@link io.postlog.Change} — every matching change, truncates included;</li>
 * <li>{@link io.postlog.Transaction} or {@code List<Change>} — one call per commit with
 * at least one matching change, holding only the matching changes, truncates
 * included;</li>
 * <li>{@link io.postlog.Row} or {@code Map<String, Object>} — the after-row (the
 * before-row for deletes); truncates are not delivered to these shapes;</li>
 * <li>any record or JavaBean — bound from that row by column name, {@code snake_case}
 * columns to {@code camelCase} names, through Spring's conversion service; truncates are
 * not delivered.</li>
 * </ul>
 * An exception fails the transaction: it is redelivered from its first change to every
 * listener, with the back-off of {@code postlog.retry.*}, until attempts run out and the
 * consumer is {@code FAILED}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PgChangeListener {

	/**
	 * Tables to receive changes of, as {@code schema.table} or {@code table} (meaning
	 * {@code public.table}); empty for every published table.
	 * @return the tables
	 */
	String[] tables() default {};

	/**
	 * Operations to receive; empty for all.
	 * @return the operations
	 */
	Operation[] operations() default {};

	/**
	 * An id for this listener, shown by the actuator endpoint and in errors; defaults to
	 * {@code BeanClass.method}.
	 * @return the id
	 */
	String id() default "";

}
