/**
 * JMH benchmarks of postlog.
 */
@NullMarked
package io.postlog.benchmarks;

import org.jspecify.annotations.NullMarked;
