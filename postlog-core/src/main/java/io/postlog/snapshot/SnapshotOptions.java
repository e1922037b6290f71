package io.postlog.snapshot;

import java.time.Duration;
import java.util.Objects;

import io.postlog.admin.PgIdentifiers;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link SnapshotReader} reads. Immutable.
 *
 * @param parallelism how many connections read chunks at once
 * ({@code postlog.snapshot.parallelism})
 * @param chunkSize about how many rows one chunk holds
 * ({@code postlog.snapshot.chunk-size}); chunks are sized from the catalog's estimates,
 * so a chunk may hold more or fewer
 * @param binary whether to read with binary {@code COPY} (as pgoutput's binary values),
 * else text {@code COPY}
 * @param publication the publication whose column lists and row filters (PostgreSQL 15
 * and later) the snapshot applies, so it holds what the stream would publish;
 * {@code null} reads every column of every row
 * @param progressInterval how often progress is logged, at most
 */
public record SnapshotOptions(int parallelism, int chunkSize, boolean binary, @Nullable String publication,
		Duration progressInterval) {

	/** The default {@link #parallelism()}. */
	public static final int DEFAULT_PARALLELISM = 2;

	/** The default {@link #chunkSize()}. */
	public static final int DEFAULT_CHUNK_SIZE = 100_000;

	/**
	 * Creates options.
	 * @param parallelism the number of reader connections, 1 to 64
	 * @param chunkSize rows per chunk, at least 1
	 * @param binary whether to read binary
	 * @param publication the publication, or {@code null}
	 * @param progressInterval the progress log interval, positive
	 */
	public SnapshotOptions {
		if (parallelism < 1 || parallelism > 64) {
			throw new IllegalArgumentException("Snapshot parallelism must be 1 to 64, not " + parallelism);
		}
		if (chunkSize < 1) {
			throw new IllegalArgumentException("Snapshot chunk size must be at least 1, not " + chunkSize);
		}
		if (publication != null) {
			PgIdentifiers.requireName("publication", publication);
		}
		Objects.requireNonNull(progressInterval, "progressInterval");
		if (progressInterval.isNegative() || progressInterval.isZero()) {
			throw new IllegalArgumentException("Snapshot progress interval must be positive");
		}
	}

	/**
	 * Returns the defaults: parallelism 2, chunks of 100,000 rows, binary, no
	 * publication, progress every 5 seconds.
	 * @return the default options
	 */
	public static SnapshotOptions defaults() {
		return new SnapshotOptions(DEFAULT_PARALLELISM, DEFAULT_CHUNK_SIZE, true, null, Duration.ofSeconds(5));
	}

	/**
	 * Returns these options with another parallelism.
	 * @param parallelism the number of reader connections
	 * @return new options
	 */
	public SnapshotOptions withParallelism(int parallelism) {
		return new SnapshotOptions(parallelism, this.chunkSize, this.binary, this.publication, this.progressInterval);
	}

	/**
	 * Returns these options with another chunk size.
	 * @param chunkSize rows per chunk
	 * @return new options
	 */
	public SnapshotOptions withChunkSize(int chunkSize) {
		return new SnapshotOptions(this.parallelism, chunkSize, this.binary, this.publication, this.progressInterval);
	}

	/**
	 * Returns these options reading binary or text.
	 * @param binary whether to read binary
	 * @return new options
	 */
	public SnapshotOptions withBinary(boolean binary) {
		return new SnapshotOptions(this.parallelism, this.chunkSize, binary, this.publication, this.progressInterval);
	}

	/**
	 * Returns these options applying a publication's column lists and row filters.
	 * @param publication the publication, or {@code null}
	 * @return new options
	 */
	public SnapshotOptions withPublication(@Nullable String publication) {
		return new SnapshotOptions(this.parallelism, this.chunkSize, this.binary, publication, this.progressInterval);
	}

	/**
	 * Returns these options with another progress log interval.
	 * @param progressInterval the interval
	 * @return new options
	 */
	public SnapshotOptions withProgressInterval(Duration progressInterval) {
		return new SnapshotOptions(this.parallelism, this.chunkSize, this.binary, this.publication, progressInterval);
	}

}
