/**
 * Auto-configuration for postlog: properties, slot and publication set-up, listener
 * discovery and lifecycle.
 */
@NullMarked
package io.postlog.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
