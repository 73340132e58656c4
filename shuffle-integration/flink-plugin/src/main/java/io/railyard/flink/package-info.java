/**
 * Railyard's shuffle inside Apache Flink: {@link io.railyard.flink.RailyardShuffleServiceFactory}
 * (the value of Flink's {@code shuffle-service-factory.class}) makes a {@link
 * io.railyard.flink.RailyardShuffleMaster} on the JobManager, which names Flink's BLOCKING and
 * hybrid partitions as Railyard partitions on their producers' TaskManagers, and a {@link
 * io.railyard.flink.RailyardShuffleEnvironment} on each TaskManager, which writes them with
 * Railyard's writers in one Railyard buffer pool, serves them with Railyard's data server and reads
 * them with Railyard's gates over TCP. What Railyard does not serve (pipelined partitions, or
 * everything, by {@link io.railyard.flink.PluginOptions}) goes to Flink's own Netty shuffle.
 *
 * <p>Threading: as Flink's shuffle services. The master is called on the JobManager's main thread;
 * an environment creates writers and gates on the TaskManager's RPC thread and releases partitions
 * on its main thread; each writer and gate is then used by its task's thread (buffers are recycled
 * from any thread). The environment's maps are concurrent; writers and gates are confined.
 */
@NullMarked
package io.railyard.flink;

import org.jspecify.annotations.NullMarked;
