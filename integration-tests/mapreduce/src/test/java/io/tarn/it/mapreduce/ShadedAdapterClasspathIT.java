package io.tarn.it.mapreduce;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;

import java.net.URL;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The class path the job tests run on is a Hadoop installation's plus the shaded adapter, and the
 * adapter stands on its own there: tarn:// resolves through its service file (no fs.tarn.impl),
 * Tarn's client classes come from the adapter jar, its Netty is relocated, and no server class or
 * unshaded Tarn jar is present. Guards the other tests in this module against passing for the
 * wrong reason.
 */
class ShadedAdapterClasspathIT {

    @Test
    void tarnSchemeResolvesToTheShadedJarThroughItsServiceFile() throws Exception {
        Configuration conf = new Configuration();
        assertThat(conf.get("fs.tarn.impl")).isNull();
        Class<?> fsClass = FileSystem.getFileSystemClass("tarn", conf);
        assertThat(fsClass.getName()).isEqualTo("io.tarn.hadoop.TarnFileSystem");

        URL adapterJar = jarOf(fsClass);
        assertThat(adapterJar.getPath()).contains("tarn-hdfs-adapter");
        assertThat(jarOf(Class.forName("io.tarn.client.TarnClient"))).isEqualTo(adapterJar);
        assertThat(jarOf(Class.forName("io.tarn.shaded.io.netty.channel.Channel"))).isEqualTo(adapterJar);
    }

    @Test
    void noTarnServerClassIsVisible() {
        assertThatThrownBy(() -> Class.forName("io.tarn.minicluster.MiniCluster"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("io.tarn.namenode.Namenode"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void hadoopKeepsItsOwnNetty() throws Exception {
        Class<?> hostNetty = Class.forName("io.netty.channel.Channel");
        assertThat(jarOf(hostNetty).getPath()).doesNotContain("tarn-hdfs-adapter");
    }

    private static URL jarOf(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation();
    }
}
