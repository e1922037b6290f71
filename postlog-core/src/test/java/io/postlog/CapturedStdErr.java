package io.postlog;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies what is written to {@code System.err} (where slf4j-simple logs in tests) while
 * open, still passing it on. Not for tests that run in parallel.
 */
public final class CapturedStdErr implements AutoCloseable {

	private final PrintStream original = System.err;

	private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

	private CapturedStdErr() {
		System.setErr(new PrintStream(new OutputStream() {

			@Override
			public void write(int b) {
				synchronized (CapturedStdErr.this.captured) {
					CapturedStdErr.this.captured.write(b);
				}
				CapturedStdErr.this.original.write(b);
			}

		}, true, StandardCharsets.UTF_8));
	}

	/**
	 * Starts capturing.
	 * @return the capture, to close when done
	 */
	public static CapturedStdErr start() {
		return new CapturedStdErr();
	}

	/**
	 * Returns what was written so far.
	 * @return the text
	 */
	public String text() {
		synchronized (this.captured) {
			return this.captured.toString(StandardCharsets.UTF_8);
		}
	}

	@Override
	public void close() {
		System.setErr(this.original);
	}

}
