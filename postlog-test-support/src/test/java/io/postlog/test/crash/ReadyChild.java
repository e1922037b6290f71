package io.postlog.test.crash;

/**
 * The child {@link ChildJvmIntegrationTests} runs: prints its arguments and the system
 * property {@code child.greeting}, then {@code ready}; exits with the code of its first
 * argument at once if that is {@code exit=N}, or else with 0 once its standard input
 * closes.
 */
public final class ReadyChild {

	private ReadyChild() {
	}

	/**
	 * Runs the child.
	 * @param args the arguments
	 * @throws Exception if standard input cannot be read
	 */
	public static void main(String[] args) throws Exception {
		System.out.println("greeting=" + System.getProperty("child.greeting") + " args=" + String.join(",", args));
		if (args.length > 0 && args[0].startsWith("exit=")) {
			System.out.println("leaving");
			System.exit(Integer.parseInt(args[0].substring(5)));
		}
		System.out.println("ready");
		System.out.flush();
		while (System.in.read() != -1) {
			// Wait for the parent to close standard input.
		}
		System.out.println("stopping");
	}

}
