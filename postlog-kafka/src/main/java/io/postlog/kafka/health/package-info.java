/**
 * The {@code postlogKafka} health indicator.
 */
@NullMarked
package io.postlog.kafka.health;

import org.jspecify.annotations.NullMarked;
