package io.postlog.stream;

/**
 * Opens a logical replication stream on a fresh connection, once per (re)connect.
 */
@FunctionalInterface
public interface LogicalStreamFactory {

	/**
	 * Opens and starts a stream.
	 * @param request what to stream
	 * @return the started stream, owned by the caller
	 * @throws io.postlog.PostlogException if the connection or START_REPLICATION fails; a
	 * slot held by another process is reported as {@link io.postlog.PostlogException}
	 * with SQLState {@code 55006} available through its cause
	 */
	LogicalStream open(StreamRequest request);

}
