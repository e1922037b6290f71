/**
 * Auto-configuration for postlog's actuator endpoint support.
 */
@NullMarked
package io.postlog.spring.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
