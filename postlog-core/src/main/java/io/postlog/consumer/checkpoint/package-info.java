/**
 * Checkpoint: the table a {@link io.postlog.consumer.JdbcCheckpointStore} keeps its
 * positions in, and the errors a checkpoint store raises. The store interfaces stay in
 * {@code io.postlog.consumer} as API. Depends only on {@code io.postlog} and JDBC, never
 * on the consumer.
 */
@NullMarked
package io.postlog.consumer.checkpoint;

import org.jspecify.annotations.NullMarked;
