package io.postlog.admin;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps a connection and counts the statements made on it, to prove that refused input
 * never reached the server.
 */
final class CountingConnection {

	private static final Set<String> STATEMENT_FACTORIES = Set.of("createStatement", "prepareStatement", "prepareCall",
			"nativeSQL");

	private final AtomicInteger statements = new AtomicInteger();

	private final Connection connection;

	CountingConnection(Connection target) {
		this.connection = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					if (STATEMENT_FACTORIES.contains(method.getName())) {
						this.statements.incrementAndGet();
					}
					try {
						return method.invoke(target, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	Connection connection() {
		return this.connection;
	}

	int statements() {
		return this.statements.get();
	}

}
