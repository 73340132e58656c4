package io.railyard.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Collections;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for a worker's data connections, on Netty's {@code SslHandler}: mutual TLS from one PKCS#12
 * key store that every worker of a deployment is given. Both ends present its private key's
 * certificate and trust only the certificates in it, so a peer without the key store cannot even
 * complete a connection; the job secret's proof still opens each stream. Host names are not
 * checked: workers connect by address and the shared trust store is the identity. A data server
 * sends its pages through the encrypting handler, so no byte counts as sent without a copy.
 * Immutable; thread-safe.
 */
public final class TransportTls {
    private final SslContext server;
    private final SslContext client;

    private TransportTls(SslContext server, SslContext client) {
        this.server = server;
        this.client = client;
    }

    /**
     * TLS from the PKCS#12 key store at {@code file} opened with {@code password}.
     *
     * @throws IllegalArgumentException in one line naming the file: it is missing, unreadable, not
     *     PKCS#12, the password is wrong, or it holds no private key
     */
    public static TransportTls fromKeyStore(Path file, char[] password) {
        KeyStore store;
        try (InputStream in = Files.newInputStream(file)) {
            store = KeyStore.getInstance("PKCS12");
            store.load(in, password);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("TLS key store " + file + " does not exist", e);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "TLS key store "
                            + file
                            + " cannot be opened (not PKCS#12, or a wrong password): "
                            + e.getMessage(),
                    e);
        }
        return of(store, password, file.toString());
    }

    /**
     * TLS from {@code store}, whose private keys are protected by {@code password}.
     *
     * @throws IllegalArgumentException if the store holds no private key, or it cannot be used
     */
    public static TransportTls of(KeyStore store, char[] password) {
        return of(store, password, "the key store");
    }

    private static TransportTls of(KeyStore store, char[] password, String name) {
        try {
            boolean hasKey = false;
            for (String alias : Collections.list(store.aliases())) {
                hasKey |= store.isKeyEntry(alias);
            }
            if (!hasKey) {
                throw new IllegalArgumentException(
                        "TLS key store " + name + " holds no private key (and its certificate)");
            }
            KeyManagerFactory keys =
                    KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            TrustManagerFactory trust =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SslContext server =
                    SslContextBuilder.forServer(keys)
                            .trustManager(trust)
                            .clientAuth(ClientAuth.REQUIRE)
                            .sslProvider(SslProvider.JDK)
                            .build();
            SslContext client =
                    SslContextBuilder.forClient()
                            .keyManager(keys)
                            .trustManager(trust)
                            .endpointIdentificationAlgorithm(null)
                            .sslProvider(SslProvider.JDK)
                            .build();
            return new TransportTls(server, client);
        } catch (GeneralSecurityException | SSLException e) {
            throw new IllegalArgumentException(
                    "TLS key store " + name + " cannot be used: " + e.getMessage(), e);
        }
    }

    /** A handler for a connection a data server accepted. */
    SslHandler serverHandler(ByteBufAllocator alloc) {
        return server.newHandler(alloc);
    }

    /** A handler for a connection to the data server at {@code peer}. */
    SslHandler clientHandler(ByteBufAllocator alloc, InetSocketAddress peer) {
        return client.newHandler(alloc, peer.getHostString(), peer.getPort());
    }

    @Override
    public String toString() {
        return "TransportTls[mutual, PKCS#12]";
    }
}
