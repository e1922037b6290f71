package io.postlog.stream;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

import javax.net.SocketFactory;

import org.jspecify.annotations.Nullable;

/**
 * The socket factory postlog names in pgjdbc's {@code socketFactory} property for its
 * replication connections, so that the stream can see the server end the connection and
 * can tell a silent connection from a quiet one. pgjdbc instantiates it by reflection
 * with the {@code socketFactoryArg} property, which identifies the connection; it is
 * public only for that and is not meant to be used directly. Without a matching
 * registration it makes plain sockets. Thread-safe.
 */
public final class ProbingSocketFactory extends SocketFactory {

	private final @Nullable SocketProbe probe;

	/**
	 * Creates a factory for the connection the argument identifies.
	 * @param probeId the {@code socketFactoryArg} postlog set
	 */
	public ProbingSocketFactory(@Nullable String probeId) {
		this.probe = SocketProbe.find(probeId);
	}

	@Override
	public Socket createSocket() {
		return (this.probe != null) ? this.probe.newSocket() : new Socket();
	}

	@Override
	public Socket createSocket(String host, int port) throws IOException {
		return connected(host, port);
	}

	@Override
	public Socket createSocket(String host, int port, InetAddress localAddress, int localPort) throws IOException {
		Socket socket = createSocket();
		socket.bind(new InetSocketAddress(localAddress, localPort));
		socket.connect(new InetSocketAddress(host, port));
		return socket;
	}

	@Override
	public Socket createSocket(InetAddress host, int port) throws IOException {
		Socket socket = createSocket();
		socket.connect(new InetSocketAddress(host, port));
		return socket;
	}

	@Override
	public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
			throws IOException {
		Socket socket = createSocket();
		socket.bind(new InetSocketAddress(localAddress, localPort));
		socket.connect(new InetSocketAddress(address, port));
		return socket;
	}

	private Socket connected(String host, int port) throws IOException {
		Socket socket = createSocket();
		socket.connect(new InetSocketAddress(host, port));
		return socket;
	}

}
