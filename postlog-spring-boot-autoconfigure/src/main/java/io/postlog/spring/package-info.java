/**
 * Listener annotations and the registry that runs postlog's replication consumer in a
 * Spring application.
 */
@NullMarked
package io.postlog.spring;

import org.jspecify.annotations.NullMarked;
