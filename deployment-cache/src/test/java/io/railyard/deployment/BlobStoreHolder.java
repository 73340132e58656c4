package io.railyard.deployment;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A child process for {@link FileSystemBlobStoreDefaultFileSystemTest}: opens the store in {@code
 * args[0]}, prints {@code held}, keeps it until its standard input closes, then closes it.
 */
final class BlobStoreHolder {
    private BlobStoreHolder() {}

    public static void main(String[] args) throws IOException {
        FileSystemBlobStore store = FileSystemBlobStore.open(Path.of(args[0]));
        try {
            System.out.println("held");
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the parent to close our input
            }
        } finally {
            store.close();
        }
    }
}
