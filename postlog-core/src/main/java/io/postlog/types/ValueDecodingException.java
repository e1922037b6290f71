package io.postlog.types;

import io.postlog.PostlogException;

/**
 * A column value could not be decoded. The message names the type OID and the reason,
 * never the value or its bytes.
 */
public class ValueDecodingException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final int typeOid;

	private final String reason;

	/**
	 * Creates an exception.
	 * @param typeOid the OID of the type being decoded
	 * @param reason why the value is malformed; must not contain the value
	 */
	public ValueDecodingException(int typeOid, String reason) {
		super("Cannot decode value of type OID " + Integer.toUnsignedString(typeOid) + ": " + reason);
		this.typeOid = typeOid;
		this.reason = reason;
	}

	/**
	 * Returns the OID of the type that failed to decode.
	 * @return the type OID
	 */
	public int typeOid() {
		return this.typeOid;
	}

	/**
	 * Returns why the value is malformed, without the value.
	 * @return the reason
	 */
	public String reason() {
		return this.reason;
	}

}
