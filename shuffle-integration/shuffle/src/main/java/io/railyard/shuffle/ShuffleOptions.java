package io.railyard.shuffle;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Locale;

/**
 * Every setting of the shuffle layer, in one immutable object with documented defaults. Each
 * setting has a dotted key (named in error messages that ask the user to raise it), a default and a
 * unit. Build one with {@link #builder()}; {@link #DEFAULT} is the all-defaults instance.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #PAGE_SIZE_KEY}</td><td>32 KiB</td><td>bytes per network page; one frame
 *       never exceeds one page</td></tr>
 *   <tr><td>{@value #TOTAL_MEMORY_KEY}</td><td>64 MiB</td><td>off-heap network memory per
 *       worker, allocated up front and shared by every writer, reader and input gate</td></tr>
 *   <tr><td>{@value #SORT_BUFFER_PAGES_KEY}</td><td>64</td><td>pages a sort-based writer
 *       collects records in before it spills one region; independent of the number of
 *       subpartitions</td></tr>
 *   <tr><td>{@value #WRITE_BATCH_PAGES_KEY}</td><td>8</td><td>frames gathered into one write
 *       call</td></tr>
 *   <tr><td>{@value #READ_BATCH_PAGES_KEY}</td><td>16</td><td>largest single read of the IO
 *       scheduler, in pages; many frames are sliced out of one such read</td></tr>
 *   <tr><td>{@value #GATE_PAGES_KEY}</td><td>64</td><td>pages guaranteed to one input gate
 *       whatever its number of channels; more are borrowed when free</td></tr>
 *   <tr><td>{@value #COMPRESSION_KEY}</td><td>lz4</td><td>frame codec ({@code none} or
 *       {@code lz4}); a frame is stored compressed only when that saves at least 1/8</td></tr>
 *   <tr><td>{@value #HYBRID_MEMORY_FRACTION_KEY}</td><td>0.7</td><td>a hybrid writer keeps a
 *       sealed region in (borrowed) memory only while the pool's pages in use stay below this
 *       fraction of all pages; above it the region goes to disk at once</td></tr>
 *   <tr><td>{@value #HYBRID_SPILL_FRACTION_KEY}</td><td>0.4</td><td>when a hybrid writer finds
 *       the pool above the memory fraction, it asks the IO thread to move this fraction of its
 *       resident pages out of memory (selective: spill what consumers need latest; full: drop
 *       regions already on disk)</td></tr>
 *   <tr><td>{@value #HYBRID_RESIDENT_ATTACHED_FRACTION_KEY}</td><td>0</td><td>a new region stays in
 *       memory only if at least this fraction of the partition's subpartitions have a reader
 *       attached (0: always try; 1: only when every consumer runs)</td></tr>
 * </table>
 *
 * @param pageSizeBytes {@value #PAGE_SIZE_KEY}, 256 B to 16 MiB
 * @param totalMemoryBytes {@value #TOTAL_MEMORY_KEY}, at least 2 pages, at most 2^31 - 1 pages
 * @param sortBufferPages {@value #SORT_BUFFER_PAGES_KEY}, 1 to 2^20, at most 1 GiB of pages
 * @param writeBatchPages {@value #WRITE_BATCH_PAGES_KEY}, 1 to 1024
 * @param readBatchPages {@value #READ_BATCH_PAGES_KEY}, 1 to 1024
 * @param gatePages {@value #GATE_PAGES_KEY}, 1 to 2^20
 * @param compression {@value #COMPRESSION_KEY}
 * @param hybridMemoryFraction {@value #HYBRID_MEMORY_FRACTION_KEY}, in (0, 1]
 * @param hybridSpillFraction {@value #HYBRID_SPILL_FRACTION_KEY}, in (0, 1]
 * @param hybridResidentAttachedFraction {@value #HYBRID_RESIDENT_ATTACHED_FRACTION_KEY}, in [0, 1]
 */
