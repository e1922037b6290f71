package io.postlog.spring;

import java.util.Map;

/**
 * The trace headers a writer put into its transaction, looked up by the transaction's id.
 */
interface TraceHeaders {

	/** No propagation: every listener call starts a trace of its own. */
	TraceHeaders NONE = (xid) -> Map.of();

	/**
	 * Returns the headers of a transaction.
	 * @param xid the transaction's id
	 * @return the headers, empty when it carried none
	 */
	Map<String, String> of(long xid);

}
