/**
 * The one network-buffer manager: {@code NetworkBufferPool} (a fixed budget of off-heap pages,
 * guarantees pledged at registration, lending and revocation), {@code BufferOwner} (one holder of
 * pages, with its guarantee) and {@code Page} (one slice of the budget).
 *
 * <p>Threading: every pool and owner method is thread-safe; the pool's lock is the innermost lock
 * of the shuffle layer (the order is in the {@code io.railyard.shuffle} package documentation) and
 * no caller code runs under it; a page has one owner at a time.
 */
@NullMarked
package io.railyard.shuffle.buffer;

import org.jspecify.annotations.NullMarked;
