/**
 * The replication consumer: ordered, at-least-once delivery to handlers.
 */
@NullMarked
package io.postlog.consumer;

import org.jspecify.annotations.NullMarked;
