package io.postlog.stream;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * Watches the socket under one replication connection: counts the bytes the server sent,
 * notices the end of the stream, which pgjdbc's non-blocking read takes for "no data
 * yet", and lets the reader {@link #awaitReadable wait in the socket} for the next byte
 * instead of polling. pgjdbc creates the socket through {@link ProbingSocketFactory},
 * which finds the probe by the id passed as {@code socketFactoryArg}. Thread-safe; the
 * socket's bytes are read by one thread at a time (the stream's owner).
 */
final class SocketProbe implements AutoCloseable {

	private static final Map<String, SocketProbe> probes = new ConcurrentHashMap<>();

	private final String id = UUID.randomUUID().toString();

	private final AtomicLong bytes = new AtomicLong();

	private volatile boolean endOfStream;

	private volatile @Nullable ProbedSocket socket;

	private volatile boolean closedByServer;

	private volatile @Nullable IOException lingerFailure;

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
	 * Waits until the server has sent bytes that pgjdbc has not read yet, or the time is
	 * up. What arrived is read from the socket in one call and held, so that pgjdbc's
	 * non-blocking read, which asks the socket how many bytes it holds, finds them and
	 * reads the message at once. Over TLS the held bytes are still encrypted and pgjdbc's
	 * non-blocking read does not see them: {@link #holdsUnread()} then stays
	 * {@code true}, and the caller polls. Called by the one thread that reads the
	 * connection.
	 * @param millis the longest wait, at least 1
	 * @return whether bytes wait to be read
	 * @throws IOException if the socket failed or was closed
	 */
	boolean awaitReadable(int millis) throws IOException {
		ProbedSocket current = this.socket;
		return current != null && current.input().awaitReadable(current, millis);
	}

	/**
	 * Returns whether bytes {@link #awaitReadable} read are still held for pgjdbc.
	 * @return {@code true} if some are held
	 */
	boolean holdsUnread() {
		ProbedSocket current = this.socket;
		CountingInput input = (current != null) ? current.input : null;
		return input != null && input.held() > 0;
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

	/**
	 * Makes the next close of the socket wait, up to a bound, until the server has closed
	 * its side: what was written last (a final status update, then pgjdbc's
	 * {@code Terminate}) is then read by the server before the socket goes. Closed at
	 * once, the socket is gone (reset, when it still holds unread bytes), and a walsender
	 * that is still sending fails a write on it and exits before it reads what arrived.
	 * Waiting, the socket first shuts its output down, so that the server reads
	 * everything up to the end of the stream, then reads and discards what the server
	 * still sends until it closes. {@link #closedByServer()} tells how the wait ended; a
	 * close from another thread (an abort) ends it.
	 * @param bound the longest wait
	 * @return whether the close will wait: {@code false} if pgjdbc did not make its
	 * socket through this probe
	 */
	boolean lingerOnClose(Duration bound) {
		ProbedSocket current = this.socket;
		if (current == null) {
			return false;
		}
		current.lingerNanos.set(Math.max(1, bound.toNanos()));
		return true;
	}

	/**
	 * Returns whether the server had closed its side when a {@link #lingerOnClose
	 * lingering} close ended.
	 * @return {@code true} if the server closed first
	 */
	boolean closedByServer() {
		return this.closedByServer;
	}

	/**
	 * Returns the exception that ended a {@link #lingerOnClose lingering} close, if one
	 * did: a reset from a server that exited (then {@link #closedByServer()} is
	 * {@code true}), a close from another thread, or a failure to shut the output down.
	 * @return the exception, or {@code null}
	 */
	@Nullable IOException lingerFailure() {
		return this.lingerFailure;
	}

	@Override
	public void close() {
		probes.remove(this.id);
	}

	/**
	 * A plain socket whose input stream reports to the probe.
	 */
	private final class ProbedSocket extends Socket {

		private static final int DISCARD_BYTES = 16 * 1024;

		private final AtomicLong lingerNanos = new AtomicLong();

		private volatile @Nullable CountingInput input;

		@Override
		public InputStream getInputStream() throws IOException {
			return input();
		}

		synchronized CountingInput input() throws IOException {
			CountingInput current = this.input;
			if (current == null) {
				current = new CountingInput(super.getInputStream());
				this.input = current;
			}
			return current;
		}

		/**
		 * Leaves the input open while a close is to linger: a TLS socket layered on this
		 * one shuts its input down before it closes it, which would end the wait at once.
		 */
		@Override
		public void shutdownInput() throws IOException {
			if (this.lingerNanos.get() == 0) {
				super.shutdownInput();
			}
		}

		@Override
		public void close() throws IOException {
			long linger = this.lingerNanos.getAndSet(0);
			try {
				if (linger > 0 && isConnected() && !isClosed()) {
					SocketProbe.this.closedByServer = awaitServerClose(linger);
				}
			}
			finally {
				super.close();
			}
		}

		private boolean awaitServerClose(long nanos) {
			long deadline = System.nanoTime() + nanos;
			byte[] discarded = new byte[DISCARD_BYTES];
			try {
				if (!isOutputShutdown()) {
					shutdownOutput();
				}
				InputStream raw = super.getInputStream();
				while (true) {
					long remaining = deadline - System.nanoTime();
					if (remaining <= 0) {
						return false;
					}
					setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
					if (raw.read(discarded) < 0) {
						return true;
					}
				}
			}
			catch (SocketTimeoutException ex) {
				return false;
			}
			catch (IOException ex) {
				SocketProbe.this.lingerFailure = ex;
				return !isClosed();
			}
		}

	}

	/**
	 * The socket's input stream: counts what the server sent, notices the end of the
	 * stream, and serves first what {@link #awaitReadable} read ahead. Read by one thread
	 * at a time.
	 */
	private final class CountingInput extends FilterInputStream {

		private static final int READ_AHEAD = 16 * 1024;

		private final byte[] ahead = new byte[READ_AHEAD];

		private int aheadPosition;

		private int aheadLimit;

		CountingInput(InputStream in) {
			super(in);
		}

		int held() {
			return this.aheadLimit - this.aheadPosition;
		}

		boolean awaitReadable(Socket socket, int millis) throws IOException {
			if (held() > 0 || super.available() > 0) {
				return true;
			}
			int timeout = socket.getSoTimeout();
			socket.setSoTimeout(Math.max(1, millis));
			try {
				int read = super.read(this.ahead, 0, this.ahead.length);
				count(read);
				if (read <= 0) {
					return false;
				}
				this.aheadPosition = 0;
				this.aheadLimit = read;
				return true;
			}
			catch (SocketTimeoutException ex) {
				return false;
			}
			finally {
				socket.setSoTimeout(timeout);
			}
		}

		@Override
		public int read() throws IOException {
			if (held() > 0) {
				return this.ahead[this.aheadPosition++] & 0xff;
			}
			int read = super.read();
			count((read < 0) ? -1 : 1);
			return read;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			int held = held();
			if (held > 0) {
				int taken = Math.min(held, length);
				System.arraycopy(this.ahead, this.aheadPosition, buffer, offset, taken);
				this.aheadPosition += taken;
				return taken;
			}
			int read = super.read(buffer, offset, length);
			count(read);
			return read;
		}

		@Override
		public int available() throws IOException {
			int held = held();
			return (held > 0) ? held : super.available();
		}

		@Override
		public long skip(long n) throws IOException {
			int held = held();
			if (n > 0 && held > 0) {
				int skipped = (int) Math.min(held, n);
				this.aheadPosition += skipped;
				return skipped;
			}
			return super.skip(n);
		}

		@Override
		public boolean markSupported() {
			return false;
		}

		/**
		 * Counts what one read returned: bytes, or {@code -1} for the end of the stream.
		 */
		private void count(int read) {
			if (read < 0) {
				SocketProbe.this.endOfStream = true;
			}
			else {
				SocketProbe.this.bytes.addAndGet(read);
			}
		}

	}

}
