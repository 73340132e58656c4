package io.railyard.shuffle.partition;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A test run once per hybrid mode that spills — {@link HybridPartition.Mode#FULL} and {@link
 * HybridPartition.Mode#SELECTIVE} — for tests where one thread drives the writer and the readers: a
 * {@link HybridPartition.Mode#PIPELINED} producer would wait for ever for a reader on the same
 * thread ({@link PipelinedPartitionTest} drives that mode with a thread per side).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest
@EnumSource(
        value = HybridPartition.Mode.class,
        names = {"FULL", "SELECTIVE"})
@interface SpillingModes {}
