package io.postlog.consumer;

import org.junit.jupiter.api.Assumptions;

/**
 * Skips a test class before its server starts when the build's PostgreSQL
 * ({@code -Dpostlog.postgres.version}) cannot stream in-progress transactions: a class
 * server started with {@code logical_decoding_work_mem} does not even start before 13.
 * Call it from a static {@code @BeforeAll}, which runs before any database parameter is
 * resolved.
 */
final class StreamingServers {

	private StreamingServers() {
	}

	static void assumeStreaming() {
		String version = System.getProperty("postlog.postgres.version", "17");
		int major = Integer
			.parseInt(version.substring(0, version.indexOf('.') > 0 ? version.indexOf('.') : version.length()));
		Assumptions.assumeTrue(major >= 14,
				"pgoutput streams in-progress transactions since PostgreSQL 14, the build's server is " + version);
	}

}
