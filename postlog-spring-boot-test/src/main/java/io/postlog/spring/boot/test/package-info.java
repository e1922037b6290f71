/**
 * Helpers for tests of applications that use postlog listeners; add
 * {@code io.postlog:postlog-spring-boot-test} with test scope.
 */
@NullMarked
package io.postlog.spring.boot.test;

import org.jspecify.annotations.NullMarked;
