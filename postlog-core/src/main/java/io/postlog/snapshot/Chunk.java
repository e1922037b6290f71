package io.postlog.snapshot;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One piece of a table that one reader copies in one statement: a range of heap blocks
 * (read by a TID range scan, PostgreSQL 14 and later), a range of an integer key (read by
 * an index range scan), or the whole table. The first and last ranges are open-ended, so
 * the chunks of a table cover every row whatever the estimates were.
 *
 * @param index the 0-based position among the table's chunks
 * @param where the condition selecting the chunk's rows, built from numbers and a quoted
 * column name only, or {@code null} for the whole table
 * @param description what the chunk covers, for progress and errors; never a row value
 * @param bounds the same range as numbers, which a resumed snapshot reads again
 */
record Chunk(int index, @Nullable String where, String description, Bounds bounds) {

	/** More chunks than this only add statements; larger chunks are used instead. */
	static final int MAX_CHUNKS = 100_000;

	/**
	 * Assumed when the catalog has no density for a table (never vacuumed or analyzed).
	 */
	static final long DEFAULT_ROWS_PER_BLOCK = 100;

	static List<Chunk> whole(String description) {
		return List.of(new Chunk(0, null, description, new Bounds(ChunkRange.Kind.WHOLE, null, null, null)));
	}

	/**
	 * Splits heap blocks {@code 0} to {@code blocks - 1} into ranges of about
	 * {@code chunkSize} rows.
	 * @param blocks the table's current size in blocks
	 * @param rowsPerBlock the estimated rows per block, or 0 if unknown
	 * @param chunkSize the wanted rows per chunk
	 * @return the chunks
	 */
	static List<Chunk> blockRanges(long blocks, double rowsPerBlock, int chunkSize) {
		double density = (rowsPerBlock > 0) ? rowsPerBlock : DEFAULT_ROWS_PER_BLOCK;
		long perChunk = Math.max(1, (long) Math.floor(chunkSize / density));
		perChunk = Math.max(perChunk, ceilDiv(blocks, MAX_CHUNKS));
		long count = Math.max(1, ceilDiv(blocks, perChunk));
		List<Chunk> chunks = new ArrayList<>((int) count);
		for (int i = 0; i < count; i++) {
			long from = i * perChunk;
			boolean last = i == count - 1;
			String where = "ctid >= '(" + from + ",0)'::tid"
					+ (last ? "" : " AND ctid < '(" + (from + perChunk) + ",0)'::tid");
			String description = last ? "blocks from " + from : "blocks " + from + " to " + (from + perChunk - 1);
			chunks.add(new Chunk(i, where, description,
					new Bounds(ChunkRange.Kind.BLOCKS, null, (i == 0) ? null : from, last ? null : from + perChunk)));
		}
		return chunks;
	}

	/**
	 * Splits the key range {@code min} to {@code max} into ranges of about
	 * {@code chunkSize} rows, assuming the rows spread evenly over it.
	 * @param quotedKey the key column, quoted
	 * @param keyName the key column's name, for descriptions
	 * @param min the smallest key under the snapshot
	 * @param max the largest key under the snapshot
	 * @param estimatedRows the estimated rows, or a negative number if unknown
	 * @param chunkSize the wanted rows per chunk
	 * @return the chunks
	 */
	static List<Chunk> keyRanges(String quotedKey, String keyName, long min, long max, long estimatedRows,
			int chunkSize) {
		BigInteger span = BigInteger.valueOf(max).subtract(BigInteger.valueOf(min)).add(BigInteger.ONE);
		BigInteger rows = (estimatedRows >= 0) ? BigInteger.valueOf(estimatedRows) : span;
		BigInteger size = BigInteger.valueOf(chunkSize);
		long count = rows.add(size)
			.subtract(BigInteger.ONE)
			.divide(size)
			.max(BigInteger.ONE)
			.min(BigInteger.valueOf(MAX_CHUNKS))
			.min(span)
			.longValueExact();
		if (count <= 1) {
			return whole("key range of column " + keyName);
		}
		BigInteger width = span.add(BigInteger.valueOf(count - 1)).divide(BigInteger.valueOf(count));
		List<Chunk> chunks = new ArrayList<>((int) count);
		for (int i = 0; i < count; i++) {
			BigInteger from = BigInteger.valueOf(min).add(width.multiply(BigInteger.valueOf(i)));
			BigInteger to = from.add(width);
			String lower = (i == 0) ? null : quotedKey + " >= " + from;
			String upper = (i == count - 1) ? null : quotedKey + " < " + to;
			String where = (lower == null) ? upper : (upper == null) ? lower : lower + " AND " + upper;
			chunks.add(new Chunk(i, where, "part " + (i + 1) + " of the key range of column " + keyName,
					new Bounds(ChunkRange.Kind.KEYS, keyName, (lower == null) ? null : from.longValueExact(),
							(upper == null) ? null : to.longValueExact())));
		}
		return chunks;
	}

	ChunkRange range(io.postlog.TableId table) {
		return new ChunkRange(table, this.index, this.bounds.kind(), this.bounds.column(), this.bounds.from(),
				this.bounds.to());
	}

	/**
	 * A chunk's range as numbers.
	 */
	record Bounds(ChunkRange.Kind kind, @Nullable String column, @Nullable Long from, @Nullable Long to) {

	}

	private static long ceilDiv(long dividend, long divisor) {
		return -Math.floorDiv(-dividend, divisor);
	}

}
