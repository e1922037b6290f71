/**
 * The orders sample application.
 */
@NullMarked
package io.postlog.sample.orders;

import org.jspecify.annotations.NullMarked;
