package io.tarn.common.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway certificate authority and a certificate it signs, as the PEM files TLS
 * ({@code tarn.security.tls}) reads, made with the JDK's own {@code keytool}: for a local cluster
 * ({@code bin/tarn-compare --tls}) and tests. A production cluster uses its own authority's
 * certificates (docs/security.md shows how to make them with openssl).
 *
 * <p>Keys are EC P-256; the certificate names {@code localhost}, {@code 127.0.0.1} and the hosts
 * given, and is valid for {@code days}. The key file is written mode 0600.
 */
public final class LocalCertificates {
    private static final String PASSWORD = "tarn-local";

    /** The files made: the authority's certificate, a certificate it signed (then the authority's), its key. */
    public record Made(Path ca, Path cert, Path key) {
    }

    private LocalCertificates() {
    }

    /** A new authority in {@code dir} ({@code ca.pem}) and one certificate it signs for {@code name}. */
    public static Made make(Path dir, String name, int days, String... hosts) throws IOException {
        Files.createDirectories(dir);
        Path caStore = dir.resolve("ca.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=Tarn local authority", "-ext", "bc:c", "-validity", String.valueOf(days), "-keystore",
                caStore.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
        Path ca = dir.resolve("ca.pem");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", caStore.toString(), "-storepass", PASSWORD,
                "-file", ca.toString());
        return issue(dir, caStore, ca, name, days, hosts);
    }

    /** One more certificate, for {@code name}, signed by the authority {@link #make} wrote in {@code dir}. */
    public static Made issue(Path dir, String name, int days, String... hosts) throws IOException {
        return issue(dir, dir.resolve("ca.p12"), dir.resolve("ca.pem"), name, days, hosts);
    }

    private static Made issue(Path dir, Path caStore, Path ca, String name, int days, String... hosts)
            throws IOException {
        Path store = dir.resolve(name + ".p12");
        Files.deleteIfExists(store);
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-validity", String.valueOf(days), "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", PASSWORD);
        Path request = dir.resolve(name + ".csr");
        keytool("-certreq", "-alias", name, "-keystore", store.toString(), "-storepass", PASSWORD, "-file",
                request.toString());
        StringBuilder san = new StringBuilder("san=dns:localhost,ip:127.0.0.1");
        for (String h : hosts) {
            san.append(h.matches("[0-9.]+|.*:.*") ? ",ip:" : ",dns:").append(h);
        }
        Path signed = dir.resolve(name + ".crt");
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", caStore.toString(), "-storepass", PASSWORD,
                "-infile", request.toString(), "-outfile", signed.toString(), "-validity", String.valueOf(days),
                "-ext", san.toString(), "-ext", "ku:c=digitalSignature,keyAgreement", "-ext",
                "eku=serverAuth,clientAuth");
        Path cert = dir.resolve(name + ".pem");
        Files.writeString(cert, Files.readString(signed) + Files.readString(ca), StandardCharsets.US_ASCII);
        Path key = dir.resolve(name + ".key");
        writePrivateKey(store, name, key);
        Files.delete(request);
        Files.delete(signed);
        return new Made(ca, cert, key);
    }

    private static void writePrivateKey(Path store, String alias, Path out) throws IOException {
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD.toCharArray());
            Key k = ks.getKey(alias, PASSWORD.toCharArray());
            String pem = "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(k.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            Files.deleteIfExists(out);
            Files.createFile(out, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(out, pem, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the key keytool made in " + store + ": " + e.getMessage(), e);
        }
    }

    private static void keytool(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("keytool " + args[0] + " failed: " + out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while keytool ran", e);
        }
    }
}
