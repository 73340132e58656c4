package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A partition read once whose subpartitions were abandoned in a shared feed (their gates closed
 * before the end) keeps no page of a region that nobody needs: a region is let go for those
 * subpartitions when it is published to the feed, or when the partition joins the feed, and a
 * region every remaining reader let go of that way is dropped at once — its pages go back to the
 * pool then, not at a spill or at the partition's release.
 */
class AbandonedFeedRetentionTest {
    private static final int PAGE_SIZE = 1024;
    private static final int RECORDS = 200;
    private static final int RECORD_BYTES = 100;

    /** Ample memory, so every region stays resident until something drops it. */
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(PAGE_SIZE)
                    .totalPages(512)
                    .sortBufferPages(4)
                    .readBatchPages(2)
                    .gatePages(4)
                    .compression(Compression.NONE)
                    .hybridMemoryFraction(1)
                    .build();

    @TempDir Path dir;

    /**
     * Every gate of a shared feed closes before its partition has published anything: each region
     * published afterwards is needed by nobody, and its pages go back as it is published.
     */
    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"HYBRID_SELECTIVE", "PIPELINED"})
    void aRegionPublishedAfterEveryReaderAbandonedInTheFeed_isDroppedAtOnce(PartitionKind kind)
            throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartitionWriter writer =
                    ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), 2, kind);
            HybridPartition partition = writer.partition();
            PartitionFeed feed = worker.newFeed("group", 1);
            feed.add(0, partition);
            worker.openGate("c0", feed, 0).close(); // the consumers fail before reading
            worker.openGate("c1", feed, 1).close();
            write(writer, 2);
            assertThat(partition.regionCount()).as("regions published").isGreaterThan(1);
            writer.finish();
            assertThat(partition.residentPages())
                    .as("resident pages of regions every reader abandoned, before the release")
                    .isZero();
            partition.checkInvariants();
            assertPagesBack(worker);
            feed.close();
            partition.release();
        }
    }

    /**
     * The gate of a shared feed closes before a second partition joins the feed: the regions that
     * partition published so far are needed by nobody, and their pages go back as it joins.
     */
    @Test
    void aPartitionJoiningAFeedWhoseReaderAbandoned_dropsItsRegionsAtOnce() throws Exception {
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartitionWriter first =
                    ShuffleHarness.hybrid(
                            worker, ShuffleHarness.id(0), 1, PartitionKind.HYBRID_SELECTIVE);
            PartitionFeed feed = worker.newFeed("group", 2);
            feed.add(0, first.partition());
            worker.openGate("c0", feed, 0).close(); // the consumer fails before reading
            HybridPartitionWriter second =
                    ShuffleHarness.hybrid(
                            worker, ShuffleHarness.id(1), 1, PartitionKind.HYBRID_SELECTIVE);
            write(second, 1);
            HybridPartition late = second.finish();
            assertThat(late.residentPages()).as("resident before it joins").isPositive();
            feed.add(1, late);
            assertThat(late.residentPages())
                    .as("resident pages of regions the feed's only reader abandoned")
                    .isZero();
            late.checkInvariants();
            first.finish();
            assertPagesBack(worker);
            feed.close();
            first.partition().release();
            late.release();
        }
    }

    /** Writes {@link #RECORDS} records round robin over {@code n} subpartitions, flushing often. */
    private static void write(HybridPartitionWriter writer, int n) throws IOException {
        for (int i = 0; i < RECORDS; i++) {
            byte[] record = new byte[RECORD_BYTES];
            for (int b = 0; b < record.length; b++) {
                record[b] = (byte) (i * 31 + b);
            }
            writer.emit(ByteBuffer.wrap(record), i % n);
            if (i % 16 == 15) {
                writer.flush();
            }
        }
    }

    /** Every page but the IO scheduler's is back in the pool: no resident page is left. */
    private static void assertPagesBack(ShuffleWorker worker) {
        ShuffleHarness.awaitUntil(
                () -> worker.bufferPool().pagesInUse() == IoScheduler.pagesNeeded(OPTIONS),
                "every page but the IO scheduler's back, now " + worker.bufferPool().owners());
        assertThat(worker.hybridStats().residentPages()).isZero();
    }
}
