/**
 * Spring Integration: an inbound channel adapter that sends every change to a flow and
 * acknowledges it when the flow returns.
 */
@NullMarked
package io.postlog.integration;

import org.jspecify.annotations.NullMarked;
