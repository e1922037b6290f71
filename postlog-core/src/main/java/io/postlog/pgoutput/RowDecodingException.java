package io.postlog.pgoutput;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A tuple could not be turned into a {@link io.postlog.Row}: its relation is unknown, its
 * width does not match the relation, or one of its values failed to decode. The message
 * names the relation OID or table, the column and the type OID, never a value.
 */
public class RowDecodingException extends PostlogException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what went wrong, without any value
	 * @param cause the value decoding failure, or {@code null}
	 */
	public RowDecodingException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
