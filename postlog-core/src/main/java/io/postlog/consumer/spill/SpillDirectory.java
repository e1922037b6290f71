package io.postlog.consumer.spill;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The private directory one stream spills into, under a root that consumers of this and
 * other processes may share. The directory holds a lock file that its owner keeps locked
 * while it lives, so a new owner can tell the leftovers of a process that died (their
 * lock is free) from the directories of live ones, and removes only the former. The
 * directory, its files and the root (when created here) are readable by the owner only,
 * where the file system has POSIX permissions. Created on the first spill; not
 * thread-safe.
 * <p>
 * Internal: public for the consumer's use, not API.
 */
public final class SpillDirectory implements AutoCloseable {

	public static final String PREFIX = "postlog-spill-";

	static final String LOCK_FILE = "owner.lock";

	public static final String SUFFIX = ".spill";

	private static final Logger logger = LoggerFactory.getLogger(SpillDirectory.class);

	private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9_]{1,63}");

	private static final int CREATE_ATTEMPTS = 3;

	private final Path root;

	private final String label;

	private final boolean posix;

	private @Nullable Path path;

	private @Nullable FileChannel lockChannel;

	private long files;

	/**
	 * Removes the leftovers of owners that died, then returns a directory to be created
	 * on first use.
	 * @param root the shared root
	 * @param label a name for operators (the slot name), {@code [A-Za-z0-9_]}, at most 63
	 */
	SpillDirectory(Path root, String label) {
		if (!LABEL.matcher(label).matches()) {
			throw new IllegalArgumentException(
					"A spill directory label is [A-Za-z0-9_], at most 63, not '" + label + "'");
		}
		this.root = root.toAbsolutePath();
		this.label = label;
		this.posix = this.root.getFileSystem().supportedFileAttributeViews().contains("posix");
		removeLeftovers();
	}

	/**
	 * Checks that a spill root is usable, as the first spill will need it: a directory
	 * that exists or can be created (it is created here then, readable by the owner only
	 * where the file system has POSIX permissions), in which this process can create
	 * files (a file is created and deleted again).
	 * @param root the shared root
	 * @throws SpillDirectoryException naming the path and the reason if it is not usable
	 */
	public static void check(Path root) {
		Path directory = root.toAbsolutePath();
		if (Files.exists(directory) && !Files.isDirectory(directory)) {
			throw new SpillDirectoryException(directory, "it exists and is not a directory", null);
		}
		boolean posix = directory.getFileSystem().supportedFileAttributeViews().contains("posix");
		try {
			Files.createDirectories(directory,
					posix ? new FileAttribute<?>[] {
							PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")) }
							: new FileAttribute<?>[0]);
		}
		catch (IOException ex) {
			throw new SpillDirectoryException(directory, "it does not exist and cannot be created (" + ex + ")", ex);
		}
		try {
			Files.delete(Files.createTempFile(directory, ".postlog-check-", ".tmp"));
		}
		catch (IOException ex) {
			throw new SpillDirectoryException(directory, "this process cannot create files in it (" + ex + ")", ex);
		}
	}

	/**
	 * Creates a new, empty spill file, readable and writable by the owner only.
	 * @param xid the transaction it is for, for its name
	 * @return the open channel, positioned at 0
	 * @throws SpillFileException if the file cannot be created
	 */
	SpillFile create(long xid) {
		Path directory = directory();
		Path file = directory.resolve(xid + "-" + (++this.files) + SUFFIX);
		try {
			FileChannel channel = FileChannel.open(file,
					EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
					fileAttributes());
			return new SpillFile(file, channel);
		}
		catch (IOException ex) {
			throw new SpillFileException("Could not create spill file " + file + " for streamed transaction " + xid,
					ex);
		}
	}

	/**
	 * Returns the private directory if it was created.
	 * @return the directory, or {@code null}
	 */
	@Nullable Path path() {
		return this.path;
	}

	private Path directory() {
		Path existing = this.path;
		if (existing != null) {
			return existing;
		}
		IOException failure = null;
		for (int attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
			try {
				Path created = createLocked();
				if (created != null) {
					this.path = created;
					return created;
				}
			}
			catch (IOException ex) {
				failure = ex;
			}
		}
		throw new SpillFileException("Could not create a spill directory under " + this.root, failure);
	}

	/**
	 * Creates the directory and locks its lock file; {@code null} when a concurrent
	 * cleaner removed it in between (it saw a directory without a lock file).
	 */
	private @Nullable Path createLocked() throws IOException {
		Files.createDirectories(this.root, directoryAttributes());
		Path directory = Files.createTempDirectory(this.root, PREFIX + this.label + "-", directoryAttributes());
		Path lockFile = directory.resolve(LOCK_FILE);
		FileChannel channel;
		try {
			channel = FileChannel.open(lockFile, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
					fileAttributes());
		}
		catch (NoSuchFileException ex) {
			return null;
		}
		FileLock lock = channel.tryLock();
		if (lock == null || !Files.exists(lockFile)) {
			// Another process's cleaner took the lock first and removed the directory.
			channel.close();
			return null;
		}
		this.lockChannel = channel;
		return directory;
	}

	private FileAttribute<?>[] directoryAttributes() {
		return this.posix
				? new FileAttribute<?>[] {
						PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")) }
				: new FileAttribute<?>[0];
	}

	private FileAttribute<?>[] fileAttributes() {
		return this.posix
				? new FileAttribute<?>[] {
						PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")) }
				: new FileAttribute<?>[0];
	}

	private void removeLeftovers() {
		if (!Files.isDirectory(this.root)) {
			return;
		}
		try (DirectoryStream<Path> entries = Files.newDirectoryStream(this.root, PREFIX + "*")) {
			for (Path entry : entries) {
				if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
					removeIfAbandoned(entry);
				}
			}
		}
		catch (IOException ex) {
			logger.warn("Could not look for leftover spill directories under {}: {}", this.root, ex.toString());
		}
	}

	private static void removeIfAbandoned(Path directory) {
		try (FileChannel channel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.WRITE)) {
			FileLock lock = channel.tryLock();
			if (lock == null) {
				return;
			}
			logger.info("Removing spill directory {}, left behind by a consumer that stopped without cleaning up",
					directory);
			deleteTree(directory);
		}
		catch (OverlappingFileLockException ex) {
			// A live consumer of this process owns it: it is not left behind.
			logger.debug("Spill directory {} belongs to a running consumer of this process", directory);
		}
		catch (NoSuchFileException ex) {
			// No lock file: an owner died before creating it, or is creating it now, in
			// which case the directory is empty and the owner retries.
			try {
				Files.deleteIfExists(directory);
			}
			catch (IOException notEmpty) {
				logger.debug("Left spill directory {} alone: {}", directory, notEmpty.toString());
			}
		}
		catch (AccessDeniedException ex) {
			// Another user's, in a shared root.
			logger.debug("Left spill directory {} alone: {}", directory, ex.toString());
		}
		catch (IOException ex) {
			logger.warn("Could not remove leftover spill directory {}: {}", directory, ex.toString());
		}
	}

	private static void deleteTree(Path directory) throws IOException {
		Files.walkFileTree(directory, new SimpleFileVisitor<>() {

			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
				Files.deleteIfExists(file);
				return FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult postVisitDirectory(Path visited, @Nullable IOException ex) throws IOException {
				if (ex != null) {
					throw ex;
				}
				Files.deleteIfExists(visited);
				return FileVisitResult.CONTINUE;
			}

		});
	}

	/**
	 * Removes the directory with every file still in it, then releases the lock. Failures
	 * are logged: the next owner removes what is left.
	 */
	@Override
	public void close() {
		Path directory = this.path;
		FileChannel channel = this.lockChannel;
		this.path = null;
		this.lockChannel = null;
		if (directory == null) {
			return;
		}
		try {
			try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, "*" + SUFFIX)) {
				for (Path entry : entries) {
					Files.deleteIfExists(entry);
				}
			}
			if (channel != null) {
				channel.close();
			}
			Files.deleteIfExists(directory.resolve(LOCK_FILE));
			Files.deleteIfExists(directory);
		}
		catch (IOException ex) {
			logger.warn("Could not remove spill directory {}; the next consumer to start removes it: {}", directory,
					ex.toString());
		}
		finally {
			closeQuietly(channel);
		}
	}

	private static void closeQuietly(@Nullable FileChannel channel) {
		if (channel == null) {
			return;
		}
		try {
			channel.close();
		}
		catch (IOException ex) {
			logger.debug("Closing a spill lock file failed: {}", ex.toString());
		}
	}

}
