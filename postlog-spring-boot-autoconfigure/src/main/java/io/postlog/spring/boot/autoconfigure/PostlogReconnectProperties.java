package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * Back-off between attempts to reach the server again after the replication connection is
 * lost, or while another process holds the slot; reconnecting never gives up and uses
 * none of a listener's attempts. The default (100 ms, doubling, at most 5 s) tries a
 * restart or failover often in its first seconds and then about every 5 s, so streaming
 * resumes at most about 5 s after the server accepts connections again. Bound under
 * {@code postlog.reconnect}, a group of {@link PostlogProperties}; not thread-safe, bound
 * once at start-up.
 */
public class PostlogReconnectProperties extends PostlogBackOffProperties {

	public PostlogReconnectProperties() {
		super(Duration.ofMillis(100), 2, Duration.ofSeconds(5));
	}

}
