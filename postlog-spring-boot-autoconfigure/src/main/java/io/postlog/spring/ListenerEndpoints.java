package io.postlog.spring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.postlog.PostlogException;
import io.postlog.TableId;

/**
 * What the {@link PostlogListenerRegistry} reads from the listener endpoints as a whole
 * before it starts the groups: that their ids are distinct, which group each belongs to,
 * and which tables a group's listeners read. Stateless.
 */
final class ListenerEndpoints {

	private ListenerEndpoints() {
	}

	static void requireDistinctIds(List<ListenerEndpoint> endpoints) {
		Set<String> ids = new LinkedHashSet<>();
		for (ListenerEndpoint endpoint : endpoints) {
			if (!ids.add(endpoint.id())) {
				throw new PostlogException("Two postlog listeners have the id '" + endpoint.id()
						+ "'; give them distinct ids with @PgChangeListener(id = ...)");
			}
		}
	}

	/**
	 * Returns the endpoints by group, the default group first, leaving out groups without
	 * endpoints.
	 */
	static Map<String, List<ListenerEndpoint>> byGroup(List<ListenerEndpoint> endpoints) {
		Map<String, List<ListenerEndpoint>> groups = new LinkedHashMap<>();
		groups.put(PostlogConsumerGroup.DEFAULT, new ArrayList<>());
		for (ListenerEndpoint endpoint : endpoints) {
			groups.computeIfAbsent(endpoint.group(), (name) -> new ArrayList<>()).add(endpoint);
		}
		groups.values().removeIf(List::isEmpty);
		return groups;
	}

	/**
	 * Returns the tables the row-reading listeners of a group name, empty if any of them
	 * takes every published table.
	 */
	static List<TableId> tables(List<ListenerEndpoint> endpoints) {
		Set<TableId> tables = new LinkedHashSet<>();
		for (ListenerEndpoint endpoint : endpoints) {
			if (endpoint.shape().readsRows()) {
				if (endpoint.tables().isEmpty()) {
					return List.of();
				}
				tables.addAll(endpoint.tables());
			}
		}
		return List.copyOf(tables);
	}

}
