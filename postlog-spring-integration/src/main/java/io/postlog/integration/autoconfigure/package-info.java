/**
 * Spring Boot auto-configuration of the Spring Integration adapter
 * ({@code postlog.integration.*}).
 */
@NullMarked
package io.postlog.integration.autoconfigure;

import org.jspecify.annotations.NullMarked;
