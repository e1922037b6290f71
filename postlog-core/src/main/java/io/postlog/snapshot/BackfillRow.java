package io.postlog.snapshot;

/**
 * One row of a backfill chunk as it was read, its values still encoded. A chunk waits for
 * its high watermark and then for its slices to go, while the next one is read; held as
 * one array per row instead of as decoded values (a dozen objects per row), two chunks in
 * flight cost every young collection meanwhile little to copy. {@link BackfillChunk#row}
 * and {@link BackfillChunk#key} decode it.
 *
 * @param values the published columns' values in table order, each a big-endian 32-bit
 * length ({@code -1} for NULL) followed by that many bytes, as {@code COPY} gave them
 * (the type's send output, or its text with {@code COPY}'s escaping undone); never
 * changed after the read
 * @param route the lane routing key a streamed change of this key has
 * @param bytes about the bytes its values took as read, which bounds what lanes queue
 */
public record BackfillRow(byte[] values, int route, int bytes) {

}
