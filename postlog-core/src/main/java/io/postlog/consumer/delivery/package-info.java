/**
 * Delivery: the acknowledgement window that decides how far the slot may be confirmed
 * (transactions in flight in commit order, acknowledgements handed out, the positions
 * held by subscriptions that are not running) and the bounded hand-off between the
 * reading thread and the delivering ones.
 * <p>
 * Internal: the types that are public here are public so the consumer can use them, not
 * as API; they may change in any release. Depends only on {@code io.postlog}, never on
 * {@code io.postlog.consumer}: what the consumer's API types mean to delivery comes in as
 * plain values and callbacks (the window tells a {@code Consumer<Lsn>} when the
 * acknowledged position moves; a subscription's marks carry whatever the consumer
 * describes an outstanding acknowledgement by).
 */
@NullMarked
package io.postlog.consumer.delivery;

import org.jspecify.annotations.NullMarked;
