package io.railyard.shuffle.partition;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A file channel that forwards every call to another; tests override the calls they hook or make
 * fail. Mapping is refused: partition files are never mapped (reliability, no memory-mapped files).
 */
abstract class ForwardingFileChannel extends FileChannel {
    /** The channel calls go to. */
    protected final FileChannel file;

    ForwardingFileChannel(FileChannel file) {
        this.file = file;
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        return file.write(source);
    }

    @Override
    public int write(ByteBuffer source, long position) throws IOException {
        return file.write(source, position);
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        return file.write(sources, offset, length);
    }

    @Override
    public int read(ByteBuffer target) throws IOException {
        return file.read(target);
    }

    @Override
    public long read(ByteBuffer[] targets, int offset, int length) throws IOException {
        return file.read(targets, offset, length);
    }

    @Override
    public int read(ByteBuffer target, long position) throws IOException {
        return file.read(target, position);
    }

    @Override
    public long position() throws IOException {
        return file.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        file.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return file.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        file.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        file.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
            throws IOException {
        return file.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel source, long position, long count)
            throws IOException {
        return file.transferFrom(source, position, count);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) {
        throw new UnsupportedOperationException("partition files are never mapped");
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return file.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return file.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        file.close();
    }
}
