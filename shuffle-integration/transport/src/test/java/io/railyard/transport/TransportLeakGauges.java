package io.railyard.transport;

import io.railyard.testing.LeakGauge;

/**
 * The transport's gauges the leak detector checks after every test of this module (listed in {@code
 * META-INF/services/io.railyard.testing.LeakGauge}).
 */
public final class TransportLeakGauges {
    private TransportLeakGauges() {}

    /** TCP connections of data servers and clients still open. */
    public static final class Connections implements LeakGauge {
        @Override
        public String name() {
            return "transport connections open";
        }

        @Override
        public long value() {
            return OpenResources.connections();
        }
    }

    /** Event-loop groups not shut down. */
    public static final class EventLoopGroups implements LeakGauge {
        @Override
        public String name() {
            return "transport event-loop groups not shut down";
        }

        @Override
        public long value() {
            return OpenResources.eventLoopGroups();
        }
    }
}
