package io.tarn.hadoop;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import javax.xml.parsers.DocumentBuilderFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shaded jar the build made holds only Tarn's packages, refers to no server code and no
 * unrelocated Netty, JCTools or HdrHistogram, and still finds Netty's native transport when loaded
 * alone.
 */
class ShadedJarIT {
    private static Path jar;
    private static List<String> entries;

    @BeforeAll
    static void open() throws IOException, URISyntaxException {
        jar = Path.of(System.getProperty("tarn.test.shaded.jar", "")).toAbsolutePath();
        List<String> names = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            for (JarEntry e : Collections.list(j.entries())) {
                names.add(e.getName());
            }
        }
        entries = names;
    }

    @Test
    void theShadedJarIsTheModulesArtifact() {
        assertThat(jar.getFileName().toString()).endsWith(".jar").doesNotStartWith("original-");
        assertThat(Files.isRegularFile(jar)).isTrue();
    }

    @Test
    void everythingLivesUnderIoTarnOrMetaInf() {
        List<String> strays = entries.stream()
                .filter(n -> !n.endsWith("/"))
                .filter(n -> !n.startsWith("io/tarn/") && !n.startsWith("META-INF/"))
                .toList();
        assertThat(strays).isEmpty();
        assertThat(entries).filteredOn(n -> n.endsWith(".class")).allMatch(n -> n.startsWith("io/tarn/"));
    }

    @Test
    void carriesTheClientButNoServerOrToolCode() {
        assertThat(entries).contains("io/tarn/hadoop/TarnFileSystem.class", "io/tarn/client/TarnClient.class",
                "io/tarn/rpc/tcp/TcpTransport.class", "io/tarn/common/config/TarnKeys.class",
                "io/tarn/shaded/io/netty/buffer/ByteBuf.class",
                "io/tarn/shaded/org/jctools/queues/MpscUnboundedArrayQueue.class");
        assertThat(entries).noneMatch(n -> n.startsWith("io/tarn/client/minicluster/")
                || n.startsWith("io/tarn/client/cli/") || n.startsWith("io/tarn/namenode/")
                || n.startsWith("io/tarn/datanode/") || n.startsWith("io/tarn/minicluster/")
                || n.startsWith("io/tarn/tools/") || n.startsWith("picocli/"));
    }

    @Test
    void noClassRefersToServerCodeOrUnrelocatedLibraries() throws IOException {
        List<String> offending = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            for (JarEntry e : Collections.list(j.entries())) {
                if (!e.getName().endsWith(".class")) {
                    continue;
                }
                byte[] bytes;
                try (InputStream in = j.getInputStream(e)) {
                    bytes = in.readAllBytes();
                }
                for (String s : ClassFileStrings.of(bytes)) {
                    String unshaded = s.replace("io/tarn/shaded/", "");
                    boolean relocatedAway = !unshaded.equals(s);
                    if (s.contains("io/tarn/namenode/") || s.contains("io/tarn/datanode/")
                            || s.contains("io/tarn/minicluster/") || s.contains("io/tarn/tools/")
                            || s.contains("picocli/")
                            || (!relocatedAway && (s.contains("io/netty/") || s.contains("org/jctools/")
                                    || s.contains("org/HdrHistogram/")))) {
                        offending.add(e.getName() + " -> " + s);
                    }
                }
            }
        }
        assertThat(offending).isEmpty();
    }

    @Test
    void nettysNativeTransportIsRenamedToTheRelocatedPrefix() throws Exception {
        assertThat(entries).contains("META-INF/native/libio_tarn_shaded_netty_transport_native_epoll_x86_64.so");
        assertThat(entries).noneMatch(n -> n.startsWith("META-INF/native/libnetty"));
        if (System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64")) {
            // The jar alone, as a Hadoop or Spark installation loads it: nothing of this class path behind it.
            try (URLClassLoader alone = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                    ClassLoader.getPlatformClassLoader())) {
                Class<?> epoll = Class.forName("io.tarn.shaded.io.netty.channel.epoll.Epoll", true, alone);
                Object cause = epoll.getMethod("unavailabilityCause").invoke(null);
                assertThat(cause).as("native epoll through the relocated loader").isNull();
            }
        }
    }

    @Test
    void relocatedJctoolsQueueWorksFromTheJarAlone() throws Exception {
        // JCTools finds its fields by name through Unsafe: relocation must not break that.
        try (URLClassLoader alone = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            for (String name : new String[] {"io.tarn.shaded.org.jctools.queues.MpscUnboundedArrayQueue",
                    "io.tarn.shaded.org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue"}) {
                @SuppressWarnings("unchecked")
                java.util.Queue<Object> q = (java.util.Queue<Object>) Class.forName(name, true, alone)
                        .getConstructor(int.class).newInstance(16);
                for (int i = 0; i < 100; i++) {
                    assertThat(q.offer(i)).isTrue();
                }
                for (int i = 0; i < 100; i++) {
                    assertThat(q.poll()).as(name).isEqualTo(i);
                }
                assertThat(q.poll()).isNull();
            }
        }
    }

    @Test
    void registersTheFileSystemForItsScheme() throws IOException {
        try (JarFile j = new JarFile(jar.toFile());
             InputStream in = j.getInputStream(j.getEntry("META-INF/services/org.apache.hadoop.fs.FileSystem"))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim())
                    .isEqualTo(TarnFileSystem.class.getName());
        }
    }

    @Test
    void dependencyReducedPomKeepsNoShadedArtifact() throws Exception {
        Path pom = Path.of(System.getProperty("tarn.test.build.directory"), "dependency-reduced-pom.xml");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        Element dependencies = (Element) doc.getDocumentElement().getElementsByTagName("dependencies").item(0);
        List<String> runtime = new ArrayList<>();
        for (Node n = dependencies.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element dependency && dependency.getTagName().equals("dependency")) {
                String scope = childText(dependency, "scope");
                if (scope == null || scope.equals("compile") || scope.equals("runtime")) {
                    runtime.add(childText(dependency, "groupId") + ":" + childText(dependency, "artifactId"));
                }
            }
        }
        assertThat(runtime).as("what a consumer of the shaded jar inherits").isEmpty();
    }

    private static String childText(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                return e.getTextContent().trim();
            }
        }
        return null;
    }
}
