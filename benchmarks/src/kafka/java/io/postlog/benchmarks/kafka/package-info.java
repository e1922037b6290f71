/**
 * The end-to-end run's Kafka legs: the relay's rate on the workload and the outbox's
 * commit-to-consumer latency, against an embedded KRaft broker.
 */
@NullMarked
package io.postlog.benchmarks.kafka;

import org.jspecify.annotations.NullMarked;
