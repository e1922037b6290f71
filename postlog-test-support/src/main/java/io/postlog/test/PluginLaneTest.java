package io.postlog.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class on the {@link PluginLane}'s PostgreSQL 15 with wal2json and
 * pglogical: methods, constructors and lifecycle methods may take a
 * {@link PostgresDatabase}, a fresh database made for the class. Tagged
 * {@code plugin-lane}, so {@code -Dpostlog.it.groups=plugin-lane} runs the lane alone.
 * Without Debian's packages the class is skipped with a loud message, or fails when
 * {@code -Dpostlog.plugin-lane.required=true}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("plugin-lane")
@ExtendWith(PluginLaneExtension.class)
public @interface PluginLaneTest {

}
