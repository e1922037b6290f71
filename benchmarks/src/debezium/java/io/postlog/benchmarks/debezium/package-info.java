/**
 * The end-to-end benchmark's Debezium embedded legs, built with {@code -Pdebezium}.
 */
@NullMarked
package io.postlog.benchmarks.debezium;

import org.jspecify.annotations.NullMarked;
