package io.postlog.decoder;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PgIdentifiers;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;

/**
 * The built-in {@code pgoutput} plugin (PostgreSQL 10 and later), reading the tables of
 * publications. Protocol version 1, or with streaming 2; binary values and logical
 * messages from 14 on. Its stream decoder is {@link PgOutputDecoder}, told whether a
 * payload lies between Stream Start and Stream Stop. Immutable and thread-safe.
 */
public final class PgOutputLogicalDecoder implements LogicalDecoder {

	private static final DecoderCapabilities CAPABILITIES = new DecoderCapabilities(true, true, true, true,
			ServerVersions.V10);

	private final TableSelection.Publications publications;

	private PgOutputLogicalDecoder(TableSelection.Publications publications) {
		this.publications = publications;
	}

	/**
	 * Returns the decoder for publications.
	 * @param publications the publications' names, at least one
	 * @return the decoder
	 * @throws InvalidIdentifierException if a name is not valid or holds a single quote
	 */
	public static PgOutputLogicalDecoder forPublications(List<String> publications) {
		if (publications.isEmpty()) {
			throw new IllegalArgumentException("At least one publication name is required");
		}
		for (String name : publications) {
			PgIdentifiers.requireName("publication", name);
			if (name.indexOf('\'') >= 0) {
				throw new InvalidIdentifierException("publication", name,
						"a single quote cannot be passed to START_REPLICATION");
			}
		}
		return new PgOutputLogicalDecoder(new TableSelection.Publications(publications));
	}

	@Override
	public String name() {
		return "pgoutput";
	}

	@Override
	public String plugin() {
		return "pgoutput";
	}

	@Override
	public DecoderCapabilities capabilities() {
		return CAPABILITIES;
	}

	@Override
	public TableSelection tableSelection() {
		return this.publications;
	}

	@Override
	public DecoderRequest check(int serverVersion, DecoderRequest request, DecoderCatalog catalog) {
		if (serverVersion < ServerVersions.V10) {
			throw new DecoderRefusedException(name(), "pgoutput needs PostgreSQL 10 or later; the server is PostgreSQL "
					+ ServerVersions.text(serverVersion) + ". Use decoder wal2json or pglogical there");
		}
		if (request.messages() && serverVersion < ServerVersions.V14) {
			throw new DecoderRefusedException(name(), "logical decoding messages need PostgreSQL 14 or later; "
					+ "the server is PostgreSQL " + ServerVersions.text(serverVersion));
		}
		if (request.streaming() && serverVersion < ServerVersions.V14) {
			throw new DecoderRefusedException(name(), "streaming in-progress transactions needs PostgreSQL 14 or "
					+ "later; the server is PostgreSQL " + ServerVersions.text(serverVersion));
		}
		return (request.binary() && serverVersion < ServerVersions.V14) ? request.withoutBinary() : request;
	}

	@Override
	public Map<String, String> startOptions(int serverVersion, DecoderRequest request) {
		Map<String, String> options = new LinkedHashMap<>();
		options.put("proto_version", protocolVersion(serverVersion, request));
		StringJoiner names = new StringJoiner(",");
		this.publications.names().forEach((name) -> names.add(PgIdentifiers.quote("publication", name)));
		options.put("publication_names", names.toString());
		if (request.binary()) {
			options.put("binary", "true");
		}
		if (request.messages()) {
			options.put("messages", "true");
		}
		if (request.streaming()) {
			options.put("streaming", "true");
		}
		return options;
	}

	/**
	 * Protocol 2 is the first that streams. 16's protocol 4 (which the decoder also
	 * reads) would only add parallel streaming, whose aborts carry their LSN and time: a
	 * consumer delivering in commit order has no use for either.
	 */
	static String protocolVersion(int serverVersion, DecoderRequest request) {
		return request.streaming() ? "2" : "1";
	}

	@Override
	public StreamDecoder newStream(int serverVersion, DecoderRequest request, DecoderCatalog catalog) {
		return new Stream();
	}

	/** pgoutput's payloads, each one message; v2+ marks its streamed blocks. */
	private static final class Stream implements StreamDecoder {

		private boolean inStreamBlock;

		@Override
		public List<PgOutputMessage> decode(ByteBuffer payload) {
			PgOutputMessage message = PgOutputDecoder.decodeRetaining(payload, this.inStreamBlock);
			if (message instanceof PgOutputMessage.StreamStart) {
				this.inStreamBlock = true;
			}
			else if (message instanceof PgOutputMessage.StreamStop) {
				this.inStreamBlock = false;
			}
			return List.of(message);
		}

	}

}
