/**
 * Micrometer meters of the Kafka relay.
 */
@NullMarked
package io.postlog.kafka.metrics;

import org.jspecify.annotations.NullMarked;
