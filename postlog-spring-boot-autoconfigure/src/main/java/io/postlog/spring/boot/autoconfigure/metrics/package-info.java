/**
 * Auto-configuration for postlog's actuator metrics support.
 */
@NullMarked
package io.postlog.spring.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
