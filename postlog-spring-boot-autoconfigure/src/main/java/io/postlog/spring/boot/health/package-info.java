/**
 * Actuator health for postlog.
 */
@NullMarked
package io.postlog.spring.boot.health;

import org.jspecify.annotations.NullMarked;
