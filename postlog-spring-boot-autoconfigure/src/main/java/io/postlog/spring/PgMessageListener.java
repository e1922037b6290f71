package io.postlog.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method that receives logical decoding messages written with
 * {@code pg_logical_emit_message} (PostgreSQL 14+) whose prefix equals {@link #prefix()}.
 * The method takes one {@link io.postlog.LogicalMessage} parameter and runs on the
 * consumer's delivery thread, in order with the change listeners.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PgMessageListener {

	/**
	 * The message prefix to receive (exact match).
	 * @return the prefix
	 */
	String prefix();

	/**
	 * An id for this listener, shown by the actuator endpoint and in errors; defaults to
	 * {@code BeanClass.method}.
	 * @return the id
	 */
	String id() default "";

}
