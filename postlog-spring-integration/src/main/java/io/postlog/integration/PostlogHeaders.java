package io.postlog.integration;

/**
 * The headers of the messages a {@link PostlogInboundChannelAdapter} sends.
 */
public final class PostlogHeaders {

	/** The prefix of every postlog header. */
	public static final String PREFIX = "postlog_";

	/** The change id ({@code String}), the same on redelivery: a dedupe key. */
	public static final String CHANGE_ID = PREFIX + "changeId";

	/** The commit LSN of the change's transaction ({@link io.postlog.Lsn}). */
	public static final String COMMIT_LSN = PREFIX + "commitLsn";

	/** The change's table ({@link io.postlog.TableId}). */
	public static final String TABLE = PREFIX + "table";

	/** The change's operation ({@link io.postlog.Operation}). */
	public static final String OPERATION = PREFIX + "operation";

	/**
	 * The listener group whose consumer delivered the change ({@code String};
	 * {@code default} for the default group).
	 */
	public static final String GROUP = PREFIX + "group";

	private PostlogHeaders() {
	}

}
