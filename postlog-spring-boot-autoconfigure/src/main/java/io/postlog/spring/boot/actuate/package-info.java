/**
 * The postlog actuator endpoint.
 */
@NullMarked
package io.postlog.spring.boot.actuate;

import org.jspecify.annotations.NullMarked;
