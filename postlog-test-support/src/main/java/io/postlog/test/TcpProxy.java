package io.postlog.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP proxy for fault injection: forwards connections from a port of its own
 * to a target, and lets a test pause the traffic (connections stay open, nothing passes:
 * a half-open or stalled link), throttle it, cut every connection (a closed link), hold
 * new connections without answering (a server that accepts TCP but never speaks), or
 * point it at another target (a failover). Every thread is a daemon and ends with
 * {@link #close()}. Thread-safe.
 */
public final class TcpProxy implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(TcpProxy.class);

	private final ServerSocket server;

	private final Thread acceptor;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final List<Socket> held = new CopyOnWriteArrayList<>();

	private final AtomicLong accepted = new AtomicLong();

	private final AtomicLong forwarded = new AtomicLong();

	private volatile InetSocketAddress target;

	private volatile boolean paused;

	private volatile boolean holdNew;

	private volatile boolean refuseNew;

	private volatile long bytesPerSecond;

	private volatile boolean closed;

	private TcpProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.acceptor = new Thread(this::accept, "tcp-proxy-" + this.server.getLocalPort());
		this.acceptor.setDaemon(true);
		this.acceptor.start();
	}

	/**
	 * Starts a proxy on a free loopback port forwarding to {@code host:port}.
	 * @param host the target host
	 * @param port the target port
	 * @return the running proxy
	 * @throws IOException if no port can be bound
	 */
	public static TcpProxy start(String host, int port) throws IOException {
		return new TcpProxy(new InetSocketAddress(host, port));
	}

	/**
	 * Starts a proxy in front of a test server.
	 * @param server the server
	 * @return the running proxy
	 * @throws IOException if no port can be bound
	 */
	public static TcpProxy start(EmbeddedPostgresServer server) throws IOException {
		return start("127.0.0.1", server.port());
	}

	/**
	 * Returns the port clients connect to.
	 * @return the proxy's port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Returns a JDBC URL of a database reached through this proxy.
	 * @param database the database name
	 * @return the URL
	 */
	public String jdbcUrl(String database) {
		return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
	}

	/**
	 * Returns how many client connections the proxy has accepted.
	 * @return the count
	 */
	public long acceptedConnections() {
		return this.accepted.get();
	}

	/**
	 * Returns how many bytes the proxy has passed on, in both directions together.
	 * @return the count
	 */
	public long bytesForwarded() {
		return this.forwarded.get();
	}

	/**
	 * Returns how many connections are forwarding now.
	 * @return the count
	 */
	public int openConnections() {
		return this.links.size();
	}

	/**
	 * Stops passing bytes in either direction; connections stay open, so each side sees a
	 * silent peer (a half-open connection, or a stall inside a message).
	 */
	public void pause() {
		this.paused = true;
	}

	/**
	 * Passes bytes again after {@link #pause()}.
	 */
	public void resume() {
		this.paused = false;
	}

	/**
	 * Limits every connection's throughput in each direction.
	 * @param bytesPerSecond the limit, or {@code 0} for none
	 */
	public void throttle(long bytesPerSecond) {
		this.bytesPerSecond = bytesPerSecond;
	}

	/**
	 * Accepts new connections but never connects them to the target nor answers: a server
	 * that takes TCP connections and says nothing.
	 * @param hold whether to hold new connections
	 */
	public void holdNewConnections(boolean hold) {
		this.holdNew = hold;
	}

	/**
	 * Closes new connections as soon as they are accepted.
	 * @param refuse whether to refuse new connections
	 */
	public void refuseNewConnections(boolean refuse) {
		this.refuseNew = refuse;
	}

	/**
	 * Forwards new connections to another target; open ones stay where they are.
	 * @param host the new target host
	 * @param port the new target port
	 */
	public void retarget(String host, int port) {
		this.target = new InetSocketAddress(host, port);
	}

	/**
	 * Closes every open connection (both sides see the connection end), keeps accepting
	 * new ones.
	 */
	public void cutConnections() {
		for (Link link : this.links) {
			link.close();
		}
		for (Socket socket : this.held) {
			closeQuietly(socket);
		}
		this.held.clear();
	}

	/**
	 * Stops the proxy and closes every connection.
	 */
	@Override
	public void close() {
		this.closed = true;
		closeQuietly(this.server);
		cutConnections();
		try {
			this.acceptor.join(5_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void accept() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				return;
			}
			this.accepted.incrementAndGet();
			if (this.refuseNew) {
				closeQuietly(client);
				continue;
			}
			if (this.holdNew) {
				this.held.add(client);
				continue;
			}
			try {
				Socket upstream = new Socket();
				upstream.connect(this.target, 5_000);
				Link link = new Link(client, upstream);
				this.links.add(link);
				link.start();
			}
			catch (IOException ex) {
				closeQuietly(client);
			}
		}
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// Closing is best effort.
			logger.debug("Closing {} failed: {}", closeable, ex.getClass().getName());
		}
	}

	/**
	 * One proxied connection: a pump thread per direction.
	 */
	private final class Link {

		private final Socket client;

		private final Socket upstream;

		private volatile boolean closed;

		Link(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		void start() throws IOException {
			pump(this.client.getInputStream(), this.upstream.getOutputStream(), "up");
			pump(this.upstream.getInputStream(), this.client.getOutputStream(), "down");
		}

		private void pump(InputStream in, OutputStream out, String direction) {
			Thread thread = new Thread(() -> {
				byte[] buffer = new byte[16 * 1024];
				try {
					while (!this.closed) {
						int read = in.read(buffer, 0, chunk(buffer.length));
						if (read < 0) {
							// While paused the link is partitioned: an end on one side
							// does not reach the other, as on a half-open connection.
							waitWhilePaused();
							break;
						}
						waitWhilePaused();
						if (this.closed) {
							break;
						}
						out.write(buffer, 0, read);
						out.flush();
						TcpProxy.this.forwarded.addAndGet(read);
						pace(read);
					}
				}
				catch (SocketException ex) {
					// The other pump or cutConnections() closed the sockets.
					logger.debug("Proxy pump {} ended: its socket was closed", direction);
				}
				catch (IOException ex) {
					// Either side went away.
					logger.debug("Proxy pump {} ended: {}", direction, ex.getClass().getName());
				}
				finally {
					close();
				}
			}, "tcp-proxy-" + port() + "-" + direction);
			thread.setDaemon(true);
			thread.start();
		}

		private int chunk(int size) {
			long limit = TcpProxy.this.bytesPerSecond;
			return (limit > 0) ? (int) Math.max(1, Math.min(size, limit / 20)) : size;
		}

		private void pace(int bytes) {
			long limit = TcpProxy.this.bytesPerSecond;
			if (limit > 0) {
				sleep(Math.max(1, bytes * 1000L / limit));
			}
		}

		private void waitWhilePaused() {
			while (TcpProxy.this.paused && !this.closed) {
				sleep(10);
			}
		}

		private void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				close();
			}
		}

		void close() {
			this.closed = true;
			closeQuietly(this.client);
			closeQuietly(this.upstream);
			TcpProxy.this.links.remove(this);
		}

	}

}
