/**
 * The replication consumer: ordered, at-least-once delivery to handlers.
 * <p>
 * This package is the API ({@link io.postlog.consumer.ReplicationConsumer} and its
 * builder, the handler interfaces, {@link io.postlog.consumer.Subscription},
 * {@link io.postlog.consumer.CheckpointStore}, the states and the observer) and the
 * consumer's loop, which builds everything below it. The rooms below depend on
 * {@code io.postlog} and the other core packages, never on this one, so that the package
 * graph has no cycle (checked by {@code ArchitectureTests}):
 * <ul>
 * <li>{@code io.postlog.consumer.delivery}: the dispatcher, the acknowledgement window,
 * the hand-off between the reading and the delivering threads, the events handed over,
 * each subscription's target (in place or on lanes), and the sink transaction of a
 * transactional checkpoint store with its failure ledger; a subscription reaches it as a
 * {@code Recipient} and its handler's call as a {@code Runner} ({@code ListenerRunner},
 * which keeps the retries and the error handler's decision here, with the API types they
 * use), the consumer as a {@code DispatchHost} and its checkpoint store as a
 * {@code CheckpointSink} ({@code ConsumerDispatch}, which makes the dispatcher);</li>
 * <li>{@code io.postlog.consumer.backfill}: backfills while the stream runs (the runner
 * and the backfill of one table, the watermark window in front of the dispatcher and its
 * merge of TOASTed values, the progress table), installed only when backfills are on; the
 * consumer is its {@code BackfillHost} ({@code ConsumerBackfills}), and each
 * {@link io.postlog.consumer.Backfill} shows one of its {@code BackfillJob}s;</li>
 * <li>{@code io.postlog.consumer.spill}: streamed (large, in-progress) transactions on
 * the heap and in spill files until their commit;</li>
 * <li>{@code io.postlog.consumer.checkpoint}: the table a JDBC checkpoint store keeps its
 * positions in, and the store's errors.</li>
 * </ul>
 * A handler's shape is resolved once, when its {@code Subscription} is made, into the
 * closed {@code ListenerShape} delivery calls; the observer is called only through
 * {@link io.postlog.consumer.GuardedConsumerListener}. Types that are public only so
 * another postlog package can use them say so in their javadoc: they are internal, not
 * API.
 */
@NullMarked
package io.postlog.consumer;

import org.jspecify.annotations.NullMarked;
