package io.postlog.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method that receives logical decoding messages written with
 * {@code pg_logical_emit_message} (PostgreSQL 14+) whose prefix equals {@link #prefix()}.
 * The method takes one {@link io.postlog.LogicalMessage} parameter, and optionally an
 * {@link io.postlog.Lsn} (the message's LSN), and runs in order with the change listeners
 * of its group.
 */
@Target(ElementType.METHOD)
@Reflective(PgListenerReflectiveProcessor.class)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PgMessageListener {

	/**
	 * The message prefix to receive (exact match).
	 * @return the prefix
	 */
	String prefix();

	/**
	 * An id for this listener, unique in the application, shown by the actuator endpoint,
	 * in log lines and in errors; defaults to {@code BeanClass.method}. Resolves
	 * {@code ${...}} placeholders.
	 * @return the id
	 */
	String id() default "";

	/**
	 * The consumer group (see {@link PgChangeListener#group()}); empty for the default
	 * group. Resolves {@code ${...}} placeholders.
	 * @return the group
	 */
	String group() default "";

}
