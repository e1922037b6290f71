package io.postlog.stream;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

/**
 * {@link SocketProbe} over a loopback socket: the wait in the socket, the bytes it reads
 * ahead, what it counts and the end of the stream.
 */
class SocketProbeTests {

	private ServerSocket server;

	private SocketProbe probe;

	private Socket client;

	private Socket peer;

	@BeforeEach
	void connect() throws Exception {
		this.server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
		this.probe = SocketProbe.register();
		this.client = new ProbingSocketFactory(this.probe.id()).createSocket();
		this.client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.server.getLocalPort()));
		this.peer = this.server.accept();
	}

	@AfterEach
	void close() throws Exception {
		this.peer.close();
		this.client.close();
		this.server.close();
		this.probe.close();
	}

	@Test
	void waitEndsWhenTheFirstByteArrivesAndTheBytesAreReadInOrder() throws Exception {
		Thread sender = new Thread(() -> {
			try {
				TimeUnit.MILLISECONDS.sleep(200);
				OutputStream out = this.peer.getOutputStream();
				out.write("hello".getBytes(StandardCharsets.US_ASCII));
				out.flush();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		sender.start();
		long started = System.nanoTime();
		boolean readable = this.probe.awaitReadable(10_000);
		long waited = System.nanoTime() - started;
		sender.join();
		assertThat(readable).isTrue();
		assertThat(waited).isBetween(TimeUnit.MILLISECONDS.toNanos(150), TimeUnit.SECONDS.toNanos(5));
		assertThat(this.probe.holdsUnread()).isTrue();
		InputStream in = this.client.getInputStream();
		assertThat(in.available()).isGreaterThan(0);
		assertThat(in.read()).isEqualTo('h');
		byte[] rest = new byte[16];
		int read = in.read(rest, 0, rest.length);
		assertThat(new String(rest, 0, read, StandardCharsets.US_ASCII)).isEqualTo("ello");
		assertThat(this.probe.holdsUnread()).isFalse();
		assertThat(this.probe.bytesReceived()).isEqualTo(5);
	}

	@Test
	void waitTimesOutOnASilentSocketAndRestoresItsTimeout() throws Exception {
		this.client.setSoTimeout(12_345);
		long started = System.nanoTime();
		assertThat(this.probe.awaitReadable(50)).isFalse();
		assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(40));
		assertThat(this.client.getSoTimeout()).isEqualTo(12_345);
		assertThat(this.probe.holdsUnread()).isFalse();
		assertThat(this.probe.bytesReceived()).isZero();
	}

	@Test
	void bytesAlreadyWaitingInTheSocketEndTheWaitAtOnce() throws Exception {
		this.peer.getOutputStream().write(new byte[] { 1, 2, 3 });
		this.peer.getOutputStream().flush();
		InputStream in = this.client.getInputStream();
		// Read one through the stream so that the rest is known to have arrived.
		assertThat(in.read()).isEqualTo(1);
		assertThat(this.probe.awaitReadable(10_000)).isTrue();
		assertThat(in.read()).isEqualTo(2);
		assertThat(in.read()).isEqualTo(3);
		assertThat(this.probe.bytesReceived()).isEqualTo(3);
	}

	@Test
	void theServerClosingItsSideIsTheEndOfTheStream() throws Exception {
		this.peer.shutdownOutput();
		assertThat(this.probe.awaitReadable(10_000)).isFalse();
		assertThat(this.probe.endOfStream()).isTrue();
	}

	@Test
	void aClosedSocketFailsTheWait() throws Exception {
		this.client.close();
		assertThatIOException().isThrownBy(() -> this.probe.awaitReadable(1_000));
	}

}
