/**
 * Backfills: reading tables while the stream runs (the DBLog watermark algorithm). It
 * holds the backfill thread's runner (backfills one after the other, submitted, queued,
 * resumed, cancelled or failed), the backfill of one table (chunk by chunk, two in
 * flight, with their one connection and the waits on the stream), the window in front of
 * the dispatcher on the delivery thread (chunks open between their watermarks, rows that
 * a streamed change won over dropped, chunk rows delivered in slices between streamed
 * transactions) with its merge of the updates whose TOASTed values were not resent, the
 * watermarks, the progress table, and the record of a resumable initial snapshot's
 * chunks. The consumer installs the window only when backfills are on; otherwise no event
 * passes through this room.
 * <p>
 * Internal: the types that are public here are public so the consumer can use them, not
 * as API; they may change in any release. Depends on {@code io.postlog},
 * {@code io.postlog.snapshot} and {@code io.postlog.consumer.delivery}, never on
 * {@code io.postlog.consumer} (checked by {@code ArchitectureTests}): the consumer is a
 * {@link io.postlog.consumer.backfill.BackfillHost}, its dispatcher a
 * {@link io.postlog.consumer.backfill.Downstream}, and a user's
 * {@link io.postlog.consumer.Backfill} shows a
 * {@link io.postlog.consumer.backfill.BackfillJob}.
 */
@NullMarked
package io.postlog.consumer.backfill;

import org.jspecify.annotations.NullMarked;
