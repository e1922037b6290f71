package io.postlog.test;

import java.util.List;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit extension behind {@link PluginLaneTest}: skips (or, when required, fails) where
 * the lane's packages are absent, and resolves {@link PostgresDatabase} parameters to one
 * fresh database per class on the lane's server, dropped after the class.
 */
public final class PluginLaneExtension implements ExecutionCondition, ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(PluginLaneExtension.class);

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		List<String> missing = PluginLane.missing();
		if (missing.isEmpty()) {
			return ConditionEvaluationResult.enabled("the plugin lane's packages are installed");
		}
		String message = "PLUGIN LANE NOT RUN: " + context.getDisplayName() + " needs Debian's postgresql-15, "
				+ "postgresql-15-wal2json and postgresql-15-pglogical; missing " + missing;
		if (PluginLane.required()) {
			throw new ExtensionConfigurationException(
					message + " (and -D" + PluginLane.REQUIRED_PROPERTY + "=true requires the lane)");
		}
		System.err.println("\n*** " + message + " ***\n");
		return ConditionEvaluationResult.disabled(message);
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == PostgresDatabase.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		ExtensionContext classContext = extensionContext;
		while (classContext.getParent().isPresent() && classContext.getParent().get().getTestClass().isPresent()) {
			classContext = classContext.getParent().get();
		}
		return classContext.getStore(NAMESPACE)
			.getOrComputeIfAbsent(ClassDatabase.class, (key) -> new ClassDatabase(), ClassDatabase.class)
			.database();
	}

	/**
	 * The class's database. When the class's store closes, its inactive slots are dropped
	 * but the database is not: pglogical 2.4.2's per-database manager on PostgreSQL 15
	 * does not answer the barrier {@code DROP DATABASE} waits for, which then hangs. The
	 * lane's server, and every database on it, goes when the JVM exits.
	 */
	private static final class ClassDatabase implements AutoCloseable {

		private final PostgresDatabase database = PluginLane.server().createDatabase();

		PostgresDatabase database() {
			return this.database;
		}

		@Override
		public void close() {
			this.database.dropSlots();
		}

	}

}
