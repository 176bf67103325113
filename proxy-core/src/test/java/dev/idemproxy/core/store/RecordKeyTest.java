package dev.idemproxy.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RecordKeyTest {

    @Test
    void theIdNamesEachKeyWithoutAmbiguityAndParsesBack() {
        List<RecordKey> keys = List.of(new RecordKey("a", "b", "c"), new RecordKey("a:1", "", "b"),
                new RecordKey("a", ":1b", ""), new RecordKey("", "", ""), new RecordKey("r\u00e9", "{s}", "k:{x}"));
        assertThat(keys.stream().map(RecordKey::id).distinct()).hasSize(keys.size());
        for (RecordKey k : keys) {
            assertThat(RecordKey.parse(k.id())).isEqualTo(k);
        }
    }
}
