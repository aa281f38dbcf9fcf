package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.tarn.common.config.ConfigException;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.security.KeyFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLException;

/**
 * TLS on a transport's connections ({@code tarn.security.tls}): Netty's {@link SslHandler} first in
 * every pipeline, with the certificate, key and trusted authorities from PEM files, read once when
 * the transport is made (a missing, unreadable or exposed file fails the process at start-up).
 *
 * <p>Servers show their certificate and, with {@code tarn.security.tls.client.auth}, require one from
 * every client; clients check the server's against {@code tarn.security.tls.ca} (the chain, not the
 * host name: the cluster's authority vouches for its members, which are named by address). With TLS
 * the bytes arrive through the TLS engine, so payloads are not placed straight into their
 * destination and the direct lane of blocking callers is not used: every byte is encrypted.
 */
final class TransportTls {
    private static final Logger LOG = LoggerFactory.getLogger(TransportTls.class);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    static final TransportTls OFF = new TransportTls(null, null, false);

    /** Null when TLS is off or this process has no certificate to serve with. */
    private final SslContext server;
    /** Null when TLS is off. */
    private final SslContext client;
    private final boolean on;

    private TransportTls(SslContext server, SslContext client, boolean on) {
        this.server = server;
        this.client = client;
        this.on = on;
    }

    static TransportTls of(TarnConfig config) {
        if (!config.get(TarnKeys.SECURITY_TLS)) {
            return OFF;
        }
        String ca = config.get(TarnKeys.SECURITY_TLS_CA);
        String cert = config.get(TarnKeys.SECURITY_TLS_CERT);
        String key = config.get(TarnKeys.SECURITY_TLS_KEY);
        if (ca.isEmpty()) {
            throw new ConfigException(TarnKeys.SECURITY_TLS + " = true needs " + TarnKeys.SECURITY_TLS_CA
                    + ": the PEM file of the certificate authorities the cluster's certificates come from");
        }
        if (cert.isEmpty() != key.isEmpty()) {
            throw new ConfigException("set both " + TarnKeys.SECURITY_TLS_CERT + " and " + TarnKeys.SECURITY_TLS_KEY
                    + ", or neither (a client without a certificate)");
        }
        File caFile = readable(ca, TarnKeys.SECURITY_TLS_CA.name());
        File certFile = cert.isEmpty() ? null : readable(cert, TarnKeys.SECURITY_TLS_CERT.name());
        File keyFile = key.isEmpty() ? null : readable(key, TarnKeys.SECURITY_TLS_KEY.name());
        if (keyFile != null) {
            try {
                KeyFile.checkOwnerOnly(keyFile.toPath(), "TLS key " + keyFile + " (" + TarnKeys.SECURITY_TLS_KEY + ")",
                        "make a new key and certificate");
            } catch (IOException e) {
                throw new ConfigException("cannot read TLS key " + keyFile + ": " + e.getMessage(), e);
            }
        }
        try {
            SslContext server = certFile == null ? null : SslContextBuilder.forServer(certFile, keyFile)
                    .trustManager(caFile).protocols(PROTOCOLS)
                    .clientAuth(config.get(TarnKeys.SECURITY_TLS_CLIENT_AUTH) ? ClientAuth.REQUIRE : ClientAuth.NONE)
                    .build();
            SslContextBuilder c = SslContextBuilder.forClient().trustManager(caFile).protocols(PROTOCOLS);
            if (certFile != null) {
                c.keyManager(certFile, keyFile);
            }
            return new TransportTls(server, c.build(), true);
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException("cannot set up TLS from " + TarnKeys.SECURITY_TLS_CERT + " = '" + cert + "', "
                    + TarnKeys.SECURITY_TLS_KEY + " = '" + key + "' and " + TarnKeys.SECURITY_TLS_CA + " = '" + ca
                    + "': " + e.getMessage() + " (PEM files: certificates, and a PKCS#8 key without a password)", e);
        }
    }

    private static File readable(String file, String configKey) {
        Path p = Path.of(file);
        if (!Files.isReadable(p)) {
            throw new ConfigException("cannot read " + configKey + " = '" + file + "': "
                    + (Files.exists(p) ? "permission denied" : "no such file"));
        }
        return p.toFile();
    }

    boolean on() {
        return on;
    }

    /** Refuses to serve without a certificate (ConfigException naming the keys). */
    void checkCanServe() {
        if (on && server == null) {
            throw new ConfigException(TarnKeys.SECURITY_TLS + " = true: a server needs " + TarnKeys.SECURITY_TLS_CERT
                    + " and " + TarnKeys.SECURITY_TLS_KEY);
        }
    }

    SslHandler serverHandler(ByteBufAllocator alloc) {
        return server.newHandler(alloc);
    }

    SslHandler clientHandler(ByteBufAllocator alloc, String host, int port) {
        return client.newHandler(alloc, host, port);
    }

    /** After a server's SslHandler: logs handshakes that failed (rate-limited), then steps aside. */
    static final class Refusals extends ChannelInboundHandlerAdapter {
        private final LogLimiter limiter;

        Refusals(LogLimiter limiter) {
            this.limiter = limiter;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof SslHandshakeCompletionEvent done) {
                if (!done.isSuccess()) {
                    long left = limiter.tryLog();
                    if (left >= 0) {
                        SocketAddress peer = ctx.channel().remoteAddress();
                        LOG.warn("TLS handshake with {} failed: {}{}", peer, done.cause().getMessage(),
                                left > 0 ? " (" + left + " similar lines left out)" : "");
                    }
                }
                ctx.pipeline().remove(this);
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // The handshake's failure is told above; the SslHandler closes the connection.
            if (!(cause instanceof SSLException || cause.getCause() instanceof SSLException)) {
                ctx.fireExceptionCaught(cause);
            }
        }
    }
}
