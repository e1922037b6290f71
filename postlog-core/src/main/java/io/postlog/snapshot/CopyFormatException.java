package io.postlog.snapshot;

/**
 * The {@code COPY} data did not have the expected shape. Names the reason and the byte
 * offset, never the data; no stack trace, since the reader wraps it at once with the
 * table and chunk.
 */
final class CopyFormatException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	CopyFormatException(String reason, long offset) {
		super(reason + " at byte " + offset + " of the COPY data", null, false, false);
	}

}