public record ShuffleOptions(
        int pageSizeBytes,
        long totalMemoryBytes,
        int sortBufferPages,
        int writeBatchPages,
        int readBatchPages,
        int gatePages,
        Compression compression,
        double hybridMemoryFraction,
        double hybridSpillFraction,
        double hybridResidentAttachedFraction) {

    /** Key of {@link #pageSizeBytes()}. */
    public static final String PAGE_SIZE_KEY = "shuffle.network.memory.page-size";

    /** Key of {@link #totalMemoryBytes()}. */
    public static final String TOTAL_MEMORY_KEY = "shuffle.network.memory.total";

    /** Key of {@link #sortBufferPages()}. */
    public static final String SORT_BUFFER_PAGES_KEY = "shuffle.sort.buffer-pages";

    /** Key of {@link #writeBatchPages()}. */
    public static final String WRITE_BATCH_PAGES_KEY = "shuffle.write.batch-pages";

    /** Key of {@link #readBatchPages()}. */
    public static final String READ_BATCH_PAGES_KEY = "shuffle.read.batch-pages";

    /** Key of {@link #gatePages()}. */
    public static final String GATE_PAGES_KEY = "shuffle.read.gate-pages";

    /** Key of {@link #compression()}. */
    public static final String COMPRESSION_KEY = "shuffle.compression";

    /** Key of {@link #hybridMemoryFraction()}. */
    public static final String HYBRID_MEMORY_FRACTION_KEY = "shuffle.hybrid.memory-fraction";

    /** Key of {@link #hybridSpillFraction()}. */
    public static final String HYBRID_SPILL_FRACTION_KEY = "shuffle.hybrid.spill-fraction";

    /** Key of {@link #hybridResidentAttachedFraction()}. */
    public static final String HYBRID_RESIDENT_ATTACHED_FRACTION_KEY =
            "shuffle.hybrid.resident-attached-fraction";

    /** The smallest page: a frame header plus room for data. */
    public static final int MIN_PAGE_SIZE_BYTES = 256;

    /** The largest page. */
    public static final int MAX_PAGE_SIZE_BYTES = 16 << 20;

    /** The largest sort buffer: sort-buffer-pages × page-size. */
    public static final long MAX_SORT_BUFFER_BYTES = 1L << 30;

    /** Every setting at its default. */
    public static final ShuffleOptions DEFAULT = builder().build();

    /** The frame codecs. */
    public enum Compression {
        /** Frames are stored as written. */
        NONE,
        /** LZ4 block compression, stored only when it saves at least 1/8 of a frame. */
        LZ4;

        /** The lower-case name used in settings, e.g. {@code lz4}. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Checks every setting; the message names the key, the value and the allowed range. */
    public ShuffleOptions {
        checkRange(PAGE_SIZE_KEY, pageSizeBytes, MIN_PAGE_SIZE_BYTES, MAX_PAGE_SIZE_BYTES);
        checkArgument(
                totalMemoryBytes / pageSizeBytes >= 2
                        && totalMemoryBytes / pageSizeBytes <= Integer.MAX_VALUE,
                "%s must hold 2 to %s pages of %s bytes (%s = %s), was %s bytes",
                TOTAL_MEMORY_KEY,
                Integer.MAX_VALUE,
                pageSizeBytes,
                PAGE_SIZE_KEY,
                pageSizeBytes,
                totalMemoryBytes);
        checkRange(SORT_BUFFER_PAGES_KEY, sortBufferPages, 1, 1 << 20);
        checkArgument(
                (long) sortBufferPages * pageSizeBytes <= MAX_SORT_BUFFER_BYTES,
                "%s × %s must be at most 1 GiB (a sort buffer is addressed by int), was %s × %s"
                        + " bytes",
                SORT_BUFFER_PAGES_KEY,
                PAGE_SIZE_KEY,
                sortBufferPages,
                pageSizeBytes);
        checkRange(WRITE_BATCH_PAGES_KEY, writeBatchPages, 1, 1024);
        checkRange(READ_BATCH_PAGES_KEY, readBatchPages, 1, 1024);
        checkRange(GATE_PAGES_KEY, gatePages, 1, 1 << 20);
        checkArgument(compression != null, "%s must not be null", COMPRESSION_KEY);
        checkFraction(HYBRID_MEMORY_FRACTION_KEY, hybridMemoryFraction, false);
        checkFraction(HYBRID_SPILL_FRACTION_KEY, hybridSpillFraction, false);
        checkFraction(HYBRID_RESIDENT_ATTACHED_FRACTION_KEY, hybridResidentAttachedFraction, true);
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder()
                .pageSizeBytes(pageSizeBytes)
                .totalMemoryBytes(totalMemoryBytes)
                .sortBufferPages(sortBufferPages)
                .writeBatchPages(writeBatchPages)
                .readBatchPages(readBatchPages)
                .gatePages(gatePages)
                .compression(compression)
                .hybridMemoryFraction(hybridMemoryFraction)
                .hybridSpillFraction(hybridSpillFraction)
                .hybridResidentAttachedFraction(hybridResidentAttachedFraction);
    }

    /** Pages in the network budget: {@code totalMemoryBytes / pageSizeBytes}, rounded down. */
    public int totalPages() {
        return (int) (totalMemoryBytes / pageSizeBytes);
    }

    /** A human-readable amount of bytes, e.g. {@code 64 MiB}, for error messages. */
    public static String bytesText(long bytes) {
        if (bytes % (1L << 30) == 0 && bytes != 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes % (1L << 20) == 0 && bytes != 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes % (1L << 10) == 0 && bytes != 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    private static void checkFraction(String key, double value, boolean zeroAllowed) {
        checkArgument(
                (zeroAllowed ? value >= 0 : value > 0) && value <= 1,
                "%s must be in %s0, 1], was %s",
                key,
                zeroAllowed ? "[" : "(",
                value);
    }

    private static void checkRange(String key, int value, int min, int max) {
        checkArgument(
                value >= min && value <= max,
                "%s must be in [%s, %s], was %s",
                key,
                min,
                max,
                value);
    }

    /** The mutable form of {@link ShuffleOptions}; starts at the defaults. */
    public static final class Builder {
        private int pageSizeBytes = 32 << 10;
        private long totalMemoryBytes = 64L << 20;
        private int sortBufferPages = 64;
        private int writeBatchPages = 8;
        private int readBatchPages = 16;
        private int gatePages = 64;
        private Compression compression = Compression.LZ4;
        private double hybridMemoryFraction = 0.7;
        private double hybridSpillFraction = 0.4;
        private double hybridResidentAttachedFraction = 0;

        private Builder() {}

        /** Sets {@value ShuffleOptions#PAGE_SIZE_KEY}. */
        public Builder pageSizeBytes(int value) {
            this.pageSizeBytes = value;
            return this;
        }

        /** Sets {@value ShuffleOptions#TOTAL_MEMORY_KEY}. */
        public Builder totalMemoryBytes(long value) {
            this.totalMemoryBytes = value;
            return this;
        }

        /** Sets {@value ShuffleOptions#TOTAL_MEMORY_KEY} as a number of pages. */
        public Builder totalPages(int pages) {
            checkArgument(pages >= 2, "%s must hold >= 2 pages, was %s", TOTAL_MEMORY_KEY, pages);
            this.totalMemoryBytes = (long) pages * pageSizeBytes;
            return this;
        }

        /** Sets {@value ShuffleOptions#SORT_BUFFER_PAGES_KEY}. */
        public Builder sortBufferPages(int value) {
            this.sortBufferPages = value;
            return this;
        }

        /** Sets {@value ShuffleOptions#WRITE_BATCH_PAGES_KEY}. */
        public Builder writeBatchPages(int value) {
            this.writeBatchPages = value;
            return this;
        }

        /** Sets {@value ShuffleOptions#READ_BATCH_PAGES_KEY}. */
        public Builder readBatchPages(int value) {
            this.readBatchPages = value;
            return this;
        }

        /** Sets {@value ShuffleOptions#GATE_PAGES_KEY}. */
        public Builder gatePages(int value) {
            this.gatePages = value;
            return this;
        }

        /** Sets {@value ShuffleOptions#COMPRESSION_KEY}. */
        public Builder compression(Compression value) {
            this.compression = value;
            return this;
        }

        /** Sets {@value ShuffleOptions#HYBRID_MEMORY_FRACTION_KEY}. */
        public Builder hybridMemoryFraction(double value) {
            this.hybridMemoryFraction = value;
            return this;
        }

        /** Sets {@value ShuffleOptions#HYBRID_SPILL_FRACTION_KEY}. */
        public Builder hybridSpillFraction(double value) {
            this.hybridSpillFraction = value;
            return this;
        }

        /** Sets {@value ShuffleOptions#HYBRID_RESIDENT_ATTACHED_FRACTION_KEY}. */
        public Builder hybridResidentAttachedFraction(double value) {
            this.hybridResidentAttachedFraction = value;
            return this;
        }

        /** The options; checks every setting. */
        public ShuffleOptions build() {
            return new ShuffleOptions(
                    pageSizeBytes,
                    totalMemoryBytes,
                    sortBufferPages,
                    writeBatchPages,
                    readBatchPages,
                    gatePages,
                    compression,
                    hybridMemoryFraction,
                    hybridSpillFraction,
                    hybridResidentAttachedFraction);
        }
    }
}
