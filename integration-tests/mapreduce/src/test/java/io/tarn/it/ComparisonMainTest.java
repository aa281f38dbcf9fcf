package io.tarn.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The machine line says whether the guest kernel polls before halting an idle vCPU, when it can tell. */
class ComparisonMainTest {

    @Test
    void haltPollingIsReportedOffOrInMicroseconds(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("guest_halt_poll_ns");
        Files.writeString(file, "0\n");
        assertThat(ComparisonMain.haltPolling(file)).startsWith(", guest halt polling off");
        Files.writeString(file, "200000\n");
        assertThat(ComparisonMain.haltPolling(file)).isEqualTo(", guest halt polling 200 µs");
    }

    @Test
    void nothingIsSaidWhenTheSettingIsMissingOrUnreadable(@TempDir Path dir) throws IOException {
        assertThat(ComparisonMain.haltPolling(dir.resolve("absent"))).isEmpty();
        Path garbled = Files.writeString(dir.resolve("garbled"), "polling\n");
        assertThat(ComparisonMain.haltPolling(garbled)).isEmpty();
    }

    @Test
    void theMachineLineCarriesTheOptions() {
        assertThat(ComparisonMain.machine("--seconds 1")).startsWith("Measured ").endsWith("; options: --seconds 1");
    }
}
