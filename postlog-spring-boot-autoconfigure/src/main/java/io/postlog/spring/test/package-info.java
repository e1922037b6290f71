/**
 * Test helpers for applications that use postlog.
 */
@NullMarked
package io.postlog.spring.test;

import org.jspecify.annotations.NullMarked;
