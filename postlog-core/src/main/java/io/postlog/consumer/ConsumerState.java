package io.postlog.consumer;

/**
 * The life of a {@link ReplicationConsumer}.
 */
public enum ConsumerState {

	/** Connecting and starting the stream. */
	STARTING,

	/**
	 * Delivering the initial snapshot: every row of the published tables as a
	 * {@link io.postlog.Operation#SNAPSHOT} change, before the stream starts.
	 */
	SNAPSHOT,

	/** Waiting because another process holds the slot; retried until it is free. */
	STANDBY,

	/** Streaming and delivering. */
	RUNNING,

	/** Waiting to retry after a handler failure or a lost connection. */
	RETRYING,

	/**
	 * Gave up: retries ran out or the failure cannot be retried; nothing more is acked.
	 */
	FAILED,

	/** Stopped by {@link ReplicationConsumer#stop()}. */
	STOPPED

}
