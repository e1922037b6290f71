package io.postlog.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against a real PostgreSQL: test methods, constructors and lifecycle
 * methods may take a {@link PostgresDatabase} parameter, a fresh database made for the
 * class. Without {@link #settings()} the class shares the JVM's one server; with settings
 * it gets a server of its own, stopped after the class.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(PostgresExtension.class)
public @interface PostgresTest {

	/**
	 * Server settings as {@code name=value}, for example {@code wal_level=replica}.
	 * @return the settings
	 */
	String[] settings() default {};

}
