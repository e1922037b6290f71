package io.postlog.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * Settings of the pglogical decoder. Bound under {@code postlog.pglogical}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogPglogicalProperties {

	/**
	 * Comma-separated list of the local pglogical node's replication sets whose tables
	 * are streamed.
	 */
	private List<String> replicationSets = new ArrayList<>(List.of("default"));

	public List<String> getReplicationSets() {
		return this.replicationSets;
	}

	public void setReplicationSets(List<String> replicationSets) {
		this.replicationSets = replicationSets;
	}

}
