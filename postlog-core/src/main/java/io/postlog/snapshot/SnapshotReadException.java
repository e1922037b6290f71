package io.postlog.snapshot;

import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * Reading a table of the snapshot failed: a reader connection, its {@code COPY}, the
 * table's catalog entry or the decoding of a value. Names the table and the chunk, never
 * a row value; the cause (an {@link java.sql.SQLException} with its SQLState, or a
 * value-free decoding error) is kept.
 */
public class SnapshotReadException extends SnapshotException {

	private static final long serialVersionUID = 1L;

	private final @Nullable TableId table;

	private final @Nullable String chunk;

	/**
	 * Creates an exception.
	 * @param message what failed, without row values
	 * @param table the table being read, or {@code null} when no table was
	 * @param chunk the chunk being read (for example {@code 3 of 8, blocks 256 to 383}),
	 * or {@code null} when none was
	 * @param cause the underlying failure
	 */
	public SnapshotReadException(String message, @Nullable TableId table, @Nullable String chunk,
			@Nullable Throwable cause) {
		super(message, cause);
		this.table = table;
		this.chunk = chunk;
	}

	/**
	 * Returns the table whose read failed.
	 * @return the table, or {@code null} if the failure was not in a table's read
	 */
	public @Nullable TableId table() {
		return this.table;
	}

	/**
	 * Returns the chunk whose read failed.
	 * @return a description of the chunk, or {@code null}
	 */
	public @Nullable String chunk() {
		return this.chunk;
	}

}
