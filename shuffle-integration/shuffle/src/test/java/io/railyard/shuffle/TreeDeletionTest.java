package io.railyard.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileTime;
import java.util.Iterator;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code rm -rf} race: a directory examined as a directory, then swapped for a link to a
 * directory outside before it is opened, must be deleted as the link — its target's files stay. The
 * swap is staged by a stream that reports the entry as a directory once (what it was when it was
 * examined); the real entry is already the link.
 */
class TreeDeletionTest {
    @TempDir Path dir;

    @Test
    void aDirectorySwappedForALinkDuringTheWalk_isDeletedAsTheLink_itsTargetUntouched()
            throws IOException {
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Path precious = Files.writeString(outside.resolve("precious"), "keep");
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Files.createSymbolicLink(
                tree.resolve("sub"), outside); // "sub" was a directory a moment ago
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(tree)) {
            assumeTrue(stream instanceof SecureDirectoryStream, "no secure streams here");
            SecureDirectoryStream<Path> real = (SecureDirectoryStream<Path>) stream;

            TreeDeletion.deleteEntry(
                    new ExaminedBeforeTheSwap(real), tree.getFileSystem().getPath("sub"));
        }

        assertThat(Files.exists(tree.resolve("sub"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.readString(precious)).isEqualTo("keep");
        Files.delete(precious);
    }

    /** Reports its entries as directories the first time they are examined; else the real one. */
    private static final class ExaminedBeforeTheSwap implements SecureDirectoryStream<Path> {
        private final SecureDirectoryStream<Path> real;
        private boolean examined;

        ExaminedBeforeTheSwap(SecureDirectoryStream<Path> real) {
            this.real = real;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <V extends FileAttributeView> V getFileAttributeView(
                Path path, Class<V> type, LinkOption... options) {
            V view = real.getFileAttributeView(path, type, options);
            if (examined || type != BasicFileAttributeView.class) {
                return view;
            }
            examined = true;
            BasicFileAttributeView actual = (BasicFileAttributeView) view;
            return (V) new WasADirectory(actual);
        }

        @Override
        public SecureDirectoryStream<Path> newDirectoryStream(Path path, LinkOption... options)
                throws IOException {
            return real.newDirectoryStream(path, options);
        }

        @Override
        public SeekableByteChannel newByteChannel(
                Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
                throws IOException {
            return real.newByteChannel(path, options, attrs);
        }

        @Override
        public void deleteFile(Path path) throws IOException {
            real.deleteFile(path);
        }

        @Override
        public void deleteDirectory(Path path) throws IOException {
            real.deleteDirectory(path);
        }

        @Override
        public void move(Path source, SecureDirectoryStream<Path> target, Path targetPath)
                throws IOException {
            real.move(source, target, targetPath);
        }

        @Override
        public <V extends FileAttributeView> V getFileAttributeView(Class<V> type) {
            return real.getFileAttributeView(type);
        }

        @Override
        public Iterator<Path> iterator() {
            return real.iterator();
        }

        @Override
        public void close() throws IOException {
            real.close();
        }
    }

    /** A view whose attributes say "directory", as they did before the swap. */
    private record WasADirectory(BasicFileAttributeView actual) implements BasicFileAttributeView {
        @Override
        public String name() {
            return actual.name();
        }

        @Override
        public BasicFileAttributes readAttributes() throws IOException {
            BasicFileAttributes now = actual.readAttributes();
            return new BasicFileAttributes() {
                @Override
                public FileTime lastModifiedTime() {
                    return now.lastModifiedTime();
                }

                @Override
                public FileTime lastAccessTime() {
                    return now.lastAccessTime();
                }

                @Override
                public FileTime creationTime() {
                    return now.creationTime();
                }

                @Override
                public boolean isRegularFile() {
                    return false;
                }

                @Override
                public boolean isDirectory() {
                    return true;
                }

                @Override
                public boolean isSymbolicLink() {
                    return false;
                }

                @Override
                public boolean isOther() {
                    return false;
                }

                @Override
                public long size() {
                    return now.size();
                }

                @Override
                public Object fileKey() {
                    return now.fileKey();
                }
            };
        }

        @Override
        public void setTimes(FileTime modified, FileTime access, FileTime create)
                throws IOException {
            actual.setTimes(modified, access, create);
        }
    }
}
