package io.postlog.heartbeat;

import java.time.Instant;

/**
 * Told when a heartbeat was written and when one came back through the stream.
 * Implementations are thread-safe: the emitter and the consumer's reader call them from
 * their own threads. Methods must be quick and must not throw.
 */
public interface HeartbeatMonitor {

	/**
	 * A heartbeat was written to the database.
	 * @param heartbeat the heartbeat
	 */
	void emitted(Heartbeat heartbeat);

	/**
	 * A heartbeat came back through the stream; any instance's, the monitor picks its
	 * own.
	 * @param heartbeat the heartbeat
	 * @param receivedAt when the consumer read it
	 */
	void received(Heartbeat heartbeat, Instant receivedAt);

	/**
	 * The consumer started streaming (first start, reconnect, or after standby) and will
	 * report the heartbeats it reads. Heartbeats written before may have gone to another
	 * reader of the slot and never come back, so they no longer count as overdue.
	 * @param at when the stream started
	 */
	void streamStarted(Instant at);

}
