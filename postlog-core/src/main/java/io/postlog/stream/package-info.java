/**
 * The logical replication stream the consumer reads, and its pgjdbc implementation.
 */
@NullMarked
package io.postlog.stream;

import org.jspecify.annotations.NullMarked;
