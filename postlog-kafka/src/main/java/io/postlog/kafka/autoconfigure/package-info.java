/**
 * Spring Boot auto-configuration of the Kafka relay ({@code postlog.kafka.*}).
 */
@NullMarked
package io.postlog.kafka.autoconfigure;

import org.jspecify.annotations.NullMarked;
