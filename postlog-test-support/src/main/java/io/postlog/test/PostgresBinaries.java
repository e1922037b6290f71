package io.postlog.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.jspecify.annotations.Nullable;

/**
 * Unpacks the zonky server binaries found on the class path once per machine and version,
 * into the temporary directory, and reuses them after that.
 */
final class PostgresBinaries {

	private static @Nullable Path installation;

	private PostgresBinaries() {
	}

	static synchronized Path installation() {
		if (installation == null) {
			installation = unpack();
		}
		return installation;
	}

	private static Path unpack() {
		String system = System.getProperty("os.name").toLowerCase().contains("mac") ? "Darwin" : "Linux";
		String architecture = switch (System.getProperty("os.arch")) {
			case "amd64", "x86_64" -> "x86_64";
			case "aarch64", "arm64" -> "arm_64";
			default -> System.getProperty("os.arch");
		};
		URL source = PostgresBinaries.class.getClassLoader()
			.getResource("postgres-" + system.toLowerCase() + "-" + architecture + ".txz");
		Path root = Paths.get(System.getProperty("java.io.tmpdir"), "postlog-postgres");
		Path target = root.resolve(digest(String.valueOf(source)));
		if (Files.isRegularFile(target.resolve(".complete"))) {
			return target;
		}
		try {
			Files.createDirectories(root);
			Path staging = Files.createTempDirectory(root, "unpack-");
			try (InputStream binaries = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, architecture)) {
				extract(binaries, staging);
			}
			Files.writeString(staging.resolve(".complete"), String.valueOf(source), StandardCharsets.UTF_8);
			try {
				Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
			}
			catch (IOException ex) {
				// Another JVM unpacked the same binaries first; theirs are as good as
				// ours.
				if (!Files.isRegularFile(target.resolve(".complete"))) {
					throw ex;
				}
			}
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not unpack the PostgreSQL binaries from " + source, ex);
		}
	}

	private static void extract(InputStream txz, Path directory) throws IOException {
		try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(txz))) {
			TarArchiveEntry entry;
			while ((entry = tar.getNextEntry()) != null) {
				Path path = directory.resolve(entry.getName()).normalize();
				if (!path.startsWith(directory)) {
					throw new IOException("Archive entry outside the target directory: " + entry.getName());
				}
				if (entry.isDirectory()) {
					Files.createDirectories(path);
				}
				else if (entry.isSymbolicLink()) {
					Files.createDirectories(path.getParent());
					Files.createSymbolicLink(path, Paths.get(entry.getLinkName()));
				}
				else {
					Files.createDirectories(path.getParent());
					Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
					if ((entry.getMode() & 0100) != 0) {
						Files.setPosixFilePermissions(path,
								Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
										PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_READ,
										PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
										PosixFilePermission.OTHERS_EXECUTE));
					}
				}
			}
		}
	}

	private static String digest(String text) {
		try {
			byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(hash, 0, 8);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
