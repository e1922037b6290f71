package io.postlog.snapshot;

import java.util.List;

import io.postlog.Row;
import org.jspecify.annotations.Nullable;

/**
 * One row of a backfill chunk.
 *
 * @param row the row, every published column decoded as the stream decodes it
 * @param key its key, as {@link BackfillTable#keyOf} gives a streamed change's
 * @param route the lane routing key a streamed change of this key has
 * @param bytes about the bytes its values took as read, which bounds what lanes queue
 */
public record BackfillRow(Row row, List<@Nullable Object> key, int route, int bytes) {

}
