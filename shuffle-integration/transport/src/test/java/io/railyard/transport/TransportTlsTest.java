package io.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.PartitionId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Connections over mutual TLS: exact records, a peer without the key store refused, bad stores. */
class TransportTlsTest {
    private static final char[] PASSWORD = "railyard-test".toCharArray();

    @TempDir Path dir;

    /**
     * TLS from a fresh key store (read from its file, which is then deleted: the leak detector
     * counts files a test leaves).
     */
    private TransportTls tls(String name) throws Exception {
        Path file = keyStore(name);
        try {
            return TransportTls.fromKeyStore(file, PASSWORD);
        } finally {
            Files.delete(file);
        }
    }

    /** A PKCS#12 key store file holding a fresh self-signed key pair and its certificate. */
    private Path keyStore(String name) throws Exception {
        X509Bundle bundle =
                new CertificateBuilder()
                        .subject("CN=" + name)
                        .setIsCertificateAuthority(true)
                        .buildSelfSigned();
        Path file = dir.resolve(name + ".p12");
        Files.move(bundle.toTempKeyStoreFile(PASSWORD).toPath(), file);
        return file;
    }

    @Test
    void overTls_everyRecordArrives_andNoByteCountsAsSentWithoutACopy() throws Exception {
        TransportTls tls = tls("workers");
        try (TwoWorkers rig = new TwoWorkers(dir, TransportOptions.DEFAULT.withTls(tls))) {
            List<PartitionId> ids = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                rig.write(PartitionKind.SORT, p, 2, 500);
                ids.add(new PartitionId(p, 0));
            }
            for (int s = 0; s < 2; s++) {
                try (InputGate gate = rig.open("c" + s, ids, s)) {
                    List<List<byte[]>> read = TwoWorkers.drain(gate);
                    for (int p = 0; p < 3; p++) {
                        assertThat(read.get(p))
                                .as("partition %s subpartition %s", p, s)
                                .containsExactlyElementsOf(TwoWorkers.records(p, s, 500));
                    }
                }
            }
            assertThat(rig.server.stats().bytesSent()).isPositive();
            assertThat(rig.server.stats().bytesSentWithoutCopy())
                    .as("TLS encrypts every byte into a new buffer")
                    .isZero();
            assertThat(rig.server.stats().refused()).isZero();
            assertThat(rig.readerPages()).isZero();
        }
    }

    @Test
    void aReaderWithAnotherKeyStore_isRefusedAtTheHandshake_inOneClearError() throws Exception {
        TransportTls workers = tls("workers");
        TransportTls stranger = tls("stranger");
        try (TwoWorkers rig = new TwoWorkers(dir, TransportOptions.DEFAULT.withTls(workers))) {
            assertThat(readFailure(rig, TransportOptions.DEFAULT.withTls(stranger), "intruder"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("TLS handshake with worker at")
                    .hasMessageContaining("failed");
            assertThat(rig.server.stats().streams()).as("streams opened").isZero();
            assertThat(rig.server.stats().bytesSent()).isZero();
        }
    }

    /**
     * A reader without TLS at a data server with it: a configuration error named as one, not a lost
     * worker (which would rerun producers for nothing).
     */
    @Test
    void aPlaintextReader_atATlsServer_isRefusedInOneClearError() throws Exception {
        try (TwoWorkers rig =
                new TwoWorkers(dir, TransportOptions.DEFAULT.withTls(tls("workers")))) {
            assertThat(readFailure(rig, TransportOptions.DEFAULT, "plaintext"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("requires TLS");
            assertThat(rig.server.stats().refused()).as("refused, counted").isEqualTo(1);
            assertThat(rig.server.stats().streams()).isZero();
        }
    }

    /**
     * Writes a partition at {@code rig}'s server and reads it with a client of {@code options} of
     * its own: what the read failed with (the test fails if it does not).
     */
    private static Throwable readFailure(TwoWorkers rig, TransportOptions options, String name)
            throws Exception {
        rig.write(PartitionKind.SORT, 0, 1, 10);
        try (TransportClient client =
                        new TransportClient(options, rig.reader.bufferPool(), TwoWorkers.OPTIONS);
                InputGate gate =
                        client.openGate(
                                name,
                                List.of(rig.server.address()),
                                List.of(new PartitionId(0, 0)),
                                0,
                                TwoWorkers.JOB,
                                rig.secret)) {
            return catchThrowable(() -> TwoWorkers.drain(gate));
        }
    }

    @Test
    void aKeyStoreThatCannotBeUsed_isNamedInOneLine() throws Exception {
        Path missing = dir.resolve("missing.p12");
        assertThatThrownBy(() -> TransportTls.fromKeyStore(missing, PASSWORD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("TLS key store " + missing + " does not exist");
        Path store = keyStore("workers");
        assertThatThrownBy(() -> TransportTls.fromKeyStore(store, "wrong".toCharArray()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("TLS key store " + store + " cannot be opened");
        Path garbage = Files.write(dir.resolve("garbage.p12"), new byte[] {1, 2, 3});
        assertThatThrownBy(() -> TransportTls.fromKeyStore(garbage, PASSWORD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("TLS key store " + garbage + " cannot be opened");
        Files.delete(store);
        Files.delete(garbage);
        java.security.KeyStore empty = java.security.KeyStore.getInstance("PKCS12");
        empty.load(null, PASSWORD);
        assertThatThrownBy(() -> TransportTls.of(empty, PASSWORD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds no private key");
    }
}
