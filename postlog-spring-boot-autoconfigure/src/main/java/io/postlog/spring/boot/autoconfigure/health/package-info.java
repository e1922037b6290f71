/**
 * Auto-configuration for postlog's actuator health support.
 */
@NullMarked
package io.postlog.spring.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
