/**
 * Delivery: how the stream's events reach the subscriptions and how far the slot may be
 * confirmed. It holds the dispatcher (every event to every subscription in configuration
 * order, on the delivery thread), the sink transaction of a transactional checkpoint
 * store (source transactions and chunk rows committed with the checkpoint, rolled back
 * and delivered again on a failure, counted in the failure ledger), the acknowledgement
 * window (transactions in flight in commit order, the acknowledgements handed out, the
 * positions held by subscriptions that are not running), the bounded hand-off between the
 * reading thread and the delivering ones, the events handed over, each subscription's
 * target (in place on the delivery thread, or on lanes by routing key), the consumer's
 * named threads and its stop signal, and the recogniser that keeps heartbeats coming back
 * from every subscription.
 * <p>
 * Internal: the types that are public here are public so the consumer can use them, not
 * as API; they may change in any release. Depends only on {@code io.postlog},
 * {@code io.postlog.heartbeat} and {@code io.postlog.consumer.checkpoint} (a chunk's
 * mark), never on {@code io.postlog.consumer} (checked by {@code ArchitectureTests}): the
 * consumer's API types reach delivery as its own small interfaces, which the consumer
 * implements. A subscription is a {@link io.postlog.consumer.delivery.Recipient}, the
 * call of its handler (retries and error handler included) a
 * {@link io.postlog.consumer.delivery.Runner}, the consumer the dispatcher's
 * {@link io.postlog.consumer.delivery.DispatchHost}, a transactional checkpoint store a
 * {@link io.postlog.consumer.delivery.CheckpointSink}; the window tells a
 * {@code Consumer<Lsn>} when the acknowledged position moves, and a subscription's marks
 * carry whatever the consumer describes an outstanding acknowledgement by.
 * <p>
 * The transaction open in delivery has one owner, the dispatcher; everything on the
 * delivery thread (the backfill window, the session's waits) asks it. The reading
 * thread's assembler keeps a different fact, the transaction it is decoding, which runs
 * ahead of delivery by whatever the hand-off holds; neither thread reads the other's.
 */
@NullMarked
package io.postlog.consumer.delivery;

import org.jspecify.annotations.NullMarked;
