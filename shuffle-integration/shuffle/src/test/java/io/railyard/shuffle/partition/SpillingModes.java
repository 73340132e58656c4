package io.railyard.shuffle.partition;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A test run once per hybrid kind that spills — {@link PartitionKind#HYBRID_FULL} and {@link
 * PartitionKind#HYBRID_SELECTIVE} — for tests where one thread drives the writer and the readers: a
 * {@link PartitionKind#PIPELINED} producer would wait for ever for a reader on the same thread
 * ({@link PipelinedPartitionTest} drives that kind with a thread per side).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest
@EnumSource(
        value = PartitionKind.class,
        names = {"HYBRID_FULL", "HYBRID_SELECTIVE"})
@interface SpillingModes {}
