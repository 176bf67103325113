package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {
    private static List<SseEvent> parse(byte[] stream, int... cuts) {
        SseParser p = new SseParser(1024);
        List<SseEvent> out = new ArrayList<>();
        int from = 0;
        for (int cut : cuts) {
            p.feed(stream, from, cut - from, out::add);
            from = cut;
        }
        p.feed(stream, from, stream.length - from, out::add);
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static SseEvent event(String type, String data, String id) {
        return new SseEvent(type, b(data), id);
    }

    @Test
    void eventsEndAtABlankLineWithCrlfLfOrCrLineEnds() {
        List<SseEvent> expected = List.of(event("message", "one", ""), event("message", "two", ""), event("message", "three", ""));

        assertThat(parse(b("data: one\n\ndata: two\r\n\r\ndata: three\r\r"))).isEqualTo(expected);
    }

    @Test
    void chunksSplitAnywhereGiveTheSameEvents() {
        byte[] stream = b(": keep-alive\r\nevent: message\r\nid: 7\r\ndata: {\"a\":\r\ndata: \"é\"}\r\n\r\ndata:x\r\n\r\n");
        List<SseEvent> whole = parse(stream);

        assertThat(whole).containsExactly(event("message", "{\"a\":\n\"é\"}", "7"), event("message", "x", "7"));
        for (int i = 0; i <= stream.length; i++) {
            assertThat(parse(stream, i)).as("cut at %d", i).isEqualTo(whole);
            for (int j = i; j <= stream.length; j += 7) {
                assertThat(parse(stream, i, j)).as("cuts at %d and %d", i, j).isEqualTo(whole);
            }
        }
    }

    @Test
    void aCrAtTheEndOfOneChunkAndALfAtTheStartOfTheNextAreOneLineEnd() {
        byte[] stream = b("data: a\r\n\r\ndata: b\r\n\r\n");
        int afterFirstCr = "data: a\r".length();

        assertThat(parse(stream, afterFirstCr)).containsExactly(event("message", "a", ""), event("message", "b", ""));
    }

    @Test
    void commentsFieldsWithoutValueAndUnknownFieldsAreHandledAsTheStandardSays() {
        assertThat(parse(b(":comment\ndata\ndata\n\n"))).containsExactly(event("message", "\n", ""));
        assertThat(parse(b("retry: 100\nfoo: bar\ndata:  two spaces\n\n"))).containsExactly(event("message", " two spaces", ""));
        assertThat(parse(b("event: ping\n\n"))).as("no data: no event").isEmpty();
        assertThat(parse(b("event: progress\ndata: 1\n\ndata: 2\n\n")))
                .containsExactly(event("progress", "1", ""), event("message", "2", ""));
    }

    @Test
    void theLastEventIdPersistsAcrossEventsAndIgnoresValuesWithNul() {
        SseParser p = new SseParser(1024);
        List<SseEvent> out = new ArrayList<>();

        p.feed(b("id: e1\n\n"), out::add);   // a priming event: no data, only an id
        p.feed(b("data: a\n\nid: e\u00002\ndata: b\n\nid\ndata: c\n\n"), out::add);

        assertThat(out).containsExactly(event("message", "a", "e1"), event("message", "b", "e1"), event("message", "c", ""));
        assertThat(p.lastEventId()).isEmpty();
    }

    @Test
    void anUnfinishedEventIsNotDispatched() {
        assertThat(parse(b("data: partial\n"))).isEmpty();
        assertThat(parse(b("data: partial"))).isEmpty();
    }

    @Test
    void aLeadingBomIsSkippedOnlyAtTheStart() {
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        byte[] stream = new byte[bom.length + 9];
        System.arraycopy(bom, 0, stream, 0, 3);
        System.arraycopy(b("data: a\n\n"), 0, stream, 3, 9);

        assertThat(parse(stream, 1, 2)).containsExactly(event("message", "a", ""));
        assertThat(parse(b("\u00EFdata: a\n\n"))).as("not a BOM: the bytes stay in the line").isEmpty();
    }

    @Test
    void oversizedEventsAreDroppedAndFlagged() {
        SseParser p = new SseParser(16);
        List<SseEvent> out = new ArrayList<>();

        p.feed(b("data: 0123456789abcdefXYZ\n\ndata: ok\n\ndata: 0123456789\ndata: 0123456789\n\n"), out::add);

        assertThat(out).containsExactly(event("message", "ok", ""));
        assertThat(p.overflowed()).isTrue();
    }
}
