/**
 * The Kafka relay's entry on the {@code postlog} actuator endpoint.
 */
@NullMarked
package io.postlog.kafka.actuate;

import org.jspecify.annotations.NullMarked;
