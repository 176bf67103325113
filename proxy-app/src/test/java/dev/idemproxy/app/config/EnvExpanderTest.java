package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvExpanderTest {
    private final EnvExpander expander = new EnvExpander(Map.of("HOST", "db.internal", "EMPTY", "", "PORT", "6379")::get);

    @Test
    void setVariablesAreSubstituted() {
        assertThat(expander.expand("redis://${HOST}:${PORT}/0").text()).isEqualTo("redis://db.internal:6379/0");
    }

    @Test
    void defaultsApplyWhenUnsetOrEmpty() {
        assertThat(expander.expand("${MISSING:-fallback}").text()).isEqualTo("fallback");
        assertThat(expander.expand("${EMPTY:-fallback}").text()).isEqualTo("fallback");
        assertThat(expander.expand("${HOST:-fallback}").text()).isEqualTo("db.internal");
        assertThat(expander.expand("${MISSING:-}").text()).isEmpty();
    }

    @Test
    void aSetButEmptyVariableWithoutDefaultIsEmpty() {
        assertThat(expander.expand("x${EMPTY}y").text()).isEqualTo("xy");
    }

    @Test
    void anUnsetVariableWithoutDefaultIsAnError() {
        EnvExpander.Expansion e = expander.expand("${MISSING}");

        assertThat(e.ok()).isFalse();
        assertThat(e.error()).isEqualTo("environment variable MISSING is not set");
    }

    @Test
    void doubleDollarEscapesAReference() {
        assertThat(expander.expand("$${HOST} costs $5").text()).isEqualTo("${HOST} costs $5");
    }

    @Test
    void malformedReferencesAreErrors() {
        assertThat(expander.expand("${HOST").error())
                .isEqualTo("unclosed ${ in '${HOST' (expected: ${NAME} or ${NAME:-default})");
        assertThat(expander.expand("${1X}").error())
                .isEqualTo("'${1X}' is not a variable reference (expected: ${NAME} or ${NAME:-default})");
    }

    @Test
    void textWithoutReferencesIsUnchanged() {
        assertThat(expander.expand("plain $ text {}").text()).isEqualTo("plain $ text {}");
        assertThat(EnvExpander.mentionsVariables("plain $ text")).isFalse();
    }
}
