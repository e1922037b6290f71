/**
 * The one JSON form of decoded rows and values, shared by postlog's Spring and Kafka
 * modules.
 */
@NullMarked
package io.postlog.json;

import org.jspecify.annotations.NullMarked;
