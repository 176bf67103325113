package dev.idemproxy.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MainTest {
    private String saved;

    @BeforeEach
    void save() {
        saved = System.getProperty(Main.LEAK_DETECTION);
    }

    @AfterEach
    void restore() {
        if (saved == null) {
            System.clearProperty(Main.LEAK_DETECTION);
        } else {
            System.setProperty(Main.LEAK_DETECTION, saved);
        }
    }

    @Test
    void leakDetectionIsOffUnlessTheOperatorAskedForIt() {
        System.clearProperty(Main.LEAK_DETECTION);
        Main.defaultLeakDetectionOff();
        assertThat(System.getProperty(Main.LEAK_DETECTION)).isEqualTo("disabled");
    }

    @Test
    void anExplicitLeakDetectionLevelIsKept() {
        System.setProperty(Main.LEAK_DETECTION, "simple");
        Main.defaultLeakDetectionOff();
        assertThat(System.getProperty(Main.LEAK_DETECTION)).isEqualTo("simple");
    }
}
