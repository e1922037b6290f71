/**
 * Micrometer metrics for postlog.
 */
@NullMarked
package io.postlog.spring.boot.metrics;

import org.jspecify.annotations.NullMarked;
