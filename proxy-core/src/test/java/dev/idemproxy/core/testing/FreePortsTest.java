package dev.idemproxy.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class FreePortsTest {

    @Test
    void picksDistinctBindablePorts() throws Exception {
        int[] ports = FreePorts.pick(3);
        assertThat(ports).hasSize(3).doesNotHaveDuplicates();
        assertThat(java.util.Arrays.stream(ports)).allMatch(p -> p > 0 && p < 65536);
        try (ServerSocket s = new ServerSocket(ports[0], 1, InetAddress.getLoopbackAddress())) {
            assertThat(s.getLocalPort()).isEqualTo(ports[0]);
        }
    }
}
