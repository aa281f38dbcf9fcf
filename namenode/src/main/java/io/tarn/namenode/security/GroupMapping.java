package io.tarn.namenode.security;

import io.tarn.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The groups a user belongs to, as the namenode sees them: from a mapping file
 * ({@code tarn.security.groups.file}) or, without one, from the namenode host's own accounts
 * ({@code id -Gn}, as Hadoop's shell-based mapping asks). A user unknown to the source has no groups.
 */
public interface GroupMapping {
    /** The user's groups; empty when the source does not know the user. Never throws. */
    List<String> groups(String user);

    /** From the host's accounts: {@code id -Gn -- user}, with a 5-second limit. */
    static GroupMapping shell() {
        return Shell.INSTANCE;
    }

    /**
     * From a file of lines {@code user: group, group}; blank lines and {@code #} comments are
     * skipped. Read once; a line that does not parse fails with the line's number.
     */
    static GroupMapping file(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException("cannot read the group mapping file " + file + ": " + e.getMessage());
        }
        Map<String, List<String>> map = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String text = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (text.isEmpty()) {
                continue;
            }
            int colon = text.indexOf(':');
            String user = colon < 0 ? "" : text.substring(0, colon).trim();
            if (user.isEmpty()) {
                throw new ConfigException(file + " line " + (i + 1) + ": expected 'user: group, group', got '"
                        + line + "'");
            }
            List<String> groups = new ArrayList<>();
            for (String g : text.substring(colon + 1).split("[,\\s]+")) {
                if (!g.isEmpty()) {
                    groups.add(g);
                }
            }
            map.put(user, List.copyOf(groups));
        }
        return user -> map.getOrDefault(user, List.of());
    }

    /** {@code id -Gn}: the groups of a host account. */
    final class Shell implements GroupMapping {
        static final Shell INSTANCE = new Shell();
        private static final Logger LOG = LoggerFactory.getLogger(GroupMapping.class);
        private static final long TIMEOUT_SECONDS = 5;

        private Shell() {
        }

        @Override
        public List<String> groups(String user) {
            if (user.isEmpty() || user.startsWith("-") || user.length() > 256) {
                return List.of();
            }
            Process p = null;
            try {
                p = new ProcessBuilder("id", "-Gn", "--", user).redirectErrorStream(true).start();
                p.getOutputStream().close();
                String out = readAll(p.getInputStream());
                if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    LOG.warn("'id -Gn {}' did not finish within {} s: no groups for {}", user, TIMEOUT_SECONDS, user);
                    return List.of();
                }
                if (p.exitValue() != 0) {
                    return List.of(); // no such user on this host
                }
                List<String> groups = new ArrayList<>();
                for (String g : out.trim().split("\\s+")) {
                    if (!g.isEmpty()) {
                        groups.add(g);
                    }
                }
                return List.copyOf(groups);
            } catch (IOException e) {
                LOG.warn("cannot run 'id -Gn {}': {}; no groups for {}", user, e.getMessage(), user);
                return List.of();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return List.of();
            } finally {
                if (p != null) {
                    p.destroy();
                }
            }
        }

        private static String readAll(InputStream in) throws IOException {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            byte[] chunk = new byte[512];
            int n;
            while ((n = in.read(chunk)) > 0 && buf.size() < 64 * 1024) {
                buf.write(chunk, 0, n);
            }
            return buf.toString(StandardCharsets.UTF_8);
        }
    }
}
