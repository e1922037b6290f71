package io.postlog.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method that receives the schema changes of published tables
 * ({@link io.postlog.SchemaChange}): columns added, dropped, renamed or retyped,
 * nullability and replica identity changes, table renames (and, with
 * {@code postlog.schema.ddl-events}, table drops), in commit order with the change
 * listeners of its group, each before the first change of a row in its new shape. The
 * method takes one {@code SchemaChange} parameter, and optionally an
 * {@link io.postlog.Lsn} (the schema change's commit LSN). A schema listener observes the
 * tables its group publishes; it does not add tables to the publication.
 */
@Target(ElementType.METHOD)
@Reflective(PgListenerReflectiveProcessor.class)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PgSchemaListener {

	/**
	 * The tables whose schema changes to receive ({@code "orders"} means
	 * {@code public.orders}); empty for every published table. A table rename is given to
	 * a listener that names either name. Resolves {@code ${...}} placeholders.
	 * @return the tables
	 */
	String[] tables() default {};

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
