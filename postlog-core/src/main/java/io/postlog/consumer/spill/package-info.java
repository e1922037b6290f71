/**
 * Spill: where a streamed (large, in-progress) transaction waits until its Stream Commit,
 * on the heap within a budget and then in spill files, and the replay of it in order.
 * Internal: the types that are public here are public so the consumer can use them, not
 * as API, except the exceptions and {@link StreamingOptions}. Depends only on
 * {@code io.postlog} and {@code io.postlog.pgoutput}, never on the consumer.
 */
@NullMarked
package io.postlog.consumer.spill;

import org.jspecify.annotations.NullMarked;
