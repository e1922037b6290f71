package io.postlog.stream;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * Watches the socket under one replication connection: counts the bytes the server sent
 * and notices the end of the stream, which pgjdbc's non-blocking read takes for "no data
 * yet". pgjdbc creates the socket through {@link ProbingSocketFactory}, which finds the
 * probe by the id passed as {@code socketFactoryArg}. Thread-safe.
 */
final class SocketProbe implements AutoCloseable {

	private static final Map<String, SocketProbe> probes = new ConcurrentHashMap<>();

	private final String id = UUID.randomUUID().toString();

	private final AtomicLong bytes = new AtomicLong();

	private volatile boolean endOfStream;

	private volatile @Nullable Socket socket;

	private SocketProbe() {
	}

	/**
	 * Creates a probe that sockets made with its {@link #id()} report to.
	 * @return the probe, to be closed when its connection is
	 */
	static SocketProbe register() {
		SocketProbe probe = new SocketProbe();
		probes.put(probe.id, probe);
		return probe;
	}

	static @Nullable SocketProbe find(@Nullable String id) {
		return (id != null) ? probes.get(id) : null;
	}

	String id() {
		return this.id;
	}

	/**
	 * Returns whether pgjdbc made its socket through this probe, that is whether the
	 * connection factory passed postlog's properties on.
	 * @return {@code true} if the probe sees the connection
	 */
	boolean attached() {
		return this.socket != null;
	}

	/**
	 * Returns how many bytes the server has sent so far.
	 * @return the count
	 */
	long bytesReceived() {
		return this.bytes.get();
	}

	/**
	 * Returns whether the server closed its side of the connection.
	 * @return {@code true} once a read returned end of stream
	 */
	boolean endOfStream() {
		return this.endOfStream;
	}

	/**
	 * Makes the socket pgjdbc will connect; a later one (after a refused SSL request)
	 * replaces the earlier.
	 */
	Socket newSocket() {
		ProbedSocket created = new ProbedSocket();
		this.socket = created;
		this.endOfStream = false;
		return created;
	}

	@Override
	public void close() {
		probes.remove(this.id);
	}

	/**
	 * A plain socket whose input stream reports to the probe.
	 */
	private final class ProbedSocket extends Socket {

		private @Nullable InputStream input;

		@Override
		public synchronized InputStream getInputStream() throws IOException {
			if (this.input == null) {
				this.input = new CountingInput(super.getInputStream());
			}
			return this.input;
		}

	}

	private final class CountingInput extends FilterInputStream {

		CountingInput(InputStream in) {
			super(in);
		}

		@Override
		public int read() throws IOException {
			int read = super.read();
			if (read < 0) {
				SocketProbe.this.endOfStream = true;
			}
			else {
				SocketProbe.this.bytes.incrementAndGet();
			}
			return read;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			int read = super.read(buffer, offset, length);
			if (read < 0) {
				SocketProbe.this.endOfStream = true;
			}
			else {
				SocketProbe.this.bytes.addAndGet(read);
			}
			return read;
		}

	}

}
