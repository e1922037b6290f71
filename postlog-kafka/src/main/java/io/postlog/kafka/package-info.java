/**
 * The Kafka relay: changes of chosen tables and outbox events (an outbox table's inserted
 * rows, or transactional logical messages) relayed to Kafka in Kafka transactions that
 * also carry the relayed position, so that {@code read_committed} consumers see every
 * change exactly once.
 */
@NullMarked
package io.postlog.kafka;

import org.jspecify.annotations.NullMarked;
