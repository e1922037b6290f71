package io.postlog.test;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * JUnit extension behind {@link PostgresTest}: resolves {@link PostgresDatabase}
 * parameters to one fresh database per test class, dropped after the class.
 */
public final class PostgresExtension implements ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(PostgresExtension.class);

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == PostgresDatabase.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext)
			throws ParameterResolutionException {
		ExtensionContext classContext = classContext(extensionContext);
		return classContext.getStore(NAMESPACE)
			.getOrComputeIfAbsent(ClassDatabase.class, (key) -> new ClassDatabase(serverFor(classContext)),
					ClassDatabase.class)
			.database();
	}

	private static ExtensionContext classContext(ExtensionContext context) {
		ExtensionContext current = context;
		while (current.getTestClass().isPresent() && current.getParent().isPresent()
				&& current.getParent().get().getTestClass().isPresent()) {
			current = current.getParent().get();
		}
		return current;
	}

	private static ServerResource serverFor(ExtensionContext classContext) {
		String[] settings = AnnotationSupport.findAnnotation(classContext.getRequiredTestClass(), PostgresTest.class)
			.map(PostgresTest::settings)
			.orElse(new String[0]);
		if (settings.length == 0) {
			return new ServerResource(EmbeddedPostgresServer.shared(), false);
		}
		EmbeddedPostgresServer.Builder builder = EmbeddedPostgresServer.builder();
		for (String setting : settings) {
			builder.setting(setting);
		}
		return new ServerResource(builder.start(), true);
	}

	private record ServerResource(EmbeddedPostgresServer server, boolean owned) {
	}

	/** The class's database, closed by JUnit when the class's store closes. */
	private static final class ClassDatabase implements AutoCloseable {

		private final ServerResource server;

		private final PostgresDatabase database;

		ClassDatabase(ServerResource server) {
			this.server = server;
			this.database = server.server().createDatabase();
		}

		PostgresDatabase database() {
			return this.database;
		}

		@Override
		public void close() {
			if (this.server.owned()) {
				this.server.server().close();
			}
			else {
				this.database.drop();
			}
		}

	}

}
