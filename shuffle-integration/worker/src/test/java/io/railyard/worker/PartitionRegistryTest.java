package io.railyard.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker's partition registry: waiting for a partition, release, cancelled producers. */
class PartitionRegistryTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(4096).totalPages(512).build();
    private static final PartitionRegistry.Waiter PATIENT = () -> {};
    private final PartitionRegistry registry = new PartitionRegistry();
    private final PartitionId id = new PartitionId(3, 1);
    @TempDir Path dir;
    private ShuffleWorker shuffle;

    @BeforeEach
    void setUp() throws Exception {
        shuffle = new ShuffleWorker(OPTIONS, dir.resolve("w"));
    }

    @AfterEach
    void tearDown() throws Exception {
        registry.releaseAll();
        shuffle.close();
    }

    /** {@code registry.await(id)} on another thread. */
    private CompletableFuture<ResultPartition> awaitAsync(PartitionRegistry registry) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return registry.await(id, PATIENT);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
    }

    /** A finished, empty sort partition of {@code partition}. */
    private ResultPartition finished(PartitionId partition) throws Exception {
        return shuffle.createPartition(partition, 2, PartitionKind.SORT).finish();
    }

    @Test
    void aConsumerAskingFirst_getsThePartitionOnceItsProducerRegistersIt() throws Exception {
        CompletableFuture<ResultPartition> found = awaitAsync(registry);
        Thread.sleep(20); // most likely waiting by now; either order must work
        ResultPartition partition = finished(id);

        assertThat(registry.register(id, partition, () -> false)).isTrue();
        assertThat(found.get(10, TimeUnit.SECONDS)).isSameAs(partition);
        assertThat(registry.size()).isEqualTo(1);
    }

    @Test
    void aReleasedPartition_isLostAtOnce_namingIt() throws Exception {
        ResultPartition partition = finished(id);
        registry.register(id, partition, () -> false);

        assertThat(registry.release(id)).isTrue();

        assertThat(partition.isReleased()).isTrue();
        assertThatThrownBy(() -> registry.await(id, PATIENT))
                .isInstanceOf(PartitionLostException.class)
                .hasMessageContaining("p3.a1")
                .hasMessageContaining("released")
                .satisfies(
                        e -> assertThat(((PartitionLostException) e).partitionId()).isEqualTo(id));
        assertThat(registry.release(id)).as("idempotent").isFalse();
    }

    @Test
    void aCancelledProducer_cannotRegister() throws Exception {
        boolean[] cancelled = {false};
        registry.cancel(() -> cancelled[0] = true);
        ResultPartition partition = finished(id);

        assertThat(registry.register(id, partition, () -> cancelled[0])).isFalse();
        assertThat(registry.size()).isZero();
        partition.release();
    }

    @Test
    void aWaitingConsumer_thatIsCancelled_stopsWaiting() {
        PartitionRegistry.Waiter cancelled =
                () -> {
                    throw new CancellationException("the consumer was cancelled");
                };

        assertThatThrownBy(() -> registry.await(id, cancelled))
                .isInstanceOf(CancellationException.class);
    }

    @Test
    void releaseAll_releasesEveryPartition_andNamesThem() throws Exception {
        PartitionId other = new PartitionId(4, 0);
        registry.register(id, finished(id), () -> false);
        registry.register(other, finished(other), () -> false);

        assertThat(registry.releaseAll()).containsExactlyInAnyOrder(id, other);
        assertThat(registry.size()).isZero();
    }

    @Test
    void aConsumerWaitingWhileTheWorkerRegistersOtherPartitions_waitsPastTheNoProgressTime()
            throws Exception {
        PartitionRegistry slow = new PartitionRegistry(Duration.ofMillis(300));
        CompletableFuture<ResultPartition> found = awaitAsync(slow);
        try {
            for (int other = 0; other < 10; other++) { // 1 s of progress, 100 ms apart
                Thread.sleep(100);
                PartitionId progress = new PartitionId(100 + other, 0);
                assertThat(slow.register(progress, finished(progress), () -> false)).isTrue();
            }
            assertThat(found).as("still waiting after 1 s of progress").isNotDone();
            ResultPartition partition = finished(id);
            slow.register(id, partition, () -> false);

            assertThat(found.get(10, TimeUnit.SECONDS)).isSameAs(partition);
        } finally {
            slow.releaseAll();
        }
    }

    @Test
    void aConsumerWaitingWhileNothingIsRegistered_getsALostPartition_afterTheNoProgressTime() {
        PartitionRegistry idle = new PartitionRegistry(Duration.ofMillis(200));

        assertThatThrownBy(() -> idle.await(id, PATIENT))
                .isInstanceOf(PartitionLostException.class)
                .hasMessageContaining("p3.a1")
                .hasMessageContaining(
                        "no other partition was registered on this worker, for 200 ms");
    }

    @Test
    void aConsumerWaitingForAnExpectedPartition_waitsPastTheNoProgressTime_untilItsProducerEnds()
            throws Exception {
        PartitionRegistry idle = new PartitionRegistry(Duration.ofMillis(200));
        idle.expect(id, () -> false); // deployed here, waiting for memory: registers nothing
        CompletableFuture<ResultPartition> found = awaitAsync(idle);
        Thread.sleep(600); // three times the no-progress time
        assertThat(found).as("waits for a live producer deployed here").isNotDone();
        long since = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
        idle.checkWait(id, since); // the non-blocking check agrees: no exception

        idle.withdraw(id); // the producer ended without registering it

        assertThatThrownBy(() -> found.get(10, TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(PartitionLostException.class)
                .hasMessageContaining("p3.a1");
        assertThatThrownBy(() -> idle.checkWait(id, since))
                .isInstanceOf(PartitionLostException.class)
                .hasMessageContaining("none deployed on this worker");
    }

    @Test
    void aWaitForAPartitionExpectedFromACancelledProducer_givesUpAfterTheNoProgressTime() {
        PartitionRegistry idle = new PartitionRegistry(Duration.ofMillis(200));
        idle.expect(id, () -> true);

        assertThatThrownBy(() -> idle.await(id, PATIENT))
                .isInstanceOf(PartitionLostException.class)
                .hasMessageContaining("p3.a1");
    }
}
